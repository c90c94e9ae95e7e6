//! The host's side of the agent runtime: `HostTurns` tells a Session's turn
//! which Bot it runs for, its model route, its system prompt, its tools and
//! its working folder. The runtime itself (`Sessions`) is owned by `Host`.

use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::prompt::{PromptInput, system_prompt};
use flybot_agent::session::EndReason;
use flybot_agent::tools::{ToolContext, ToolSet};
use flybot_agent::turn::{TurnEnvironment, TurnSetup, Window};
use flybot_protocol::state::{Bot, TeamState};
use flybot_store::Store;
use std::path::PathBuf;
use std::sync::Arc;

/// Answers a turn's setup from the team.
pub struct HostTurns {
    pub store: Store,
    pub home: PathBuf,
    pub models: Arc<ProviderRegistry>,
    pub tools: ToolSet,
}

/// The Bot whose own chat is `session_id`.
pub fn bot_of_session<'a>(state: &'a TeamState, session_id: &str) -> Option<&'a Bot> {
    state.bots.values().find(|bot| bot.session_id == session_id)
}

impl TurnEnvironment for HostTurns {
    fn now_ms(&self) -> u64 {
        flybot_store::system_now_ms()
    }

    fn setup(&self, session_id: &str) -> Result<TurnSetup, EndReason> {
        let (bot, is_main, team, standing) = self
            .store
            .read(|state| {
                // A member's group Session runs for that Bot and carries the
                // room's standing section (#894).
                let (bot, standing) = match bot_of_session(state, session_id) {
                    Some(bot) => (bot.clone(), None),
                    None => {
                        let (bot_id, standing) =
                            crate::rooms::runner::standing_for(state, session_id)?;
                        (state.bots.get(&bot_id)?.clone(), Some(standing))
                    }
                };
                let is_main = state.main_bot_ids.contains(&bot.id);
                let team: Vec<String> = state
                    .bots
                    .values()
                    .filter(|b| b.id != bot.id && !b.hidden && !b.run)
                    .map(|b| b.name.clone())
                    .collect();
                Some((bot, is_main, team, standing))
            })
            .ok_or_else(|| EndReason::Blocked {
                reason: "This Session belongs to no Bot of the team.".to_owned(),
            })?;
        let route = self
            .models
            .route(&bot.model)
            .map_err(|e| EndReason::Error {
                code: e.code().to_owned(),
                message: e.to_string(),
            })?;
        let mut prompt = system_prompt(PromptInput {
            bot_name: &bot.name,
            is_main,
            instructions: &bot.instructions,
            team: &team,
        });
        if let Some(standing) = standing {
            prompt.push_str("\n\n");
            prompt.push_str(&standing);
        }
        let workdir = self.home.join("workspaces").join(&bot.id);
        Ok(TurnSetup {
            provider: Arc::new(route.retrying()),
            model: route.name.clone(),
            window: Window {
                context_tokens: route.context_window,
                reply_tokens: route
                    .max_output_tokens
                    .unwrap_or(4_096)
                    .min(route.context_window / 4),
            },
            thinking: None,
            system_prompt: prompt,
            tools: self.tools.clone(),
            tool_context: ToolContext::new(session_id, &bot.id, workdir),
            approver: None,
        })
    }
}

/// The runtime a host starts with.
pub fn sessions_for(store: &Store, config: &crate::HostConfig) -> flybot_agent::session::Sessions {
    let env = HostTurns {
        store: store.clone(),
        home: config.home.clone(),
        models: config.models.clone(),
        tools: ToolSet::default(),
    };
    flybot_agent::session::Sessions::new(config.home.clone(), Arc::new(env))
}

/// The work view (#546, #471, #353): the running turns and the ended turns of
/// the actor's own Bots, keyed by Bot.
pub fn work_view(
    sessions: &flybot_agent::session::Sessions,
    state: &TeamState,
    actor: &flybot_core::access::Actor,
) -> serde_json::Value {
    let own = |session_id: &str| {
        bot_of_session(state, session_id)
            .filter(|bot| flybot_core::access::may_manage_bot(actor, bot))
            .map(|bot| bot.id.clone())
    };
    let mut bots = serde_json::Map::new();
    for work in sessions.running_work() {
        if let Some(bot_id) = own(&work.session_id) {
            bots.insert(bot_id, serde_json::to_value(&work).unwrap_or_default());
        }
    }
    let ended: Vec<serde_json::Value> = sessions
        .ended_turns()
        .into_iter()
        .filter_map(|turn| {
            let bot_id = own(&turn.session_id)?;
            let mut value = serde_json::to_value(&turn).ok()?;
            value["botId"] = bot_id.into();
            Some(value)
        })
        .collect();
    serde_json::json!({"bots": bots, "ended": ended})
}

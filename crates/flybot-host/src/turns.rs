//! The host's side of the agent runtime: `HostTurns` tells a Session's turn
//! which Bot it runs for, its model route, its system prompt, its tools and
//! its working folder, and announces a turn's moves and its end on the bus
//! (the drive and the usage ledger follow them there). It holds only
//! services that never hold the runtime, so the runtime's environment and
//! the runtime make no circle.

pub(crate) mod approver;
mod reach;
mod team;
pub(crate) mod usage;
mod usage_catch_up;

use crate::board::Board;
use crate::events::HostEvent;
use crate::rooms::RoomLogs;
use crate::team::Team;
use crate::workflows::Workflows;
use crate::workflows::run_bot::step_tools;
use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::prompt::{PromptInput, system_prompt};
use flybot_agent::session::EndReason;
use flybot_agent::tools::team::{RecentLines, team_tools};
use flybot_agent::tools::workspace::{RunCommandApproval, workspace_tools};
use flybot_agent::tools::{Mask, TeamAccess, ToolContext, ToolEnv, ToolSet};
use flybot_agent::turn::{TurnEnvironment, TurnSetup, Window};
use flybot_core::rooms::group_questions::handed_from_group;
use flybot_core::roster::session_owner::{SessionOwner, session_owner};
use flybot_core::workflow::run_bot::{EPHEMERAL_DENIED_TOOLS, NOT_A_TEAM_MEMBER, run_bot_may_call};
use flybot_protocol::state::{Bot, TeamState};
use flybot_protocol::{FailureCode, tool_names};
use std::path::PathBuf;
use std::sync::Arc;

/// Answers a turn's setup from the team.
pub struct HostTurns {
    pub team: Team,
    pub home: PathBuf,
    pub models: Arc<ProviderRegistry>,
    pub tools: ToolSet,
    pub waits: approver::Waits,
    pub team_tools: Arc<dyn TeamAccess>,
    pub board: Board,
    pub workflows: Workflows,
    pub check_ratio: Option<f64>,
    pub compact_deadline_ms: u64,
    /// The scheduled tasks for the schedule tools (#354, #628).
    pub schedules: crate::schedules::ScheduleBook,
    /// The memory service, with the host's one recall cache.
    pub memory: crate::memory::Memory,
    /// The owner's saved keys for the shell and the secrets tools (#545).
    pub secrets: crate::secrets::Secrets,
    /// The owner's connectors, whose tools each turn mounts (#311).
    pub connectors: crate::connectors::Connectors,
    /// How a person's images reach a model that sees them (issue 32).
    pub attachments: crate::attachments::AttachmentConfig,
    /// The default model, first on the OCR route (#779).
    pub default_model: String,
}

/// The services a host's turns reach, handed to [`HostTurns::new`].
pub(crate) struct TurnServices<'a> {
    pub logs: &'a Arc<RoomLogs>,
    pub board: &'a Board,
    pub workflows: &'a Workflows,
    pub waits: &'a approver::Waits,
    pub schedules: &'a crate::schedules::ScheduleBook,
    pub secrets: &'a crate::secrets::Secrets,
    pub connectors: &'a crate::connectors::Connectors,
    pub social: &'a crate::social::Social,
}

impl HostTurns {
    /// The environment of a host's turns, from every service they use.
    pub(crate) fn new(
        team: &Team,
        config: &crate::HostConfig,
        services: TurnServices<'_>,
    ) -> HostTurns {
        let TurnServices {
            logs,
            board,
            workflows,
            waits,
            schedules,
            secrets,
            connectors,
            social,
        } = services;
        HostTurns {
            team: team.clone(),
            home: config.home.clone(),
            models: config.models.clone(),
            tools: all_tools(),
            waits: waits.clone(),
            team_tools: Arc::new(team::HostTeam {
                team: team.clone(),
                home: config.home.clone(),
                logs: logs.clone(),
                recent: RecentLines::default(),
                models: config.models.clone(),
                attachments: config.attachments.clone(),
                social: social.clone(),
            }),
            board: board.clone(),
            workflows: workflows.clone(),
            check_ratio: config.check_ratio,
            compact_deadline_ms: config.compact_deadline_ms,
            schedules: schedules.clone(),
            memory: crate::memory::Memory::new(team, &config.home),
            secrets: secrets.clone(),
            connectors: connectors.clone(),
            attachments: config.attachments.clone(),
            default_model: config.default_model.clone(),
        }
    }
}

impl HostTurns {
    /// A person's images as the route's model takes them (issue 32, #779):
    /// request parts for a model that declares image input and that
    /// `textOnlyModels` does not override, the placeholder and reading for
    /// any other.
    fn image_parts(
        &self,
        route: &flybot_agent::model::config::ModelRoute,
    ) -> Option<Arc<dyn flybot_agent::model::ImageParts>> {
        let overridden = self.attachments.text_only_models.contains(&route.name);
        Some(Arc::new(crate::attachments::picture::HomeImages {
            team: self.team.clone(),
            home: self.home.clone(),
            max_side: self.attachments.image_max_side,
            sees: route.image_input && !overridden,
            models: self.models.clone(),
            default_model: self.default_model.clone(),
            config: self.attachments.clone(),
        }) as Arc<dyn flybot_agent::model::ImageParts>)
    }

    /// The services a turn's tools reach, for `bot_id` in `session_id`.
    fn tool_context(&self, session_id: &str, bot_id: &str, workdir: PathBuf) -> ToolContext {
        use flybot_agent::tools::workflow::WorkflowAccess;
        use flybot_agent::tools::{memory::MemoryAccess, schedules::ScheduleAccess};
        use flybot_agent::tools::{secrets::SecretAccess, track_tasks::TaskAccess};
        let mut tool_context = ToolContext::new(session_id, bot_id, workdir);
        tool_context.env = ToolEnv::default()
            .with::<dyn TeamAccess>(self.team_tools.clone())
            .with::<dyn TaskAccess>(Arc::new(crate::board::HostTasks {
                board: self.board.clone(),
            }))
            .with::<dyn WorkflowAccess>(Arc::new(crate::workflows::tools::HostWorkflows {
                workflows: self.workflows.clone(),
            }))
            .with::<dyn MemoryAccess>(Arc::new(crate::memory::HostMemoryTools {
                memory: self.memory.clone(),
            }))
            .with::<dyn ScheduleAccess>(Arc::new(crate::schedules::tools::HostSchedules {
                book: self.schedules.clone(),
            }))
            .with::<dyn SecretAccess>(Arc::new(self.secrets.clone()));
        tool_context
    }

    /// The steward's settings and the Bot's pinned memory for one turn; the
    /// steward asks on the route's own provider with its own retries.
    fn context_setup(
        &self,
        bot: &Bot,
        route: &flybot_agent::model::config::ModelRoute,
    ) -> flybot_agent::context::ContextSetup {
        let pinned = self
            .memory
            .pinned(&bot.id)
            .map_err(|e| tracing::warn!("the pinned memory of {} is unreadable: {e}", bot.id))
            .ok();
        flybot_agent::context::ContextSetup {
            pinned,
            check_ratio: self.check_ratio,
            compact_deadline: std::time::Duration::from_millis(self.compact_deadline_ms),
            steward_provider: Some(route.provider.clone()),
        }
    }
}

/// The Bot a Session runs for: its own chat, or its seat in a room; for a
/// Session of a deleted Bot, the Bot it worked for (#1453).
pub(crate) fn bot_id_of_session(state: &TeamState, session_id: &str) -> Option<String> {
    session_owner(state, session_id).bot_id().map(str::to_owned)
}

/// The GitHub connector's tools' prefix.
const GITHUB_TOOLS: &str = "mcp__github__";
/// The Bot rule when the GitHub connector is mounted (#311).
const PREFER_GITHUB_CONNECTOR: &str = "\n\nFor GitHub, use the GitHub connector tools (mcp__github__*) first; use $FLYBOT_SECRET_GITHUB_TOKEN with gh or git in run_command only for what they cannot do, such as git push.";

/// Every tool a Bot's turn may call. `run_command` asks the owner before
/// every run (`EveryRun`): a command can do anything the host's user can
/// inside and beyond the folder (network, processes), so a person decides
/// each time unless they grant it standing (#540). A run Bot cannot show an
/// approval card, so its asks are rejected at once, and its mask guards
/// `run_command` outright with a sentence that says why.
fn all_tools() -> ToolSet {
    let mut tools = team_tools();
    tools.extend(workspace_tools(RunCommandApproval::EveryRun));
    tools.push(Arc::new(flybot_agent::tools::track_tasks::TrackTasks));
    tools.extend(flybot_agent::tools::workflow::workflow_tools());
    tools.extend(flybot_agent::tools::memory::memory_tools());
    tools.extend(flybot_agent::tools::schedules::schedule_tools());
    tools.extend(flybot_agent::tools::secrets::secret_tools());
    ToolSet::new(tools)
}

/// The mask of `bot`'s turns: a run Bot is offered exactly what its node
/// grants (#1445: the read-only list, its card's `track_tasks`, the tools
/// and the shell its node names) and every other call is refused with the
/// core rule's sentence; a room's member turn carries no schedule tool
/// (#1237); `record_decision` is offered only to a Bot that opted in (#396).
fn mask_for(tools: &ToolSet, bot: &Bot, room_seat: bool) -> Mask {
    let mut mask = Mask::default();
    // A schedule belongs to a Session (#628): a room's member turn carries
    // none of the schedule tools, and a call is refused with why (#1237).
    if room_seat {
        for name in tool_names::SCHEDULE_TOOLS {
            mask.restrict.insert(name.to_owned());
            mask.guard.insert(
                name.to_owned(),
                flybot_core::schedules::sentences::NOT_IN_ROOM.to_owned(),
            );
        }
    }
    let offered = tools.offered_names();
    if bot.run {
        let step = step_tools(bot);
        // A connector's tools are judged by the connector rule (#1555).
        let own = offered
            .iter()
            .filter(|n| !n.starts_with(flybot_core::connectors::PREFIX));
        for name in own {
            if let Err(why) = run_bot_may_call(name, &step) {
                mask.restrict.insert(name.clone());
                mask.guard.insert(name.clone(), why);
            }
        }
        // Every tool whose effect reaches past its own Session (#1445).
        for name in EPHEMERAL_DENIED_TOOLS {
            mask.guard
                .insert(name.to_owned(), NOT_A_TEAM_MEMBER.to_owned());
        }
    }
    if !bot.records_decisions() {
        mask.restrict.insert(tool_names::RECORD_DECISION.to_owned());
    }
    mask.restrict.retain(|name| offered.contains(name));
    mask
}

/// The Bot whose own chat is `session_id`.
pub fn bot_of_session<'a>(state: &'a TeamState, session_id: &str) -> Option<&'a Bot> {
    state.bots.values().find(|bot| bot.session_id == session_id)
}

/// Why a Session has no Bot to run for: its Bot was deleted (#1453), or it
/// never had one.
fn no_bot_reason(state: &TeamState, session_id: &str) -> String {
    match session_owner(state, session_id) {
        SessionOwner::Retired { .. } => {
            "The Bot this Session worked for was deleted; it runs no more turns.".to_owned()
        }
        SessionOwner::Live { .. } | SessionOwner::Unknown => {
            "This Session belongs to no Bot of the team.".to_owned()
        }
    }
}

impl TurnEnvironment for HostTurns {
    fn now_ms(&self) -> u64 {
        flybot_store::system_now_ms()
    }

    fn changed(&self, session_id: &str) {
        self.team.emit(HostEvent::Work {
            session_id: session_id.to_owned(),
        });
    }

    fn text_delta(&self, session_id: &str, turn_id: &str, text: &str) {
        self.team.emit(HostEvent::TextDelta {
            session_id: session_id.to_owned(),
            turn_id: turn_id.to_owned(),
            text: text.to_owned(),
        });
    }

    fn setup(&self, session_id: &str) -> Result<TurnSetup, EndReason> {
        let (bot, is_main, team, standing) = self
            .team
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
                // Only the Bots its owner may see (issue 29).
                let team = flybot_core::roster::team_list::team_names(state, &bot);
                Some((bot, is_main, team, standing))
            })
            .ok_or_else(|| EndReason::Blocked {
                reason: self.team.read(|state| no_bot_reason(state, session_id)),
            })?;
        let route = self
            .models
            .route(&bot.model)
            .map_err(|e| EndReason::Error {
                code: e.code(),
                message: e.to_string(),
            })?;
        let room_seat = standing.is_some();
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
        let workdir =
            flybot_store::workspaces::bot_workspace(&self.home, &bot.id).map_err(|e| {
                tracing::warn!("the working folder of {} could not be made: {e}", bot.id);
                EndReason::Error {
                    code: FailureCode::Workspace,
                    message: "The Bot's working folder could not be made on this host.".to_owned(),
                }
            })?;
        let mut tools = self.tools.clone().with(self.connectors.tools());
        let mut mask = mask_for(&tools, &bot, room_seat);
        // The connector tools' guard and mask (#601, #1234, #1237, #1555).
        let offered = tools.offered_names();
        let denied = self
            .team
            .read(|state| flybot_core::connectors::denied(state, &bot, room_seat, &offered));
        for (name, why) in denied {
            mask.restrict.insert(name.clone());
            mask.guard.insert(name, why);
        }
        if offered.iter().any(|n| n.starts_with(GITHUB_TOOLS)) {
            prompt.push_str(PREFER_GITHUB_CONNECTOR);
        }
        if let Err(e) = tools.rebuild_mask(|| Ok(mask)) {
            // The previous (empty) mask cannot stand for a run Bot: refuse.
            tracing::warn!("the tool mask of {} could not be built: {e}", bot.id);
            return Err(EndReason::Blocked {
                reason: "The Bot's tool list could not be built.".to_owned(),
            });
        }
        let tool_context = self.tool_context(session_id, &bot.id, workdir);
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
            thinking: bot.thinking,
            system_prompt: prompt,
            tools,
            tool_context,
            approver: Some(Arc::new(approver::HostApprover {
                team: self.team.clone(),
                waits: self.waits.clone(),
            })),
            context: self.context_setup(&bot, &route),
            images: self.image_parts(&route),
        })
    }

    fn admit(&self, session_id: &str, item: &flybot_agent::session::InboxItem) -> bool {
        self.team
            .read(|state| reach::admits(state, session_id, item))
    }

    fn turn_ended(&self, session_id: &str, turn_id: &str) {
        self.team.emit(HostEvent::TurnEnded {
            session_id: session_id.to_owned(),
            turn_id: turn_id.to_owned(),
        });
    }
}

/// One ended turn as the work view lists it (#353): of the actor's own
/// Bots, in its own chat (`sessionId`) or in a group (`roomId`, the member's
/// group Session left out).
fn ended_entry(
    state: &TeamState,
    actor: &flybot_core::access::Actor,
    turn: flybot_agent::session::work::EndedTurn,
) -> Option<serde_json::Value> {
    let (bot, room) = match bot_of_session(state, &turn.session_id) {
        Some(bot) => (bot, None),
        None => {
            let room = state
                .rooms
                .values()
                .find(|r| r.sessions.values().any(|s| *s == turn.session_id))?;
            let bot_id = room
                .sessions
                .iter()
                .find(|(_, s)| **s == turn.session_id)
                .map(|(bot, _)| bot)?;
            (state.bots.get(bot_id)?, Some(room.id.clone()))
        }
    };
    if !flybot_core::access::may_manage_bot(actor, bot) {
        return None;
    }
    let mut value = serde_json::to_value(&turn).ok()?;
    value["botId"] = bot.id.clone().into();
    if let (Some(room_id), Some(object)) = (room, value.as_object_mut()) {
        object.remove("sessionId");
        object.insert("roomId".into(), room_id.into());
    }
    Some(value)
}

/// The work view (#546, #471, #353): the running turns and the ended turns of
/// the actor's own Bots, keyed by Bot; a running turn of work a group handed
/// out carries that group as `fromRoomId` (#553).
pub fn work_view(
    sessions: &flybot_agent::session::Sessions,
    state: &TeamState,
    actor: &flybot_core::access::Actor,
) -> serde_json::Value {
    let own = |session_id: &str| {
        bot_of_session(state, session_id)
            .filter(|bot| flybot_core::visibility::own_chat_open(state, actor, bot))
            .map(|bot| bot.id.clone())
    };
    let mut bots = serde_json::Map::new();
    for work in sessions.running_work() {
        if let Some(bot_id) = own(&work.session_id) {
            let mut value = serde_json::to_value(&work).unwrap_or_default();
            // #553: an own-chat turn running work a group member handed out
            // with message_bot carries that group while the rule holds.
            let from_room = work.handed.as_ref().and_then(|h| {
                handed_from_group(state, &bot_id, &h.room_id, &h.sender_bot_id, h.hops)
            });
            if let Some(handed) = from_room {
                value["fromRoomId"] = handed.room_id.into();
            }
            bots.insert(bot_id, value);
        }
    }
    let ended: Vec<serde_json::Value> = sessions
        .ended_turns()
        .into_iter()
        .filter_map(|turn| ended_entry(state, actor, turn))
        .collect();
    // #553: the cards handed out from a group, per Bot; a running turn
    // working one carries the room it came from.
    let handed = crate::board::handed::handed_out(state, |bot| {
        flybot_core::access::may_manage_bot(actor, bot)
    });
    for (bot_id, work) in bots.iter_mut() {
        if work.get("fromRoomId").is_some() {
            continue;
        }
        if let Some(room_id) = crate::board::handed::from_room(&handed, bot_id) {
            work["fromRoomId"] = room_id.into();
        }
    }
    serde_json::json!({"bots": bots, "ended": ended, "handed": handed})
}

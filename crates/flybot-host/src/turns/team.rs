//! `HostTeam`: the host as the team tools see it (`TeamAccess`): the store,
//! the room logs a Bot posts into, fresh ids, `bot.created`, and
//! the process-local dedupe of repeated Bot-to-Bot lines (#641), and the
//! core `reach()` verdict every send asks (#90), the attachments of a
//! Bot's own conversation (`read_attachment`, issue 32), and a Bot's line
//! to a friend's Bot over Bot Social (issue 33), or to a Bot an invite
//! link seated, in its room (#923).

use crate::events::HostEvent;
use crate::rooms::RoomLogs;
use crate::team::Team;
use flybot_agent::tools::team::RecentLines;
use flybot_agent::tools::{BoxFuture, TeamAccess};
use flybot_core::rooms::log::RoomLine;
use flybot_core::rooms::reach::{Send as ReachSend, Verdict, reach};
use flybot_protocol::state::Bot;
use flybot_store::Store;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(crate) struct HostTeam {
    pub team: Team,
    pub home: PathBuf,
    pub logs: Arc<RoomLogs>,
    pub recent: RecentLines,
    /// The models the host runs, for `create_bot` and `update_bot`, and
    /// the default model, first on the OCR route (#779).
    pub models: Arc<flybot_agent::model::config::ProviderRegistry>,
    /// How attachments reach a model, for `read_attachment`.
    pub attachments: crate::attachments::AttachmentConfig,
    /// Bot Social: a Bot's line to a friend's Bot (issue 33).
    pub social: crate::social::Social,
}

impl TeamAccess for HostTeam {
    fn store(&self) -> &Store {
        self.team.store()
    }
    fn message_friend_bot<'a>(
        &'a self,
        from_bot: &'a str,
        name: &'a str,
        text: &'a str,
    ) -> BoxFuture<'a, Option<Result<String, String>>> {
        Box::pin(async move {
            if let Some(sent) = self.social.bot_send(from_bot, name, text).await {
                return Some(sent);
            }
            // #923: a Bot a link seated is reached in its room, by its pair.
            let judged = self.team.read(|state| {
                crate::social::invite_links::direct::judge(state, from_bot, name, text)
            })?;
            Some(judged.and_then(|posting| {
                let room = &posting.room_id;
                match self.logs.post_bot_line(room, from_bot, &posting.line, 1, false) {
                    Ok(_) => Ok(format!(
                        "Sent to {} in the room its invite link opened; its answer comes to that room.",
                        posting.label
                    )),
                    Err(e) => {
                        tracing::warn!("a line to a link's seat in {room} could not be logged: {e}");
                        Err("The room could not take the line; try again.".to_owned())
                    }
                }
            }))
        })
    }
    fn home(&self) -> &Path {
        &self.home
    }
    fn new_id(&self, prefix: &str) -> String {
        crate::ids::new_id(prefix)
    }
    fn models(&self) -> Vec<String> {
        self.models.names()
    }
    fn bot_created(&self, bot: &Bot) {
        if bot.run {
            return;
        }
        self.team.emit(HostEvent::BotCreated {
            bot_id: bot.id.clone(),
            owner_id: bot.owner_id.clone(),
        });
    }
    fn decision_recorded(&self, entry: &serde_json::Value) {
        let text = |key: &str| {
            entry
                .get(key)
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        self.team.emit(HostEvent::Decision {
            bot_id: text("botId"),
            session_id: text("sessionId"),
            entry: entry.clone(),
        });
    }
    fn recent_lines(&self) -> &RecentLines {
        &self.recent
    }
    fn reach(&self, send: &ReachSend) -> Verdict {
        self.team.read(|state| reach(state, send))
    }
    fn hold_send<'a>(
        &'a self,
        from_bot: &'a str,
        to_bot: &'a str,
        text: &'a str,
        hop: u32,
        task_id: Option<&'a str>,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            crate::rooms::hold::hold_send(&self.team, from_bot, to_bot, text, hop, task_id)
                .await
                .map_err(|e| e.message)
        })
    }
    fn post_to_group(
        &self,
        room_id: &str,
        bot_id: &str,
        text: &str,
        hop: u32,
        report_back: bool,
    ) -> Result<u64, String> {
        // A face-to-face room this home left or its maker closed takes no
        // line (#476), a Bot's post no more than its owner's.
        let room = self.team.read(|s| s.rooms.get(room_id).cloned());
        if let Some(Err(refusal)) = room.map(|r| crate::social::face_to_face::refuse_ended(&r)) {
            return Err(refusal.message);
        }
        self.logs
            .post_bot_line(room_id, bot_id, text, hop, report_back)
            .map_err(|e| {
                tracing::warn!("post_to_group into {room_id} could not be logged: {e}");
                "The group could not take the line; try again.".to_owned()
            })
    }

    fn group_lines(&self, room_id: &str) -> Result<Vec<RoomLine>, String> {
        self.logs.lines(room_id).map_err(|e| {
            tracing::warn!("the lines of {room_id} could not be read: {e}");
            "The group's lines could not be read; try again.".to_owned()
        })
    }

    fn read_attachment<'a>(
        &'a self,
        session_id: &'a str,
        bot_id: &'a str,
        id: &'a str,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let default_model = self.models.default_model();
            let readers = crate::attachments::reading::Readers {
                home: &self.home,
                models: &self.models,
                default_model: &default_model,
                config: &self.attachments,
            };
            crate::attachments::bot_read::read_for_bot(&self.team, &readers, session_id, bot_id, id)
                .await
        })
    }

    fn attach_file<'a>(
        &'a self,
        session_id: &'a str,
        bot_id: &'a str,
        workdir: &'a Path,
        path: &'a str,
    ) -> BoxFuture<'a, Result<flybot_protocol::attachment::AttachmentShown, String>> {
        Box::pin(crate::attachments::bot_attach::attach_for_bot(
            &self.team,
            &self.home,
            &self.attachments,
            session_id,
            bot_id,
            workdir,
            path,
        ))
    }
}

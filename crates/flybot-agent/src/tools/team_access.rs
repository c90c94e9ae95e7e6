//! `TeamAccess`: what the team tools may reach of the running host. The host
//! implements it over its store and its event bus (the Sessions come with
//! the turn's `ToolContext`); the agent
//! crate never names the host. The rules the team tools enforce (reach, hop
//! and unread limits, dedupe, retirement) live with the tools, so a test can
//! run them on a plain store.

use crate::tools::BoxFuture;
use crate::tools::team::RecentLines;
use flybot_core::rooms::reach::{Send as ReachSend, Verdict};
use flybot_protocol::state::Bot;
use flybot_store::Store;
use std::path::Path;

/// The host as the team tools see it.
pub trait TeamAccess: Send + Sync {
    /// The team's store: reads, and changes through `Store::mutate`.
    fn store(&self) -> &Store;
    /// The home folder (`decisions.jsonl`).
    fn home(&self) -> &Path;
    /// A fresh record id with `prefix` (`bot`, `session`).
    fn new_id(&self, prefix: &str) -> String;
    /// The model names the host runs (the mock and config.toml's models):
    /// a Bot is made on or moved to one of these only (issue 29).
    fn models(&self) -> Vec<String>;
    /// Announces a Bot a team tool made (`bot.created`); never for a run Bot.
    fn bot_created(&self, bot: &Bot);
    /// Announces a decision `record_decision` wrote (`decision` on the live
    /// stream, #396), once its line is in `decisions.jsonl`.
    fn decision_recorded(&self, entry: &serde_json::Value);
    /// The process-local dedupe of repeated Bot-to-Bot lines (#641).
    fn recent_lines(&self) -> &RecentLines;
    /// The owner policy's verdict on a send, judged by the host with the
    /// core `reach()` (#90, #948, #1126) on the team as it is now.
    fn reach(&self, send: &ReachSend) -> Verdict;
    /// Posts `text` as `bot_id`'s own line in `room_id` at `hop` and opens
    /// a round there (or queues it for the next one) (#557); `report_back`
    /// sends the round's closing report to the poster's chat (#913). `Err` is the
    /// sentence the Bot is told.
    /// Holds `from_bot`'s message to another owner's Bot `to_bot` at `hop`
    /// for the sender's owner's approval (#52, #754); answers the request
    /// id. `task_id` is the card the send names (`meta.taskId`), which the
    /// hold blocks; `None` blocks no card (#54, #207). `Err` is the
    /// sentence the Bot is told.
    fn hold_send<'a>(
        &'a self,
        from_bot: &'a str,
        to_bot: &'a str,
        text: &'a str,
        hop: u32,
        task_id: Option<&'a str>,
    ) -> BoxFuture<'a, Result<String, String>>;
    fn post_to_group(
        &self,
        room_id: &str,
        bot_id: &str,
        text: &str,
        hop: u32,
        report_back: bool,
    ) -> Result<u64, String>;
    /// The stored lines of `room_id`, oldest first (#1203). `Err` is the
    /// sentence the Bot is told.
    fn group_lines(&self, room_id: &str) -> Result<Vec<flybot_core::rooms::log::RoomLine>, String>;
    /// Sends `from_bot`'s line to the friend's Bot that `name` names (its
    /// label, #967) over Bot Social (issue 33). `None` when no friend's
    /// Bot answers to `name`; else `Ok` the sentence the Bot is told, or
    /// `Err` the refusal's.
    fn message_friend_bot<'a>(
        &'a self,
        _from_bot: &'a str,
        _name: &'a str,
        _text: &'a str,
    ) -> BoxFuture<'a, Option<Result<String, String>>> {
        Box::pin(async { None })
    }
    /// The attachment `id` as text for the Bot `bot_id` speaking in
    /// `session_id` (`read_attachment`, issue 32). `Err` is the sentence
    /// the Bot is told: the same for an unknown id and one it may not read.
    fn read_attachment<'a>(
        &'a self,
        _session_id: &'a str,
        _bot_id: &'a str,
        _id: &'a str,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async { Err("Attachments are not available here.".to_owned()) })
    }
    /// Stores the file at `path` inside `workdir` (the Bot's own
    /// workspace) as an attachment of `bot_id`'s answer in `session_id`
    /// (`attach_file`, issue 32). `Err` is the one sentence the Bot is
    /// told; nothing is stored then.
    fn attach_file<'a>(
        &'a self,
        _session_id: &'a str,
        _bot_id: &'a str,
        _workdir: &'a Path,
        _path: &'a str,
    ) -> BoxFuture<'a, Result<flybot_protocol::attachment::AttachmentShown, String>> {
        Box::pin(async { Err("Attachments are not available here.".to_owned()) })
    }
}

//! `HostTeam`: the host as the team tools see it (`TeamAccess`): the store,
//! the Sessions (through the late host link), fresh ids, `bot.created`, and
//! the process-local dedupe of repeated Bot-to-Bot lines (#641), and the
//! core `reach()` verdict every send asks (#90).

use crate::host::{HostEvent, HostLink};
use flybot_agent::session::Sessions;
use flybot_agent::tools::team::RecentLines;
use flybot_agent::tools::{BoxFuture, TeamAccess};
use flybot_core::rooms::reach::{Send as ReachSend, Verdict, reach};
use flybot_protocol::state::Bot;
use flybot_store::Store;
use std::path::{Path, PathBuf};

pub(crate) struct HostTeam {
    pub store: Store,
    pub home: PathBuf,
    pub link: HostLink,
    pub recent: RecentLines,
}

impl TeamAccess for HostTeam {
    fn store(&self) -> &Store {
        &self.store
    }
    fn sessions(&self) -> Option<Sessions> {
        self.link.host().map(|host| host.sessions().clone())
    }
    fn home(&self) -> &Path {
        &self.home
    }
    fn new_id(&self, prefix: &str) -> String {
        crate::ids::new_id(prefix)
    }
    fn bot_created(&self, bot: &Bot) {
        if bot.run {
            return;
        }
        if let Some(host) = self.link.host() {
            host.emit(HostEvent::BotCreated {
                bot_id: bot.id.clone(),
                owner_id: bot.owner_id.clone(),
            });
        }
    }
    fn recent_lines(&self) -> &RecentLines {
        &self.recent
    }
    fn reach(&self, send: &ReachSend) -> Verdict {
        self.store.read(|state| reach(state, send))
    }
    fn hold_send<'a>(
        &'a self,
        from_bot: &'a str,
        to_bot: &'a str,
        text: &'a str,
        hop: u32,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let host = self
                .link
                .host()
                .ok_or_else(|| "The host is stopping; try again later.".to_owned())?;
            crate::rooms::hold::hold_send(&host, from_bot, to_bot, text, hop)
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
        let host = self
            .link
            .host()
            .ok_or_else(|| "The host is stopping; try again later.".to_owned())?;
        crate::endpoints::room_chat::post_bot_line(&host, room_id, bot_id, text, hop, report_back)
            .map_err(|e| {
                tracing::warn!("post_to_group into {room_id} could not be logged: {e}");
                "The group could not take the line; try again.".to_owned()
            })
    }
}

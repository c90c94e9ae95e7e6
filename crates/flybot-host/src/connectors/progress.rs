//! A connector's client side (rmcp's `ClientHandler`): it takes the
//! server's `notifications/progress` and hands each to the call that asked
//! for it by its progress token, so a long tool shows how far it is in the
//! running work (`3/5 · message`) and is not cut while it reports progress.

use rmcp::ClientHandler;
use rmcp::handler::client::progress::ProgressDispatcher;
use rmcp::model::ProgressNotificationParam;
use rmcp::service::{MaybeSendFuture, NotificationContext, RoleClient};

/// The host's MCP client: default client info, progress dispatched.
#[derive(Clone, Default)]
pub struct ConnectorClient {
    pub progress: ProgressDispatcher,
}

impl ClientHandler for ConnectorClient {
    fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.progress.handle_notification(params)
    }
}

/// How a progress note reads in the running work: the tool, how far
/// (`3/5`, or `3` with no total) and the server's message.
pub fn progress_step(tool: &str, note: &ProgressNotificationParam) -> String {
    let number = |n: f64| {
        if n.fract() == 0.0 && n.abs() < 1e15 {
            format!("{}", n as i64)
        } else {
            format!("{n:.1}")
        }
    };
    let mut step = match note.total {
        Some(total) => format!("{tool} {}/{}", number(note.progress), number(total)),
        None => format!("{tool} {}", number(note.progress)),
    };
    if let Some(message) = note.message.as_deref().filter(|m| !m.trim().is_empty()) {
        step.push_str(" · ");
        step.push_str(message);
    }
    step
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{NumberOrString, ProgressToken};

    #[test]
    /// Rule #311.
    fn progress_reads_as_the_tool_how_far_and_the_message() {
        let token = ProgressToken(NumberOrString::Number(1));
        let mut note = ProgressNotificationParam::new(token, 3.0);
        assert_eq!(progress_step("slow", &note), "slow 3");
        note.total = Some(5.0);
        assert_eq!(progress_step("slow", &note), "slow 3/5");
        note.progress = 2.5;
        note.message = Some("copying".into());
        assert_eq!(progress_step("slow", &note), "slow 2.5/5 · copying");
    }
}

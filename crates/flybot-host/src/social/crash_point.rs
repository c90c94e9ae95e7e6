//! Exact crash points for the tests of delivery under faults (issue 33), in
//! debug builds only: with `FLYBOT_TEST_PAUSE_AT=<point>:<marker file>` set,
//! the sync or the outbox stops for good at `<point>` and writes the marker,
//! so a test can kill -9 the home right there. A release build has no such
//! point: the functions below are empty and the variable is never read.

use super::client::SyncBatch;

/// After a `/sync` batch with someone else's message came, before it is
/// applied.
pub(super) async fn received(me: &str, batch: &SyncBatch) {
    #[cfg(debug_assertions)]
    {
        let message = (batch.rooms.join.values())
            .flat_map(|room| &room.timeline.events)
            .any(|e| e.kind == "m.room.message" && e.sender != me);
        if message {
            pause_at("social-received").await;
        }
    }
    #[cfg(not(debug_assertions))]
    let _ = (me, batch);
}

/// After the homeserver took a person's or a Bot's line (outbox id
/// `out-…`), before the outbox knows.
pub(super) async fn sent(item_id: &str) {
    #[cfg(debug_assertions)]
    if item_id.starts_with("out-") {
        pause_at("social-sent").await;
    }
    #[cfg(not(debug_assertions))]
    let _ = item_id;
}

/// Stops here for good when the test asked for `point`.
#[cfg(debug_assertions)]
async fn pause_at(point: &str) {
    let Ok(asked) = std::env::var("FLYBOT_TEST_PAUSE_AT") else {
        return;
    };
    let Some((name, marker)) = asked.split_once(':') else {
        return;
    };
    if name != point {
        return;
    }
    tracing::warn!("stopped at the crash point {point} a test asked for");
    if let Err(e) = std::fs::write(marker, point) {
        tracing::warn!("the crash point's marker was not written: {e}");
    }
    std::future::pending::<()>().await;
}

//! Exact crash points for the tests of delivery under faults (issue 33), in
//! debug builds only: with `FLYBOT_TEST_PAUSE_AT=<point>:<marker file>` set,
//! the sync or the outbox stops for good at `<point>` and writes the marker,
//! so a test can kill -9 the home right there. A release build has no such
//! point: the functions below are empty and the variable is never read.

/// After a `/sync` batch with a friend's message came, before it is applied.
pub(super) const RECEIVED: &str = "social-received";
/// After the homeserver took a person's line, before the outbox knows.
pub(super) const SENT: &str = "social-sent";

/// Stops here for good when the test asked for `point`.
#[cfg(debug_assertions)]
pub(super) async fn pause_at(point: &str) {
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

#[cfg(not(debug_assertions))]
pub(super) async fn pause_at(_point: &str) {}

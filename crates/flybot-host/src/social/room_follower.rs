//! The one follower loop of the rooms Bot Social carries (shared rooms,
//! face-to-face rooms): a pass after each of the team's writes, each new
//! room line, and a sweep every two seconds, until the host stops.

use super::Social;
use std::future::Future;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

/// The sweep that catches a pass a write or a line did not start.
const SWEEP: Duration = Duration::from_secs(2);

/// Runs `pass` now and again after each write, line or sweep, on the
/// current runtime (none: nothing runs, as in a test without one).
pub(crate) fn follow_rooms<F, Fut>(social: &Social, pass: F)
where
    F: Fn() -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send,
{
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let bus = social.team().bus().clone();
    let mut written = social.team().store().watch_revision();
    let mut lines = bus.subscribe_all();
    runtime.spawn(async move {
        loop {
            pass().await;
            let gone = tokio::select! {
                changed = written.changed() => changed.is_err(),
                line = lines.recv() => matches!(line, Err(RecvError::Closed)),
                _ = tokio::time::sleep(SWEEP) => false,
                _ = bus.stopped() => true,
            };
            if gone {
                return;
            }
        }
    });
}

//! The round's hook onto the board (#1254), the host half of
//! `flybot_core::rooms::dispatch` (which reads a line's shape): a dispatch line of the room's
//! lead — exactly one named member, an issue and an imperative — is a board
//! assign, not a round turn for that member. The runner finds the shape
//! (core `dispatch_of`); the `RoundBoard` the runner is given writes it.
//! A write that fails leaves the ordinary call in place: never a silent
//! drop.

use flybot_core::rooms::dispatch::{Dispatch, DispatchRoom, dispatch_of};
use flybot_core::rooms::mentions::{calls, is_everyone_line};
use flybot_core::rooms::round::Setup;
use flybot_core::tasks::roles::task_lead;
use flybot_protocol::state::Room;
use std::future::Future;
use std::pin::Pin;

/// A boxed future, so the trait stays object safe.
pub type BoardFuture<'a> = Pin<Box<dyn Future<Output = bool> + Send + 'a>>;

/// What the round runner may write on the board.
pub trait RoundBoard: Send + Sync {
    /// Writes `dispatch`, posted by `poster` in `room_id` as `text`, as a
    /// board assign through the task rules in one change. Answers whether
    /// the card was written (the member is then woken by the task drive).
    fn assign(
        &self,
        room_id: &str,
        poster: &str,
        dispatch: Dispatch,
        text: &str,
    ) -> BoardFuture<'_>;
}

/// The dispatch `text` of `poster` is in `room`, if it is one: a member
/// Bot's own line, the poster the room's lead, no `@all`, not quiet.
pub fn dispatch_in(
    room: &Room,
    setup: &Setup,
    poster: &str,
    text: &str,
    quiet: bool,
) -> Option<Dispatch> {
    let found = calls(text, &setup.order);
    let callees: Vec<String> = found.ids.into_iter().filter(|id| id != poster).collect();
    dispatch_of(
        text,
        &callees,
        DispatchRoom {
            poster_is_lead: task_lead(room) == Some(poster),
            has_board: true,
            at_all: found.all || is_everyone_line(text),
            quiet_or_event: quiet,
        },
    )
}

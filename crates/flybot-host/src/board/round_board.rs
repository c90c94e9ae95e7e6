//! `HostRoundBoard`: the host's side of the round's board hook (#1254). A
//! dispatch is written through the core `assign_from_dispatch` as one
//! change (`Board::write`), so the claim line follows in the member's
//! voice (#1253) and the task drive wakes the member in its own chat
//! (#1205).

use super::write::Board;
use crate::ids::new_id;
use crate::rooms::dispatch::{BoardFuture, RoundBoard};
use flybot_core::rooms::assign::assign_from_dispatch;
use flybot_core::rooms::dispatch::Dispatch;
use flybot_core::tasks::track::Fresh;

/// The board a room's rounds write dispatches to.
pub struct HostRoundBoard {
    pub board: Board,
}

impl RoundBoard for HostRoundBoard {
    fn assign(
        &self,
        room_id: &str,
        poster: &str,
        dispatch: Dispatch,
        text: &str,
    ) -> BoardFuture<'_> {
        let (room_id, poster, text) = (room_id.to_owned(), poster.to_owned(), text.to_owned());
        Box::pin(async move {
            let task_id = new_id("task");
            let question_id = new_id("question");
            let fresh = Fresh {
                task_id: &task_id,
                question_id: &question_id,
            };
            let journal = format!("bot:{poster}");
            let written = self
                .board
                .write(&journal, |state, now| {
                    assign_from_dispatch(state, &room_id, &poster, &dispatch, &text, fresh, now)
                })
                .await;
            match written {
                Ok(out) => !out.writes.is_empty(),
                Err(e) => {
                    tracing::warn!(
                        "the dispatch in {room_id} could not be written: {}",
                        e.message
                    );
                    false
                }
            }
        })
    }
}

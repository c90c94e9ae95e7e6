//! Held sends (#52, #754), the host's side of core `rooms::hold`: a
//! `message_bot` to another owner's Bot (reach allowed it through a grant)
//! is held for the sender's owner in `state.flybot.approvals` with its
//! `requestId`, the sha256 version of its content and the owner and origin
//! the server derived. Deciding it is core `approvals::answer_approval`
//! (only that owner's session decides; an allow revalidates in the same
//! change that records it, and a hold that no longer holds is marked stale
//! instead of sent); deleting either Bot makes its waiting holds stale in
//! core `roster::delete_bot`. Past `PENDING_MAX` waiting asks of the sender a
//! send is refused, and a new hold removes the decided records past
//! `APPROVALS_KEPT` (#754). This side holds a send (blocking the
//! sender's working card on it, #54, #207) and delivers a released one.

use crate::approvals::Approvals;
use crate::events::HostEvent;
use crate::team::Team;
use flybot_agent::session::{ItemKind, Source};
use flybot_core::approvals::bounds;
use flybot_core::rooms::hold::{HeldRecord, HoldStatus, SendRequest, hold};
use flybot_core::rooms::reach::Party;
use flybot_core::tasks::approval::{self, task_of_send};
use flybot_protocol::ApiError;
use flybot_protocol::approval::HeldSendKind;
use flybot_store::Change;

/// The hold's field naming the card its send was made for (`meta.taskId`).
const TASK_ID: &str = "taskId";

/// How a held send travels.
const VIA: &str = flybot_protocol::tool_names::MESSAGE_BOT;

fn put(change: &mut Change<'_>, record: &HeldRecord) {
    change.put_approval(&record.id, record);
}

/// Holds `from_bot`'s message to `to_bot` at `hop`; answers the request id.
/// `task_id` is the card the send is made for (`meta.taskId`): that card
/// is blocked on the hold; an untargeted send blocks none (#54, #207).
pub async fn hold_send(
    team: &Team,
    from_bot: &str,
    to_bot: &str,
    text: &str,
    hop: u32,
    task_id: Option<&str>,
) -> Result<String, ApiError> {
    let id = crate::ids::new_id("hold");
    let req = SendRequest {
        from_bot: from_bot.to_owned(),
        to: Party::Bot(to_bot.to_owned()),
        room_id: None,
        text: text.to_owned(),
        via: VIA.to_owned(),
        hop,
    };
    let blocked = team
        .mutate(&format!("bot:{from_bot}"), |change| {
            let now = change.now_ms();
            bounds::admit_ask(change.state(), from_bot)?;
            let held = hold(change.state(), &req, &id, now)?;
            let mut record = HeldRecord {
                id: id.clone(),
                kind: HeldSendKind::HeldSend,
                held,
                to_bot: to_bot.to_owned(),
                text: text.to_owned(),
                decided_at: None,
                stale_reason: None,
                extra: Default::default(),
            };
            // The card the send names waits on this hold (#54, #207).
            let task_id = task_of_send(change.state(), from_bot, task_id)?.map(|t| t.id.clone());
            let blocked = match &task_id {
                Some(task_id) => {
                    record
                        .extra
                        .insert(TASK_ID.to_owned(), task_id.clone().into());
                    approval::hold(change.state(), task_id, &id, now)?.writes
                }
                None => Vec::new(),
            };
            for task in &blocked {
                change.put_task(task);
            }
            put(change, &record);
            for old in bounds::past_kept(change.state()) {
                change.remove_approval(&old);
            }
            Ok(blocked)
        })
        .await?;
    if !blocked.is_empty() {
        team.emit(HostEvent::TasksWritten {
            task_ids: blocked.into_iter().map(|t| t.id).collect(),
        });
    }
    Ok(id)
}

/// Delivers a held send its owner allowed and the revalidation approved
/// (core `approvals::answer_approval` decided it); answers whether it was
/// handed to the target's Session.
pub fn deliver_released(approvals: &Approvals, record: &HeldRecord) -> bool {
    if record.held.status != HoldStatus::Approved {
        return false;
    }
    let target = approvals
        .team
        .read(|s| s.bots.get(&record.to_bot).map(|b| b.session_id.clone()));
    let Some(session) = target else {
        return false;
    };
    approvals
        .sessions
        .deliver(
            &session,
            &record.text,
            Source::Bot {
                bot_id: record.held.from_bot.clone(),
                hops: record.held.origin.hop,
                room_id: None,
                origin: None,
            },
            ItemKind::NextTurn,
        )
        .map_err(|e| tracing::warn!("a released send could not be delivered: {e}"))
        .is_ok()
}

//! The execution service's credential (#198, issue 18): when a card is
//! enrolled for an OpenCode seat the host mints a task-scoped secret, keeps
//! only its SHA-256 in the card's `ExecutionBinding`, and hands the secret
//! to the seat. Every observation the seat reports presents the secret and
//! goes through `flybot_core::tasks::execution_seam::observe`, which
//! revalidates it and the card as it is now. The owner's authority is never
//! used for these moves.

use crate::board::Board;
use crate::ids::secret_hash;
use flybot_core::tasks::execution_seam::{
    ExecutionBinding, ExecutionObservation, observe, service_label,
};
use flybot_protocol::state::Task;

/// The secret a seat holds for its one card.
pub struct ExecutionCredential {
    secret: String,
}

impl std::fmt::Debug for ExecutionCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ExecutionCredential(..)")
    }
}

impl ExecutionCredential {
    /// The SHA-256 the seam compares with the binding's.
    pub fn presented(&self) -> String {
        secret_hash(&self.secret)
    }
}

/// Mints a credential for `task_id` between its requester Bot and the
/// worker, in `room_id`; answers the binding the host keeps and the secret
/// the seat keeps. `None` when the system has no randomness to give.
pub fn enroll(
    task_id: &str,
    requester_bot: &str,
    worker_bot: &str,
    room_id: &str,
) -> Option<(ExecutionBinding, ExecutionCredential)> {
    let secret = crate::ids::new_secret()?;
    let binding = ExecutionBinding {
        task_id: task_id.to_owned(),
        requester_bot: requester_bot.to_owned(),
        worker_bot: worker_bot.to_owned(),
        room_id: room_id.to_owned(),
        credential_sha256: secret_hash(&secret),
    };
    Some((binding, ExecutionCredential { secret }))
}

/// Reports one observation as the execution service, through the board's
/// one write path; the refusal's sentence when the seam refuses it.
pub async fn report(
    board: &Board,
    binding: &ExecutionBinding,
    credential: &ExecutionCredential,
    observation: ExecutionObservation<'_>,
) -> Result<Option<Task>, String> {
    let presented = credential.presented();
    let label = service_label(&binding.worker_bot);
    board
        .write(&label, |state, now| {
            observe(state, binding, &presented, observation, now)
        })
        .await
        .map(|out| out.answer)
        .map_err(|e| e.message)
}

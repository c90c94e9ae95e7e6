//! The sentences a store that cannot write answers with (#14, #1027,
//! issue 35's standby), kept apart from the store's writing.

use crate::error::StoreError;
use crate::store::{ReadOnlyReason, StoreStatus};
use flybot_protocol::{ApiError, ErrorCode};

/// The status of a home `why` stopped writing: it only reads now.
pub(crate) fn damaged(why: &StoreError) -> StoreStatus {
    StoreStatus::ReadOnly(ReadOnlyReason::Damaged {
        why: why.to_string(),
    })
}

pub(crate) fn refusal_for(status: &StoreStatus) -> ApiError {
    match status {
        StoreStatus::ReadOnly(reason) => read_only_error(reason),
        StoreStatus::Writer => ApiError::new(ErrorCode::ReadOnly, "This home is read-only."),
    }
}

/// The refusal a write gets while this store cannot write.
pub fn read_only_error(reason: &ReadOnlyReason) -> ApiError {
    match reason {
        ReadOnlyReason::OtherWriter { pid, host } => ApiError::new(
            ErrorCode::ReadOnly,
            format!(
                "Another FlyBot (pid {pid} on {host}) is saving this team; stop it, or make the change there."
            ),
        )
        .with("pid", *pid)
        .with("host", host.as_str()),
        // A home that cannot be written is a fault of the host, not of the
        // request (issue 29): the one 5xx, `bot/unavailable`.
        ReadOnlyReason::Damaged { why } => ApiError::new(
            ErrorCode::Unavailable,
            format!("This home cannot be written and only reads now: {why}"),
        )
        .with("reason", why.as_str()),
        // A standby on PostgreSQL (issue 35): reads follow the leader;
        // writes go to the leader until this one takes over.
        ReadOnlyReason::Standby { holder } => ApiError::new(
            ErrorCode::ReadOnly,
            format!(
                "This FlyBot is a standby and only reads: {holder} saves the team; make the change there, or here once this one takes over."
            ),
        )
        .with("holder", holder.as_str()),
    }
}

//! A schedule rule's refusal: the code and the one sentence the spec gives
//! it, written once here so the channel and the Bots' tools say the same.

use flybot_protocol::{ApiError, ErrorCode};

/// The sentences, each once (#354, #473, #1287, #1166, #1651, #1237).
pub mod sentences {
    pub const NO_SUCH_TASK: &str = "No such task.";
    pub const NO_SUCH_SESSION: &str =
        "No such chat: the task's Session is not a Bot's chat or a group chat you own.";
    pub const NO_SUCH_TARGET: &str = "No such Bot or group chat to put the task on.";
    pub const SAME_CHAT: &str =
        "The task is already on that chat; pick another Bot or group chat to copy it to.";
    pub const PICK_FUTURE: &str = "Pick a time in the future.";
    pub const SAY_WHEN: &str =
        "Say when the task runs: when {kind: at, every, daily, weekly or cron, ...}.";
    pub const RESUME_FIRST: &str = "Resume the task first.";
    pub const EVERY_RANGE: &str = "Repeat every 60 seconds to 7 days (604800 seconds).";
    pub const BAD_CRON: &str = "The cron rule could not be read; write five fields (minute hour day month weekday) or six with seconds first.";
    pub const BAD_ZONE: &str = "Unknown time zone; use a name such as Europe/Berlin or UTC.";
    pub const BAD_AT: &str =
        "Write the time as 2026-12-24T09:00 (in the zone) or as an RFC 3339 instant.";
    pub const BAD_TIME: &str = "Write the time of day as HH:MM, for example 09:30.";
    pub const BAD_WEEKDAY: &str = "Name the weekday as mon, tue, wed, thu, fri, sat or sun.";
    pub const TITLE: &str = "Give the task a title of 1 to 200 characters.";
    pub const PROMPT: &str = "Give the task a prompt of 1 to 8000 characters.";
    pub const NAME_TARGET: &str = "Name the task's chat with botId or roomId, one of the two.";
    pub const AT_ONLY_EDIT: &str =
        "A one-time task whose time has passed cannot resume; edit its time first.";
    pub const NOT_IN_ROOM: &str =
        "Scheduled tasks are not available in a group room: manage them from the Bot's own chat.";
    /// #1712: the assistant's daily task is no ordinary task of the list.
    pub const PROJECT_DIGEST_TASK: &str = "That is a Project Assistant's daily digest: it runs with its Project, shown on the Project's page; delete the Project to end it.";
    pub const QUIET_WINDOW: &str = "Quiet hours are from and to as HH:MM, with on true or false.";
}

/// Why a rule refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: ErrorCode,
    pub field: Option<&'static str>,
    pub sentence: String,
}

impl Refusal {
    pub fn invalid(field: &'static str, sentence: &str) -> Refusal {
        Refusal {
            code: ErrorCode::Invalid,
            field: Some(field),
            sentence: sentence.to_owned(),
        }
    }

    pub fn not_found(sentence: &str) -> Refusal {
        Refusal {
            code: ErrorCode::NotFound,
            field: None,
            sentence: sentence.to_owned(),
        }
    }

    pub fn quiet(sentence: String) -> Refusal {
        Refusal {
            code: ErrorCode::QuietHours,
            field: Some("when"),
            sentence,
        }
    }
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> ApiError {
        let error = ApiError::new(refusal.code, refusal.sentence);
        match refusal.field {
            Some(field) => error.with("field", field),
            None => error,
        }
    }
}

//! Answering an approval (#540, #754, #52): only the Bot's owner answers; an
//! approval already decided is `bot/stale`. `always-bot` keeps a standing
//! grant on the Bot and `always-room` on the room the ask came from (refused
//! for an own-chat ask); both answer this ask allowed-once and release the
//! other waiting asks the grants then cover. A held send is allowed once
//! (revalidated first) or rejected; it has no standing grant.

use super::{ApprovalRecord, ApprovalStatus, add_grant, grants_cover, tool_approvals};
use crate::access::Actor;
use crate::rooms::hold::{HeldRecord, decide_held};
use crate::roster::{RosterWrite, RosterWrites};
use flybot_protocol::state::{Bot, Room, TeamState};
use flybot_protocol::{ApiError, ErrorCode};
use serde::Deserialize;

/// The owner's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Answer {
    AllowedOnce,
    Rejected,
    AlwaysBot,
    AlwaysRoom,
}

impl Answer {
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::AllowedOnce => "allowed-once",
            Answer::Rejected => "rejected",
            Answer::AlwaysBot => "always-bot",
            Answer::AlwaysRoom => "always-room",
        }
    }
}

/// What an answer decided, with the records to write.
#[derive(Debug, Clone, PartialEq)]
pub enum Answered {
    /// A tool approval as decided, and the other waiting asks its standing
    /// grant released (their turns go on allowed-once).
    Tool {
        record: ApprovalRecord,
        released: Vec<String>,
        writes: RosterWrites,
    },
    /// A held send as decided: approved (to deliver), rejected or stale.
    HeldSend {
        record: HeldRecord,
        writes: RosterWrites,
    },
}

/// `approval-answer {id, answer}` (#540, #754): the writes that record
/// `answer` to the approval `id` at `now`, or the refusal.
pub fn answer_approval(
    state: &TeamState,
    actor: &Actor,
    id: &str,
    answer: Answer,
    now: u64,
) -> Result<Answered, ApiError> {
    let Some(held) = state
        .flybot
        .approvals
        .get(id)
        .and_then(flybot_protocol::approval::Approval::as_held_send)
        .cloned()
    else {
        return answer_tool_approval(state, actor, id, answer, now);
    };
    let allow = match answer {
        Answer::AllowedOnce => true,
        Answer::Rejected => false,
        Answer::AlwaysBot | Answer::AlwaysRoom => {
            return Err(ApiError::invalid(
                "answer",
                "A held send is allowed once or rejected; there is no standing grant for it.",
            ));
        }
    };
    let record = decide_held(state, actor, held, allow, now)?;
    let mut writes = RosterWrites {
        writes: vec![RosterWrite::PutHeldSend(record.clone())],
    };
    // The task the send blocked resumes or is cancelled with it (#54, #207).
    let moved = crate::tasks::approval::after_holds(state, std::slice::from_ref(&record), now);
    writes.extend(moved.writes.into_iter().map(RosterWrite::PutTask));
    Ok(Answered::HeldSend { record, writes })
}

/// Where an `always-*` answer keeps its standing grant.
enum Granted {
    Bot(Bot),
    Room(Room),
}

fn answer_tool_approval(
    state: &TeamState,
    actor: &Actor,
    id: &str,
    answer: Answer,
    now: u64,
) -> Result<Answered, ApiError> {
    let mut record = state
        .flybot
        .approvals
        .get(id)
        .and_then(flybot_protocol::approval::Approval::as_tool)
        .cloned()
        .ok_or_else(|| ApiError::not_found("approval", id))?;
    if actor.member_id(state).as_deref() != Some(record.owner_id.as_str()) {
        return Err(
            ApiError::forbidden("Only the Bot's owner can answer its approval requests.")
                .with("id", id),
        );
    }
    if record.status != ApprovalStatus::Waiting {
        return Err(ApiError::new(
            ErrorCode::Stale,
            "This approval was already decided; nothing changed.",
        )
        .with("id", id));
    }
    let granted = standing_grant(state, &record, answer, now)?;
    let mut writes = RosterWrites::default();
    match &granted {
        Some(Granted::Bot(bot)) => writes.push(RosterWrite::PutBot(bot.clone())),
        Some(Granted::Room(room)) => writes.push(RosterWrite::PutRoom(room.clone())),
        None => {}
    }
    record.status = match answer {
        Answer::Rejected => ApprovalStatus::Rejected,
        Answer::AllowedOnce | Answer::AlwaysBot | Answer::AlwaysRoom => ApprovalStatus::AllowedOnce,
    };
    record.decided_at = Some(now);
    record.answer = Some(answer.as_str().to_owned());
    writes.push(RosterWrite::PutToolApproval(record.clone()));
    let released = match &granted {
        Some(granted) => released_by(state, &record, granted, now),
        None => Vec::new(),
    };
    let released_ids = released.iter().map(|other| other.id.clone()).collect();
    writes.extend(released.into_iter().map(RosterWrite::PutToolApproval));
    Ok(Answered::Tool {
        record,
        released: released_ids,
        writes,
    })
}

/// The Bot or room an `always-*` answer writes its standing grant to.
fn standing_grant(
    state: &TeamState,
    record: &ApprovalRecord,
    answer: Answer,
    now: u64,
) -> Result<Option<Granted>, ApiError> {
    match answer {
        Answer::AlwaysBot => {
            let mut bot = state
                .bots
                .get(&record.bot_id)
                .cloned()
                .ok_or_else(|| ApiError::not_found("Bot", &record.bot_id))?;
            add_grant(
                &mut bot.extra,
                &record.tool,
                &record.label,
                now,
                &record.owner_id,
            );
            bot.updated_at = now;
            Ok(Some(Granted::Bot(bot)))
        }
        Answer::AlwaysRoom => {
            let room_id = record.room_id.as_deref().ok_or_else(|| {
                ApiError::invalid(
                    "answer",
                    "always-room is for an ask from a room; this one came from the Bot's own chat. Use always-bot or allowed-once.",
                )
            })?;
            let mut room = state
                .rooms
                .get(room_id)
                .cloned()
                .ok_or_else(|| ApiError::not_found("room", room_id))?;
            add_grant(
                &mut room.extra,
                &record.tool,
                &record.label,
                now,
                &record.owner_id,
            );
            room.updated_at = now;
            Ok(Some(Granted::Room(room)))
        }
        Answer::AllowedOnce | Answer::Rejected => Ok(None),
    }
}

/// The other waiting asks the standing grants cover once `granted` is
/// written, each answered allowed-once "released by" `record` (#540).
fn released_by(
    state: &TeamState,
    record: &ApprovalRecord,
    granted: &Granted,
    now: u64,
) -> Vec<ApprovalRecord> {
    let bot_of = |id: &str| match granted {
        Granted::Bot(bot) if bot.id == id => Some(bot),
        Granted::Bot(_) | Granted::Room(_) => state.bots.get(id),
    };
    let room_of = |id: &str| match granted {
        Granted::Room(room) if room.id == id => Some(room),
        Granted::Bot(_) | Granted::Room(_) => state.rooms.get(id),
    };
    tool_approvals(state)
        .filter(|other| other.status == ApprovalStatus::Waiting && other.id != record.id)
        .filter(|other| {
            bot_of(&other.bot_id).is_some_and(|bot| {
                let room = other.room_id.as_deref().and_then(room_of);
                grants_cover(bot, room, &other.tool)
            })
        })
        .map(|mut other| {
            other.status = ApprovalStatus::AllowedOnce;
            other.decided_at = Some(now);
            other.answer = Some(format!("released by {}", record.id));
            other
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::STANDING;
    use super::*;
    use crate::rooms::hold::HoldStatus;
    use crate::roster::fixture::{held, member, put_approval, shape, team};

    fn ask(id: &str, bot_id: &str, tool: &str, room_id: Option<&str>) -> ApprovalRecord {
        ApprovalRecord {
            id: id.into(),
            bot_id: bot_id.into(),
            session_id: format!("session-{bot_id}"),
            tool: tool.into(),
            label: format!("run {tool}"),
            status: ApprovalStatus::Waiting,
            request_id: format!("request-{id}"),
            owner_id: "member-a".into(),
            created_at: 3,
            tool_call_id: format!("call-{id}"),
            room_id: room_id.map(str::to_owned),
            decided_at: None,
            answer: None,
            extra: Default::default(),
        }
    }

    /// Ada asks twice for `run_command` and once for `write_file`; Bo asks
    /// for `run_command` from room-1.
    fn asking_team() -> TeamState {
        let mut state = team();
        for record in [
            ask("approval-1", "bot-a", "run_command", None),
            ask("approval-2", "bot-a", "run_command", Some("room-1")),
            ask("approval-3", "bot-a", "write_file", None),
            ask("approval-4", "bot-b", "run_command", Some("room-1")),
        ] {
            let id = record.id.clone();
            put_approval(&mut state, &id, &record);
        }
        state
    }

    fn answer(
        state: &TeamState,
        who: &str,
        id: &str,
        answer: Answer,
    ) -> Result<Answered, ApiError> {
        answer_approval(state, &member(who), id, answer, 90)
    }

    #[test]
    /// Rule #540.
    fn allowed_once_answers_only_that_ask() {
        let state = asking_team();
        let Answered::Tool {
            record,
            released,
            writes,
        } = answer(&state, "member-a", "approval-1", Answer::AllowedOnce).unwrap()
        else {
            panic!("a tool approval");
        };
        assert_eq!(record.decided_at, Some(90));
        assert!(released.is_empty());
        assert_eq!(
            shape(&writes),
            ["approval approval-1 AllowedOnce Some(\"allowed-once\")"]
        );
    }

    #[test]
    /// Rule #540.
    fn always_bot_keeps_a_standing_grant_and_releases_the_asks_it_covers() {
        let state = asking_team();
        let Answered::Tool {
            released, writes, ..
        } = answer(&state, "member-a", "approval-1", Answer::AlwaysBot).unwrap()
        else {
            panic!("a tool approval");
        };
        assert_eq!(released, ["approval-2"]);
        assert_eq!(
            shape(&writes),
            [
                "bot bot-a Ada at 90",
                "approval approval-1 AllowedOnce Some(\"always-bot\")",
                "approval approval-2 AllowedOnce Some(\"released by approval-1\")",
            ]
        );
        let RosterWrite::PutBot(bot) = &writes.writes[0] else {
            panic!("the grant is on the Bot");
        };
        assert_eq!(bot.extra[STANDING][0]["kind"], "run_command");
        assert_eq!(bot.extra[STANDING][0]["ownerId"], "member-a");
    }

    #[test]
    /// Rule #540.
    fn always_room_keeps_the_grant_on_the_room_for_asks_from_that_room() {
        let state = asking_team();
        let Answered::Tool {
            released, writes, ..
        } = answer(&state, "member-a", "approval-4", Answer::AlwaysRoom).unwrap()
        else {
            panic!("a tool approval");
        };
        assert_eq!(released, ["approval-2"]);
        assert_eq!(
            shape(&writes)[0],
            "room room-1 members [\"bot-a\", \"bot-b\"] admin Some(\"bot-a\") at 90"
        );
    }

    #[test]
    /// Rules #540, #754.
    fn answer_refusals_write_nothing() {
        let mut state = asking_team();
        let other = answer(&state, "member-b", "approval-1", Answer::AllowedOnce).unwrap_err();
        assert_eq!(other.code, ErrorCode::Forbidden);
        assert_eq!(other.details["id"], "approval-1");
        let own_chat = answer(&state, "member-a", "approval-1", Answer::AlwaysRoom).unwrap_err();
        assert_eq!(own_chat.details["field"], "answer");
        let unknown = answer(&state, "member-a", "approval-9", Answer::Rejected).unwrap_err();
        assert_eq!(unknown.code, ErrorCode::NotFound);
        let mut decided = ask("approval-1", "bot-a", "run_command", None);
        decided.status = ApprovalStatus::Rejected;
        put_approval(&mut state, "approval-1", &decided);
        let stale = answer(&state, "member-a", "approval-1", Answer::AllowedOnce).unwrap_err();
        assert_eq!(stale.code, ErrorCode::Stale);
        assert_eq!(
            stale.message,
            "This approval was already decided; nothing changed."
        );
    }

    #[test]
    /// Rule #52.
    fn a_held_send_is_allowed_once_after_revalidating_or_marked_stale() {
        let mut state = team();
        let record = held(&state, "hold-1", "bot-a", "bot-b");
        put_approval(&mut state, "hold-1", &record);
        let Answered::HeldSend { record, writes } =
            answer(&state, "member-a", "hold-1", Answer::AllowedOnce).unwrap()
        else {
            panic!("a held send");
        };
        assert_eq!(record.held.status, HoldStatus::Approved);
        assert_eq!(shape(&writes), ["held hold-1 Approved None"]);

        state.bots.remove("bot-b");
        let Answered::HeldSend { record, .. } =
            answer(&state, "member-a", "hold-1", Answer::AllowedOnce).unwrap()
        else {
            panic!("a held send");
        };
        assert_eq!(record.held.status, HoldStatus::Stale);
        assert_eq!(record.stale_reason.as_deref(), Some("target-gone"));
    }

    #[test]
    /// Rules #52, #754.
    fn a_held_send_has_no_standing_grant_and_only_its_owner_decides_it() {
        let mut state = team();
        let record = held(&state, "hold-1", "bot-a", "bot-b");
        put_approval(&mut state, "hold-1", &record);
        let always = answer(&state, "member-a", "hold-1", Answer::AlwaysBot).unwrap_err();
        assert_eq!(always.details["field"], "answer");
        let other = answer(&state, "member-b", "hold-1", Answer::Rejected).unwrap_err();
        assert_eq!(other.code, ErrorCode::Forbidden);
        assert_eq!(other.details["id"], "hold-1");
    }
}

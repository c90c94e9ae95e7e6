//! Questions about work handed out from a group (#550, #553), pure half.
//! A member hands a Bot work with `message_bot` from its group Session;
//! that request carries the room (`senderRoomId`). `ask_user` in the turn
//! that runs it (`handed_from_group`: a Bot's request, not a person's, from
//! a member that still has a Session in the room) writes the question to
//! `state.questions[<room id>]` instead of the Bot's own chat: one per
//! room, so while another Bot's question waits there the Bot asks in its
//! reply. Only the asking Bot's owner or the room's owner sees and answers
//! it (`may_answer`); the answer goes to the asking Bot as a hidden request
//! from the member that handed the work over, and the room shows a quiet
//! notice. Deleting the room or either Bot drops the card.

use crate::access::{Actor, room_visible};
use flybot_protocol::ApiError;
use flybot_protocol::group_question::{GroupQuestion, ReplyTo};
use flybot_protocol::state::TeamState;

/// The longest question or answer, in characters.
pub const QUESTION_MAX: usize = 2_000;

/// Where a turn's work came from: the group and the member that handed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandedFrom {
    pub room_id: String,
    pub sender_bot_id: String,
    pub hop: u32,
}

/// `handedFromGroup`: the turn of `bot_id` runs a request `sender_bot_id`
/// sent from `room_id` at `hop`, and the sender still sits in that room
/// with a Session there. A friend's Bot (remote) hands nothing over here.
pub fn handed_from_group(
    state: &TeamState,
    bot_id: &str,
    room_id: &str,
    sender_bot_id: &str,
    hop: u32,
) -> Option<HandedFrom> {
    let room = state.rooms.get(room_id)?;
    let sender = state.bots.get(sender_bot_id)?;
    let seated = room.members.iter().any(|m| m == sender_bot_id)
        && room.sessions.contains_key(sender_bot_id);
    (seated && !sender.run && sender_bot_id != bot_id && state.bots.contains_key(bot_id)).then(
        || HandedFrom {
            room_id: room_id.to_owned(),
            sender_bot_id: sender_bot_id.to_owned(),
            hop,
        },
    )
}

/// The question `bot_id` asks about handed-out work, or the sentence the
/// Bot is told: one card per room, so another Bot's waiting card refuses
/// (the Bot's own earlier card is replaced).
pub fn ask_in_group(
    state: &TeamState,
    handed: &HandedFrom,
    bot_id: &str,
    question: &str,
    origin: Option<String>,
    now: u64,
) -> Result<GroupQuestion, String> {
    let question = question.trim();
    if question.is_empty() || question.chars().count() > QUESTION_MAX {
        return Err(format!("A question is 1 to {QUESTION_MAX} characters."));
    }
    let bot = state
        .bots
        .get(bot_id)
        .ok_or_else(|| "This Bot is no longer on the team.".to_owned())?;
    if let Some(waiting) = state.questions.get(&handed.room_id)
        && waiting.bot_id != bot_id
    {
        return Err(format!(
            "{} already has a question waiting in that group; ask yours in your reply instead.",
            waiting.header
        ));
    }
    Ok(GroupQuestion {
        header: bot.name.clone(),
        bot_id: bot_id.to_owned(),
        question: question.to_owned(),
        reply_to: ReplyTo {
            bot_id: handed.sender_bot_id.clone(),
            hop: handed.hop,
        },
        allow_custom: true,
        asked_at: now,
        origin,
    })
}

/// Whether `actor` sees the card waiting in `room_id`: the asking Bot's
/// owner or the room's owner.
pub fn may_see(state: &TeamState, actor: &Actor, room_id: &str, card: &GroupQuestion) -> bool {
    let me = match actor {
        Actor::SingleOwner => return true,
        Actor::Member { member_id, .. } => member_id,
    };
    let owns_room = state.rooms.get(room_id).is_some_and(|r| &r.owner_id == me);
    let owns_bot = state
        .bots
        .get(&card.bot_id)
        .is_some_and(|b| &b.owner_id == me);
    owns_room || owns_bot
}

/// The card `actor` answers in `room_id`: a room the actor cannot see or a
/// room with no card is not found; a card of someone else's is forbidden.
pub fn may_answer<'a>(
    state: &'a TeamState,
    actor: &Actor,
    room_id: &str,
) -> Result<&'a GroupQuestion, ApiError> {
    let room = state
        .rooms
        .get(room_id)
        .filter(|room| room_visible(state, actor, room))
        .ok_or_else(|| ApiError::not_found("room", room_id))?;
    let card = state
        .questions
        .get(&room.id)
        .ok_or_else(|| ApiError::not_found("question", room_id).with("roomId", room_id))?;
    if !may_see(state, actor, room_id, card) {
        return Err(ApiError::forbidden(
            "Only the asking Bot's owner or the room's owner answers this question.",
        ));
    }
    Ok(card)
}

/// The origin the answer carries (#550): the asking turn's, only when the
/// asking Bot's owner answers (the one person before anyone signed in is
/// that owner); anyone else's answer speaks for nobody's owner (fail
/// closed).
pub fn answer_origin(state: &TeamState, actor: &Actor, card: &GroupQuestion) -> Option<String> {
    let owner = state.bots.get(&card.bot_id).map(|b| b.owner_id.as_str());
    let owners = match actor {
        Actor::SingleOwner => owner.is_some(),
        Actor::Member { member_id, .. } => owner == Some(member_id.as_str()),
    };
    card.origin.clone().filter(|_| owners)
}

/// The room's quiet notice of a dismissed card (#550).
pub fn dismiss_notice(who: &str, card: &GroupQuestion) -> String {
    format!(
        "{who} dismissed {}'s question: {}",
        card.header, card.question
    )
}

/// A checked answer: 1 to `QUESTION_MAX` characters.
pub fn clean_answer(answer: &str) -> Result<String, ApiError> {
    let answer = answer.trim();
    if answer.is_empty() || answer.chars().count() > QUESTION_MAX {
        return Err(ApiError::invalid(
            "answer",
            format!("An answer is 1 to {QUESTION_MAX} characters."),
        ));
    }
    Ok(answer.to_owned())
}

/// The hidden request the asking Bot gets: it names the group.
pub fn answer_request(room_name: &str, who: &str, card: &GroupQuestion, answer: &str) -> String {
    format!(
        "[Answer from the group {room_name}] {who} answered your question \"{}\": {answer}",
        card.question
    )
}

/// The room's quiet notice: `<who> answered <Bot>: <question> → <answer>`.
pub fn answer_notice(who: &str, card: &GroupQuestion, answer: &str) -> String {
    format!(
        "{who} answered {}: {} → {answer}",
        card.header, card.question
    )
}

/// The rooms whose card goes when `bot_id` is deleted: it asked, or it
/// handed the work over.
pub fn cards_of_bot(state: &TeamState, bot_id: &str) -> Vec<String> {
    state
        .questions
        .iter()
        .filter(|(_, q)| q.bot_id == bot_id || q.reply_to.bot_id == bot_id)
        .map(|(room, _)| room.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use flybot_protocol::state::{Bot, Room};

    fn team() -> TeamState {
        let mut state = TeamState::default();
        for (id, owner) in [
            ("lead", "ada"),
            ("dev", "ada"),
            ("rev", "bob"),
            ("out", "ada"),
        ] {
            let bot = Bot::new(
                id,
                format!("Name {id}"),
                owner,
                "mock",
                format!("s-{id}"),
                1,
            );
            state.bots.insert(id.into(), bot);
        }
        let room: Room = serde_json::from_value(serde_json::json!({
            "id": "room-1", "name": "Ship", "ownerId": "ada", "members": ["lead", "rev"],
            "sessions": {"lead": "g-lead", "rev": "g-rev"}, "createdAt": 1, "updatedAt": 1
        }))
        .unwrap();
        state.rooms.insert("room-1".into(), room);
        state
    }

    fn member(id: &str) -> Actor {
        Actor::Member {
            member_id: id.into(),
            session_id: format!("s-{id}"),
        }
    }

    #[test]
    /// Rule #550.
    fn work_handed_from_a_group_asks_there_one_card_per_room() {
        let mut state = team();
        // (asking bot, room, sender) → handed from the group?
        let cases = [
            ("dev", "room-1", "lead", true),
            ("dev", "room-1", "out", false),
            ("dev", "room-2", "lead", false),
            ("lead", "room-1", "lead", false),
            ("gone", "room-1", "lead", false),
        ];
        for (bot, room, sender, handed) in cases {
            let got = handed_from_group(&state, bot, room, sender, 1).is_some();
            assert_eq!(got, handed, "{bot} {room} {sender}");
        }
        let handed = handed_from_group(&state, "dev", "room-1", "lead", 2).unwrap();
        let card = ask_in_group(&state, &handed, "dev", " Postgres or SQLite? ", None, 7).unwrap();
        assert_eq!(card.header, "Name dev");
        assert_eq!(card.question, "Postgres or SQLite?");
        assert_eq!(
            card.reply_to,
            ReplyTo {
                bot_id: "lead".into(),
                hop: 2
            }
        );
        assert!(card.allow_custom);
        state.questions.insert("room-1".into(), card);
        // Its own card is replaced; another Bot's waiting card refuses.
        assert!(ask_in_group(&state, &handed, "dev", "Which port?", None, 8).is_ok());
        let other = ask_in_group(&state, &handed, "out", "Mine?", None, 8).unwrap_err();
        assert!(other.contains("ask yours in your reply"), "{other}");
        assert!(ask_in_group(&state, &handed, "dev", " ", None, 8).is_err());
    }

    #[test]
    /// Rule #550.
    fn only_the_asking_bots_owner_or_the_rooms_owner_answers_or_dismisses_and_only_the_bots_owner_keeps_the_origin()
     {
        let mut state = team();
        let handed = handed_from_group(&state, "dev", "room-1", "lead", 1).unwrap();
        let card = ask_in_group(&state, &handed, "dev", "Which?", Some("ada".into()), 1).unwrap();
        state.questions.insert("room-1".into(), card);
        assert!(may_answer(&state, &member("ada"), "room-1").is_ok());
        assert!(may_answer(&state, &Actor::SingleOwner, "room-1").is_ok());
        // Bob sees the room (his Bot sits there) but neither asked nor owns it.
        let bob = may_answer(&state, &member("bob"), "room-1").unwrap_err();
        assert_eq!(bob.code, flybot_protocol::ErrorCode::Forbidden);
        let carol = may_answer(&state, &member("carol"), "room-1").unwrap_err();
        assert_eq!(carol.code, flybot_protocol::ErrorCode::NotFound);
        assert!(may_answer(&state, &member("ada"), "room-2").is_err());
        assert!(!may_see(
            &state,
            &member("bob"),
            "room-1",
            &state.questions["room-1"]
        ));
        assert_eq!(cards_of_bot(&state, "lead"), ["room-1"]);
        assert_eq!(cards_of_bot(&state, "dev"), ["room-1"]);
        assert!(cards_of_bot(&state, "rev").is_empty());
        assert!(clean_answer("  ").is_err());
        // The answer keeps the asking turn's origin only from the Bot's owner.
        let card = &state.questions["room-1"];
        assert_eq!(
            answer_origin(&state, &member("ada"), card),
            Some("ada".into())
        );
        assert_eq!(
            answer_origin(&state, &Actor::SingleOwner, card),
            Some("ada".into())
        );
        assert_eq!(answer_origin(&state, &member("bob"), card), None);
        assert_eq!(
            dismiss_notice("Ada", card),
            "Ada dismissed Name dev's question: Which?"
        );
        let card = &state.questions["room-1"];
        assert_eq!(
            answer_notice("Ada", card, "SQLite"),
            "Ada answered Name dev: Which? → SQLite"
        );
    }
}

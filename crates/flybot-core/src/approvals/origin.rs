//! Whom a standing grant answers for (#540): a grant answers an ask at once
//! only in a turn the Bot's owner started, or in a turn with no verdict at
//! all in the Bot's own chat (the host's own retry or pickup, or a schedule
//! the Bot's owner made, which carries nobody else's request). Input from
//! outside the owner still asks (issue 29): a Bot's request (a friend's
//! send), another member's line, a message from outside through a channel
//! connector (Feishu, #1266), a schedule another person made, or a room
//! with another person (or another owner's Bot) in it. The verdict is the
//! sentence the host logs for the first unused grant of a Session and kind.

use super::super::rooms::participants::{ParticipantKind, participants_of};
use flybot_protocol::state::{Bot, TeamState};

/// Where one input of the asking turn came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskFrom {
    /// A person's line in the Bot's own chat (`None`: before anyone signed
    /// in, the one person).
    Person(Option<String>),
    /// Another Bot's message.
    Bot,
    /// Another Bot's message that carries its sending turn's origin: the
    /// member that turn spoke for (relays carry it, #540; a group's answer
    /// keeps it, #550). It speaks for that member, no one else.
    Relayed(String),
    /// A room's round handed the member its turn.
    Room(String),
    /// A scheduled task's run (#473), by the task's id: it speaks for the
    /// member who made the task.
    Schedule(String),
    /// A message from outside through a channel connector (#1266).
    Connector,
    /// The host itself: a retry, a pickup. No verdict.
    Host,
}

/// Whether a standing grant may answer an ask of `bot`'s turn whose inputs
/// came `from`, in the Bot's own chat (`own_chat`) or a room's seat; `Err`
/// is the turn's verdict when it may not.
pub fn grant_applies(
    state: &TeamState,
    bot: &Bot,
    own_chat: bool,
    from: &[AskFrom],
) -> Result<(), &'static str> {
    if from.is_empty() {
        return Err("started by nobody");
    }
    for input in from {
        owners_input(state, bot, input)?;
    }
    let no_verdict = from
        .iter()
        .all(|f| matches!(f, AskFrom::Host | AskFrom::Schedule(_)));
    if no_verdict && !own_chat {
        return Err("a turn with no verdict outside the Bot's own chat");
    }
    Ok(())
}

/// Whether one input speaks for `bot`'s owner (or for nobody, the host's
/// own); `Err` names whose it is when it does not.
fn owners_input(state: &TeamState, bot: &Bot, input: &AskFrom) -> Result<(), &'static str> {
    match input {
        // A line the host hands in for the one person (no member id: the
        // channel stamps every signed-in line with its member).
        AskFrom::Person(None) => Ok(()),
        AskFrom::Person(Some(member)) if *member == bot.owner_id => Ok(()),
        AskFrom::Person(Some(_)) => Err("another member's line"),
        AskFrom::Bot => Err("a Bot's request"),
        AskFrom::Relayed(member) if *member == bot.owner_id => Ok(()),
        AskFrom::Relayed(_) => Err("a Bot's request for another member"),
        AskFrom::Room(room_id) if only_owner_in(state, bot, room_id) => Ok(()),
        AskFrom::Room(_) => Err("a room with another person in it"),
        AskFrom::Schedule(task_id) => match state.schedules.get(task_id) {
            Some(task) if task.created_by == bot.owner_id => Ok(()),
            Some(_) | None => Err("a schedule another person made"),
        },
        AskFrom::Connector => Err("a message from outside through a connector"),
        // Rides along with the other inputs, which decide.
        AskFrom::Host => Ok(()),
    }
}

/// Whether every person in the room is `bot`'s owner and every Bot there
/// is one of that owner's.
fn only_owner_in(state: &TeamState, bot: &Bot, room_id: &str) -> bool {
    let Some(room) = state.rooms.get(room_id) else {
        return false;
    };
    participants_of(room)
        .iter()
        .filter(|p| p.is_live())
        .all(|p| match p.kind {
            ParticipantKind::Human => p.id == bot.owner_id,
            ParticipantKind::LocalBot => state
                .bots
                .get(&p.id)
                .is_some_and(|b| b.owner_id == bot.owner_id),
            ParticipantKind::RemoteBot => false,
        })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn state() -> TeamState {
        let mut state = TeamState::default();
        for (id, owner) in [("ada", "m1"), ("bo", "m1"), ("cy", "m2")] {
            let bot: Bot = serde_json::from_value(json!({
                "id": id, "name": id, "ownerId": owner, "sessionId": format!("s-{id}"),
                "model": "mock", "createdAt": 1, "updatedAt": 1
            }))
            .unwrap();
            state.bots.insert(id.into(), bot);
        }
        for (id, members) in [("mine", vec!["ada", "bo"]), ("shared", vec!["ada", "cy"])] {
            let room = serde_json::from_value(json!({
                "id": id, "name": id, "ownerId": "m1", "members": members,
                "createdAt": 1, "updatedAt": 1
            }))
            .unwrap();
            state.rooms.insert(id.into(), room);
        }
        state
    }

    #[test]
    /// Rule #540.
    fn standing_grants_answer_only_the_owners_turn_or_a_no_verdict_retry_in_its_own_chat() {
        let state = state();
        let ada = &state.bots["ada"];
        let owner = AskFrom::Person(Some("m1".into()));
        assert_eq!(
            grant_applies(&state, ada, true, std::slice::from_ref(&owner)),
            Ok(())
        );
        assert_eq!(
            grant_applies(&state, ada, true, &[AskFrom::Person(None)]),
            Ok(())
        );
        assert_eq!(grant_applies(&state, ada, true, &[AskFrom::Host]), Ok(()));
        assert_eq!(
            grant_applies(&state, ada, false, &[AskFrom::Host]),
            Err("a turn with no verdict outside the Bot's own chat")
        );
        assert_eq!(
            grant_applies(&state, ada, true, &[owner.clone(), AskFrom::Bot]),
            Err("a Bot's request")
        );
        assert_eq!(
            grant_applies(&state, ada, true, &[AskFrom::Person(Some("m2".into()))]),
            Err("another member's line")
        );
        assert_eq!(
            grant_applies(&state, ada, false, &[AskFrom::Room("mine".into())]),
            Ok(())
        );
        assert_eq!(
            grant_applies(&state, ada, false, &[AskFrom::Room("shared".into())]),
            Err("a room with another person in it")
        );
    }

    #[test]
    /// Rules #540, #550.
    fn a_relay_carries_its_turns_origin_and_speaks_for_that_member_only() {
        let state = state();
        let ada = &state.bots["ada"];
        let relayed = |m: &str| AskFrom::Relayed(m.into());
        assert_eq!(grant_applies(&state, ada, true, &[relayed("m1")]), Ok(()));
        assert_eq!(
            grant_applies(&state, ada, true, &[relayed("m2")]),
            Err("a Bot's request for another member")
        );
        assert_eq!(
            grant_applies(&state, ada, true, &[AskFrom::Bot]),
            Err("a Bot's request")
        );
    }

    fn schedule(state: &mut TeamState, id: &str, made_by: &str) {
        let task = serde_json::from_value(json!({
            "id": id, "sessionId": "s-ada", "title": "t", "prompt": "p",
            "when": {"kind": "every", "seconds": 60}, "status": "active",
            "createdBy": made_by, "createdAt": 1, "updatedAt": 1
        }))
        .unwrap();
        state.schedules.insert(id.into(), task);
    }

    #[test]
    /// Rule #540.
    fn outside_input_a_connector_message_or_a_strangers_schedule_still_asks() {
        let mut state = state();
        schedule(&mut state, "mine", "m1");
        schedule(&mut state, "theirs", "m2");
        let ada = state.bots["ada"].clone();
        let owner = AskFrom::Person(Some("m1".into()));
        let check = |state: &TeamState, from: &[AskFrom]| grant_applies(state, &ada, true, from);
        assert_eq!(check(&state, &[AskFrom::Schedule("mine".into())]), Ok(()));
        assert_eq!(
            check(&state, &[AskFrom::Schedule("theirs".into())]),
            Err("a schedule another person made")
        );
        assert_eq!(
            check(&state, &[AskFrom::Schedule("gone".into())]),
            Err("a schedule another person made")
        );
        assert_eq!(
            check(&state, &[owner.clone(), AskFrom::Connector]),
            Err("a message from outside through a connector")
        );
        assert_eq!(
            check(&state, &[AskFrom::Connector]),
            Err("a message from outside through a connector")
        );
        assert_eq!(check(&state, &[owner]), Ok(()));
    }
}

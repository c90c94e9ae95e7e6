//! The part of the team a room's round reads (issue 38): everything but
//! the cards of other rooms. The round reads the team at its start and at
//! each member turn (who the members are, their standing, the room's
//! board and presence, whether a member's open card covers a cue), and
//! every card it reads is one of its room's (`room_id` is the room). A
//! team's board of thousands of cards is the bulk of a whole copy, which
//! each member turn paid for before.

use flybot_protocol::state::TeamState;

/// The team as a round of `room_id` reads it: every record but the tasks
/// of other rooms (and those of no room).
pub fn round_view(state: &TeamState, room_id: &str) -> TeamState {
    let cards: Vec<String> = state
        .tasks
        .iter()
        .filter(|(_, task)| task.room_id.as_deref() == Some(room_id))
        .map(|(id, _)| id.clone())
        .collect();
    round_view_of(state, &cards)
}

/// The round's view when the room's card ids are known (the store's
/// room index, `Store::read_room`): every record but the tasks not named.
pub fn round_view_of(state: &TeamState, cards: &[String]) -> TeamState {
    let tasks = cards
        .iter()
        .filter_map(|id| Some((id.clone(), state.tasks.get(id)?.clone())))
        .collect();
    // Every field named, so a record added to the team is a choice here.
    let TeamState {
        version,
        journal_seq,
        journal_digest,
        members,
        bots,
        designated_chief_id,
        main_bot_ids,
        rooms,
        tasks: _,
        grants,
        flybot,
        prefs,
        projects,
        invitations,
        auth_sessions,
        retired_sessions,
        project_runs,
        schedules,
        schedule_runs,
        questions,
        project_memory,
        attachments,
        social,
        extra,
    } = state;
    TeamState {
        version: *version,
        journal_seq: *journal_seq,
        journal_digest: journal_digest.clone(),
        members: members.clone(),
        bots: bots.clone(),
        designated_chief_id: designated_chief_id.clone(),
        main_bot_ids: main_bot_ids.clone(),
        rooms: rooms.clone(),
        tasks,
        grants: grants.clone(),
        flybot: flybot.clone(),
        prefs: prefs.clone(),
        projects: projects.clone(),
        invitations: invitations.clone(),
        auth_sessions: auth_sessions.clone(),
        retired_sessions: retired_sessions.clone(),
        project_runs: project_runs.clone(),
        schedules: schedules.clone(),
        schedule_runs: schedule_runs.clone(),
        questions: questions.clone(),
        project_memory: project_memory.clone(),
        attachments: attachments.clone(),
        social: social.clone(),
        extra: extra.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::board::format_room_board;
    use super::super::board::tests::card;
    use super::super::covers::board_covers_cue;
    use super::super::fixture::team;
    use super::super::presence::format_room_presence;
    use super::*;
    use flybot_protocol::state::TaskStatus;

    #[test]
    fn a_rounds_view_keeps_its_rooms_cards_and_reads_the_same_as_the_whole_team_38() {
        let mut state = team();
        let mut other = state.rooms["room-1"].clone();
        other.id = "room-2".into();
        state.rooms.insert("room-2".into(), other);
        for (id, bot, room) in [
            ("t1", "bot-a", Some("room-1")),
            ("t2", "bot-b", Some("room-1")),
            ("t3", "bot-a", Some("room-2")),
            ("t4", "bot-b", None),
        ] {
            let mut task = card(id, bot, TaskStatus::Working, |_| {});
            task.room_id = room.map(str::to_owned);
            state.tasks.insert(id.into(), task);
        }
        let view = round_view(&state, "room-1");
        let kept: Vec<&str> = view.tasks.keys().map(String::as_str).collect();
        assert_eq!(kept, ["t1", "t2"]);
        let known = ["t1".to_owned(), "t2".to_owned(), "gone".to_owned()];
        assert_eq!(
            round_view_of(&state, &known),
            view,
            "by the ids the index keeps"
        );
        let whole_but_tasks = TeamState {
            tasks: view.tasks.clone(),
            ..state.clone()
        };
        assert_eq!(view, whole_but_tasks, "every other record is the team's");
        let members = [("bot-a".to_owned(), "Ada".to_owned())];
        assert_eq!(
            format_room_presence(&view, "room-1", &members, 60_000),
            format_room_presence(&state, "room-1", &members, 60_000)
        );
        assert_eq!(
            format_room_board(&view, "room-1", 60_000),
            format_room_board(&state, "room-1", 60_000)
        );
        assert!(board_covers_cue(&view, "room-1", "bot-a", "t1 title"));
        assert!(!board_covers_cue(&view, "room-1", "bot-a", "t3 title"));
    }
}

//! What a person may do to a card (issue 31): `moves_for` reads the state
//! machine (#54, #202, #207, #1730), the board's update rule (#1058) and the
//! archive (`archive`) once, and every surface that offers a move (the
//! `tasks` rows, the state view's cards, the project board) carries its
//! answer, so a page never keeps a copy of the machine that could disagree
//! with the host.
//!
//! Claim, start and return are the requester's moves by #54 (every move
//! after create is), and the host takes them from the requester; the task
//! drive also wakes the Bot to make them itself through `track_tasks`. One
//! rule for both: they are offered exactly where the host takes them, and
//! the page draws them apart, as moves a person makes for the Bot.

use super::archive::may_archive;
use super::machine::{edge, is_requester};
use crate::access::{Actor, may_manage_bot};
use flybot_protocol::state::{Task, TaskStatus, TeamState};
use flybot_protocol::task::{TaskFields, TaskMove, WaitingFor};

/// The moves `viewer` may make on `task`, in the order a card draws them.
/// Each is one the matching rule accepts at this moment: a move listed here
/// and refused by its endpoint is a bug in one of the two.
pub fn moves_for(task: &Task, viewer: &Actor, state: &TeamState) -> Vec<TaskMove> {
    if task.status.is_terminal() {
        return if may_archive(state, viewer, task) {
            vec![TaskMove::Archive]
        } else {
            Vec::new()
        };
    }
    let requester = is_requester(state, viewer, task);
    let bot_owner = state
        .bots
        .get(&task.bot_id)
        .is_some_and(|bot| may_manage_bot(viewer, bot));
    let along =
        |from: TaskStatus, to: TaskStatus| requester && task.status == from && edge(from, to);
    TaskMove::ALL
        .into_iter()
        .filter(|m| match m {
            TaskMove::Claim => along(TaskStatus::Open, TaskStatus::Claimed),
            TaskMove::Start => along(TaskStatus::Claimed, TaskStatus::Working),
            TaskMove::Return => along(TaskStatus::Working, TaskStatus::ResultReady),
            TaskMove::AcceptResult => along(TaskStatus::ResultReady, TaskStatus::Accepted),
            TaskMove::SendBack => along(TaskStatus::ResultReady, TaskStatus::Working),
            TaskMove::Answer => requester && answerable(task),
            // `task-update` is the requester's or the Bot's owner's (#1058).
            TaskMove::Edit => requester || bot_owner,
            TaskMove::Cancel => requester && edge(task.status, TaskStatus::Cancelled),
            // Only a finished card is archived; this one is not.
            TaskMove::Archive => false,
        })
        .collect()
}

/// A blocked card waiting on its current question with no send still
/// waiting for approval: what `task-answer-input` takes (#207).
fn answerable(task: &Task) -> bool {
    if task.status != TaskStatus::Blocked {
        return false;
    }
    let fields = TaskFields::read(task);
    fields.waiting_for == Some(WaitingFor::Input)
        && fields.input_request.is_some()
        && fields.input_approval_ids.is_empty()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{member, task, team, with_fields};
    use super::super::{board, input, machine, rework};
    use super::*;
    use TaskMove::{AcceptResult, Answer, Archive, Cancel, Claim, Edit, Return, SendBack, Start};
    use flybot_protocol::task::{InputRequest, Priority};
    use flybot_protocol::task_requests::TaskUpdate;

    fn asked(status: TaskStatus) -> Task {
        with_fields(task("t", status), |f| {
            f.waiting_for = Some(WaitingFor::Input);
            f.input_request = Some(InputRequest {
                id: "q-1".into(),
                question: "Which colour?".into(),
                requested_at: 1,
            });
        })
    }

    fn requested_by(mut t: Task, who: Option<&str>) -> Task {
        t.requester_id = who.map(str::to_owned);
        t
    }

    /// The cards of the table, by a name a failure prints.
    fn cards() -> Vec<(&'static str, Task)> {
        vec![
            ("open", task("t", TaskStatus::Open)),
            ("claimed", task("t", TaskStatus::Claimed)),
            ("working", task("t", TaskStatus::Working)),
            ("result-ready", task("t", TaskStatus::ResultReady)),
            ("asked", asked(TaskStatus::Blocked)),
            (
                "asked, a send held",
                with_fields(asked(TaskStatus::Blocked), |f| {
                    f.input_approval_ids = vec!["appr-1".into()];
                }),
            ),
            (
                "held for approval",
                with_fields(task("t", TaskStatus::Blocked), |f| {
                    f.waiting_for = Some(WaitingFor::Approval);
                }),
            ),
            ("accepted", task("t", TaskStatus::Accepted)),
            ("cancelled", task("t", TaskStatus::Cancelled)),
            ("failed", task("t", TaskStatus::Failed)),
            (
                "archived",
                with_fields(task("t", TaskStatus::Accepted), |f| {
                    f.archived_at = Some(2);
                }),
            ),
            (
                "result-ready, asked by member-b",
                requested_by(task("t", TaskStatus::ResultReady), Some("member-b")),
            ),
            (
                "result-ready, no requester",
                requested_by(task("t", TaskStatus::ResultReady), None),
            ),
            (
                "working, no requester",
                requested_by(task("t", TaskStatus::Working), None),
            ),
        ]
    }

    fn viewers() -> Vec<(&'static str, Actor)> {
        vec![
            ("single owner", Actor::SingleOwner),
            ("member-a (host owner, owns the Bot)", member("member-a")),
            ("member-b", member("member-b")),
        ]
    }

    fn moves(card: &str, viewer: &str) -> Vec<TaskMove> {
        let state = team();
        let task = cards().into_iter().find(|(n, _)| *n == card).unwrap().1;
        let actor = viewers().into_iter().find(|(n, _)| *n == viewer).unwrap().1;
        moves_for(&task, &actor, &state)
    }

    #[test]
    fn the_table_of_cards_and_viewers_issue_31() {
        let a = "member-a (host owner, owns the Bot)";
        let table: &[(&str, &str, &[TaskMove])] = &[
            ("open", a, &[Claim, Edit, Cancel]),
            ("open", "member-b", &[]),
            ("claimed", "single owner", &[Start, Edit, Cancel]),
            ("working", a, &[Return, Edit, Cancel]),
            ("result-ready", a, &[AcceptResult, SendBack, Edit, Cancel]),
            ("result-ready", "member-b", &[]),
            ("asked", a, &[Answer, Edit, Cancel]),
            ("asked, a send held", a, &[Edit, Cancel]),
            ("held for approval", a, &[Edit, Cancel]),
            ("accepted", a, &[Archive]),
            ("accepted", "member-b", &[]),
            ("cancelled", "single owner", &[Archive]),
            ("failed", a, &[Archive]),
            ("archived", a, &[]),
            // The requester decides; the Bot's owner only edits (#1058).
            (
                "result-ready, asked by member-b",
                "member-b",
                &[AcceptResult, SendBack, Edit, Cancel],
            ),
            ("result-ready, asked by member-b", a, &[Edit]),
            // A card from before requesters were is the host owner's (#54).
            (
                "result-ready, no requester",
                a,
                &[AcceptResult, SendBack, Edit, Cancel],
            ),
            ("result-ready, no requester", "member-b", &[]),
            ("working, no requester", "member-b", &[]),
            ("working, no requester", a, &[Return, Edit, Cancel]),
        ];
        for (card, viewer, want) in table {
            assert_eq!(moves(card, viewer), *want, "{card} for {viewer}");
        }
    }

    /// The page's copy of the machine (`web/js/work/card.js`, `mayMove`,
    /// and the sidebar's `inputWaits`) read `!task.requesterId` as
    /// "anyone may move it", so it offered member-b the moves of a card
    /// with no requester; the core gives that card to the host's owner, and
    /// the host refused member-b after the click.
    #[test]
    fn a_card_with_no_requester_is_the_host_owners_where_the_page_offered_it_to_anyone_issue_31() {
        let page_may_move =
            |t: &Task, me: &str| t.requester_id.is_none() || t.requester_id.as_deref() == Some(me);
        let state = team();
        let card = requested_by(task("t", TaskStatus::ResultReady), None);
        assert!(page_may_move(&card, "member-b"), "the page's old rule");
        assert_eq!(moves_for(&card, &member("member-b"), &state), []);
        let refused = machine::accept_result(&state, &member("member-b"), "t", "Name member-b", 5);
        assert!(refused.is_err(), "the host refuses what the page offered");
    }

    /// Every move listed is one its rule accepts, and every move not listed
    /// is one its rule refuses, for every card and viewer of the table.
    #[test]
    fn every_listed_move_is_accepted_by_its_rule_and_no_other_issue_31() {
        for (card_name, card) in cards() {
            for (viewer_name, viewer) in viewers() {
                let mut state = team();
                state.tasks.insert(card.id.clone(), card.clone());
                let listed = moves_for(&card, &viewer, &state);
                for m in TaskMove::ALL {
                    let taken = rule(&state, &viewer, m).is_ok();
                    assert_eq!(
                        taken,
                        listed.contains(&m),
                        "{m:?} on {card_name} for {viewer_name}"
                    );
                }
            }
        }
    }

    fn rule(state: &TeamState, actor: &Actor, m: TaskMove) -> Result<(), String> {
        let out = match m {
            Claim => machine::accept(state, actor, "t", 5),
            Start => machine::start(state, actor, "t", 5),
            Return => machine::return_result(state, actor, "t", "Done.", 5),
            Archive => super::super::archive::archive(state, actor, "t", 5),
            AcceptResult => machine::accept_result(state, actor, "t", "x", 5),
            SendBack => rework::send_back(state, actor, "t", "again", "t-2", "x", 5),
            Answer => input::answer_input(state, actor, "t", "q-1", "Blue", 5),
            Cancel => machine::cancel(state, actor, "t", 5),
            Edit => {
                let req = TaskUpdate {
                    id: "t".into(),
                    priority: Some(Priority::High),
                    progress: Some(40),
                    note: None,
                    column: None,
                    task_class: None,
                    rework_of: None,
                    handoff: None,
                    evidence: None,
                    lease: None,
                };
                board::update(state, actor, &req, "x", 5)
            }
        };
        out.map(|_| ()).map_err(|e| e.message)
    }
}

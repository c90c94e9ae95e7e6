//! Deleting the responsible Bot fails its open tasks (#54): every unfinished
//! card of the Bot except a result waiting for a person's decision (which
//! survives, as it survives pruning). Active wait markers go, the input
//! snapshot stays (#207), and each overall card settles the same way (#1099).

use super::machine::end;
use super::{Card, Outcome, Stamps};
use flybot_protocol::state::{Bot, TaskStatus, TeamState};
use serde_json::Value;

/// The writes that fail `bot`'s open cards, as part of deleting it.
pub fn fail_tasks_of(state: &TeamState, bot: &Bot, now: u64) -> Outcome {
    let mut stamps = Stamps::new(now);
    let mut out = Outcome::default();
    let failing: Vec<&flybot_protocol::state::Task> = state
        .tasks
        .values()
        .filter(|t| {
            t.bot_id == bot.id && !t.status.is_terminal() && t.status != TaskStatus::ResultReady
        })
        .collect();
    for task in failing {
        // An earlier settle in this pass may already have ended it.
        let Some(current) = out.current(state, &task.id) else {
            continue;
        };
        if current.status.is_terminal() {
            continue;
        }
        let mut card = Card::of(current);
        card.task.extra.insert(
            "failure".to_owned(),
            Value::from(format!(
                "{} was deleted before finishing this task (it was {}).",
                bot.name,
                current.status.as_str()
            )),
        );
        end(
            state,
            card,
            TaskStatus::Failed,
            &bot.id,
            &mut stamps,
            &mut out,
        );
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{task, team, with_fields};
    use super::*;
    use flybot_protocol::task::{TaskFields, TaskKind, WaitingFor};

    #[test]
    /// Rule #1099.
    fn a_deleted_bot_fails_its_open_cards_keeps_result_ready_and_settles_the_overall_card() {
        let mut state = team();
        let overall = with_fields(task("task-all", TaskStatus::Working), |f| {
            f.kind = Some(TaskKind::Group)
        });
        let mut overall = overall;
        overall.bot_id = "bot-lead".into();
        let waiting = with_fields(task("task-wait", TaskStatus::Blocked), |f| {
            f.waiting_for = Some(WaitingFor::Input);
            f.parent_id = Some("task-all".into());
        });
        let ready = task("task-ready", TaskStatus::ResultReady);
        for t in [overall, waiting, ready] {
            state.tasks.insert(t.id.clone(), t);
        }
        let bot = state.bots["bot-dev1"].clone();
        let out = fail_tasks_of(&state, &bot, 50);
        let get = |id: &str| out.writes.iter().find(|t| t.id == id).cloned();
        let failed = get("task-wait").unwrap();
        assert_eq!(failed.status, TaskStatus::Failed);
        assert_eq!(TaskFields::read(&failed).waiting_for, None);
        assert!(get("task-ready").is_none());
        assert_eq!(get("task-all").unwrap().status, TaskStatus::Failed);
    }
}

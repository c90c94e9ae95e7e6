//! A Session's turns each answer one audience (issue 33, #420): two
//! friends' lines that arrive together open two turns, one after the other,
//! and neither turn holds the other's line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use flybot_agent::session::{ItemKind, LogEntry, SessionEvent, Sessions, Source};
use flybot_agent::testing::{Answer, ScriptedModel, TestEnv};
use flybot_agent::tools::ToolSet;
use std::sync::Arc;

fn friend(home: &str) -> Source {
    Source::Friend {
        home: home.to_owned(),
        room: format!("!{home}-room"),
        event: format!("$from-{home}"),
        typed: true,
        first_contact: false,
    }
}

/// Each turn's user lines, in the order the turns ran.
fn lines_per_turn(entries: &[LogEntry]) -> Vec<Vec<String>> {
    let mut turns: Vec<Vec<String>> = Vec::new();
    for entry in entries {
        match &entry.event {
            SessionEvent::TurnStart { .. } => turns.push(Vec::new()),
            SessionEvent::UserMessage { text, .. } => {
                turns.last_mut().unwrap().push(text.clone());
            }
            _ => {}
        }
    }
    turns
}

#[tokio::test]
async fn two_friends_lines_in_one_sync_open_two_turns_and_both_are_answered_33() {
    let home = tempfile::tempdir().unwrap();
    let model = ScriptedModel::new(vec![
        Answer::Text("to bob".into()),
        Answer::Text("to carol".into()),
        Answer::Text("to the owner".into()),
    ]);
    let env = TestEnv::new(model, ToolSet::new([]), home.path().to_owned());
    let sessions = Sessions::new(home.path().to_owned(), Arc::new(env));
    for (text, source) in [
        ("bob asks", friend("@bob:hs")),
        ("carol asks", friend("@carol:hs")),
        ("owner asks", Source::User { member_id: None }),
    ] {
        sessions
            .deliver("shared", text, source, ItemKind::NextTurn)
            .unwrap();
    }
    sessions.wait_idle("shared").await.unwrap();
    let log = sessions.transcript("shared", 0).unwrap();
    assert_eq!(
        lines_per_turn(&log),
        [vec!["bob asks"], vec!["carol asks"], vec!["owner asks"]]
    );
}

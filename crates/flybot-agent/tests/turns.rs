//! Sessions and turns end to end on the scripted provider: a turn with tool
//! calls, the log's events, cancel with and without keepInbox, the steering
//! interrupt on a paused clock, the settle window, the window fit (the
//! steward's own rules are in `context.rs`), and the
//! restart pickup.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use flybot_agent::model::{ModelError, Role};
use flybot_agent::session::{
    AbortedBy, EndReason, ItemKind, KEPT_IDLE, KEPT_PARTS_BYTES, LogEntry, SendOutcome,
    SessionEvent, Sessions, Source,
};
use flybot_agent::testing::{Answer, Echo, ScriptedModel, TestEnv, TextArgs};
use flybot_agent::tools::{DynTool, Tool, ToolContext, ToolResult, ToolSet};
use std::sync::Arc;
use std::time::Duration;

/// Waits (on tokio time) for as many seconds as its text says.
struct Wait;
impl Tool for Wait {
    type Args = TextArgs;
    fn name(&self) -> &'static str {
        "wait"
    }
    fn description(&self) -> &'static str {
        "Waits."
    }
    async fn call(&self, _ctx: &ToolContext, args: TextArgs) -> ToolResult {
        let secs: u64 = args.text.parse().unwrap_or(1);
        tokio::time::sleep(Duration::from_secs(secs)).await;
        Ok("waited".into())
    }
}

fn tools() -> ToolSet {
    ToolSet::new([Arc::new(Echo) as Arc<dyn DynTool>, Arc::new(Wait)])
}

struct Fixture {
    _home: tempfile::TempDir,
    home: std::path::PathBuf,
    model: Arc<ScriptedModel>,
    sessions: Sessions,
    /// How many turns have ended with their end durable.
    ended: tokio::sync::watch::Receiver<u64>,
}

fn fixture(answers: Vec<Answer>) -> Fixture {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().to_owned();
    let model = ScriptedModel::new(answers);
    let env = TestEnv::new(model.clone(), tools(), path.clone());
    let ended = env.ended.subscribe();
    let sessions = Sessions::new(path.clone(), Arc::new(env));
    Fixture {
        _home: home,
        home: path,
        model,
        sessions,
        ended,
    }
}

/// A fixture whose Session `busy` runs a turn that waits a long time.
async fn with_busy_session() -> Fixture {
    let f = fixture(vec![Answer::Calls(vec![(
        "wait".into(),
        r#"{"text":"100000"}"#.into(),
    )])]);
    let (text, source, kind) = user("wait a long time");
    f.sessions.deliver("busy", &text, source, kind).unwrap();
    while f.sessions.oldest_open_wait("busy").is_none() {
        tokio::task::yield_now().await;
    }
    f
}

fn kinds(entries: &[LogEntry]) -> Vec<String> {
    entries
        .iter()
        .map(|e| match &e.event {
            SessionEvent::TurnEnd { reason, .. } => format!("turn/end {}", reason.kind()),
            other => serde_json::to_value(other).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned(),
        })
        .collect()
}

fn user(text: &str) -> (String, Source, ItemKind) {
    (
        text.to_owned(),
        Source::User { member_id: None },
        ItemKind::NextTurn,
    )
}

fn deliver(f: &Fixture, text: &str) {
    let (text, source, kind) = user(text);
    f.sessions.deliver("s1", &text, source, kind).unwrap();
}

#[tokio::test]
async fn a_turn_runs_its_tool_calls_and_logs_every_event() {
    let f = fixture(vec![
        Answer::Calls(vec![
            ("echo".into(), r#"{"text":"a"}"#.into()),
            ("echo".into(), r#"{"text":"b"}"#.into()),
        ]),
        Answer::Calls(vec![("nope".into(), "{}".into())]),
        Answer::Text("All done.".into()),
    ]);
    deliver(&f, "hello");
    f.sessions.wait_idle("s1").await.unwrap();
    let log = f.sessions.transcript("s1", 0).unwrap();
    assert_eq!(
        kinds(&log),
        [
            "turn/start",
            "user/message",
            "step/start",
            "step/end",
            "tool/call",
            "tool/call",
            "tool/result",
            "tool/result",
            "step/start",
            "step/end",
            "tool/call",
            "tool/result",
            "step/start",
            "step/end",
            "assistant/message",
            "turn/end completed"
        ]
    );
    let SessionEvent::ToolResult {
        tool_call_id, text, ..
    } = &log[6].event
    else {
        panic!()
    };
    assert_eq!(
        (tool_call_id.as_str(), text.as_str()),
        ("call-0-0", "echo: a")
    );
    let SessionEvent::ToolResult { is_error, .. } = &log[11].event else {
        panic!()
    };
    assert!(is_error, "an unknown tool answers an error result");
    let SessionEvent::TurnEnd { calls, .. } = &log[15].event else {
        panic!()
    };
    assert_eq!(*calls, 3);
    // The second request carries the first step's calls and results.
    let second = &f.model.requests()[1];
    assert_eq!(second.messages[0].role, Role::System);
    assert!(
        second
            .messages
            .iter()
            .any(|m| m.tool_call_id.as_deref() == Some("call-0-1"))
    );
    // The log on disk reads back the same.
    let reopened = Sessions::new(
        f.home.clone(),
        Arc::new(TestEnv::new(f.model.clone(), tools(), f.home.clone())),
    );
    assert_eq!(reopened.transcript("s1", 0).unwrap(), log);
    assert_eq!(f.sessions.transcript("s1", 15).unwrap().len(), 1);
}

#[tokio::test]
async fn a_model_failure_ends_the_turn_with_its_code() {
    let f = fixture(vec![Answer::Fail(ModelError::Budget)]);
    deliver(&f, "hello");
    f.sessions.wait_idle("s1").await.unwrap();
    let log = f.sessions.transcript("s1", 0).unwrap();
    let SessionEvent::TurnEnd { reason, .. } = &log.last().unwrap().event else {
        panic!()
    };
    assert!(matches!(reason, EndReason::Error { code, .. } if code == "QUOTA"));
    let ended = f.sessions.ended_turns();
    assert_eq!((ended[0].silent, ended[0].streak), (true, Some(1)));
}

#[tokio::test(start_paused = true)]
async fn cancel_without_keep_inbox_drops_the_queue_and_with_it_keeps_it() {
    let f = fixture(vec![
        Answer::Calls(vec![("wait".into(), r#"{"text":"10"}"#.into())]),
        Answer::Calls(vec![("wait".into(), r#"{"text":"10"}"#.into())]),
        Answer::Text("second turn".into()),
    ]);
    deliver(&f, "one");
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(f.sessions.is_running("s1"));
    f.sessions.send_line("s1", "queued", None).unwrap();
    let out = f.sessions.cancel("s1", AbortedBy::User, false).unwrap();
    assert_eq!((out.was_running, out.dropped), (true, 1));
    f.sessions.wait_idle("s1").await.unwrap();
    let log = f.sessions.transcript("s1", 0).unwrap();
    assert_eq!(kinds(&log).last().unwrap(), "turn/end aborted");
    assert_eq!(kinds(&log).iter().filter(|k| *k == "turn/start").count(), 1);

    deliver(&f, "two");
    tokio::time::sleep(Duration::from_secs(1)).await;
    f.sessions.send_line("s1", "kept", None).unwrap();
    let out = f.sessions.cancel("s1", AbortedBy::User, true).unwrap();
    assert_eq!((out.was_running, out.dropped), (true, 0));
    f.sessions.wait_idle("s1").await.unwrap();
    let log = f.sessions.transcript("s1", 0).unwrap();
    let texts: Vec<&str> = log
        .iter()
        .filter_map(|e| match &e.event {
            SessionEvent::UserMessage { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["one", "two", "kept"]);
    assert_eq!(kinds(&log).last().unwrap(), "turn/end completed");
}

#[tokio::test(start_paused = true)]
async fn a_line_during_a_wait_over_60_seconds_interrupts_the_turn_once() {
    let f = fixture(vec![
        Answer::Calls(vec![("wait".into(), r#"{"text":"600"}"#.into())]),
        Answer::Text("answered the line".into()),
    ]);
    deliver(&f, "start a long job");
    tokio::time::sleep(Duration::from_secs(30)).await;
    // A wait of 60 s or less is left alone.
    assert_eq!(
        f.sessions.send_line("s1", "early", None).unwrap().0,
        SendOutcome::Queued
    );
    tokio::time::sleep(Duration::from_secs(31)).await;
    assert_eq!(
        f.sessions.send_line("s1", "stop waiting", None).unwrap().0,
        SendOutcome::Interrupted
    );
    f.sessions.wait_idle("s1").await.unwrap();
    let log = f.sessions.transcript("s1", 0).unwrap();
    let ends: Vec<&EndReason> = log
        .iter()
        .filter_map(|e| match &e.event {
            SessionEvent::TurnEnd { reason, .. } => Some(reason),
            _ => None,
        })
        .collect();
    assert_eq!(
        ends,
        [
            &EndReason::Aborted {
                by: AbortedBy::Hook,
                reason: Some("ds-bot/interrupt-long-wait".into())
            },
            &EndReason::Completed
        ]
    );
    // Both lines were the next turn's input; nothing was lost. The two
    // back-to-back lines reach the model as one user message (strict chat
    // templates refuse two in a row).
    let last_request = f.model.requests().pop().unwrap();
    let user_texts: Vec<&str> = last_request
        .messages
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.content.as_str())
        .collect();
    assert_eq!(user_texts, ["start a long job", "early\n\nstop waiting"]);
}

#[tokio::test(start_paused = true)]
async fn lines_inside_the_settle_window_open_one_turn() {
    let f = fixture(vec![Answer::Text("one answer".into())]);
    assert_eq!(
        f.sessions.send_line("s1", "first", None).unwrap().0,
        SendOutcome::Held
    );
    tokio::time::sleep(Duration::from_millis(1000)).await;
    f.sessions.send_line("s1", "second", None).unwrap();
    assert!(!f.sessions.is_running("s1"));
    tokio::time::sleep(Duration::from_millis(600)).await;
    f.sessions.wait_idle("s1").await.unwrap();
    let requests = f.model.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].messages.last().unwrap().content,
        "first\nsecond"
    );
}

#[tokio::test]
async fn every_request_fits_the_window_and_the_log_keeps_every_turn() {
    let home = tempfile::tempdir().unwrap();
    let model = ScriptedModel::new([]);
    let mut env = TestEnv::new(model.clone(), ToolSet::default(), home.path().to_owned());
    env.window.context_tokens = 1_200;
    env.window.reply_tokens = 200;
    let sessions = Sessions::new(home.path().to_owned(), Arc::new(env));
    for n in 0..6 {
        let text = format!("turn {n} {}", "x".repeat(900));
        sessions
            .deliver(
                "s1",
                &text,
                Source::User { member_id: None },
                ItemKind::NextTurn,
            )
            .unwrap();
        sessions.wait_idle("s1").await.unwrap();
    }
    let requests = model.turn_requests();
    for request in &requests {
        let chars: usize = request.messages.iter().map(|m| m.content.len()).sum();
        assert!(chars / 3 < 1_000, "a request of {chars} characters");
    }
    let last = requests.last().unwrap();
    assert_eq!(
        last.messages
            .iter()
            .filter(|m| m.role == Role::System)
            .count(),
        1,
        "one system message per request"
    );
    assert!(last.messages.last().unwrap().content.starts_with("turn 5"));
    assert!(
        !last
            .messages
            .iter()
            .any(|m| m.content.starts_with("turn 0"))
    );
    // The log keeps every turn.
    assert_eq!(
        sessions
            .transcript("s1", 0)
            .unwrap()
            .iter()
            .filter(|e| matches!(e.event, SessionEvent::TurnStart { .. }))
            .count(),
        6
    );
}

#[tokio::test]
async fn a_restart_picks_up_a_cut_turn_once_and_queued_input() {
    use flybot_store::inflight::{Inflight, QueuedNote, TurnNote, write_inflight};
    use flybot_store::sessions::SessionLogFile;
    let f = fixture(vec![]);
    // Session a: a turn cut mid-way (no end). Session b: a turn that completed.
    let start =
        |turn: &str| serde_json::json!({"seq": 1, "at": 1, "type": "turn/start", "turnId": turn});
    SessionLogFile::new(&f.home, "a")
        .unwrap()
        .append(&[start("ta")])
        .unwrap();
    SessionLogFile::new(&f.home, "b")
        .unwrap()
        .append(&[start("tb"), serde_json::json!({"seq": 2, "at": 2, "type": "turn/end", "turnId": "tb", "reason": {"kind": "completed"}, "calls": 0})])
        .unwrap();
    let item = serde_json::json!({"id": "m1", "text": "owed", "source": {"kind": "user"}, "kind": "next-turn"});
    write_inflight(
        &f.home,
        &Inflight {
            turns: vec![
                TurnNote {
                    session_id: "a".into(),
                    turn_id: "ta".into(),
                    items: Vec::new(),
                },
                TurnNote {
                    session_id: "b".into(),
                    turn_id: "tb".into(),
                    items: Vec::new(),
                },
            ],
            queued: vec![QueuedNote {
                session_id: "c".into(),
                item,
            }],
        },
    )
    .unwrap();
    let pickup = f.sessions.pick_up().unwrap();
    assert_eq!(pickup.turns, ["a"]);
    assert_eq!(pickup.queued, 1);
    for s in ["a", "b", "c"] {
        f.sessions.wait_idle(s).await.unwrap();
    }
    let a = kinds(&f.sessions.transcript("a", 0).unwrap());
    assert_eq!(
        &a[..3],
        ["turn/start", "turn/end interrupted", "turn/start"]
    );
    assert_eq!(a.last().unwrap(), "turn/end completed");
    assert_eq!(kinds(&f.sessions.transcript("b", 0).unwrap()).len(), 2);
    assert_eq!(
        kinds(&f.sessions.transcript("c", 0).unwrap())
            .last()
            .unwrap(),
        "turn/end completed"
    );
    // Everything owed was taken: nothing is noted any more.
    let notes = flybot_store::inflight::read_inflight(&f.home);
    assert!(
        notes.turns.is_empty() && notes.queued.is_empty(),
        "{notes:?}"
    );
}

/// The user messages of a Session's log, in order.
fn user_texts(entries: &[LogEntry]) -> Vec<String> {
    entries
        .iter()
        .filter_map(|e| match &e.event {
            SessionEvent::UserMessage { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_crash_between_the_turn_note_and_turn_start_delivers_the_persons_line_itself() {
    use flybot_store::inflight::{Inflight, TurnNote, write_inflight};
    let f = fixture(vec![]);
    // The note says a turn of s1 ran with the person's line as its input,
    // and the kill came before its turn/start reached the log.
    let item = serde_json::json!({"id": "m7", "text": "please ship the fix", "source": {"kind": "user"}, "kind": "next-turn"});
    let round = serde_json::json!({"id": "m8", "text": "[Group \"Ship\"] your turn", "source": {"kind": "round", "roomId": "r1", "hops": 0}, "kind": "next-turn"});
    write_inflight(
        &f.home,
        &Inflight {
            turns: vec![
                TurnNote {
                    session_id: "s1".into(),
                    turn_id: "t1".into(),
                    items: vec![item],
                },
                TurnNote {
                    session_id: "g1".into(),
                    turn_id: "t2".into(),
                    items: vec![round],
                },
            ],
            queued: Vec::new(),
        },
    )
    .unwrap();
    let pickup = f.sessions.pick_up().unwrap();
    // Picked up in Session order.
    assert_eq!(pickup.turns, ["g1", "s1"]);
    for s in ["s1", "g1"] {
        f.sessions.wait_idle(s).await.unwrap();
    }
    let s1 = f.sessions.transcript("s1", 0).unwrap();
    assert_eq!(user_texts(&s1), ["please ship the fix"]);
    assert_eq!(kinds(&s1).last().unwrap(), "turn/end completed");
    let g1 = f.sessions.transcript("g1", 0).unwrap();
    assert_eq!(user_texts(&g1), ["[Group \"Ship\"] your turn"]);
    // Nothing is owed any more, and nothing generic was delivered.
    let notes = flybot_store::inflight::read_inflight(&f.home);
    assert!(
        notes.turns.is_empty() && notes.queued.is_empty(),
        "{notes:?}"
    );
}

/// Bounded Session memory (issue 13): once a turn's end is durable an idle
/// Session holds its current part and nothing older (the steward's own
/// test checks that a checkpoint lets the older entries go), so its next
/// turn builds on it without reading the part back; the model still sees
/// every earlier line, and a transcript reads back whole.
#[tokio::test]
async fn an_idle_session_holds_its_current_part_and_its_next_turn_builds_on_it_13() {
    let mut f = fixture(vec![]);
    let line = "x".repeat(20_000);
    let file = f.home.join("sessions/big.jsonl");
    for n in 1..=3u64 {
        let (text, source, kind) = user(&format!("{n} {line}"));
        f.sessions.deliver("big", &text, source, kind).unwrap();
        f.sessions.wait_idle("big").await.unwrap();
        f.ended.wait_for(|ended| *ended >= n).await.unwrap();
        // No part moved: the part is the whole log, held as written.
        let written = std::fs::metadata(&file).unwrap().len();
        assert!(written > n * 20_000);
        assert_eq!(f.sessions.log_bytes_in_memory(), written, "after turn {n}");
    }
    let requests = f.model.turn_requests();
    let last = requests.last().unwrap();
    let users: Vec<&str> = last
        .messages
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| &m.content[..2])
        .collect();
    assert_eq!(
        users,
        ["1 ", "2 ", "3 "],
        "the third turn saw the first two"
    );
    let transcript = f.sessions.transcript("big", 0).unwrap();
    let texts = user_texts(&transcript);
    assert_eq!(texts.len(), 3);
    assert!(texts.iter().all(|t| t.len() == line.len() + 2));
}

/// `rounds` rounds of one line to each of Sessions `s0`..`s19`, the line
/// `text(round, name)`; each turn's end durable and announced before the next.
async fn rounds_of_twenty(f: &mut Fixture, rounds: usize, text: impl Fn(usize, &str) -> String) {
    let mut turns = 0;
    for round in 0..rounds {
        for name in (0..20).map(|n| format!("s{n}")) {
            let (text, source, kind) = user(&text(round, &name));
            f.sessions.deliver(&name, &text, source, kind).unwrap();
            f.sessions.wait_idle(&name).await.unwrap();
            turns += 1;
            f.ended.wait_for(|ended| *ended >= turns).await.unwrap();
        }
    }
}

/// Bounded Session memory (issue 13): the parts the Sessions in memory
/// keep stay within `KEPT_PARTS_BYTES` in all, however they grow after the
/// Sessions opened; past it the least recently used let go of theirs, and
/// its next turn reads it back, so the model still sees every line.
#[tokio::test]
async fn the_parts_sessions_keep_stay_within_the_bound_as_they_grow_13() {
    let mut f = fixture(vec![]);
    let big = "z".repeat(40_000);
    rounds_of_twenty(&mut f, 3, |round, name| match round {
        0 => format!("{name} hello"),
        _ => format!("{name} {round} {big}"),
    })
    .await;
    // 20 parts of about 80 KB would be 1.6 MB.
    let held = f.sessions.log_bytes_in_memory();
    assert!(held <= KEPT_PARTS_BYTES, "{held}");
    assert!(held > KEPT_PARTS_BYTES / 2, "the newest parts stay: {held}");
    let (text, source, kind) = user("s0 again");
    f.sessions.deliver("s0", &text, source, kind).unwrap();
    f.sessions.wait_idle("s0").await.unwrap();
    let requests = f.model.turn_requests();
    let users: Vec<&str> = (requests.last().unwrap().messages.iter())
        .filter(|m| m.role == Role::User)
        .map(|m| &m.content[..m.content.len().min(5)])
        .collect();
    assert_eq!(users, ["s0 he", "s0 1 ", "s0 2 ", "s0 ag"]);
}

/// Issue 38: a Session that lets go of its part for the bound keeps its
/// last turn, so what follows the turn's end (the usage ledger's fold, a
/// room reading its member's answer) reads it from memory, not the file.
#[tokio::test]
async fn a_session_trimmed_for_the_bound_keeps_its_last_turn_38() {
    let mut f = fixture(vec![]);
    let big = "z".repeat(60_000);
    rounds_of_twenty(&mut f, 2, |round, name| match round {
        0 => format!("{name} {big}"),
        _ => format!("{name} last"),
    })
    .await;
    let held = f.sessions.log_bytes_in_memory();
    assert!(held <= KEPT_PARTS_BYTES, "{held}");
    let log = f.sessions.transcript("s0", 0).unwrap();
    let last = log
        .iter()
        .rev()
        .find(|e| matches!(e.event, SessionEvent::TurnStart { .. }))
        .map(|e| e.event.turn_id().to_owned())
        .unwrap();
    // The file emptied under it: only memory can answer.
    std::fs::write(f.home.join("sessions/s0.jsonl"), b"").unwrap();
    let entries = f.sessions.turn_transcript("s0", &last).unwrap();
    assert_eq!(
        kinds(&entries).first().map(String::as_str),
        Some("turn/start")
    );
    assert_eq!(
        kinds(&entries).last().map(String::as_str),
        Some("turn/end completed")
    );
    assert!(entries.iter().all(|e| e.event.turn_id() == last));
}

/// Bounded Session memory (issue 13): past `KEPT_IDLE` idle Sessions the
/// least recently used are let go; a Session whose turn runs stays; one
/// let go reads back whole from its files when it is next used.
#[tokio::test]
async fn idle_sessions_past_the_bound_are_let_go_and_read_back_whole() {
    let f = with_busy_session().await;
    let many = KEPT_IDLE + 20;
    for n in 0..many {
        let (text, source, kind) = user(&format!("line {n}"));
        let session = format!("s-{n}");
        f.sessions.deliver(&session, &text, source, kind).unwrap();
        f.sessions.wait_idle(&session).await.unwrap();
    }
    // The busy one, the one read last and those whose turn's end is still
    // being announced stay beside the idle ones kept; without the bound
    // all of them (85) would.
    assert!(
        f.sessions.in_memory() <= KEPT_IDLE + 4,
        "{} Sessions in memory",
        f.sessions.in_memory()
    );
    assert!(f.sessions.is_running("busy"), "a running Session stays");
    let first = f.sessions.transcript("s-0", 0).unwrap();
    assert_eq!(
        kinds(&first),
        [
            "turn/start",
            "user/message",
            "step/start",
            "step/end",
            "assistant/message",
            "turn/end completed"
        ]
    );
    let SessionEvent::UserMessage { text, .. } = &first[1].event else {
        panic!("{first:?}")
    };
    assert_eq!(text, "line 0");
    f.sessions.cancel("busy", AbortedBy::User, false).unwrap();
}

/// Copies the home as a kill -9 leaves it (no checkpoint, nothing flushed
/// beyond what was written).
fn crash_copy(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            crash_copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// One in-flight note per Session (issue 13): after a kill -9 the next
/// start reads each Session's newest note: the running turn with the line
/// queued behind it is picked up, and a Session that settled (a finished
/// turn, a held line the person cancelled) owes nothing and runs nothing.
#[tokio::test]
async fn a_restart_reads_each_sessions_newest_note_and_a_settled_one_runs_nothing_13() {
    let f = with_busy_session().await;
    let (outcome, _) = f.sessions.send_line("busy", "and then this", None).unwrap();
    assert_eq!(outcome, SendOutcome::Queued);
    let (text, source, kind) = user("finish quickly");
    f.sessions.deliver("done", &text, source, kind).unwrap();
    f.sessions.wait_idle("done").await.unwrap();
    let (outcome, _) = f
        .sessions
        .send_line("cancelled", "never mind", None)
        .unwrap();
    assert_eq!(outcome, SendOutcome::Held);
    f.sessions
        .cancel("cancelled", AbortedBy::User, false)
        .unwrap();

    let crashed = tempfile::tempdir().unwrap();
    crash_copy(&f.home, crashed.path());
    let notes = flybot_store::inflight::read_inflight(crashed.path());
    let noted: Vec<(&str, &str)> = notes
        .turns
        .iter()
        .map(|t| (t.session_id.as_str(), t.items[0]["text"].as_str().unwrap()))
        .collect();
    assert_eq!(noted, [("busy", "wait a long time")]);
    let queued: Vec<(&str, &str)> = notes
        .queued
        .iter()
        .map(|q| (q.session_id.as_str(), q.item["text"].as_str().unwrap()))
        .collect();
    assert_eq!(queued, [("busy", "and then this")]);

    let model = ScriptedModel::new(Vec::new());
    let env = TestEnv::new(model, tools(), crashed.path().to_owned());
    let restarted = Sessions::new(crashed.path().to_owned(), Arc::new(env));
    let pickup = restarted.pick_up().unwrap();
    assert_eq!(pickup.turns, ["busy"]);
    assert_eq!(pickup.queued, 1);
    for s in ["busy", "done", "cancelled"] {
        restarted.wait_idle(s).await.unwrap();
    }
    // The cut turn goes on with the line that waited behind it, once.
    let busy = user_texts(&restarted.transcript("busy", 0).unwrap());
    assert_eq!(busy.first().unwrap(), "wait a long time");
    assert_eq!(busy.last().unwrap(), "and then this");
    assert_eq!(busy.iter().filter(|t| *t == "and then this").count(), 1);
    assert_eq!(
        user_texts(&restarted.transcript("done", 0).unwrap()),
        ["finish quickly"]
    );
    assert!(restarted.transcript("cancelled", 0).unwrap().is_empty());
    f.sessions.cancel("busy", AbortedBy::User, false).unwrap();
}

/// Notes its text as an attachment id, as `attach_file` does once the host
/// stored the file (issue 32).
struct AttachTest;
impl Tool for AttachTest {
    type Args = TextArgs;
    fn name(&self) -> &'static str {
        "attach_test"
    }
    fn description(&self) -> &'static str {
        "Attaches."
    }
    async fn call(&self, ctx: &ToolContext, args: TextArgs) -> ToolResult {
        ctx.attached.push(args.text);
        Ok("attached".into())
    }
}

/// The attachments of each `assistant/message` of `entries`, with its text.
fn answers_with_files(entries: &[LogEntry]) -> Vec<(String, Vec<String>)> {
    entries
        .iter()
        .filter_map(|e| match &e.event {
            SessionEvent::AssistantMessage {
                text, attachments, ..
            } => Some((text.clone(), attachments.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_file_a_tool_attached_rides_the_next_answer_and_a_turn_that_ends_first_carries_it_alone()
{
    let home = tempfile::tempdir().unwrap();
    let model = ScriptedModel::new([
        Answer::Calls(vec![("attach_test".into(), r#"{"text":"att-1"}"#.into())]),
        Answer::Text("Here it is.".into()),
        Answer::Calls(vec![("attach_test".into(), r#"{"text":"att-2"}"#.into())]),
        Answer::Fail(ModelError::BadResponse("the provider went away".into())),
    ]);
    let tools = ToolSet::new([Arc::new(AttachTest) as Arc<dyn DynTool>]);
    let env = TestEnv::new(model.clone(), tools, home.path().to_owned());
    let sessions = Sessions::new(home.path().to_owned(), Arc::new(env));
    for session in ["s1", "s2"] {
        let (text, source, kind) = user("attach it");
        sessions.deliver(session, &text, source, kind).unwrap();
        sessions.wait_idle(session).await.unwrap();
    }
    let first = sessions.transcript("s1", 0).unwrap();
    assert_eq!(
        answers_with_files(&first),
        [("Here it is.".to_owned(), vec!["att-1".to_owned()])]
    );
    // The turn failed after the call: a wordless answer still carries the
    // file, before the turn's end.
    let second = sessions.transcript("s2", 0).unwrap();
    assert_eq!(
        answers_with_files(&second),
        [(String::new(), vec!["att-2".to_owned()])]
    );
    let tail: Vec<String> = kinds(&second).into_iter().rev().take(2).collect();
    assert_eq!(tail[1], "assistant/message");
    assert!(tail[0].starts_with("turn/end error"), "{tail:?}");
    // A wordless answer is never sent back to a model as an empty message.
    let requests = model.turn_requests();
    assert!(
        requests
            .iter()
            .flat_map(|r| &r.messages)
            .all(|m| m.role != Role::Assistant
                || !m.content.is_empty()
                || !m.tool_calls.is_empty())
    );
}

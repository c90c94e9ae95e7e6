//! The subprocess participant's supervision, matrix rows "delivery and
//! crash" and "stop and late result" (#198): scripted misbehaving peers are
//! real programs (coreutils, and `sh` scripts: the supervisor itself runs
//! any argv; only a Bot record refuses a shell as `command[0]`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use flybot_interop::subprocess::peer::Peer;
use flybot_interop::subprocess::{
    Graces, HostLine, Launch, SeatKey, SeatOutcome, SeatState, StopEnd, Supervisor,
};
use std::time::Duration;

fn launch(argv: &[&str]) -> Launch {
    Launch {
        command: argv.iter().map(|s| (*s).to_owned()).collect(),
        cwd: std::env::temp_dir(),
        env: Default::default(),
    }
}

fn script(body: &str) -> Launch {
    launch(&["sh", "-c", body])
}

/// A fresh marker path a script touches once it reached a point.
fn marker(name: &str) -> std::path::PathBuf {
    let dir = tempfile::tempdir().unwrap().keep();
    dir.join(name)
}

/// Waits (10 ms looks, at most 10 s) until the script touched `path`: the
/// child's own signal that it reached the point, not a guessed delay.
async fn reached(path: &std::path::Path) {
    for _ in 0..1000 {
        if path.exists() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the script never reached {}", path.display());
}

fn turn(text: &str) -> HostLine {
    HostLine::Turn {
        text: text.to_owned(),
        note: String::new(),
        from: "Ann".to_owned(),
        exchange_id: "x1".to_owned(),
    }
}

fn key() -> SeatKey {
    SeatKey {
        room_id: "room-1".to_owned(),
        bot_id: "bot-b".to_owned(),
    }
}

fn quick() -> Supervisor {
    Supervisor::new(
        Graces {
            after_ask: Duration::from_millis(200),
            after_term: Duration::from_millis(400),
        },
        Duration::from_secs(10),
    )
}

/// Whether `pid` is a live process (not gone, not a zombie).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rsplit(')').next().map(|rest| rest.trim().to_owned()))
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

async fn wait_gone(pid: u32) -> bool {
    for _ in 0..100 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test]
async fn delivery_and_crash_an_echo_peer_answers_each_turn_from_one_process() {
    let supervisor = quick();
    let cat = launch(&["cat"]);
    let first = supervisor.turn(&key(), &cat, turn("hello")).await;
    assert_eq!(first, SeatOutcome::Text("hello".to_owned()));
    let pid = supervisor.pid(&key()).unwrap();
    let second = supervisor.turn(&key(), &cat, turn("again")).await;
    assert_eq!(second, SeatOutcome::Text("again".to_owned()));
    assert_eq!(supervisor.pid(&key()), Some(pid), "one process per seat");
    assert_eq!(supervisor.state(&key()), SeatState::Ready);
}

#[tokio::test]
async fn delivery_and_crash_a_crash_is_a_failure_carrying_the_stderr_tail() {
    let supervisor = quick();
    let crash = script(
        "read line; i=0; while [ $i -lt 40 ]; do echo \"noise line $i\" >&2; i=$((i+1)); done; \
         echo 'fatal: scripted crash in the peer' >&2; exit 3",
    );
    let outcome = supervisor.turn(&key(), &crash, turn("go")).await;
    let SeatOutcome::Failed { code, detail } = outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(code, "CRASHED");
    assert!(detail.contains("exit status: 3"), "{detail}");
    assert!(
        detail.ends_with("fatal: scripted crash in the peer"),
        "{detail}"
    );
    assert!(!detail.contains('\n'));
    assert!(detail.chars().count() <= 200 + 30, "{detail}");
    assert!(matches!(
        supervisor.state(&key()),
        SeatState::Crashed { .. }
    ));
    assert!(supervisor.seats().is_empty(), "a crashed seat is not kept");
}

#[tokio::test]
async fn delivery_and_crash_a_turn_reaching_a_dead_process_fails_and_the_next_starts_fresh() {
    let supervisor = quick();
    // Answers once, then leaves between turns.
    let once = script("read line; echo '{\"text\":\"one\"}'; sleep 0.2; exit 0");
    let first = supervisor.turn(&key(), &once, turn("a")).await;
    assert_eq!(first, SeatOutcome::Text("one".to_owned()));
    let pid = supervisor.pid(&key()).unwrap();
    assert!(wait_gone(pid).await);
    let second = supervisor.turn(&key(), &once, turn("b")).await;
    assert!(
        matches!(
            second,
            SeatOutcome::Failed {
                code: "CRASHED",
                ..
            }
        ),
        "never silence: {second:?}"
    );
    assert_eq!(supervisor.state(&key()), SeatState::Exited);
    let third = supervisor.turn(&key(), &once, turn("c")).await;
    assert_eq!(
        third,
        SeatOutcome::Text("one".to_owned()),
        "a fresh process"
    );
}

#[tokio::test]
async fn delivery_and_crash_a_program_that_cannot_start_is_a_failure() {
    let supervisor = quick();
    let missing = launch(&["/nonexistent/flybot-peer"]);
    let outcome = supervisor.turn(&key(), &missing, turn("go")).await;
    assert!(matches!(outcome, SeatOutcome::Failed { code: "START", .. }));
}

#[tokio::test]
async fn delivery_and_crash_a_line_outside_the_protocol_is_a_failure() {
    let supervisor = quick();
    let garbage = script("read line; echo 'I am not JSON'; sleep 5");
    let outcome = supervisor.turn(&key(), &garbage, turn("go")).await;
    assert!(matches!(
        outcome,
        SeatOutcome::Failed {
            code: "PROTOCOL",
            ..
        }
    ));
    let error = script("read line; echo '{\"error\":\"no tools here\"}'; sleep 5");
    let outcome = supervisor.turn(&key(), &error, turn("go")).await;
    assert_eq!(
        outcome,
        SeatOutcome::Failed {
            code: "PEER_ERROR",
            detail: "no tools here".to_owned()
        }
    );
}

#[tokio::test]
async fn stop_and_late_result_a_stopped_turn_has_nothing_to_answer_and_the_late_line_is_lost() {
    let supervisor = std::sync::Arc::new(quick());
    let read = marker("read");
    let slow = script(&format!(
        "read line; touch '{}'; sleep 3; echo '{{\"text\":\"late\"}}'",
        read.display()
    ));
    let running = {
        let supervisor = supervisor.clone();
        let slow = slow.clone();
        tokio::spawn(async move { supervisor.turn(&key(), &slow, turn("go")).await })
    };
    reached(&read).await;
    assert!(supervisor.stop(&key()), "a turn ran");
    let outcome = running.await.unwrap();
    assert_eq!(outcome, SeatOutcome::Stopped, "not a failure");
    assert_eq!(supervisor.state(&key()), SeatState::Stopped);
    assert!(
        supervisor.seats().is_empty(),
        "a stopping entry is never reused"
    );
    supervisor.settle().await;
    // The next turn is a fresh process, and the late line never arrives.
    let echo = launch(&["cat"]);
    let next = supervisor.turn(&key(), &echo, turn("fresh")).await;
    assert_eq!(next, SeatOutcome::Text("fresh".to_owned()));
}

#[tokio::test]
async fn stop_and_late_result_the_room_turn_timeout_is_its_own_state() {
    let supervisor = Supervisor::new(Graces::default(), Duration::from_millis(300));
    let outcome = supervisor
        .turn(&key(), &launch(&["sleep", "30"]), turn("go"))
        .await;
    assert!(matches!(
        outcome,
        SeatOutcome::Failed {
            code: "TIMEOUT",
            ..
        }
    ));
    assert_eq!(supervisor.state(&key()), SeatState::TimedOut);
}

#[tokio::test]
async fn stop_asks_then_terms_then_kills_the_group() {
    let graces = Graces {
        after_ask: Duration::from_millis(200),
        after_term: Duration::from_millis(300),
    };
    // Reads to the end of its input: the protocol's stop is enough.
    let cat = Peer::start(&launch(&["cat"])).unwrap();
    assert_eq!(cat.stop(graces).await, StopEnd::Asked);
    // Never reads: SIGTERM ends it.
    let sleeper = Peer::start(&launch(&["sleep", "30"])).unwrap();
    assert_eq!(sleeper.stop(graces).await, StopEnd::Terminated);
    // Ignores SIGTERM and leaves a grandchild: SIGKILL on the group.
    let trapped = marker("trapped");
    let stubborn = Peer::start(&script(&format!(
        "trap '' TERM; sleep 30 & touch '{}'; while :; do sleep 0.05; done",
        trapped.display()
    )));
    let stubborn = stubborn.unwrap();
    reached(&trapped).await;
    assert_eq!(stubborn.stop(graces).await, StopEnd::Killed);
}

#[tokio::test]
async fn removing_a_seat_or_dropping_the_supervisor_ends_the_process() {
    let supervisor = quick();
    let cat = launch(&["cat"]);
    supervisor.turn(&key(), &cat, turn("hi")).await;
    let pid = supervisor.pid(&key()).unwrap();
    supervisor.retain(|k| k.bot_id != "bot-b");
    supervisor.settle().await;
    assert!(wait_gone(pid).await, "a removed member's process ends");

    let other = quick();
    other
        .turn(&key(), &launch(&["sleep", "30"]), turn("x"))
        .await;
    let supervisor = quick();
    let sleeper = script("read line; echo '{\"text\":\"up\"}'; sleep 30");
    supervisor.turn(&key(), &sleeper, turn("hi")).await;
    let pid = supervisor.pid(&key()).unwrap();
    drop(supervisor);
    assert!(
        wait_gone(pid).await,
        "the host's stop ends the process group"
    );
}

//! `flybot-bench room` (issue 5): the prompt characters a member's turn
//! carries after 10, 100 and 1,000 room lines (it must stop growing once the
//! budget is reached), the model calls per person's line in a 6-Bot room for
//! a routed line and for an `@all` line, and the host's own time per round
//! with a zero-latency participant (the round runner, the room log with its
//! fsync per line, the turn text).

use flybot_core::rooms::log::{AuthorKind, LineKind};
use flybot_core::rooms::round::{Opener, Round};
use flybot_host::rooms::runner::{TurnAsk, run_round, setup_of, turn_text};
use flybot_host::rooms::{
    MemberTurn, RoomLogs, RoomParticipant, Snapshot, TurnOutcome, participant::TurnFuture,
};
use flybot_protocol::state::{Bot, Member, Room, TeamState};
use flybot_store::room_log::NewLine;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

const ROUNDS: u32 = 200;

/// A participant that answers at once: the host's time is all that is left.
struct Instant0 {
    calls: AtomicU32,
}

impl RoomParticipant for Instant0 {
    fn open(&self, _: &str, _: &str, _: &str) -> Result<(), String> {
        Ok(())
    }
    fn run_turn(&self, _turn: MemberTurn) -> TurnFuture<'_> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        Box::pin(async { TurnOutcome::Text("On it: I will take the build part.".to_owned()) })
    }
    fn snapshot(&self, _: &str) -> Snapshot {
        Snapshot { running: false }
    }
    fn cancel(&self, _: &str) -> bool {
        false
    }
    fn steer(&self, _: &str, _: &str) -> bool {
        false
    }
}

fn team() -> TeamState {
    let mut state = TeamState::default();
    state.members.insert(
        "member-a".into(),
        Member {
            id: "member-a".into(),
            name: "Alice".into(),
            created_at: 1,
            extra: Default::default(),
        },
    );
    let names = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo"];
    let mut room = Room {
        id: "room-bench".into(),
        name: "Bench".into(),
        owner_id: "member-a".into(),
        members: Vec::new(),
        admin: Some("bot-0".into()),
        participants: Vec::new(),
        sessions: Default::default(),
        created_at: 1,
        updated_at: 1,
        extra: Default::default(),
    };
    for (i, name) in names.iter().enumerate() {
        let id = format!("bot-{i}");
        let session_id = format!("session-{id}");
        let bot = Bot::new(id.clone(), *name, "member-a", "mock", session_id, 1);
        state.bots.insert(id.clone(), bot);
        room.members.push(id.clone());
        room.sessions
            .insert(id.clone(), format!("room-session-{id}"));
    }
    state.rooms.insert(room.id.clone(), room);
    state
}

fn line(i: usize, at: u64) -> NewLine {
    NewLine {
        author_id: if i.is_multiple_of(3) {
            "member-a".into()
        } else {
            format!("bot-{}", i % 6)
        },
        author_kind: if i.is_multiple_of(3) {
            AuthorKind::Human
        } else {
            AuthorKind::LocalBot
        },
        kind: LineKind::Chat,
        text: format!(
            "line {i}: {}",
            "we keep working on the build and the docs ".repeat(10)
        ),
        at,
        hop: 0,
    }
}

pub fn run() -> anyhow::Result<()> {
    let state = team();
    let room = state
        .rooms
        .get("room-bench")
        .cloned()
        .ok_or_else(|| anyhow::anyhow!("no room"))?;
    prompt_chars(&state, &room)?;
    rounds(&room)
}

/// Prompt characters after 10, 100 and 1,000 lines.
fn prompt_chars(state: &TeamState, room: &Room) -> anyhow::Result<()> {
    let home = tempfile::tempdir()?;
    let logs = RoomLogs::new(home.path().to_path_buf());
    let mut appended = 0;
    for target in [10usize, 100, 1_000] {
        while appended < target {
            logs.append(&room.id, line(appended, appended as u64))?;
            appended += 1;
        }
        let lines = logs.lines(&room.id)?;
        let round = Round::open(
            setup_of(state, room),
            Opener::Person {
                text: "status?",
                owner_line: true,
            },
            0,
        );
        let chars = |seen: Option<u64>| {
            let ask = TurnAsk {
                bot_id: "bot-1",
                seen,
                round_start: lines.last().map_or(0, |l| l.seq),
                forced: false,
                addressed: false,
                now: 0,
            };
            turn_text(state, room, &lines, &round, &ask).chars().count()
        };
        println!(
            "prompt chars after {target:>5} room lines: first look {:>5}, seen none of them {:>5}",
            chars(None),
            chars(Some(0))
        );
    }
    Ok(())
}

/// Model calls per person's line in a 6-Bot room, and host time per round.
fn rounds(room: &Room) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let read = || team();
    let now = || 0u64;
    for (label, text) in [
        ("routed line", "who can fix the build?"),
        ("@all line", "@all status please"),
    ] {
        let home = tempfile::tempdir()?;
        let logs = RoomLogs::new(home.path().to_path_buf());
        let participant = Instant0 {
            calls: AtomicU32::new(0),
        };
        let started = Instant::now();
        let mut turns = 0u32;
        for i in 0..ROUNDS {
            let seq = logs
                .append(
                    &room.id,
                    NewLine {
                        author_id: "member-a".into(),
                        author_kind: AuthorKind::Human,
                        kind: LineKind::Chat,
                        text: format!("{text} ({i})"),
                        at: 0,
                        hop: 0,
                    },
                )?
                .seq;
            let summary =
                runtime.block_on(run_round(&logs, &participant, &read, &now, &room.id, seq));
            turns += summary.turns;
        }
        let per_round = started.elapsed() / ROUNDS;
        println!(
            "6-Bot room, {label:<11}: {:.1} model calls per person's line; host time per round {:.3} ms (zero-latency participant, fsync per line)",
            f64::from(turns) / f64::from(ROUNDS),
            per_round.as_secs_f64() * 1_000.0,
        );
        let _ = participant.calls.load(Ordering::Relaxed);
    }
    Ok(())
}

//! `flybot-bench tasks`: what the board read costs on a team of 10,000 cards
//! (the default read and `{archive: true, limit: 50}`; goal under 2 ms, so a
//! window polling every 1.5 s costs nothing), and 1,000 claims racing on 8
//! role queues through the store's single writer. Prints median and p99;
//! nothing asserts a duration.

use crate::figures::{ms, percentile};
use flybot_core::access::Actor;
use flybot_core::tasks::claim::claim;
use flybot_core::tasks::read::list;
use flybot_protocol::state::{Bot, Member, Room, Task, TaskStatus, TeamState};
use flybot_protocol::task::{Priority, TaskFields};
use flybot_protocol::task_requests::TasksRead;
use flybot_store::{Store, StoreOptions};
use std::sync::Arc;
use std::time::Instant;

const TASKS: usize = 10_000;
const ACTIVE: usize = 300;
const BOTS: usize = 40;
const REPEATS: usize = 300;
const QUEUES: usize = 8;
const CLAIMS: usize = 1_000;

const OWNER: &str = "member-owner";

pub fn run() -> anyhow::Result<()> {
    let state = board_team();
    let actor = Actor::Member {
        member_id: OWNER.to_owned(),
        session_id: "session-bench".to_owned(),
    };
    println!("tasks read on {TASKS} cards ({ACTIVE} unfinished), {REPEATS} reads each:");
    for (label, query) in [
        ("default", TasksRead::default()),
        (
            "archive+limit 50",
            TasksRead {
                archive: true,
                limit: Some(50),
                ..TasksRead::default()
            },
        ),
    ] {
        let mut samples = Vec::with_capacity(REPEATS);
        let mut rows = 0;
        for _ in 0..REPEATS {
            let start = Instant::now();
            let answer = list(&state, &actor, &query).map_err(|e| anyhow::anyhow!("{e}"))?;
            samples.push(start.elapsed());
            rows = answer.len();
        }
        println!(
            "  {label:<17} rows {rows:>4}  median {:>7.3} ms  p99 {:>7.3} ms",
            ms(percentile(&mut samples, 50)),
            ms(percentile(&mut samples, 99)),
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(claims_race())
}

/// 1,000 claims at once: 1,000 member Bots, 125 per role, on 8 queues of 125
/// items; each claim is one durable change of the single writer.
async fn claims_race() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let store = Arc::new(Store::open(dir.path(), StoreOptions::default())?);
    let team = queue_team();
    store
        .mutate("bench", |change| {
            for member in team.members.values() {
                change.put_member(member);
            }
            for bot in team.bots.values() {
                change.put_bot(bot);
            }
            for room in team.rooms.values() {
                change.put_room(room);
            }
            for task in team.tasks.values() {
                change.put_task(task);
            }
            Ok(())
        })
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let started = Instant::now();
    let mut handles = Vec::with_capacity(CLAIMS);
    for i in 0..CLAIMS {
        let store = Arc::clone(&store);
        handles.push(tokio::spawn(async move {
            let bot = format!("bot-m{i:04}");
            let worker = format!("worker-{i:016x}");
            let begin = Instant::now();
            let taken = store
                .mutate("bench", |change| {
                    let now = change.now_ms();
                    let out = claim(
                        change.state(),
                        &Actor::SingleOwner,
                        &bot,
                        None,
                        None,
                        &worker,
                        now,
                    )?;
                    for task in &out.writes {
                        change.put_task(task);
                    }
                    Ok(out.answer.map(|t| t.id))
                })
                .await;
            (begin.elapsed(), taken)
        }));
    }
    let mut samples = Vec::with_capacity(CLAIMS);
    let mut taken = std::collections::BTreeSet::new();
    for handle in handles {
        let (elapsed, result) = handle.await?;
        samples.push(elapsed);
        if let Ok(Some(id)) = result {
            taken.insert(id);
        }
    }
    let total = started.elapsed();
    let owners = store.read(|s| {
        s.tasks
            .values()
            .filter(|t| t.status == TaskStatus::Claimed)
            .count()
    });
    println!("{CLAIMS} claims racing on {QUEUES} queues (durable, one writer):");
    println!(
        "  total {:>8.1} ms  ({:.0} claims/s)  per claim median {:>7.3} ms  p99 {:>7.3} ms",
        ms(total),
        CLAIMS as f64 / total.as_secs_f64(),
        ms(percentile(&mut samples, 50)),
        ms(percentile(&mut samples, 99)),
    );
    println!(
        "  items taken {}  distinct {}  claimed cards {owners}",
        samples.len(),
        taken.len()
    );
    store.close().await?;
    Ok(())
}

fn member() -> Member {
    Member {
        id: OWNER.to_owned(),
        name: "Owner".to_owned(),
        created_at: 1,
        extra: Default::default(),
    }
}

fn bot(id: String, role: Option<String>) -> Bot {
    let session_id = format!("session-{id}");
    let mut bot = Bot::new(id.clone(), id, OWNER, "mock", session_id, 1);
    bot.created_by = Some(OWNER.to_owned());
    bot.role = role;
    bot
}

fn card(index: usize, bot_id: String, status: TaskStatus, fields: TaskFields) -> Task {
    let mut task = Task {
        id: format!("task-{index:016x}"),
        bot_id,
        title: format!("Card number {index}"),
        status,
        requester_id: Some(OWNER.to_owned()),
        room_id: None,
        created_at: 1_000 + index as u64,
        updated_at: 2_000 + index as u64,
        extra: Default::default(),
    };
    fields.write(&mut task);
    task
}

/// 10,000 cards on 40 Bots: 300 unfinished across the in-play statuses and
/// priorities, the rest finished.
fn board_team() -> TeamState {
    let mut state = TeamState::default();
    state.members.insert(OWNER.to_owned(), member());
    for b in 0..BOTS {
        let bot = bot(format!("bot-{b:04}"), None);
        state.bots.insert(bot.id.clone(), bot);
    }
    let unfinished = [
        TaskStatus::Open,
        TaskStatus::Claimed,
        TaskStatus::Working,
        TaskStatus::Blocked,
        TaskStatus::ResultReady,
    ];
    let finished = [
        TaskStatus::Accepted,
        TaskStatus::Cancelled,
        TaskStatus::Failed,
    ];
    let priorities = [
        Priority::Urgent,
        Priority::High,
        Priority::Normal,
        Priority::Low,
    ];
    for i in 0..TASKS {
        let status = if i % (TASKS / ACTIVE) == 0 {
            unfinished[i % unfinished.len()]
        } else {
            finished[i % finished.len()]
        };
        let fields = TaskFields {
            priority: Some(priorities[i % priorities.len()]),
            note: Some(format!("A short note for card {i}.")),
            summary: status.is_terminal().then(|| format!("Result of card {i}.")),
            ..TaskFields::default()
        };
        let task = card(i, format!("bot-{:04}", i % BOTS), status, fields);
        state.tasks.insert(task.id.clone(), task);
    }
    state
}

/// A room with a lead and 1,000 members, 125 per role, and 125 open items in
/// each of the 8 role queues.
fn queue_team() -> TeamState {
    let mut state = TeamState::default();
    state.members.insert(OWNER.to_owned(), member());
    let lead = bot("bot-lead".to_owned(), None);
    let mut members = vec![lead.id.clone()];
    state.bots.insert(lead.id.clone(), lead);
    for i in 0..CLAIMS {
        let bot = bot(format!("bot-m{i:04}"), Some(format!("Role{}", i % QUEUES)));
        members.push(bot.id.clone());
        state.bots.insert(bot.id.clone(), bot);
    }
    state.rooms.insert(
        "room-bench".to_owned(),
        Room {
            id: "room-bench".to_owned(),
            name: "Bench".to_owned(),
            owner_id: OWNER.to_owned(),
            members,
            admin: Some("bot-lead".to_owned()),
            participants: Vec::new(),
            sessions: Default::default(),
            created_at: 1,
            updated_at: 1,
            extra: Default::default(),
        },
    );
    for i in 0..CLAIMS {
        let fields = TaskFields {
            queue_role: Some(format!("Role{}", i % QUEUES)),
            queue_by: Some("bot-lead".to_owned()),
            queue_cap: Some(125),
            ..TaskFields::default()
        };
        let mut task = card(i, "bot-lead".to_owned(), TaskStatus::Open, fields);
        task.room_id = Some("room-bench".to_owned());
        state.tasks.insert(task.id.clone(), task);
    }
    state
}

//! `flybot-bench memory`: the context steward and recall (issue 16). One
//! own-chat conversation of 500 turns on the mock with a declared window of
//! 16,000 tokens (2,000 kept for the reply): the largest request sent (it
//! must stay under the hard line), the steward and summary calls per 100
//! turns and the parts reached; then recall over 10,000 memory entries
//! through the host's memory service: the first recall (reading the file
//! and building the index), and the median and p99 of a recall for
//! `semantic` (goal under 5 ms) and exact words (goal under 1 ms).

use crate::figures::{ms, percentile};
use flybot_agent::context::prompts::{STEWARD_HEADING, SUMMARY_HEADING};
use flybot_agent::model::mock::MockModel;
use flybot_agent::model::{ModelProvider, ModelRequest, ModelStream};
use flybot_agent::session::{ItemKind, Sessions, Source};
use flybot_agent::testing::TestEnv;
use flybot_agent::tools::ToolSet;
use flybot_agent::turn::request::estimate_messages;
use flybot_core::context::lines_for;
use flybot_core::memory::MemoryEntry;
use flybot_core::memory::markdown::format_file;
use flybot_core::sync::lock;
use flybot_host::{Host, HostConfig};
use flybot_store::{Store, StoreOptions};
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const TURNS: usize = 500;
const WINDOW: u32 = 16_000;
const REPLY: u32 = 2_000;
const ENTRIES: usize = 10_000;
const QUERIES: usize = 300;

/// The mock, counting the steward's and the summary's calls and measuring
/// the conversation's requests.
#[derive(Default)]
struct Counted {
    mock: MockModel,
    steward: Mutex<usize>,
    summary: Mutex<usize>,
    largest: Mutex<usize>,
}

impl ModelProvider for Counted {
    fn name(&self) -> &str {
        "mock"
    }
    fn stream(&self, request: ModelRequest) -> ModelStream {
        let first = request.messages.first().map_or("", |m| m.content.as_str());
        if first.starts_with(STEWARD_HEADING) {
            *lock(&self.steward) += 1;
        } else if first.starts_with(SUMMARY_HEADING) {
            *lock(&self.summary) += 1;
        } else {
            let size = estimate_messages(&request.messages, &request.tools);
            let mut largest = lock(&self.largest);
            *largest = (*largest).max(size);
        }
        self.mock.stream(request)
    }
}

/// A person's line of some 80 to 400 tokens, varied by turn.
fn line(n: usize) -> String {
    let words = [
        "deploy", "invoice", "schedule", "review", "release", "budget", "部署", "客户",
    ];
    let mut text = format!("Turn {n}: ");
    for k in 0..(40 + (n * 37) % 160) {
        text.push_str(words[(n + k * 7) % words.len()]);
        text.push(' ');
    }
    text
}

fn conversation() -> anyhow::Result<String> {
    // Like `turn`: the Session log is fsynced per batch, so the home is on
    // tmpfs where there is one and the figure is the host's, not the disk's.
    let shm = std::path::Path::new("/dev/shm");
    let home = if shm.is_dir() {
        tempfile::tempdir_in(shm)?
    } else {
        tempfile::tempdir()?
    };
    let fs = if home.path().starts_with(shm) {
        "tmpfs"
    } else {
        "the temp folder"
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let model = Arc::new(Counted::default());
    let mut env = TestEnv::new(model.clone(), ToolSet::default(), home.path().to_owned());
    env.window.context_tokens = WINDOW;
    env.window.reply_tokens = REPLY;
    let sessions = Sessions::new(home.path().to_owned(), Arc::new(env));
    let start = Instant::now();
    for n in 0..TURNS {
        runtime.block_on(async {
            sessions.deliver(
                "chat",
                &line(n),
                Source::User { member_id: None },
                ItemKind::NextTurn,
            )?;
            sessions.wait_idle("chat").await
        })?;
    }
    let wall = start.elapsed();
    let lines = lines_for(WINDOW, REPLY, None);
    let largest = *lock(&model.largest);
    let per_100 = |n: usize| n as f64 * 100.0 / TURNS as f64;
    Ok(format!(
        "context steward ({TURNS} own-chat turns on the mock, window {WINDOW} tokens, {REPLY} kept for the reply):\n  largest request sent: {largest} tokens (check line {}, hard line {}): {}\n  steward calls per 100 turns: {:.1}; summary calls per 100 turns: {:.1}; parts reached: {}\n  host time per turn (Session log on {fs}): {:.3} ms\n",
        lines.check,
        lines.hard,
        if largest < lines.hard {
            "under the hard line"
        } else {
            "OVER the hard line"
        },
        per_100(*lock(&model.steward)),
        per_100(*lock(&model.summary)),
        sessions.current_part("chat")?,
        ms(wall) / TURNS as f64,
    ))
}

/// 10,000 entries of 12 to 40 words from a 3,000-word vocabulary, some CJK.
fn entries() -> Vec<MemoryEntry> {
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let vocabulary: Vec<String> = (0..3_000)
        .map(|n| match n % 10 {
            0 => format!(
                "{}{}",
                char::from_u32(0x4E00 + n as u32).unwrap_or('中'),
                char::from_u32(0x4F00 + n as u32).unwrap_or('文')
            ),
            _ => format!("w{n}ord{}", n % 7),
        })
        .collect();
    (0..ENTRIES)
        .map(|n| {
            let length = 12 + (next() % 29) as usize;
            let text: Vec<&str> = (0..length)
                .map(|_| vocabulary[(next() % 3_000) as usize].as_str())
                .collect();
            MemoryEntry {
                id: format!("mem-{n}"),
                topic: format!("topic{}", n % 50),
                by: format!("bot-{}", n % 4),
                at: n as u64,
                text: text.join(" "),
            }
        })
        .collect()
}

/// Recall as a Bot's turn does it: the host's memory service answers the
/// Bot's index (built once from its file, then kept while the file stands)
/// and the query runs over it. 10,000 entries written to the Bot's
/// `MEMORY.md` by hand, as a person may.
async fn recall() -> anyhow::Result<String> {
    let home = tempfile::tempdir()?;
    let store = Store::open(home.path(), StoreOptions::default())?;
    let host = Host::open(store, HostConfig::new(home.path().to_owned())).await;
    let bot_id = host
        .team()
        .read(|state| state.bots.keys().next().cloned())
        .ok_or_else(|| anyhow::anyhow!("the host made no Main Bot"))?;
    let entries = entries();
    let folder = home.path().join("memory/bots").join(&bot_id);
    std::fs::create_dir_all(&folder)?;
    std::fs::write(folder.join("MEMORY.md"), format_file("Memory", &entries))?;
    let memory = host.memory();
    let build = Instant::now();
    memory
        .recall_index(&bot_id)
        .await
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let build = build.elapsed();
    let queries: Vec<String> = (0..QUERIES)
        .map(|n| {
            let words: Vec<&str> = entries[(n * 31) % ENTRIES]
                .text
                .split(' ')
                .take(3)
                .collect();
            words.join(" ")
        })
        .collect();
    let mut semantic = Vec::new();
    let mut exact = Vec::new();
    for query in &queries {
        for (samples, mode) in [(&mut semantic, true), (&mut exact, false)] {
            let start = Instant::now();
            let index = memory
                .recall_index(&bot_id)
                .await
                .map_err(|e| anyhow::anyhow!(e.message))?;
            let found = if mode {
                index.semantic(query, 8)
            } else {
                index.exact(query, 8)
            };
            std::hint::black_box(found.len());
            samples.push(start.elapsed());
        }
    }
    let goal = |t: Duration, limit: f64| if ms(t) < limit { "met" } else { "NOT met" };
    let (s50, s99) = (percentile(&mut semantic, 50), percentile(&mut semantic, 99));
    let (e50, e99) = (percentile(&mut exact, 50), percentile(&mut exact, 99));
    Ok(format!(
        "recall over {ENTRIES} entries through the host's memory service (the first recall after a change reads the file and builds the index: {:.1} ms; later recalls reuse it while the file stands):\n  semantic: median {:.3} ms, p99 {:.3} ms (goal under 5 ms: {})\n  exact: median {:.3} ms, p99 {:.3} ms (goal under 1 ms: {})\n",
        ms(build),
        ms(s50),
        ms(s99),
        goal(s50, 5.0),
        ms(e50),
        ms(e99),
        goal(e50, 1.0),
    ))
}

pub fn run() -> anyhow::Result<()> {
    let mut out = conversation()?;
    out.push_str(&tokio::runtime::Runtime::new()?.block_on(recall())?);
    std::io::stdout().write_all(out.as_bytes())?;
    Ok(())
}

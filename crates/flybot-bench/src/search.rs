//! The search figure (issue 31): 100,000 lines in `search.sqlite` across
//! 200 conversations, then many queries as a member sees them (60 of the
//! conversations in scope, the rooms from a window start on), timed one by
//! one through the index's own search; the median is the promise (goal
//! under 50 ms). Words follow a Zipf-like law, so the common ones match
//! tens of thousands of lines, as they would in a real home.

use crate::figures::{ms, percentile};
use flybot_store::search::{IndexedLine, SearchIndex, match_expression};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

const CONVERSATIONS: u64 = 200;
const LINES_PER_CONVERSATION: u64 = 500;
const VOCABULARY: usize = 5_000;
const QUERIES: usize = 500;
const SYLLABLES: [&str; 16] = [
    "ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "pe", "do", "gan", "bri", "tel", "os", "ux",
    "fy",
];

/// A small deterministic generator: the figure is the same on every run.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A word index, the first ones far more often (about 1/rank).
    fn zipf(&mut self) -> usize {
        let rank = (VOCABULARY as f64).powf(self.unit()) as usize;
        rank.saturating_sub(1).min(VOCABULARY - 1)
    }
}

fn vocabulary() -> Vec<String> {
    (0..VOCABULARY)
        .map(|i| {
            let (a, b, c) = (i % 16, (i / 16) % 16, (i / 256) % 16);
            format!(
                "{}{}{}{}",
                SYLLABLES[a],
                SYLLABLES[b],
                SYLLABLES[c],
                i / 4096
            )
        })
        .collect()
}

pub fn run() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(measure())
}

async fn measure() -> anyhow::Result<()> {
    let home = tempfile::tempdir()?;
    let index = SearchIndex::open(home.path()).await?;
    let words = vocabulary();
    let mut draw = Draw(0x005e_ed31);
    let built = Instant::now();
    for conversation in 0..CONVERSATIONS {
        let lines: Vec<IndexedLine> = (1..=LINES_PER_CONVERSATION)
            .map(|seq| {
                let length = 6 + (draw.next() % 24) as usize;
                let text: Vec<&str> = (0..length).map(|_| words[draw.zipf()].as_str()).collect();
                IndexedLine {
                    seq,
                    at: 1_760_000_000_000 + seq * 1_000,
                    author: format!("member-{}", seq % 7),
                    text: text.join(" "),
                }
            })
            .collect();
        index
            .add(&key(conversation), &lines, LINES_PER_CONVERSATION)
            .await?;
    }
    let build_time = built.elapsed();
    let lines = CONVERSATIONS * LINES_PER_CONVERSATION;
    // A member's scope: 30 chats from the start, 30 rooms from a window.
    let scope: BTreeMap<String, u64> = (0..60)
        .map(|i| {
            let start = if i % 2 == 0 {
                0
            } else {
                100 + draw.next() % 300
            };
            (key(i * 3), start)
        })
        .collect();
    let mut samples: Vec<Duration> = Vec::with_capacity(QUERIES);
    let mut answered = 0usize;
    for i in 0..QUERIES {
        let query = match i % 10 {
            0..=5 => words[draw.zipf()].clone(),
            6..=8 => format!("{} {}", words[draw.zipf()], words[draw.zipf()]),
            _ => words[draw.zipf()].chars().take(4).collect(),
        };
        let Some(expression) = match_expression(&query) else {
            continue;
        };
        let started = Instant::now();
        let hits = index.search(&expression, &scope, 20).await?;
        samples.push(started.elapsed());
        answered += hits.len();
    }
    let count = samples.len();
    let median = percentile(&mut samples, 50);
    let p95 = percentile(&mut samples, 95);
    let worst = percentile(&mut samples, 100);
    let size = std::fs::metadata(home.path().join(flybot_store::search::SEARCH_FILE))?.len();
    println!(
        "search (issue 31): {lines} lines in {CONVERSATIONS} conversations, {VOCABULARY} words (Zipf-like), a scope of 60 conversations"
    );
    println!(
        "  index built in {:.0} ms ({:.0} lines/s), search.sqlite {:.1} MiB",
        ms(build_time),
        lines as f64 / build_time.as_secs_f64(),
        size as f64 / (1024.0 * 1024.0)
    );
    println!(
        "  {count} queries (one word, two words, a 4-letter prefix), top 20 by rank: median {:.2} ms, p95 {:.2} ms, max {:.2} ms (goal: median under 50 ms); {:.1} hits per query",
        ms(median),
        ms(p95),
        ms(worst),
        answered as f64 / count.max(1) as f64
    );
    Ok(())
}

fn key(conversation: u64) -> String {
    format!("chat:session-{conversation}")
}

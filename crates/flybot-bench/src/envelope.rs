//! `flybot-bench envelope`: envelopes per second through the whole ingress
//! codec (byte limit, parse, field rules, RFC 8785 canonicalization and
//! SHA-256) for a small envelope and one just under 32 KiB. Prints
//! figures; nothing asserts a duration.

use flybot_interop::envelope::input_scope::{InputScope, input_digest};
use flybot_interop::envelope::limits::ENVELOPE_MAX_BYTES;
use flybot_interop::envelope::{Envelope, EnvelopeKind, Payload, check_bytes};
use std::time::{Duration, Instant};

fn question(text: String) -> Envelope {
    let mut question = Envelope::first(EnvelopeKind::Question, "ev-2", "task-0a1b2c3d");
    question.turn_id = Some("turn-1".into());
    question.in_reply_to = Some("ev-1".into());
    question.seq = 2;
    question.payload.text = Some(text);
    question
}

fn small() -> anyhow::Result<Vec<u8>> {
    let mut request = question(String::new());
    request.kind = EnvelopeKind::Request;
    request.in_reply_to = None;
    request.payload = Payload {
        requirement: Some("Make the fixture's failing tests pass.".into()),
        criteria: vec!["npm test passes".into()],
        ..Payload::default()
    };
    let scope = InputScope {
        recipient_bot: "bot-b",
        task_id: &request.task_id,
        budget: &flybot_interop::budgets::PROPOSED,
    };
    request.input_digest = input_digest(&request.payload, &scope).unwrap_or_default();
    Ok(serde_json::to_vec(&request)?)
}

/// A question whose text fills the envelope to just under 32 KiB, with
/// non-ASCII text so canonicalization has escapes and UTF-16 order work.
fn large() -> anyhow::Result<Vec<u8>> {
    let overhead = serde_json::to_vec(&question(String::new()))?.len();
    let unit = "retry(n) → élan 問題 \"q\"\n";
    let mut text = String::new();
    while overhead + serde_json::to_string(&text)?.len() + unit.len() + 16 < ENVELOPE_MAX_BYTES {
        text.push_str(unit);
    }
    Ok(serde_json::to_vec(&question(text))?)
}

fn measure(label: &str, bytes: &[u8], rounds: usize) -> anyhow::Result<()> {
    // Warm up and prove the envelope is valid.
    check_bytes(bytes).map_err(|r| anyhow::anyhow!("{r}"))?;
    let mut per_round = Vec::with_capacity(10);
    for _ in 0..10 {
        let start = Instant::now();
        for _ in 0..rounds {
            let checked = check_bytes(bytes).map_err(|r| anyhow::anyhow!("{r}"))?;
            std::hint::black_box(checked.digest);
        }
        per_round.push(start.elapsed());
    }
    per_round.sort();
    let median: Duration = per_round[per_round.len() / 2];
    let per_second = rounds as f64 / median.as_secs_f64();
    let mib = per_second * bytes.len() as f64 / (1024.0 * 1024.0);
    println!(
        "envelope {label:>6} ({:>6} bytes): {per_second:>10.0} envelopes/s ({mib:.1} MiB/s) through check + canonicalize + digest",
        bytes.len()
    );
    Ok(())
}

pub fn run() -> anyhow::Result<()> {
    measure("small", &small()?, 5_000)?;
    measure("32 KiB", &large()?, 200)?;
    Ok(())
}

//! `flybot-bench harness` (#874 Step 1): the same task at each harness tier
//! on the scripted mock model (write a file, list the folder, read it back,
//! then answer), through the real host: prompt characters and tool calls
//! per turn as the usage ledger records them, beside each tier's declared
//! budget. The tiers are declared with `applied: false`, so the figures
//! are expected to be equal across tiers; a difference would mean a tier
//! changed behaviour. Prompt characters are the mock's input tokens times
//! four (it counts one token per four characters, rounded up), summed over
//! the turn's model calls.

use flybot_core::harness::harness;
use flybot_protocol::HarnessId;
use flybot_testkit::Kit;
use serde_json::json;

const TURNS: usize = 5;

const SCRIPT: &str = r#"[
  {"when": {"userContains": "do the task", "step": 0},
   "reply": {"toolCalls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "hello"}}]}},
  {"when": {"userContains": "do the task", "step": 1},
   "reply": {"toolCalls": [{"name": "list_files", "arguments": {}}]}},
  {"when": {"userContains": "do the task", "step": 2},
   "reply": {"toolCalls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]}},
  {"when": {"afterTool": "*"}, "reply": {"text": "The task is done."}}
]"#;

/// Prompt characters and tool calls per turn at `tier`, over `TURNS` turns.
async fn measure(tier: HarnessId) -> anyhow::Result<(f64, f64, usize)> {
    let kit = Kit::scripted(serde_json::from_str(SCRIPT)?).await;
    let bot = kit
        .anyone()
        .bot_from(json!({"name": "Bench", "harness": tier.as_str()}))
        .await;
    for _ in 0..TURNS {
        kit.say(&bot.session, "do the task");
        kit.idle(&bot.session).await;
    }
    let rows = kit
        .until_some("the ledger holds every turn's calls", async || {
            let answer = kit.ok("usage", json!({"botId": bot.id})).await;
            let rows = answer["rows"].as_array().cloned().unwrap_or_default();
            // Four model calls a turn: three tool calls, then the answer.
            (rows.len() >= TURNS * 4).then_some(rows)
        })
        .await;
    let named = rows.iter().all(|r| r["harness"] == tier.as_str());
    anyhow::ensure!(
        named,
        "a usage row did not name the {} harness",
        tier.as_str()
    );
    let prompt: u64 = rows
        .iter()
        .map(|r| r["inputTokens"].as_u64().unwrap_or(0) * 4)
        .sum();
    let tools: u64 = rows
        .iter()
        .map(|r| r["toolCalls"].as_u64().unwrap_or(0))
        .sum();
    Ok((
        prompt as f64 / TURNS as f64,
        tools as f64 / TURNS as f64,
        rows.len(),
    ))
}

pub fn run() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let mut out = format!(
        "harness tiers (#874 Step 1): the same task ({TURNS} turns of write, list, read, answer) on the scripted mock, per turn:\n"
    );
    for tier in HarnessId::ALL {
        let (prompt, tools, rows) = runtime.block_on(measure(tier))?;
        let config = harness(tier);
        let budget = match &config.budget {
            Some(b) => format!(
                "declared prompt.maxChars {}, tools.maxCalls {}, model.maxTokens {}, maxSteps {}, maxRetries {}",
                b.prompt.max_chars,
                b.tools.max_calls,
                b.model.max_tokens,
                b.step_retry.max_steps,
                b.step_retry.max_retries
            ),
            None => "no declared budget".to_owned(),
        };
        out.push_str(&format!(
            "  {:<7} prompt chars {:>7.0}, tool calls {:>4.1} ({rows} model calls in all); {budget}; applied: {}\n",
            tier.as_str(),
            prompt,
            tools,
            config.applied
        ));
    }
    use std::io::Write;
    std::io::stdout().write_all(out.as_bytes())?;
    Ok(())
}

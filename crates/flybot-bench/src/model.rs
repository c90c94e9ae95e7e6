//! `flybot-bench model`: the SSE parse throughput of the OpenAI-compatible
//! client, streaming a long answer from the mock model served on loopback
//! (`mock_model_app`, the server of `flybot mock-model serve`), in events and
//! megabytes per second; and the SSE line parser alone on the same bytes.
//! Figures only: nothing asserts a duration.

use anyhow::Context;
use flybot_agent::model::mock::{MockModel, MockOutcome, Scenario};
use flybot_agent::model::openai::{KeySource, OpenAiProvider, OpenAiSettings, http_client};
use flybot_agent::model::openai_wire::stream_frames;
use flybot_agent::model::sse::SseParser;
use flybot_agent::model::{ChatMessage, ModelProvider, ModelRequest, Role, StreamEvent};
use futures_util::StreamExt;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Characters in the streamed answer, and per text delta (a token's worth).
const ANSWER_CHARS: usize = 2_000_000;
const DELTA_CHARS: usize = 8;
const RUNS: usize = 5;

/// The mock's scenario for one long streamed answer, and the request for it.
fn long_answer() -> anyhow::Result<(Scenario, ModelRequest)> {
    let text: String = "the quick brown fox jumps over the lazy dog "
        .chars()
        .cycle()
        .take(ANSWER_CHARS)
        .collect();
    let scenario = serde_json::json!([{"reply": {"text": text, "deltaChars": DELTA_CHARS}}]);
    let scenario = Scenario::from_json(&scenario.to_string())?;
    let request = ModelRequest {
        model: "mock".into(),
        messages: vec![ChatMessage::text(Role::User, "Tell me a long story.")],
        tools: Vec::new(),
        max_tokens: None,
        thinking: None,
    };
    Ok((scenario, request))
}

pub fn run() -> anyhow::Result<()> {
    let (scenario, request) = long_answer()?;
    // The bytes the server sends for this answer (SSE framing, no HTTP).
    let MockOutcome::Answer(events) = MockModel::with_scenario(scenario.clone()).plan(&request)
    else {
        anyhow::bail!("the bench scenario did not answer");
    };
    let rendering = Instant::now();
    let wire: String = stream_frames("bench", "mock", 0, &events, true, true).concat();
    let render = rendering.elapsed();

    // The server on its own runtime thread, as an external process would be.
    let server = tokio::runtime::Runtime::new().context("could not start the server runtime")?;
    let listener = server
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .context("could not bind loopback")?;
    let address = listener.local_addr()?;
    let mock = Arc::new(MockModel::with_scenario(scenario));
    server.spawn(flybot_host::serve_mock_model(
        listener,
        mock,
        std::future::pending(),
    ));

    let client = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the client runtime")?;
    let provider = OpenAiProvider::new(
        http_client()?,
        OpenAiSettings {
            provider_name: "mock".into(),
            base_url: format!("http://{address}/v1"),
            key: KeySource::None,
            model: None,
            thinking: Vec::new(),
            thinking_switch: false,
            max_output_tokens: None,
        },
    );
    let mut best = Duration::MAX;
    let mut received = 0;
    for _ in 0..=RUNS {
        let started = Instant::now();
        received = client.block_on(count_events(&provider, request.clone()))?;
        best = best.min(started.elapsed());
    }
    let (events_per_s, mb_per_s) = rates(received, wire.len(), best);
    println!(
        "OpenAI-compatible client over loopback: {received} events ({:.1} MB of SSE) in {:.1} ms (best of {RUNS} after a warm-up)",
        mb(wire.len()),
        best.as_secs_f64() * 1e3
    );
    println!("  {events_per_s:.0} events/s, {mb_per_s:.1} MB/s");
    parser_figures(&wire, render)?;
    drop(server);
    Ok(())
}

/// The SSE line parser alone on the same bytes, and the mock server's own
/// rendering time (`render`), which the loopback figure includes.
fn parser_figures(wire: &str, render: Duration) -> anyhow::Result<()> {
    let mut parser_best = Duration::MAX;
    let mut payloads = 0;
    for _ in 0..=RUNS {
        let started = Instant::now();
        payloads = parse_alone(wire.as_bytes())?;
        parser_best = parser_best.min(started.elapsed());
    }
    let (events_per_s, mb_per_s) = rates(payloads, wire.len(), parser_best);
    println!(
        "SSE line parser alone, 16 KiB reads: {payloads} events in {:.1} ms: {events_per_s:.0} events/s, {mb_per_s:.1} MB/s",
        parser_best.as_secs_f64() * 1e3
    );
    println!(
        "  (the mock server's rendering of the same answer alone: {:.1} ms, part of the loopback figure)",
        render.as_secs_f64() * 1e3
    );
    Ok(())
}

async fn count_events(provider: &OpenAiProvider, request: ModelRequest) -> anyhow::Result<usize> {
    let mut stream = provider.stream(request);
    let mut count = 0;
    while let Some(event) = stream.next().await {
        match event.map_err(|error| anyhow::anyhow!("the stream failed: {error}"))? {
            StreamEvent::Done(_) => return Ok(count + 1),
            StreamEvent::TextDelta(_)
            | StreamEvent::ReasoningDelta(_)
            | StreamEvent::ToolCall(_)
            | StreamEvent::Usage(_) => count += 1,
        }
    }
    anyhow::bail!("the stream ended without a finish")
}

fn parse_alone(bytes: &[u8]) -> anyhow::Result<usize> {
    let mut parser = SseParser::new();
    let mut out = Vec::new();
    let mut count = 0;
    for read in bytes.chunks(16 * 1024) {
        parser
            .feed(read, &mut out)
            .map_err(|_| anyhow::anyhow!("an event was too large"))?;
        count += out.len();
        out.clear();
    }
    Ok(count)
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

fn rates(events: usize, bytes: usize, took: Duration) -> (f64, f64) {
    let seconds = took.as_secs_f64().max(1e-9);
    (events as f64 / seconds, mb(bytes) / seconds)
}

//! Issue 13's restart scenario on the real binary: a three-Bot room on an
//! OpenAI-compatible provider this test serves on loopback. The second
//! member's model call hangs, a person's line arrives while it speaks, and
//! the host is killed with SIGKILL. The next start finishes that round: the
//! cut turn is picked up once and its answer posted into the room, the
//! third member speaks, the person's line is answered once, and no model
//! call is made whose answer nobody sees.

use crate::support::{Served, serve};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// One model call the provider saw: the member it was for and the last
/// user message.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub(crate) member: String,
    pub(crate) last_user: String,
}

/// The provider: answers each member with `<Name> answer <n>`; while
/// `hang_two` holds, a call for Two is read and never answered.
pub(crate) struct Provider {
    pub(crate) base_url: String,
    calls: Arc<Mutex<Vec<Call>>>,
    pub(crate) hang_two: Arc<AtomicBool>,
    seen: mpsc::Receiver<Call>,
}

impl Provider {
    pub(crate) fn start() -> Provider {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let calls = Arc::new(Mutex::new(Vec::new()));
        let hang_two = Arc::new(AtomicBool::new(true));
        let (tx, seen) = mpsc::channel();
        let (c, h) = (calls.clone(), hang_two.clone());
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                if let Some(kept) = answer(stream, &c, &h, &tx) {
                    held.push(kept);
                }
            }
        });
        Provider {
            base_url,
            calls,
            hang_two,
            seen,
        }
    }

    pub(crate) fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }
}

/// Reads one request and answers it (or holds it open: answers the stream).
fn answer(
    stream: TcpStream,
    calls: &Mutex<Vec<Call>>,
    hang_two: &AtomicBool,
    seen: &mpsc::Sender<Call>,
) -> Option<TcpStream> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    let request: Value = serde_json::from_slice(&body).ok()?;
    let messages = request["messages"].as_array()?.clone();
    let system = messages
        .iter()
        .filter(|m| m["role"] == "system")
        .filter_map(|m| m["content"].as_str())
        .collect::<String>();
    let member = system
        .split("You are ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or("?")
        .to_owned();
    let last_user = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned();
    let call = Call {
        member: member.clone(),
        last_user,
    };
    let n = {
        let mut calls = calls.lock().unwrap();
        calls.push(call.clone());
        calls.iter().filter(|c| c.member == member).count()
    };
    let _ = seen.send(call);
    if member == "Two" && hang_two.load(Ordering::SeqCst) {
        return Some(stream);
    }
    let text = format!("{member} answer {n}");
    let chunk = json!({"choices": [{"index": 0, "delta": {"content": text}}]});
    let end = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    let mut out = stream;
    let _ = write!(
        out,
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\ndata: {chunk}\n\ndata: {end}\n\ndata: [DONE]\n\n"
    );
    None
}

fn ok(host: &Served, endpoint: &str, body: Value) -> Value {
    let (status, answer) = host.post(endpoint, &body.to_string(), None);
    assert_eq!(status, 200, "{endpoint}: {answer}");
    answer
}

pub(crate) fn bot(host: &Served, name: &str) -> String {
    ok(host, "create-bot", json!({"name": name}))["bot"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The room's lines once no round runs: (author, text).
pub(crate) fn settled(host: &Served, room: &str) -> Vec<(String, String)> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let read = ok(host, "messages", json!({"roomId": room}));
        if read["running"] == json!(false) {
            return read["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| {
                    (
                        l["author"].as_str().unwrap().to_owned(),
                        l["text"].as_str().unwrap().to_owned(),
                    )
                })
                .collect();
        }
        assert!(Instant::now() < deadline, "the room never settled: {read}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// Waits for the provider's next call for `member`.
pub(crate) fn call_for(provider: &Provider, member: &str) -> Call {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let call = provider
            .seen
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no model call for {member}: {:?}", provider.calls()));
        if call.member == member {
            return call;
        }
    }
}

#[test]
fn a_kill_mid_round_finishes_that_round_after_restart_with_every_line_answered_once() {
    let provider = Provider::start();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            // The steered line's busy-send acknowledgment (#1646) is written
            // on the offline mock: the provider sees only the members' turns.
            "defaultModel = \"loop\"\n[modelFor]\nbusy-ack = \"mock\"\n[providers.loop]\nbaseUrl = \"{}\"\n[models.loop]\nprovider = \"loop\"\nmodel = \"m\"\ncontextWindow = 64000\nthinking = []\n",
            provider.base_url
        ),
    )
    .unwrap();
    let host = serve(home.path());
    let members = [bot(&host, "One"), bot(&host, "Two"), bot(&host, "Three")];
    let room = ok(
        &host,
        "create-room",
        json!({"name": "Busy", "members": members}),
    )["room"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    ok(
        &host,
        "send",
        json!({"roomId": room, "text": "@all report in"}),
    );
    call_for(&provider, "Two");
    // Two is speaking (its model call hangs): a person's line steers into
    // its turn, and is acknowledged before the kill.
    let steered = ok(
        &host,
        "send",
        json!({"roomId": room, "text": "and the tests?"}),
    );
    assert_eq!(steered["queued"], "steer");
    host.crash();
    let before = provider.calls();
    assert_eq!(
        before.iter().map(|c| c.member.as_str()).collect::<Vec<_>>(),
        ["One", "Two"]
    );

    provider.hang_two.store(false, Ordering::SeqCst);
    let host = serve(home.path());
    assert!(
        host.before
            .iter()
            .any(|l| l.starts_with("resuming 1 room round")),
        "{:?}",
        host.before
    );
    let lines = settled(&host, &room);
    let after: Vec<Call> = provider.calls()[before.len()..].to_vec();
    // The round went on from Two: Two's cut turn once (its pickup, with the
    // person's line), then Three; One was not asked again.
    assert_eq!(
        after.iter().map(|c| c.member.as_str()).collect::<Vec<_>>(),
        ["Two", "Three"],
        "{after:?}"
    );
    assert!(
        after[0].last_user.contains("and the tests?"),
        "the steered line reached the picked-up turn: {:?}",
        after[0]
    );
    // Every line in order, each once; every model call's answer is in the
    // room.
    assert_eq!(
        lines,
        [
            ("Owner".to_owned(), "@all report in".to_owned()),
            ("One".to_owned(), "One answer 1".to_owned()),
            ("Owner".to_owned(), "and the tests?".to_owned()),
            ("Two".to_owned(), "Two answer 2".to_owned()),
            ("Three".to_owned(), "Three answer 1".to_owned()),
        ][..],
        "{lines:?}"
    );
    host.terminate();

    // A second start owes nothing: no round resumes, no model call.
    let calls = provider.calls().len();
    let host = serve(home.path());
    assert!(
        !host.before.iter().any(|l| l.contains("resuming")),
        "{:?}",
        host.before
    );
    assert_eq!(settled(&host, &room), lines);
    assert_eq!(provider.calls().len(), calls);
    host.terminate();
}

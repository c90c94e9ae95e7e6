//! A running `flybot serve` child and a small HTTP/1.1 client.
#![allow(dead_code)]

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub struct Served {
    pub child: Child,
    pub address: String,
    /// Every stdout line after the listening line, as it arrives.
    pub stdout: mpsc::Receiver<String>,
    pub stderr: Option<ChildStderr>,
    /// The stdout lines printed before the listening line (a pickup's).
    pub before: Vec<String>,
    /// The owner's token, from the sign-in link the host printed.
    pub owner_token: String,
}

pub fn flybot() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flybot"))
}

/// Starts `flybot serve --home HOME --listen 127.0.0.1:0` and waits for the
/// line that names the address.
pub fn serve(home: &Path) -> Served {
    serve_with(home, &[])
}

/// `serve` with more arguments (a `--store`, `--standby`).
pub fn serve_with(home: &Path, extra: &[&str]) -> Served {
    serve_with_env(home, extra, &[])
}

/// `serve` with more arguments and more environment variables for the host.
pub fn serve_with_env(home: &Path, extra: &[&str], env: &[(&str, &str)]) -> Served {
    let mut child = flybot()
        .args(["serve", "--home"])
        .arg(home)
        .args(["--listen", "127.0.0.1:0"])
        .args(extra)
        .env("FLYBOT_LOG", "warn")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut before = Vec::new();
    let address = loop {
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("flybot serve printed no address");
        if let Some(rest) = line.split("http://").nth(1) {
            break rest.split_whitespace().next().unwrap().to_owned();
        }
        before.push(line);
    };
    let link = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("flybot serve printed no sign-in link");
    let owner_token = link
        .split("?token=")
        .nth(1)
        .expect("the line after the address is the sign-in link")
        .trim()
        .to_owned();
    let stderr = child.stderr.take();
    Served {
        child,
        address,
        stdout: rx,
        stderr,
        before,
        owner_token,
    }
}

impl Served {
    /// POSTs as `token`'s session, or as the owner with her token.
    pub fn post(&self, endpoint: &str, body: &str, token: Option<&str>) -> (u16, Value) {
        request(
            &self.address,
            "POST",
            &format!("/api/bot/{endpoint}"),
            body,
            Some(token.unwrap_or(&self.owner_token)),
        )
    }

    /// The state view, as the owner.
    pub fn state(&self) -> (u16, Value) {
        request(
            &self.address,
            "GET",
            "/api/bot/state",
            "",
            Some(&self.owner_token),
        )
    }

    /// Sends SIGTERM and waits; answers whether it exited successfully.
    pub fn terminate(mut self) -> (bool, Vec<String>, String) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let exit = self.child.wait().unwrap();
        // The reader thread forwards the last lines after the exit: read
        // until it ends with the child's stdout.
        let mut lines = Vec::new();
        while let Ok(line) = self.stdout.recv_timeout(Duration::from_secs(10)) {
            lines.push(line);
        }
        let mut stderr = String::new();
        if let Some(mut err) = self.stderr.take() {
            err.read_to_string(&mut stderr).unwrap();
        }
        (exit.success(), lines, stderr)
    }

    /// Kills with SIGKILL: a crash, nothing flushed on the way out.
    pub fn crash(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

/// A test that panics still ends its hosts: no `flybot serve` outlives the
/// test that started it.
impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One request on its own connection; answers (status, JSON body).
pub fn request(
    address: &str,
    method: &str,
    path: &str,
    body: &str,
    token: Option<&str>,
) -> (u16, Value) {
    try_request(address, method, path, body, token).expect("the host answered")
}

/// `request`, or `None` when the host is gone (killed mid-request).
pub fn try_request(
    address: &str,
    method: &str,
    path: &str,
    body: &str,
    token: Option<&str>,
) -> Option<(u16, Value)> {
    let mut stream = TcpStream::connect(address).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .ok()?;
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n{auth}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).ok()?;
    let text = String::from_utf8(raw).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, serde_json::from_str(body).ok()?))
}

/// Opens the live stream as the owner; answers a reader of its raw text.
pub fn live(host: &Served) -> BufReader<TcpStream> {
    live_at(&host.address, &host.owner_token)
}

/// Opens the live stream at `address` with `token`.
pub fn live_at(address: &str, token: &str) -> BufReader<TcpStream> {
    live_after(address, token, None)
}

/// Opens the live stream at `address` with `token`, resuming after
/// `last_event_id` when given (as a reconnecting browser does).
pub fn live_after(address: &str, token: &str, last_event_id: Option<&str>) -> BufReader<TcpStream> {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let resume = last_event_id.map_or_else(String::new, |id| format!("Last-Event-ID: {id}\r\n"));
    write!(
        stream,
        "GET /api/bot/live HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\nAccept: text/event-stream\r\n{resume}\r\n"
    )
    .unwrap();
    BufReader::new(stream)
}

/// Reads the live stream until every needle has appeared on some line (in
/// any order); answers the lines read. Gives up after 30 seconds.
pub fn read_until_all(reader: &mut BufReader<TcpStream>, needles: &[&str]) -> Vec<String> {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let mut lines = Vec::new();
    while !needles
        .iter()
        .all(|n| lines.iter().any(|l: &String| l.contains(n)))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the live stream never showed {needles:?}: {lines:?}"
        );
        let mut line = String::new();
        let n = reader.read_line(&mut line).unwrap();
        assert!(n > 0, "the live stream ended before {needles:?}");
        lines.push(line);
    }
    lines
}

//! A host whose output nobody reads (issue 40): started as a supervisor
//! would start it, with its standard output on a pipe whose reader goes
//! away, or its standard error on a pipe nobody reads, it still answers,
//! and SIGTERM still ends in the clean stop (exit 0, the stop's record in
//! the home's diagnostics log, no process of the home left).

use crate::support::{flybot, live_at, request};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdout, Stdio};

/// Starts `flybot serve` with piped output and reads its standard output
/// up to the sign-in link; answers the child, the reader, the address and
/// the owner's token. The caller waits for the child.
#[allow(clippy::zombie_processes)]
fn start(home: &Path, log: &str) -> (Child, BufReader<ChildStdout>, String, String) {
    let mut child = flybot()
        .args(["serve", "--home"])
        .arg(home)
        .args(["--listen", "127.0.0.1:0"])
        .env("FLYBOT_LOG", log)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let (mut address, mut line) = (None, String::new());
    loop {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "flybot serve printed no sign-in link"
        );
        if let Some(link) = line.trim().strip_prefix("Sign in as the owner: http://") {
            let (at, token) = link.split_once("/?token=").unwrap();
            return (
                child,
                out,
                address.unwrap_or_else(|| at.to_owned()),
                token.to_owned(),
            );
        }
        if line.starts_with("FlyBot is listening on http://") {
            address = line
                .split("http://")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .map(str::to_owned);
        }
    }
}

/// SIGTERM, then the exit status's code.
fn terminate(child: &mut Child) -> Option<i32> {
    let pid = child.id().to_string();
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(sent.success());
    child.wait().unwrap().code()
}

/// Whether any process still names `home` on its command line.
fn a_process_of(home: &Path) -> Option<String> {
    let home = home.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            text.contains(&home).then_some(text)
        })
}

fn diagnostics(home: &Path) -> String {
    std::fs::read_to_string(home.join("diagnostics.log")).unwrap_or_default()
}

#[test]
fn a_host_whose_output_pipe_was_closed_stops_cleanly_on_sigterm_40() {
    let home = tempfile::tempdir().unwrap();
    let (mut child, out, address, token) = start(home.path(), "warn");
    let (status, _) = request(
        &address,
        "POST",
        "/api/bot/create-bot",
        r#"{"name": "Kept"}"#,
        Some(&token),
    );
    assert_eq!(status, 200);
    // The reader goes away, as a parent that exited would; a page's live
    // stream stays open, which the stop must not wait on forever.
    drop(out);
    let _stream = live_at(&address, &token);
    assert_eq!(
        terminate(&mut child),
        Some(0),
        "SIGTERM ends in the clean stop"
    );
    let record = diagnostics(home.path());
    assert!(record.contains("stopped cleanly"), "{record}");
    assert!(record.contains("not written"), "{record}");
    assert_eq!(a_process_of(home.path()), None);
    // The stop wrote what it acknowledged: a restart shows the Bot.
    let state = std::fs::read_to_string(home.path().join("state.json")).unwrap();
    assert!(state.contains("Kept"));
}

#[test]
fn a_host_whose_output_pipe_nobody_reads_answers_and_stops_cleanly_40() {
    let home = tempfile::tempdir().unwrap();
    // The token and the port are chosen here: nobody reads standard output.
    let token = "a-token-the-test-chose-0123456789";
    std::fs::write(home.path().join("owner-token"), format!("{token}\n")).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let address = format!("127.0.0.1:{port}");
    // A pipe filled to its 64 KiB before the host writes its first line.
    let (unread, mut full) = std::io::pipe().unwrap();
    let filler = std::thread::spawn(move || {
        let _ = std::io::Write::write_all(&mut full, &vec![b'.'; 64 * 1024]);
        full
    });
    let full = filler.join().unwrap();
    let mut child = flybot()
        .args(["serve", "--home"])
        .arg(home.path())
        .args(["--listen", &address])
        .env("FLYBOT_LOG", "info")
        .stdout(Stdio::from(full))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The log says where it listens, as standard output would have.
    let mut log = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("listening on") {
        line.clear();
        assert!(
            log.read_line(&mut line).unwrap() > 0,
            "the host ended before it listened"
        );
    }
    let drain = std::thread::spawn(move || std::io::copy(&mut log, &mut std::io::sink()));
    for n in 0..50 {
        let body = format!(r#"{{"name": "Bot {n}"}}"#);
        let (status, answer) = request(&address, "POST", "/api/bot/create-bot", &body, Some(token));
        assert_eq!(status, 200, "request {n}: {answer}");
    }
    assert_eq!(terminate(&mut child), Some(0));
    let _ = drain.join();
    let record = diagnostics(home.path());
    assert!(
        record.contains("stopped cleanly") && record.contains("not written"),
        "{record}"
    );
    assert_eq!(a_process_of(home.path()), None);
    drop(unread);
}

//! Issue 30's escape suite at the door every child goes through: real
//! `sh` and `python3` processes started under each kind of child's policy
//! (the shell tool, a test run in a fresh copy, a subprocess peer, a stdio
//! MCP server, `opencode serve`) try each escape; each is refused with the
//! kernel's error and nothing in the home changes. The allowed paths work:
//! a small C project builds and runs in the child's folder, the OpenCode
//! policy reaches its one port.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use flybot_sandbox::{ChildSandbox, Limits, Network, Policy};
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use tokio::process::Command;

/// A home with the files no child may touch, and the child's own folder.
struct Home {
    _dir: tempfile::TempDir,
    home: PathBuf,
    own: PathBuf,
}

fn home() -> Home {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let own = home.join("bots/me/workspace");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::create_dir_all(home.join("bots/other/workspace")).unwrap();
    std::fs::create_dir_all(home.join("memory/m2")).unwrap();
    std::fs::write(home.join("secrets.json"), r#"{"KEY":"SECRET-VALUE"}"#).unwrap();
    std::fs::write(home.join("connectors.json"), "[]").unwrap();
    std::fs::write(home.join("bots/other/workspace/notes.md"), "theirs").unwrap();
    std::fs::write(home.join("memory/m2/MEMORY.md"), "hers").unwrap();
    Home {
        _dir: dir,
        home,
        own,
    }
}

/// Each kind of child's policy, as the product builds it (limits lowered
/// so the fork bomb and the hog end fast).
fn kinds(own: &Path, model_port: u16) -> Vec<(&'static str, Policy)> {
    let small = Limits {
        processes: 48,
        memory_bytes: 256 << 20,
        address_space: true,
        cpu_seconds: 60,
    };
    let server = Limits {
        address_space: false,
        ..small
    };
    vec![
        ("shell", Policy::writing(&[own]).limits(small)),
        ("test run", Policy::writing(&[own]).limits(small)),
        ("peer", Policy::writing(&[own]).limits(small)),
        ("mcp", Policy::writing(&[own]).limits(server)),
        (
            "opencode",
            Policy::writing(&[own])
                .limits(server)
                .network(Network::Loopback {
                    connect_port: model_port,
                    serve: true,
                }),
        ),
    ]
}

/// Runs `argv` in `own` under `policy`; answers the exit code, the output
/// and the sandbox (still holding the child's cgroups).
async fn run(policy: &Policy, own: &Path, argv: &[&str]) -> (Option<i32>, String, ChildSandbox) {
    let mut command = Command::new(argv[0]);
    command
        .args(&argv[1..])
        .current_dir(own)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let (child, sandbox) = flybot_sandbox::spawn(command, policy).unwrap();
    let output = child.wait_with_output().await.unwrap();
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    (output.status.code(), text, sandbox)
}

/// A Python attempt: prints `ESCAPED` if `action` worked, else `REFUSED`
/// and the error.
fn attempt(action: &str) -> String {
    format!(
        "import socket, os, sys\ntry:\n    {action}\n    print('ESCAPED')\nexcept OSError as e:\n    print('REFUSED', e.strerror)\n"
    )
}

/// What the home held before, to check nothing changed.
fn snapshot(home: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![home.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.is_file() {
                files.push((path.clone(), std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

#[tokio::test]
async fn every_kind_of_child_is_refused_each_escape_and_nothing_changes_30() {
    let home = home();
    let unix = UnixListener::bind(home.home.join("host.sock")).unwrap();
    let not_given = TcpListener::bind("127.0.0.1:0").unwrap();
    let not_given_port = not_given.local_addr().unwrap().port();
    let other_loopback = TcpListener::bind("127.0.0.2:0").unwrap();
    let other_port = other_loopback.local_addr().unwrap().port();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let model = TcpListener::bind("127.0.0.1:0").unwrap();
    let model_port = model.local_addr().unwrap().port();
    let sock = home.home.join("host.sock");
    let attempts = [
        (
            "read secrets.json",
            format!("open({:?}).read()", home.home.join("secrets.json")),
        ),
        (
            "read another Bot's workspace",
            format!(
                "open({:?}).read()",
                home.home.join("bots/other/workspace/notes.md")
            ),
        ),
        (
            "read another member's memory",
            format!("open({:?}).read()", home.home.join("memory/m2/MEMORY.md")),
        ),
        (
            "write into the home",
            format!("open({:?}, 'w').write('x')", home.home.join("planted")),
        ),
        (
            "write connectors.json",
            format!(
                "open({:?}, 'w').write('[{{}}]')",
                home.home.join("connectors.json")
            ),
        ),
        (
            "UDP out",
            format!(
                "socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', {}))",
                udp.local_addr().unwrap().port()
            ),
        ),
        (
            "Unix socket outside its folder",
            format!("socket.socket(socket.AF_UNIX).connect({sock:?})"),
        ),
        (
            "TCP to a port not given",
            format!("socket.create_connection(('127.0.0.1', {not_given_port}))"),
        ),
        (
            "TCP to a port not given on 127.0.0.2",
            format!("socket.create_connection(('127.0.0.2', {other_port}))"),
        ),
        (
            "raw socket",
            "socket.socket(socket.AF_INET, socket.SOCK_RAW, 1)".to_owned(),
        ),
        (
            "listen on 0.0.0.0 (a fixed port)",
            format!("socket.create_server(('0.0.0.0', {not_given_port}), reuse_port=True)"),
        ),
    ];
    let before = snapshot(&home.home);
    for (kind, policy) in kinds(&home.own, model_port) {
        for (name, action) in &attempts {
            let script = attempt(action);
            let (_, text, _) = run(&policy, &home.own, &["/usr/bin/python3", "-c", &script]).await;
            assert!(
                text.starts_with("REFUSED Permission denied")
                    || text.starts_with("REFUSED Operation not permitted"),
                "{kind}: {name}: {text}"
            );
        }
    }
    assert_eq!(snapshot(&home.home), before, "nothing in the home changed");
    let mut buffer = [0u8; 8];
    assert!(udp.recv(&mut buffer).is_err(), "no datagram arrived");
    drop(unix);
}

#[tokio::test]
async fn a_child_builds_and_runs_a_small_project_in_its_own_folder_30() {
    let home = home();
    let policy = Policy::writing(&[&home.own]);
    let script = "printf 'int main(void){return 7;}' > m.c && cc m.c -o m && ./m; echo built=$?; \
                  printf 'def test(): assert 1+1 == 2\\ntest(); print(\"tests ok\")\\n' > t.py && python3 t.py";
    let (code, text, _) = run(&policy, &home.own, &["/bin/sh", "-c", script]).await;
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("built=7") && text.contains("tests ok"),
        "{text}"
    );
    assert!(home.own.join("m").is_file());
}

#[tokio::test]
async fn the_opencode_policy_reaches_its_one_port_on_loopback_only_30() {
    let home = home();
    let model = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = model.local_addr().unwrap().port();
    let policy = Policy::writing(&[&home.own]).network(Network::Loopback {
        connect_port: port,
        serve: true,
    });
    let script = format!(
        "import socket\nsocket.create_connection(('127.0.0.1', {port}))\nprint('model reached')\n\
         s = socket.create_server(('127.0.0.1', 0))\nprint('serving', s.getsockname()[1] > 0)\n"
    );
    let (code, text, _) = run(&policy, &home.own, &["/usr/bin/python3", "-c", &script]).await;
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("model reached") && text.contains("serving True"),
        "{text}"
    );
}

#[tokio::test]
async fn a_fork_bomb_stops_at_the_process_limit_with_a_sentence_30() {
    let home = home();
    let limits = Limits {
        processes: 16,
        ..Limits::COMMAND
    };
    let policy = Policy::writing(&[&home.own]).limits(limits);
    // Each round starts a sleeper that never ends; the limit stops it.
    let script = "i=0; while [ $i -lt 200 ]; do sleep 30 >/dev/null 2>&1 & i=$((i+1)); done; echo all-started";
    let (_, text, sandbox) = run(&policy, &home.own, &["/bin/sh", "-c", script]).await;
    assert!(!text.contains("all-started"), "{text}");
    let sentence = sandbox.limit_reached(None);
    if flybot_sandbox::support().cgroup_pids {
        assert_eq!(
            sentence.as_deref(),
            Some(
                "The sandbox's limit of 16 processes was reached: starting another process failed."
            )
        );
    }
}

#[tokio::test]
async fn a_memory_hog_stops_at_the_memory_limit_with_a_sentence_30() {
    let home = home();
    let limits = Limits {
        memory_bytes: 128 << 20,
        ..Limits::COMMAND
    };
    let policy = Policy::writing(&[&home.own]).limits(limits);
    let script =
        "b = bytearray(1 << 30)\nfor i in range(0, len(b), 4096): b[i] = 1\nprint('hogged')";
    let (code, text, sandbox) = run(&policy, &home.own, &["/usr/bin/python3", "-c", script]).await;
    assert!(!text.contains("hogged"), "{text}");
    assert_ne!(code, Some(0));
    if flybot_sandbox::support().cgroup_memory {
        assert_eq!(
            sandbox.limit_reached(Some(9)).as_deref(),
            Some(
                "The sandbox's memory limit of 128 MiB was reached: the kernel stopped the process."
            )
        );
    } else {
        assert!(text.contains("MemoryError"), "{text}");
    }
}

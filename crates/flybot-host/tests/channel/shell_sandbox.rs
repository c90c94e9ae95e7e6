//! Issue 30's escape suite from the Bot's shell, through the mock model:
//! a `run_command` the owner approves tries each escape from Ada's
//! workspace; each is refused with the kernel's error in the tool's
//! answer, nothing in the home changes, and the same call builds and runs
//! a small program in the workspace.

use flybot_testkit::Kit;
use serde_json::json;
use std::path::{Path, PathBuf};

const SCRIPT: &str = r#"[
  {"when": {"userContains": "escape", "step": 0},
   "reply": {"toolCalls": [{"name": "run_command", "arguments": {"argv": ["python3", "escape.py"]}}]}},
  {"when": {"afterTool": "*"}, "reply": {"text": "done"}}
]"#;

/// Each attempt prints its name and `refused <error>` or `ESCAPED`.
fn escape_script(home: &Path, other: &Path, port: u16) -> String {
    let h = home.display();
    let o = other.display();
    format!(
        r#"import socket, subprocess
def attempt(name, action):
    try:
        action()
        print(name, "ESCAPED")
    except OSError as e:
        print(name, "refused", e.strerror)
attempt("read-secrets", lambda: open("{h}/secrets.json").read())
attempt("read-other-bot", lambda: open("{o}/notes.md").read())
attempt("read-memory", lambda: open("{h}/memory/probe.md").read())
attempt("write-home", lambda: open("{h}/planted", "w").write("x"))
attempt("write-connectors", lambda: open("{h}/connectors.json", "w").write("[]"))
attempt("udp-out", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("8.8.8.8", 53)))
attempt("unix-socket", lambda: socket.socket(socket.AF_UNIX).connect("{h}/host.sock"))
attempt("tcp-127.0.0.1", lambda: socket.create_connection(("127.0.0.1", {port})))
attempt("tcp-127.0.0.2", lambda: socket.create_connection(("127.0.0.2", {port})))
attempt("listen-0.0.0.0", lambda: socket.create_server(("0.0.0.0", 0)))
open("m.c", "w").write("int main(void){{return 0;}}")
subprocess.run(["cc", "m.c", "-o", "m"], check=True)
print("built", subprocess.run(["./m"]).returncode)
"#
    )
}

fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files(&path));
        } else if path.is_file() {
            found.push((path.clone(), std::fs::read(&path).unwrap()));
        }
    }
    found.sort();
    found
}

#[tokio::test]
async fn shell_escapes_30_are_refused_in_the_turn_and_nothing_in_the_home_changes() {
    let kit = Kit::scripted(serde_json::from_str(SCRIPT).unwrap()).await;
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    let home = kit.home().to_path_buf();
    let own = flybot_store::workspaces::bot_workspace(&home, &ada.id).unwrap();
    let other = flybot_store::workspaces::bot_workspace(&home, &bo.id).unwrap();
    std::fs::write(other.join("notes.md"), "Bo's").unwrap();
    std::fs::create_dir_all(home.join("memory")).unwrap();
    std::fs::write(home.join("memory/probe.md"), "private").unwrap();
    std::fs::write(home.join("secrets.json"), r#"{"version":1,"secrets":{}}"#).unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(home.join("host.sock")).unwrap();
    let listener = std::net::TcpListener::bind("0.0.0.0:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::fs::write(own.join("escape.py"), escape_script(&home, &other, port)).unwrap();
    let before: Vec<_> = files(&home)
        .into_iter()
        .filter(|(p, _)| !p.starts_with(&own))
        .collect();

    kit.ok("send", json!({"botId": ada.id, "text": "escape"}))
        .await;
    let id = kit
        .until_some("the run_command approval", async || {
            let list = kit.ok("approvals", json!({})).await["approvals"].clone();
            list.as_array()?
                .iter()
                .find(|a| a["status"] == "waiting")
                .map(|a| a["id"].clone())
        })
        .await;
    kit.ok(
        "approval-answer",
        json!({"id": id, "answer": "allowed-once"}),
    )
    .await;
    kit.idle(&ada.session).await;
    let text = kit.tool_results(&ada.session).pop().unwrap().0;
    for name in [
        "read-secrets",
        "read-other-bot",
        "read-memory",
        "write-home",
        "write-connectors",
        "udp-out",
        "unix-socket",
        "tcp-127.0.0.1",
        "tcp-127.0.0.2",
        "listen-0.0.0.0",
    ] {
        assert!(
            text.contains(&format!("{name} refused Permission denied")),
            "{name}: {text}"
        );
    }
    assert!(text.contains("built 0"), "{text}");
    let after: Vec<_> = files(&home)
        .into_iter()
        .filter(|(p, _)| !p.starts_with(&own))
        .collect();
    let changed: Vec<_> = after
        .iter()
        .filter(|f| !before.contains(f))
        .map(|f| &f.0)
        .collect();
    // The host itself writes its journal and logs during the turn; no
    // file the shell named changed.
    for name in [
        "planted",
        "connectors.json",
        "secrets.json",
        "memory/probe.md",
    ] {
        assert!(
            !changed.contains(&&home.join(name)),
            "{name} changed: {changed:?}"
        );
    }
    assert!(!home.join("planted").exists());
    listener.set_nonblocking(true).unwrap();
    assert!(
        listener.accept().is_err(),
        "nothing reached the host's port"
    );
}

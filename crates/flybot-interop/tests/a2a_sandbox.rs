//! Attack test for the A2A agent's sandbox (issue 30's escapes, issue 37's
//! agent): the venv's own Python, started under the very policy the agent
//! runs with (`agent_policy`), tries each escape from its folder inside a
//! home; each is refused by the kernel and nothing in the home changes.
//! What it may do, listen on an ephemeral loopback port and write its own
//! folder, still works, so the refusals are the policy's and not a broken
//! child.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use flybot_interop::a2a::process::{Venv, agent_policy, locate};
use std::path::PathBuf;
use std::process::Stdio;
use tokio::process::Command;

const HOSTILE: &str = r#"
import json, socket, sys
home, port = sys.argv[1], int(sys.argv[2])
def attempt(name, action):
    try:
        action()
        return [name, "ESCAPED"]
    except OSError as e:
        return [name, e.strerror]
def listen():
    s = socket.create_server(("127.0.0.1", 0))
    s.close()
print(json.dumps(dict([
    attempt("read-secrets", lambda: open(home + "/secrets.json").read()),
    attempt("read-token", lambda: open(home + "/owner.token").read()),
    attempt("write-home", lambda: open(home + "/planted", "w").write("x")),
    attempt("tcp-host", lambda: socket.create_connection(("127.0.0.1", port))),
    attempt("udp", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", 53))),
    attempt("unix", lambda: socket.socket(socket.AF_UNIX).connect(home + "/host.sock")),
    attempt("own-folder", lambda: open("mine.txt", "w").write("x")),
    attempt("listen", listen),
])))
"#;

#[allow(clippy::print_stderr)]
async fn venv() -> Option<Venv> {
    let env = std::env::var_os("FLYBOT_A2A_VENV").map(PathBuf::from);
    let roots = [PathBuf::from(env!("CARGO_MANIFEST_DIR"))];
    match locate(env.as_deref(), &roots).await {
        Ok(venv) => Some(venv),
        Err(why) => {
            assert!(
                std::env::var_os("FLYBOT_REQUIRE_A2A").is_none(),
                "FLYBOT_REQUIRE_A2A is set but {why}"
            );
            eprintln!("skipped: {why}");
            None
        }
    }
}

fn listing(home: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(home)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

#[tokio::test]
async fn the_a2a_agents_escapes_are_refused_and_nothing_in_the_home_changes() {
    let Some(venv) = venv().await else { return };
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let root = home.join("seats").join("a2a-1");
    let workspace = home.join("workspaces").join("w1");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(home.join("secrets.json"), r#"{"OPENAI_API_KEY":"sk-x"}"#).unwrap();
    std::fs::write(home.join("owner.token"), "t0ken").unwrap();
    let _unix = std::os::unix::net::UnixListener::bind(home.join("host.sock")).unwrap();
    let host = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let before = listing(&home);

    let policy = agent_policy(&venv, &root, &workspace).unwrap();
    let mut command = Command::new(venv.folder.join("bin").join("python"));
    command
        .args(["-c", HOSTILE])
        .arg(&home)
        .arg(host.local_addr().unwrap().port().to_string())
        .current_dir(&root)
        .env_clear()
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    let (child, _sandbox) = flybot_sandbox::spawn(command, &policy).unwrap();
    let out = child.wait_with_output().await.unwrap();
    let said: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stdout)));

    for refused in [
        "read-secrets",
        "read-token",
        "write-home",
        "tcp-host",
        "udp",
        "unix",
    ] {
        let answer = said[refused].as_str().unwrap();
        assert_ne!(answer, "ESCAPED", "{refused}: {said}");
        assert!(
            !answer.is_empty(),
            "{refused} has the kernel's error: {said}"
        );
    }
    assert_eq!(
        said["own-folder"], "ESCAPED",
        "its own folder is writable: {said}"
    );
    assert_eq!(
        said["listen"], "ESCAPED",
        "it may serve on loopback: {said}"
    );
    assert_eq!(listing(&home), before, "the home is unchanged");
}

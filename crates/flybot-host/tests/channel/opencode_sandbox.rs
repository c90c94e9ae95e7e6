//! Issue 30's escape suite from an OpenCode seat, on the scripted fake:
//! the Coder's "bash" (run as the real seat's commands are, in the seat's
//! sandbox) tries each escape from its workspace and writes the kernel's
//! answers into the workspace (the one place it may); nothing in the home
//! changed. The
//! real `opencode serve` is held by the same policy: its TCP rule is shown
//! by `opencode_isolation::no_network_the_real_opencodes_test_command_reaches_only_its_model`.

use crate::opencode_room::{coder_told, settled};
use flybot_host::rooms::opencode::launcher::OpenCodeRuntime;
use flybot_interop::opencode::fake::FakeStep;

/// Finds the home above the workspace (a `stat` Landlock allows), then
/// tries each escape from it.
const ESCAPE: &str = r#"
import os, socket
d = os.getcwd()
while not os.path.exists(d + "/state.lock"):
    d = os.path.dirname(d)
def attempt(name, action):
    try:
        action()
        return name + ":ESCAPED"
    except OSError as e:
        return name + ":" + e.strerror
open("escapes.txt", "w").write(" ".join([
    attempt("read-journal", lambda: open(d + "/journal.jsonl").read()),
    attempt("write-home", lambda: open(d + "/planted", "w").write("x")),
    attempt("write-connectors", lambda: open(d + "/connectors.json", "w").write("[]")),
    attempt("udp", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("8.8.8.8", 53))),
    attempt("unix", lambda: socket.socket(socket.AF_UNIX).connect(d + "/host.sock")),
    attempt("tcp-2", lambda: socket.create_connection(("127.0.0.2", 9))),
    attempt("listen", lambda: socket.create_server(("0.0.0.0", 7))),
]))
"#;

#[tokio::test(flavor = "multi_thread")]
async fn opencode_seat_escapes_30_are_refused_and_nothing_in_the_home_changes() {
    let step = FakeStep::Edit {
        files: Vec::new(),
        command: vec!["/usr/bin/python3".into(), "-c".into(), ESCAPE.into()],
        text: "DONE @Ada: tried.".into(),
    };
    let (kit, p) = coder_told(
        OpenCodeRuntime::Fake(vec![step]),
        "@Coder start on the card",
    )
    .await;
    settled(&kit, &p.room).await;
    let seat = kit
        .host
        .externals()
        .opencode()
        .seat(&p.room.id, &p.coder, &p.task)
        .unwrap();
    let text = std::fs::read_to_string(seat.workspace().join("escapes.txt")).unwrap();
    for name in [
        "read-journal",
        "write-home",
        "write-connectors",
        "udp",
        "unix",
        "tcp-2",
        "listen",
    ] {
        assert!(
            text.contains(&format!("{name}:Permission denied")),
            "{name}: {text}"
        );
    }
    assert!(!kit.home().join("planted").exists());
}

//! Issue 30's escape suite from a subprocess peer: a real Python peer,
//! started by the supervisor in its working folder inside a home, tries
//! each escape when its turn comes and answers what happened; each was
//! refused with the kernel's error and nothing in the home changed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use flybot_interop::subprocess::{Graces, HostLine, Launch, SeatKey, SeatOutcome, Supervisor};
use std::time::Duration;

const PEER: &str = r#"
import json, socket, sys
home = sys.argv[1]
port = int(sys.argv[2])
def attempt(name, action):
    try:
        action()
        return name + ":ESCAPED"
    except OSError as e:
        return name + ":" + e.strerror
sys.stdin.readline()
results = [
    attempt("read-secrets", lambda: open(home + "/secrets.json").read()),
    attempt("write-home", lambda: open(home + "/planted", "w").write("x")),
    attempt("write-connectors", lambda: open(home + "/connectors.json", "w").write("[]")),
    attempt("udp", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("8.8.8.8", 53))),
    attempt("unix", lambda: socket.socket(socket.AF_UNIX).connect(home + "/host.sock")),
    attempt("tcp-1", lambda: socket.create_connection(("127.0.0.1", port))),
    attempt("tcp-2", lambda: socket.create_connection(("127.0.0.2", port))),
    attempt("listen", lambda: socket.create_server(("0.0.0.0", 0))),
]
print(json.dumps({"text": " ".join(results)}), flush=True)
sys.stdin.readline()
"#;

#[tokio::test]
async fn peer_escapes_30_are_refused_and_nothing_in_the_home_changes() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let own = home.join("peer");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::write(home.join("secrets.json"), "{}").unwrap();
    std::fs::write(home.join("connectors.json"), "[]").unwrap();
    let _unix = std::os::unix::net::UnixListener::bind(home.join("host.sock")).unwrap();
    let listener = std::net::TcpListener::bind("0.0.0.0:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let launch = Launch {
        command: [
            "/usr/bin/python3",
            "-c",
            PEER,
            &home.display().to_string(),
            &port,
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect(),
        cwd: own,
        env: Default::default(),
    };
    let key = SeatKey {
        room_id: "room-1".to_owned(),
        bot_id: "bot-p".to_owned(),
    };
    let line = HostLine::Turn {
        text: "go".to_owned(),
        note: String::new(),
        from: "Ann".to_owned(),
        exchange_id: "x1".to_owned(),
    };
    let graces = Graces {
        after_ask: Duration::from_millis(100),
        after_term: Duration::from_millis(100),
    };
    let supervisor = Supervisor::new(graces, Duration::from_secs(20));
    let outcome = supervisor.turn(&key, &launch, line).await;
    let SeatOutcome::Text(text) = outcome else {
        panic!("{outcome:?}")
    };
    for name in [
        "read-secrets",
        "write-home",
        "write-connectors",
        "udp",
        "unix",
        "tcp-1",
        "tcp-2",
        "listen",
    ] {
        assert!(
            text.contains(&format!("{name}:Permission denied")),
            "{name}: {text}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(home.join("connectors.json")).unwrap(),
        "[]"
    );
    assert!(!home.join("planted").exists());
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "nothing reached the port");
}

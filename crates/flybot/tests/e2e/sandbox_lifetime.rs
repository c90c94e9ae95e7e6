//! Issue 30's lifetime rule on the real binary: a stdio connector's server
//! (the real server-everything) started by a shell that also leaves a
//! `setsid` sleeper behind, then `kill -9` of the host. The server, the
//! host's direct child, dies with it (the parent-death signal); the
//! sleeper, which left the process group, is ended by the next start of
//! the same home, which says so; a clean stop leaves nothing either.

use crate::support::serve;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn everything() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "../../.tools/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    path.exists().then_some(path)
}

/// The live processes carrying this home's sandbox marker.
fn marked(home: &Path) -> Vec<u32> {
    let needle = format!(
        "FLYBOT_SANDBOX_OWNER={}",
        home.canonicalize().unwrap().display()
    );
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| alive(*pid))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == needle.as_bytes()))
        })
        .collect()
}

/// Running, not a zombie waiting for a reaper.
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}

fn until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "{what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn kill_9_of_the_host_30_leaves_no_child_once_the_home_starts_again() {
    let Some(server) = everything() else { return };
    let home = tempfile::tempdir().unwrap();
    let host = serve(home.path());
    let script = "setsid sleep 600 </dev/null >/dev/null 2>&1 & exec node \"$0\" stdio";
    let (status, row) = host.post(
        "connector-connect",
        &json!({"id": "everything", "command": ["sh", "-c", script, server]}).to_string(),
        None,
    );
    assert_eq!(
        (status, &row["connector"]["status"]),
        (200, &json!("ready")),
        "{row}"
    );
    let children = marked(home.path());
    assert_eq!(
        children.len(),
        2,
        "the server and the sleeper: {children:?}"
    );
    let is_node = |pid: &u32| {
        std::fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|c| c.windows(4).any(|w| w == b"node"))
    };
    let server = *children.iter().find(|p| is_node(p)).unwrap();
    let sleeper = *children.iter().find(|p| !is_node(p)).unwrap();

    host.crash();
    until("the server dies with the host", || !alive(server));
    assert!(
        alive(sleeper),
        "the sleeper left the group and outlived the host"
    );

    // The sleeper at least: on a loaded machine the killed host's check
    // of the OpenCode version (a child with the marker too) may still run.
    let again = serve(home.path());
    let ended = (again.before.iter()).find_map(|l| {
        l.strip_prefix("ended ")?
            .split(' ')
            .next()?
            .parse::<usize>()
            .ok()
    });
    assert!(ended.is_some_and(|n| n >= 1), "{:?}", again.before);
    assert!(!alive(sleeper), "the sleeper was ended");
    // The saved connector is mounted again; a clean stop ends it all,
    // the sleeper that left the group too (its cgroup, where there is one).
    until("the connector is mounted again", || {
        marked(home.path()).len() == 2
    });
    let (stopped, _, stderr) = again.terminate();
    assert!(stopped, "{stderr}");
    if std::path::Path::new("/sys/fs/cgroup/pids").is_dir() {
        until("a clean stop leaves no child", || {
            marked(home.path()).is_empty()
        });
    }
}

//! `flybot replay` (#511): rebuild the team at a kept sequence number.

use crate::support::{flybot, serve};
use std::os::unix::fs::PermissionsExt;

#[test]
/// Rule #511.
fn replay_rebuilds_the_team_at_a_sequence_into_a_new_private_file() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), "stateJournal = true\n").unwrap();
    let host = serve(home.path());
    let at_chief = host.state().1["revision"].as_u64().unwrap();
    host.post("create-bot", r#"{"name": "Second"}"#, None);
    host.post("create-bot", r#"{"name": "Third"}"#, None);
    let (ok, _, _) = host.terminate();
    assert!(ok);

    let journal = home.path().join("journal.jsonl");
    let out = home.path().join("team.json");
    let run = flybot()
        .args(["replay", "--journal"])
        .arg(&journal)
        .args(["--to", &at_chief.to_string(), "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let team: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let names: Vec<&str> = team["bots"]
        .as_object()
        .unwrap()
        .values()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Chief"]);
    assert_eq!(team["journalSeq"].as_u64().unwrap(), at_chief);
    assert_eq!(
        std::fs::metadata(&out).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // --out never overwrites, and a sequence outside the file is refused.
    let before = std::fs::read(&out).unwrap();
    let again = flybot()
        .args(["replay", "--journal"])
        .arg(&journal)
        .args(["--to", "1", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert_eq!(std::fs::read(&out).unwrap(), before);
    let outside = flybot()
        .args(["replay", "--journal"])
        .arg(&journal)
        .args(["--to", "999"])
        .output()
        .unwrap();
    assert!(!outside.status.success());
    assert!(!String::from_utf8_lossy(&outside.stderr).trim().is_empty());
}

//! One writer per home (#14, #1027, #1041): a second `flybot serve` on the
//! same home reads, refuses writes naming the holder, and takes over on its
//! next write once the first has stopped.

use crate::support::serve;
use serde_json::json;

#[test]
/// Rules #14, #1027, #1041.
fn a_second_host_reads_refuses_writes_and_takes_over_on_its_next_write() {
    let home = tempfile::tempdir().unwrap();
    let first = serve(home.path());
    first.state();
    let first_pid = first.child.id();

    let second = serve(home.path());
    let (status, view) = second.state();
    assert_eq!(status, 200, "the second host serves reads");
    assert!(
        view["readOnly"]["message"]
            .as_str()
            .unwrap()
            .contains(&first_pid.to_string()),
        "{view}"
    );
    let (status, refusal) = second.post("create-bot", r#"{"name": "Nope"}"#, None);
    assert_eq!(status, 409);
    assert_eq!(refusal["error"]["code"], "bot/read-only");
    assert_eq!(
        refusal["error"]["details"]["pid"],
        json!(first_pid),
        "{refusal}"
    );

    // The first host keeps writing, then stops.
    let (status, _) = first.post("create-bot", r#"{"name": "From first"}"#, None);
    assert_eq!(status, 200);
    let (ok, _, _) = first.terminate();
    assert!(ok);

    // The second takes over on its next write and keeps what the first left.
    let (status, made) = second.post("create-bot", r#"{"name": "From second"}"#, None);
    assert_eq!(status, 200, "{made}");
    let (_, view) = second.state();
    let names: Vec<&str> = view["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"From first") && names.contains(&"From second"),
        "{names:?}"
    );
    assert_eq!(view["readOnly"], json!(null));
    let (ok, _, stderr) = second.terminate();
    assert!(ok);
    let takeovers = stderr.matches("now saves the Bot team").count();
    assert_eq!(takeovers, 1, "one takeover line: {stderr}");
    assert!(stderr.contains(&format!("was pid {first_pid}")), "{stderr}");
}

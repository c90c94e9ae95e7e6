//! A host's life: first state, changes, a clean stop, a crash, a restart.

use crate::support::{live, read_until_all, serve};
use serde_json::json;

#[test]
fn a_first_session_with_curl_works_and_survives_a_clean_stop() {
    let home = tempfile::tempdir().unwrap();
    let host = serve(home.path());
    let (status, view) = host.state();
    assert_eq!(status, 200);
    assert_eq!(view["bots"][0]["name"], "Chief");
    let (status, made) = host.post(
        "create-bot",
        r#"{"name": "Researcher", "instructions": "Find sources."}"#,
        None,
    );
    assert_eq!(status, 200, "{made}");
    let id = made["bot"]["id"].as_str().unwrap().to_owned();
    let (ok, lines, _) = host.terminate();
    assert!(ok, "SIGTERM stops the host cleanly");
    assert!(
        lines.iter().any(|l| l.contains("every change is saved")),
        "{lines:?}"
    );

    let host = serve(home.path());
    let (_, view) = host.state();
    let names: Vec<&str> = view["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Chief", "Researcher"]);
    assert_eq!(view["bots"][1]["id"], id.as_str());
    host.terminate();
}

#[test]
fn an_acknowledged_change_survives_a_crash() {
    let home = tempfile::tempdir().unwrap();
    let host = serve(home.path());
    host.state();
    for name in ["One", "Two", "Three"] {
        let (status, _) = host.post("create-bot", &json!({"name": name}).to_string(), None);
        assert_eq!(status, 200);
    }
    let revision = host.state().1["revision"].as_u64().unwrap();
    host.crash();

    let host = serve(home.path());
    let (_, view) = host.state();
    assert_eq!(view["bots"].as_array().unwrap().len(), 4);
    assert_eq!(view["revision"].as_u64().unwrap(), revision);
    assert_eq!(view["readOnly"], json!(null));
    host.terminate();
}

#[test]
fn the_live_stream_carries_revisions_and_new_bots() {
    let home = tempfile::tempdir().unwrap();
    let host = serve(home.path());
    let first = host.state().1["revision"].as_u64().unwrap();
    let mut stream = live(&host);
    read_until_all(&mut stream, &[&format!("{{\"revision\":{first}}}")]);
    let (_, made) = host.post("create-bot", r#"{"name": "Watcher"}"#, None);
    let id = made["bot"]["id"].as_str().unwrap();
    let next = format!("{{\"revision\":{}}}", first + 1);
    let created = format!("\"botId\":\"{id}\"");
    read_until_all(&mut stream, &["event: bot.created", &next, &created]);
    // An open live stream does not hold up a clean stop.
    let (ok, _, _) = host.terminate();
    assert!(ok);
    drop(stream);
}

#[test]
fn help_explains_the_commands() {
    let out = crate::support::flybot().arg("--help").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for word in ["serve", "replay", "pilot"] {
        assert!(text.contains(word), "{text}");
    }
    let out = crate::support::flybot()
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("--home") && text.contains("--listen") && text.contains("127.0.0.1:7450")
    );
}

/// `[modelFor] busy-ack` (#1665) naming a model config.toml does not
/// declare stops the start with one sentence, and nothing is served.
#[test]
fn a_model_for_naming_an_undeclared_model_stops_the_start_with_a_sentence() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        "[modelFor]\nbusy-ack = \"nope\"\n",
    )
    .unwrap();
    let out = crate::support::flybot()
        .args(["serve", "--listen", "127.0.0.1:0", "--home"])
        .arg(home.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("[modelFor] names the model \"nope\" for busy-ack"),
        "{said}"
    );
}

//! MCP connectors against the real `@modelcontextprotocol/server-everything`
//! (npm, installed by `scripts/test` into `.tools/mcp`): connect over stdio,
//! the tools mounted as `mcp__everything__<tool>`, a Bot on the mock model
//! calling one and getting its result, errors, the server's environment
//! (only what the connector names), progress notes shown in the running
//! work, a server that exits, the per-Bot switch with its guard, a room
//! member's turn, and the shared block (#49).

use flybot_testkit::Kit;
use serde_json::{Value, json};
use std::path::PathBuf;

/// The installed server-everything, or `None` (the test is skipped unless
/// `FLYBOT_REQUIRE_MCP` says it must run).
pub fn everything() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let path =
        root.join(".tools/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("FLYBOT_REQUIRE_MCP").is_none(),
        "server-everything is not installed in .tools/mcp; run scripts/test"
    );
    None
}

/// The connect body of server-everything over stdio.
pub fn everything_body(path: &std::path::Path, extra: Value) -> Value {
    let mut body = json!({"id": "everything", "command": ["node", path, "stdio"]});
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    body
}

const SCRIPT: &str = r#"[
  {"when": {"userContains": "echo it", "step": 0},
   "reply": {"toolCalls": [{"name": "mcp__everything__echo", "arguments": {"message": "hello mcp"}}]}},
  {"when": {"userContains": "add badly", "step": 0},
   "reply": {"toolCalls": [{"name": "mcp__everything__get-sum", "arguments": {"a": "one"}}]}},
  {"when": {"userContains": "run long", "step": 0},
   "reply": {"toolCalls": [{"name": "mcp__everything__trigger-long-running-operation", "arguments": {"duration": 2, "steps": 4}}]}},
  {"when": {"userContains": "show env", "step": 0},
   "reply": {"toolCalls": [{"name": "mcp__everything__get-env", "arguments": {}}]}},
  {"when": {"afterTool": "*"}, "reply": {"text": "done"}}
]"#;

async fn scripted() -> Kit {
    Kit::scripted(serde_json::from_str(SCRIPT).unwrap()).await
}

/// Sends `text` to the Bot and answers its last tool result.
async fn call(kit: &Kit, bot: &flybot_testkit::Bot, text: &str) -> (String, bool) {
    kit.ok("send", json!({"botId": bot.id, "text": text})).await;
    kit.idle(&bot.session).await;
    kit.tool_results(&bot.session).pop().unwrap()
}

#[tokio::test]
/// Rule #311.
async fn connector_server_everything_mounts_and_a_bot_gets_its_tool_result() {
    let Some(path) = everything() else { return };
    let kit = scripted().await;
    let ada = kit.bot("Ada").await;
    let row = kit
        .ok("connector-connect", everything_body(&path, json!({})))
        .await;
    assert_eq!(row["connector"]["status"], "ready", "{row}");
    let tools: Vec<&str> = row["connector"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(tools.contains(&"mcp__everything__echo"), "{tools:?}");
    assert!(tools.iter().all(|t| t.starts_with("mcp__everything__")));
    let (text, is_error) = call(&kit, &ada, "echo it").await;
    assert_eq!((text.as_str(), is_error), ("Echo: hello mcp", false));
    // A call the server refuses is the model's error, the turn goes on.
    let (text, is_error) = call(&kit, &ada, "add badly").await;
    assert!(is_error, "{text}");
    let list = kit.ok("connectors", json!({})).await;
    assert_eq!(list["connectors"][0]["id"], "everything");
    assert_eq!(list["connectors"][0]["status"], "ready");
    let off = kit
        .ok("connector-disconnect", json!({"id": "everything"}))
        .await;
    assert_eq!(off["connector"]["status"], "off");
    assert_eq!(
        kit.ok("connectors", json!({})).await["connectors"],
        json!([])
    );
    // Gone from the list: the tool is unknown to the next turn.
    let (text, is_error) = call(&kit, &ada, "echo it").await;
    assert!(is_error && text.contains("no tool named"), "{text}");
}

#[tokio::test]
/// Rule #311.
async fn connector_env_the_server_gets_only_what_the_connector_names() {
    let Some(path) = everything() else { return };
    let kit = scripted().await;
    let ada = kit.bot("Ada").await;
    kit.ok(
        "secret-set",
        json!({"name": "EVERYTHING_KEY", "value": "key-value-for-mcp"}),
    )
    .await;
    let body = everything_body(
        &path,
        json!({"env": {"MARK": "plain-mark"}, "secretEnv": {"API_KEY": "EVERYTHING_KEY"}}),
    );
    assert_eq!(
        kit.ok("connector-connect", body).await["connector"]["status"],
        "ready"
    );
    let (text, _) = call(&kit, &ada, "show env").await;
    let env: Value = serde_json::from_str(&text).unwrap();
    let mut names: Vec<&str> = env
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    names.sort();
    // The sandbox adds the private temporary folder (issue 30).
    assert_eq!(
        names,
        ["API_KEY", "HOME", "MARK", "PATH", "TEMP", "TMP", "TMPDIR"],
        "{text}"
    );
    assert_eq!(env["MARK"], "plain-mark");
    // The key reached the server, and the Session log keeps no value.
    assert_eq!(env["API_KEY"], "[secret]");
    kit.settled().await;
    let log = kit
        .ok("messages", json!({"botId": ada.id}))
        .await
        .to_string();
    assert!(!log.contains("key-value-for-mcp"));
}

#[tokio::test]
/// Rule #311.
async fn connector_status_a_bad_command_and_a_server_that_exits_read_as_error() {
    let Some(path) = everything() else { return };
    let kit = Kit::new().await;
    let bad = kit
        .ok(
            "connector-connect",
            json!({"id": "nothing", "command": ["/no/such/server"]}),
        )
        .await;
    assert_eq!(bad["connector"]["status"], "error");
    let why = bad["connector"]["error"].as_str().unwrap();
    assert!(
        why.starts_with("The command /no/such/server could not start"),
        "{why}"
    );
    kit.ok("connector-connect", everything_body(&path, json!({})))
        .await;
    let pgid = kit.host.connectors().process_group("everything").unwrap();
    std::process::Command::new("kill")
        .args(["-s", "KILL", "--", &format!("-{pgid}")])
        .status()
        .unwrap();
    let row = kit
        .until_some("the connector reads error", async || {
            let rows = kit.ok("connectors", json!({})).await["connectors"].clone();
            let row = rows
                .as_array()?
                .iter()
                .find(|r| r["id"] == "everything")?
                .clone();
            (row["status"] == "error").then_some(row)
        })
        .await;
    assert_eq!(row["error"], "The server exited; connect it again.");
    assert_eq!(row["tools"], json!([]));
}

#[tokio::test]
/// Rule #311.
async fn connector_refusals_name_the_field_and_mount_nothing() {
    let kit = Kit::new().await;
    for (body, field) in [
        (json!({"id": "Bad_Name", "command": ["x"]}), "id"),
        (
            json!({"id": "ok", "command": ["x"], "url": "http://127.0.0.1:1/"}),
            "command",
        ),
        (json!({"id": "ok", "url": "ftp://example"}), "command"),
        (
            json!({"id": "ok", "command": ["x"], "secretEnv": {"K": "MISSING"}}),
            "secretEnv",
        ),
        (
            json!({"id": "ok", "command": ["x"], "env": {"1BAD": "v"}}),
            "env",
        ),
    ] {
        let refused = kit
            .anyone()
            .refused("connector-connect", body, "bot/invalid")
            .await;
        assert_eq!(refused["error"]["details"]["field"], field);
    }
    kit.anyone()
        .refused(
            "connector-disconnect",
            json!({"id": "none"}),
            "bot/not-found",
        )
        .await;
    assert_eq!(
        kit.ok("connectors", json!({})).await["connectors"],
        json!([])
    );
}

#[tokio::test]
/// Rule #49.
async fn connectors_shared_are_blocked_with_more_than_one_member() {
    let kit = Kit::new().await;
    let [ada, bo] = kit.members(["Ada", "Bo"]).await;
    let bot = kit.as_member(&ada).bot("Scout").await;
    let writes = [
        ("connector-connect", json!({"id": "x", "command": ["true"]})),
        ("connector-disconnect", json!({"id": "x"})),
        (
            "bot-connectors",
            json!({"botId": bot.id, "connector": "x", "enabled": false}),
        ),
    ];
    // The host's owner reads the rows (issue 39) and changes nothing.
    let owner = kit.as_member(&ada);
    assert_eq!(
        owner.ok("connectors", json!({})).await["connectors"],
        json!([])
    );
    for (endpoint, body) in writes.clone() {
        owner.refused(endpoint, body, "bot/blocked-shared").await;
    }
    // Another member neither reads nor changes them.
    let bo = kit.as_member(&bo);
    bo.refused("connectors", json!({}), "bot/blocked-shared")
        .await;
    for (endpoint, body) in writes {
        bo.refused(endpoint, body, "bot/blocked-shared").await;
    }
    assert!(kit.host.connectors().rows().is_empty());
}

#[tokio::test]
/// Rule #311.
async fn connectors_a_restart_mounts_the_saved_connectors_again() {
    let Some(path) = everything() else { return };
    let kit = Kit::new().await;
    kit.ok("connector-connect", everything_body(&path, json!({})))
        .await;
    let kit = kit.restart().await;
    let row = kit
        .until_some("the saved connector is ready again", async || {
            let rows = kit.ok("connectors", json!({})).await["connectors"].clone();
            let row = rows.as_array()?.first()?.clone();
            (row["status"] == "ready").then_some(row)
        })
        .await;
    assert_eq!(row["id"], "everything");
    kit.ok("connector-disconnect", json!({"id": "everything"}))
        .await;
    let kit = kit.restart().await;
    kit.settled().await;
    assert_eq!(
        kit.ok("connectors", json!({})).await["connectors"],
        json!([])
    );
}

#[tokio::test]
async fn connectors_json_30_a_connector_the_owner_did_not_add_is_not_started() {
    let Some(path) = everything() else { return };
    let kit = Kit::new().await;
    kit.ok("connector-connect", everything_body(&path, json!({})))
        .await;
    // A child that could write the home would plant this (issue 30).
    let file = kit.home().join("connectors.json");
    let mut saved: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let ran = kit.home().join("planted-ran");
    saved.as_array_mut().unwrap().push(json!({
        "id": "planted",
        "command": ["sh", "-c", format!("touch {}", ran.display())]
    }));
    std::fs::write(&file, serde_json::to_vec(&saved).unwrap()).unwrap();
    let kit = kit.restart().await;
    let rows = kit
        .until_some("the added connector is ready again", async || {
            let rows = kit.ok("connectors", json!({})).await["connectors"].clone();
            let ready = rows.as_array()?.iter().any(|r| r["status"] == "ready");
            ready.then_some(rows)
        })
        .await;
    let planted = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "planted")
        .unwrap();
    assert_eq!(planted["status"], "error");
    assert_eq!(
        planted["error"],
        "This connector is in connectors.json but was not added through the channel, so it was not started; add it again in Settings."
    );
    assert!(!ran.exists(), "the planted command never ran");
}

#[tokio::test]
/// Rule #311.
async fn connector_progress_a_long_tools_progress_shows_in_the_running_work() {
    let Some(path) = everything() else { return };
    let kit = scripted().await;
    let ada = kit.bot("Ada").await;
    kit.ok("connector-connect", everything_body(&path, json!({})))
        .await;
    kit.ok("send", json!({"botId": ada.id, "text": "run long"}))
        .await;
    // Each progress note the server sends is the call's step while it runs.
    let mut steps: Vec<String> = Vec::new();
    kit.until("the third of four progress notes shows", || {
        let work = kit.host.sessions().running_work();
        let step = work
            .iter()
            .find(|w| w.session_id == ada.session)
            .and_then(|w| w.step.clone());
        if let Some(step) = step.filter(|s| steps.last() != Some(s)) {
            steps.push(step);
        }
        steps.last().is_some_and(|s| s.ends_with("3/4"))
    })
    .await;
    let tool = "trigger-long-running-operation";
    let progress: Vec<&String> = steps.iter().filter(|s| s.starts_with(tool)).collect();
    assert_eq!(
        progress,
        [
            format!("{tool} 1/4"),
            format!("{tool} 2/4"),
            format!("{tool} 3/4")
        ]
        .iter()
        .collect::<Vec<_>>(),
        "{steps:?}"
    );
    kit.idle(&ada.session).await;
    let (text, is_error) = kit.tool_results(&ada.session).pop().unwrap();
    assert_eq!(
        (text.as_str(), is_error),
        (
            "Long running operation completed. Duration: 2 seconds, Steps: 4.",
            false
        )
    );
}

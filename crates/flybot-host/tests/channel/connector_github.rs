//! The GitHub connector (#311, #545, #1234) on the real
//! `@modelcontextprotocol/server-github` (npm), pointed at a loopback fake
//! of the GitHub REST API: the owner's `GITHUB_TOKEN` secret reaches the
//! API as the bearer and nowhere else, a room member reads issues, a write
//! from the room is refused with the #1234 sentence and never reaches the
//! API, and a tool the owner marks asks for approval like any other.

use flybot_testkit::Kit;
use flybot_testkit::api_fake::{Answer, ApiFake};
use serde_json::json;
use std::path::PathBuf;

const TOKEN: &str = "ghp_fake_token_for_tests_123";

fn github_server() -> Option<(PathBuf, PathBuf)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let server = root
        .join("../../.tools/mcp/node_modules/@modelcontextprotocol/server-github/dist/index.js");
    let shim = root.join("tests/channel/fixtures/github_api_base.mjs");
    if server.exists() {
        return Some((server, shim));
    }
    assert!(
        std::env::var_os("FLYBOT_REQUIRE_MCP").is_none(),
        "server-github is not installed in .tools/mcp; run scripts/test"
    );
    None
}

const SCRIPT: &str = r#"[
  {"when": {"userContains": "read issues", "step": 0},
   "reply": {"toolCalls": [{"name": "mcp__github__list_issues", "arguments": {"owner": "acme", "repo": "app"}}]}},
  {"when": {"userContains": "open issue", "step": 0},
   "reply": {"toolCalls": [{"name": "mcp__github__create_issue", "arguments": {"owner": "acme", "repo": "app", "title": "Bug"}}]}},
  {"when": {"userContains": "your rules", "systemContains": "use the GitHub connector tools (mcp__github__*) first"},
   "reply": {"text": "connector first"}},
  {"when": {"afterTool": "*"}, "reply": {"text": "done"}},
  {"reply": {"text": "fine"}}
]"#;

async fn connected(approval: &[&str]) -> Option<(Kit, ApiFake)> {
    let (server, shim) = github_server()?;
    let fake = ApiFake::start(vec![Answer::json(
        200,
        json!([{"number": 7, "title": "Crash on start", "state": "open"}]),
    )]);
    let kit = Kit::scripted(serde_json::from_str(SCRIPT).unwrap()).await;
    kit.ok(
        "secret-set",
        json!({"name": "GITHUB_TOKEN", "value": TOKEN}),
    )
    .await;
    let row = kit
        .ok(
            "connector-connect",
            json!({
                "id": "github",
                "command": ["node", "--import", shim, server],
                "env": {"FLYBOT_GITHUB_API": fake.base_url},
                "approval": approval,
            }),
        )
        .await;
    assert_eq!(row["connector"]["status"], "ready", "{row}");
    let tools = row["connector"]["tools"].to_string();
    assert!(
        tools.contains("mcp__github__list_issues") && tools.contains("mcp__github__create_issue")
    );
    Some((kit, fake))
}

#[tokio::test]
/// Rule #1234.
async fn github_a_room_member_reads_issues_and_its_write_never_reaches_github() {
    let Some((kit, fake)) = connected(&[]).await else {
        return;
    };
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    let room = kit.room("Review", &[&ada, &bo]).await;
    kit.ok(
        "send",
        json!({"roomId": room.id, "text": "@Ada read issues"}),
    )
    .await;
    kit.round_ended(&room).await;
    let seat = kit.seat(&room, &ada);
    let (text, is_error) = kit.tool_results(&seat).pop().unwrap();
    assert!(!is_error && text.contains("Crash on start"), "{text}");
    let seen = fake.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].path, "/repos/acme/app/issues");
    assert_eq!(
        seen[0].authorization.as_deref(),
        Some(&*format!("Bearer {TOKEN}"))
    );
    kit.ok(
        "send",
        json!({"roomId": room.id, "text": "@Ada open issue"}),
    )
    .await;
    kit.round_ended(&room).await;
    let (text, is_error) = kit.tool_results(&seat).pop().unwrap();
    assert!(is_error);
    assert!(
        text.starts_with(
            "The mcp__github__create_issue tool is not available in a group room (#1234)"
        ),
        "{text}"
    );
    assert_eq!(fake.seen().len(), 1, "the write never reached the API");
    kit.settled().await;
    let views = [
        kit.anyone().state().await.1,
        kit.ok("connectors", json!({})).await,
        kit.ok("messages", json!({"roomId": room.id})).await,
    ];
    for view in views {
        assert!(!view.to_string().contains(TOKEN));
    }
}

#[tokio::test]
/// Rule #311.
async fn github_approval_a_marked_tool_asks_the_owner_first() {
    let Some((kit, fake)) = connected(&["create_issue"]).await else {
        return;
    };
    let ada = kit.bot("Ada").await;
    kit.ok("send", json!({"botId": ada.id, "text": "open issue"}))
        .await;
    let approval = kit
        .until_some("the approval waits", async || {
            let list = kit.ok("approvals", json!({})).await["approvals"].clone();
            list.as_array()?.first().cloned()
        })
        .await;
    assert_eq!(approval["tool"], "mcp__github__create_issue");
    assert!(
        fake.seen().is_empty(),
        "nothing reached GitHub before the answer"
    );
    kit.ok(
        "approval-answer",
        json!({"id": approval["id"], "answer": "rejected"}),
    )
    .await;
    kit.idle(&ada.session).await;
    let (text, is_error) = kit.tool_results(&ada.session).pop().unwrap();
    assert!(is_error && text.contains("did not approve"), "{text}");
    assert!(fake.seen().is_empty());
}

#[tokio::test]
/// Rule #311.
async fn github_a_bot_is_told_to_prefer_the_connector_over_the_shell() {
    let Some((kit, _fake)) = connected(&[]).await else {
        return;
    };
    let ada = kit.bot("Ada").await;
    kit.ok("send", json!({"botId": ada.id, "text": "your rules"}))
        .await;
    kit.idle(&ada.session).await;
    let said = kit
        .ok("messages", json!({"botId": ada.id}))
        .await
        .to_string();
    assert!(said.contains("connector first"), "{said}");
}

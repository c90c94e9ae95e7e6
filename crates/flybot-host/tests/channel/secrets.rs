//! Secrets through the channel (#545, #651, #49): a key saved with
//! `secret-set` reaches the shell of a Bot in its scope as
//! `FLYBOT_SECRET_<NAME>` and nowhere else (the home folder, every view and
//! the Session logs are scanned for it), a withheld key names its reason in
//! `FLYBOT_SECRETS_WITHHELD`, the file is private, refusals write nothing,
//! and with more than one member every secrets endpoint is blocked.

use flybot_testkit::{Bot, Kit};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::path::Path;

/// The value the scenario saves; it must turn up in no file but secrets.json.
const VALUE: &str = "s3cr3t-deploy-value-7f2a";
const SCOPED: &str = "only-ada-value-91bc";

/// "show keys" makes the Bot's shell print a digest of the key, the key
/// itself (which the host redacts), and the withheld list.
const SCRIPT: &str = r#"[
  {"when": {"userContains": "show keys", "step": 0},
   "reply": {"toolCalls": [{"name": "run_command", "arguments": {"argv": ["sh", "-c",
     "printf %s \"$FLYBOT_SECRET_DEPLOY_KEY\" | sha256sum; printf %s \"$FLYBOT_SECRET_ONLY_ADA\" | sha256sum; echo raw=$FLYBOT_SECRET_DEPLOY_KEY; echo withheld=$FLYBOT_SECRETS_WITHHELD"]}}]}},
  {"when": {"userContains": "which keys", "step": 0},
   "reply": {"toolCalls": [{"name": "list_secrets", "arguments": {}}]}},
  {"when": {"afterTool": "*"}, "reply": {"text": "done"}}
]"#;

fn sha(text: &str) -> String {
    format!("{:x}", Sha256::digest(text.as_bytes()))
}

/// Runs "show keys" in `bot`'s chat, answering its one approval with a
/// standing grant; answers the tool's text.
async fn shell_of(kit: &Kit, bot: &Bot, text: &str) -> String {
    kit.ok("send", json!({"botId": bot.id, "text": text})).await;
    if text.contains("show keys") {
        let id = kit
            .until_some("the run_command approval", async || {
                let list = kit.ok("approvals", json!({})).await["approvals"].clone();
                list.as_array()?
                    .iter()
                    .find(|a| a["botId"] == bot.id.as_str() && a["status"] == "waiting")
                    .map(|a| a["id"].clone())
            })
            .await;
        kit.ok(
            "approval-answer",
            json!({"id": id, "answer": "allowed-once"}),
        )
        .await;
    }
    kit.idle(&bot.session).await;
    kit.tool_results(&bot.session).pop().unwrap().0
}

/// Every file under `dir` whose bytes hold `needle`, secrets.json left out.
fn files_holding(dir: &Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_holding(&path, needle));
        } else if path.file_name().is_some_and(|n| n != "secrets.json") {
            let bytes = std::fs::read(&path).unwrap_or_default();
            if bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                found.push(path.display().to_string());
            }
        }
    }
    found
}

#[tokio::test]
/// Rule #545.
async fn secrets_a_key_reaches_an_in_scope_shell_and_nowhere_else() {
    let kit = Kit::scripted(serde_json::from_str(SCRIPT).unwrap()).await;
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    let set = kit
        .ok("secret-set", json!({"name": "DEPLOY_KEY", "value": VALUE}))
        .await;
    assert_eq!(set["secret"]["scope"], "all");
    assert!(set["secret"].get("value").is_none());
    kit.ok(
        "secret-set",
        json!({"name": "ONLY_ADA", "value": SCOPED, "scope": [ada.id]}),
    )
    .await;
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(kit.home().join("secrets.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);

    let ada_shell = shell_of(&kit, &ada, "show keys").await;
    assert!(ada_shell.contains(&sha(VALUE)), "{ada_shell}");
    assert!(ada_shell.contains(&sha(SCOPED)), "{ada_shell}");
    assert!(ada_shell.contains("raw=[secret]"), "{ada_shell}");
    assert!(ada_shell.ends_with("withheld=\n"), "{ada_shell}");
    let bo_shell = shell_of(&kit, &bo, "show keys").await;
    assert!(bo_shell.contains(&sha(VALUE)), "{bo_shell}");
    assert!(!bo_shell.contains(&sha(SCOPED)), "{bo_shell}");
    assert!(
        bo_shell.contains(&sha("")),
        "Bo's ONLY_ADA is unset: {bo_shell}"
    );
    assert!(
        bo_shell.contains("withheld=ONLY_ADA:not-in-scope"),
        "{bo_shell}"
    );
    let listed = shell_of(&kit, &bo, "which keys").await;
    assert!(listed.contains("DEPLOY_KEY: you may use it"), "{listed}");
    assert!(
        listed.contains("ONLY_ADA: withheld (not-in-scope)"),
        "{listed}"
    );
    kit.settled().await;

    // Nowhere else: no file of the home but secrets.json, no view.
    for value in [VALUE, SCOPED] {
        assert_eq!(files_holding(kit.home(), value), Vec::<String>::new());
        let (_, state) = kit.anyone().state().await;
        // The view lists the keys by name (#545), never by value.
        let names: Vec<&str> = state["secrets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| row["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["DEPLOY_KEY", "ONLY_ADA"]);
        let mut views: Vec<Value> = vec![
            state.clone(),
            kit.ok("secrets", json!({})).await,
            kit.ok("connectors", json!({})).await,
            kit.ok("approvals", json!({})).await,
            kit.ok("usage", json!({})).await,
        ];
        for bot in [&ada, &bo] {
            views.push(kit.ok("messages", json!({"botId": bot.id})).await);
        }
        for view in views {
            assert!(!view.to_string().contains(value), "{view}");
        }
    }
}

#[tokio::test]
/// Rule #545.
async fn secrets_rows_name_scope_and_setter_and_update_delete_round_trip() {
    let kit = Kit::new().await;
    let ada = kit.bot("Ada").await;
    kit.ok(
        "secret-set",
        json!({"name": "NPM_TOKEN", "value": "npm_abcdef"}),
    )
    .await;
    let updated = kit
        .ok(
            "secret-update",
            json!({"name": "NPM_TOKEN", "scope": [ada.id]}),
        )
        .await;
    assert_eq!(updated["secret"]["scope"], json!([ada.id]));
    assert_eq!(updated["secret"]["scopeSet"], true);
    let list = kit.ok("secrets", json!({})).await;
    assert_eq!(list["secrets"].as_array().unwrap().len(), 1);
    assert_eq!(list["secrets"][0]["name"], "NPM_TOKEN");
    assert!(!list.to_string().contains("npm_abcdef"));
    kit.ok("secret-delete", json!({"name": "NPM_TOKEN"})).await;
    let list = kit.ok("secrets", json!({})).await;
    assert_eq!(list["secrets"], json!([]));
    assert!(
        !std::fs::read_to_string(kit.home().join("secrets.json"))
            .unwrap()
            .contains("npm_abcdef")
    );
}

#[tokio::test]
async fn secret_refusals_name_the_field_and_leave_the_file_unchanged() {
    let kit = Kit::new().await;
    kit.ok("secret-set", json!({"name": "KEPT", "value": "kept-value"}))
        .await;
    let path = kit.home().join("secrets.json");
    let before = std::fs::read(&path).unwrap();
    let bad = kit
        .anyone()
        .refused(
            "secret-set",
            json!({"name": "lower-case", "value": "abcdef"}),
            "bot/invalid",
        )
        .await;
    assert_eq!(bad["error"]["details"]["field"], "name");
    kit.anyone()
        .refused(
            "secret-set",
            json!({"name": "SHORT", "value": "ab"}),
            "bot/invalid",
        )
        .await;
    kit.anyone()
        .refused(
            "secret-update",
            json!({"name": "MISSING", "value": "abcdef"}),
            "bot/not-found",
        )
        .await;
    kit.anyone()
        .refused("secret-delete", json!({"name": "MISSING"}), "bot/not-found")
        .await;
    kit.anyone()
        .refused(
            "secret-set",
            json!({"name": "KEPT", "value": "abcdef", "extra": 1}),
            "bot/invalid",
        )
        .await;
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[tokio::test]
/// Rule #49.
async fn secrets_shared_are_blocked_with_more_than_one_member() {
    let kit = Kit::new().await;
    let [ada, bo] = kit.members(["Ada", "Bo"]).await;
    let writes = [
        (
            "secret-set",
            json!({"name": "GITHUB_TOKEN", "value": "ghp_abcdef"}),
        ),
        (
            "secret-update",
            json!({"name": "GITHUB_TOKEN", "value": "ghp_x1"}),
        ),
        ("secret-delete", json!({"name": "GITHUB_TOKEN"})),
    ];
    // The host's owner reads the names (issue 39) and writes none.
    let owner = kit.as_member(&ada);
    assert_eq!(owner.ok("secrets", json!({})).await["secrets"], json!([]));
    for (endpoint, body) in writes.clone() {
        owner.refused(endpoint, body, "bot/blocked-shared").await;
    }
    let bo = kit.as_member(&bo);
    bo.refused("secrets", json!({}), "bot/blocked-shared").await;
    for (endpoint, body) in writes {
        bo.refused(endpoint, body, "bot/blocked-shared").await;
    }
    assert!(!kit.home().join("secrets.json").exists());
}

#[tokio::test]
/// Rule #545.
async fn secret_scope_an_old_empty_scope_reads_as_all_bots() {
    let kit = Kit::new().await;
    std::fs::write(
        kit.home().join("secrets.json"),
        r#"{"version":1,"secrets":{"OLD":{"value":"old-value","scope":[],"setBy":null,"setAt":1,"updatedAt":1},
           "NONE":{"value":"none-value","scope":[],"scopeSet":true,"setBy":null,"setAt":1,"updatedAt":1}}}"#,
    )
    .unwrap();
    let list = kit.ok("secrets", json!({})).await;
    let scopes: Vec<(Value, Value)> = list["secrets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].clone(), r["scope"].clone()))
        .collect();
    assert_eq!(
        scopes,
        vec![(json!("NONE"), json!([])), (json!("OLD"), json!("all"))]
    );
}

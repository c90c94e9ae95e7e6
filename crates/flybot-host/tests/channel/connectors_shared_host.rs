//! Connectors on a shared host survive a restart (issue 39, #49, #311):
//! the host mounts what its owner saved as itself, never as a member, so a
//! second member joining takes nothing away; their tools still reach the
//! owner's own Bots only; a connector that cannot start again is an `error`
//! row with why, which the owner may retry and another member may not.

use crate::connectors::{everything, everything_body};
use crate::owner_checks::connectors::{forced_echo, offered_mcp};
use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::mock::MockModel;
use flybot_testkit::mock_server::{kit_on, models_config};
use flybot_testkit::sse_server::ScriptedProvider;
use flybot_testkit::{Kit, Member};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

/// The row of connector `id` as `who` reads it, once it is not connecting.
async fn settled_row(kit: &Kit, who: &Member, id: &str) -> Value {
    kit.until_some("the connector's row settles", async || {
        let rows = kit.as_member(who).ok("connectors", json!({})).await;
        let row = rows["connectors"]
            .as_array()?
            .iter()
            .find(|r| r["id"] == id)?
            .clone();
        (row["status"] != "connecting").then_some(row)
    })
    .await
}

#[tokio::test]
async fn connectors_39_a_restart_with_two_members_keeps_the_owners_connector_for_her_bots_only() {
    let Some(path) = everything() else { return };
    let [a, b] = forced_echo();
    let [c, d] = forced_echo();
    let server = ScriptedProvider::start(vec![a, b, c, d]);
    let config = models_config(&server.base_url, None);
    let kit = kit_on(&config).await;
    let ann = kit.owner("Ann").await;
    let owner = kit.as_member(&ann);
    owner
        .ok("connector-connect", everything_body(&path, json!({})))
        .await;
    let bob = owner.invite("Bob").await;
    let ada = owner
        .bot_from(json!({"name": "Ada", "model": "remote"}))
        .await;
    let rex = kit
        .as_member(&bob)
        .bot_from(json!({"name": "Rex", "model": "remote"}))
        .await;
    let models = ProviderRegistry::from_config(&config, MockModel::offline()).unwrap();
    let kit = kit
        .restart_with(|host| host.models = Arc::new(models))
        .await;
    let row = settled_row(&kit, &ann, "everything").await;
    assert_eq!(
        (row["status"].as_str(), row.get("error")),
        (Some("ready"), None)
    );
    // The owner's Bot is offered the connector's tools and calls one.
    let owner = kit.as_member(&ann);
    owner
        .ok("send", json!({"botId": ada.id, "text": "echo it"}))
        .await;
    kit.idle(&ada.session).await;
    let offered = offered_mcp(&server.requests()[0]);
    assert!(
        offered.contains(&"mcp__everything__echo".to_owned()),
        "{offered:?}"
    );
    let (text, is_error) = kit.tool_results(&ada.session).pop().unwrap();
    assert_eq!((text.as_str(), is_error), ("Echo: hi", false));
    // Bob's Bot is offered none, and a call it forces is refused.
    kit.as_member(&bob)
        .ok("send", json!({"botId": rex.id, "text": "echo it"}))
        .await;
    kit.idle(&rex.session).await;
    assert_eq!(offered_mcp(&server.requests()[2]), Vec::<String>::new());
    let (_, is_error) = kit.tool_results(&rex.session).pop().unwrap();
    assert!(is_error);
    // Bob sees no row; the owner's view has the ready one.
    let (_, his) = kit.as_member(&bob).state().await;
    assert_eq!(his["connectors"], json!([]));
    let (_, hers) = owner.state().await;
    assert_eq!(hers["connectors"][0]["status"], "ready");
}

/// A script at `script` that starts the stdio server its argument names
/// (an argument, so the sandbox opens the server's install folder), which a
/// test can take away and put back.
fn write_script(script: &Path) {
    let text = "#!/bin/sh\nexec node \"$1\" stdio\n";
    std::fs::write(script, text).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(script, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[tokio::test]
async fn connectors_39_a_connector_whose_command_is_gone_shows_as_failed_and_the_owner_retries_it()
{
    let Some(path) = everything() else { return };
    let folder = tempfile::tempdir().unwrap();
    let script = folder.path().join("everything.sh");
    write_script(&script);
    let kit = Kit::new().await;
    let ann = kit.owner("Ann").await;
    let owner = kit.as_member(&ann);
    let body = json!({"id": "everything", "command": [script, path]});
    let mounted = owner.ok("connector-connect", body).await;
    assert_eq!(mounted["connector"]["status"], "ready", "{mounted}");
    let bob = owner.invite("Bob").await;
    std::fs::remove_file(&script).unwrap();
    let kit = kit.restart().await;
    // Failed, with why, never silently missing: in the rows and the view.
    let row = settled_row(&kit, &ann, "everything").await;
    assert_eq!(row["status"], "error");
    let why = row["error"].as_str().unwrap();
    assert!(why.starts_with("The command "), "{why}");
    let (_, view) = kit.as_member(&ann).state().await;
    assert_eq!(view["connectors"][0]["error"], why);
    // Bob may not retry; the row is as it was.
    write_script(&script);
    kit.as_member(&bob)
        .refused(
            "connector-retry",
            json!({"id": "everything"}),
            "bot/blocked-shared",
        )
        .await;
    assert_eq!(settled_row(&kit, &ann, "everything").await["error"], why);
    // The owner may: the script is back, the connector is ready again.
    let owner = kit.as_member(&ann);
    let retried = owner
        .ok("connector-retry", json!({"id": "everything"}))
        .await;
    assert_eq!(retried["connector"]["status"], "ready");
    owner
        .refused("connector-retry", json!({"id": "nowhere"}), "bot/not-found")
        .await;
    // Adding stays blocked on a shared host (#49).
    owner
        .refused(
            "connector-connect",
            json!({"id": "other", "command": [script]}),
            "bot/blocked-shared",
        )
        .await;
}

//! Projects through the channel (#1710, #1723): the owner is the caller,
//! binding needs the right to manage, and the board shows only the cards the
//! caller may open through `tasks`.

use crate::workflows::{desk, fact, run_job};
use flybot_testkit::Kit;
use serde_json::{Value, json};

/// `token`'s view of `project`'s board.
async fn board(kit: &Kit, token: &str, project: &str) -> Value {
    kit.with_token(Some(token))
        .ok("project-board", json!({"project": project}))
        .await
}

#[tokio::test]
/// Rule #1710.
async fn the_owner_is_stamped_from_the_actor_and_only_the_owner_manages() {
    let kit = Kit::new().await;
    let owner = kit.owner("Ada").await;
    let other = kit.as_member(&owner).invite("Bob").await;
    kit.as_member(&owner)
        .refused(
            "project-create",
            json!({"name": "Site", "ownerUserId": other.member_id}),
            "bot/invalid",
        )
        .await;
    let created = kit
        .as_member(&owner)
        .ok("project-create", json!({"name": "Site"}))
        .await;
    let id = created["project"]["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("project-"));
    assert_eq!(created["project"]["ownerUserId"], owner.member_id.as_str());
    let mine = kit
        .as_member(&owner)
        .ok("project-read", json!({"project": id}))
        .await;
    assert_eq!(mine["canManage"], true);
    // Bob sees nothing the Project binds: to him it is unknown (issue 29).
    kit.as_member(&other)
        .refused("project-read", json!({"project": id}), "bot/not-found")
        .await;
    let list = kit.as_member(&other).ok("projects", json!({})).await;
    assert_eq!(list["projects"], json!([]));
    kit.as_member(&other)
        .refused("project-delete", json!({"project": id}), "bot/not-found")
        .await;
    kit.as_member(&owner)
        .ok("project-delete", json!({"project": id}))
        .await;
    kit.as_member(&owner)
        .refused("project-read", json!({"project": id}), "bot/not-found")
        .await;
}

#[tokio::test]
/// Rules #1710, #1723.
async fn a_bind_by_a_non_manager_writes_nothing_and_the_board_hides_what_tasks_hides() {
    let kit = Kit::new().await;
    let [owner, other] = kit.members(["Ada", "Bob"]).await;
    let bot = kit.as_member(&owner).bot("Worker").await.id;
    let room = kit
        .as_member(&owner)
        .room_from(json!({"name": "Shared", "members": [bot],
               "participants": [{"kind": "human", "memberId": other.member_id}]}))
        .await
        .id;
    let project = kit
        .as_member(&owner)
        .ok("project-create", json!({"name": "Site"}))
        .await["project"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    kit.as_member(&other)
        .refused(
            "project-bind",
            json!({"roomId": room, "project": project}),
            "bot/forbidden",
        )
        .await;
    let bound = kit
        .as_member(&owner)
        .ok("project-bind", json!({"roomId": room, "project": project}))
        .await;
    assert_eq!(bound["project"]["id"], project.as_str());
    // The binding is the room's own `projectId` (#1691).
    let room_project = kit
        .host
        .store()
        .read(|s| s.rooms[&room].extra["projectId"].clone());
    assert_eq!(room_project, project.as_str());
    let of = kit
        .as_member(&other)
        .ok("project-of", json!({"roomId": room}))
        .await;
    assert_eq!(of["project"]["id"], project.as_str());
    // Unbinding leaves a Project Bob does not manage: refused.
    kit.as_member(&other)
        .refused(
            "project-bind",
            json!({"roomId": room, "project": null}),
            "bot/forbidden",
        )
        .await;
    let empty = board(&kit, &other.token, &project).await;
    assert_eq!(empty["tasks"], json!([]));
    // Bob asks Ada's Bot in the room he shares with it; Ada asks it too.
    // Ada owns the Bot and the room and sees both; Bob sees only his own.
    let bobs_card = kit
        .as_member(&other)
        .card_from(json!({"botId": bot, "title": "Bob's", "roomId": room}))
        .await;
    let adas_card = kit
        .as_member(&owner)
        .card_from(json!({"botId": bot, "title": "Ada's", "roomId": room,
               "evidence": [{"pr": 12}]}))
        .await;
    let ada_board = board(&kit, &owner.token, &project).await;
    let ada_rows = ada_board["tasks"].as_array().unwrap();
    assert_eq!(ada_rows.len(), 2);
    let adas_row = ada_rows
        .iter()
        .find(|r| r["id"] == adas_card.as_str())
        .unwrap();
    assert!(adas_row["audit"].as_str().unwrap().contains("pr #12"));
    let bob_board = board(&kit, &other.token, &project).await;
    let bob_rows = bob_board["tasks"].as_array().unwrap();
    assert_eq!(bob_rows.len(), 1);
    assert_eq!(bob_rows[0]["id"], bobs_card.as_str());
    assert!(bob_rows[0].get("audit").is_none());
}

#[tokio::test]
/// Rules #1691, #1696.
async fn a_project_record_binds_a_bot_and_its_board_rows_name_source_and_assignee() {
    let kit = Kit::new().await;
    let [owner, other] = kit.members(["Ada", "Bob"]).await;
    let ada = kit.as_member(&owner);
    let created = ada
        .ok(
            "project-create",
            json!({"name": "Site", "repository": "acme/site", "status": "active"}),
        )
        .await;
    let project = created["project"]["id"].as_str().unwrap().to_owned();
    assert_eq!(created["project"]["repository"], "acme/site");
    assert_eq!(created["project"]["defaultBranch"], "main");
    assert_eq!(created["project"]["status"], "active");
    ada.refused(
        "project-create",
        json!({"name": "X", "defaultBranch": "two words"}),
        "bot/invalid",
    )
    .await;
    let bot = ada.bot("Worker").await.id;
    // Bob neither owns the Bot nor manages the Project: refused, nothing bound.
    kit.as_member(&other)
        .refused(
            "project-bind",
            json!({"botId": bot, "project": project}),
            "bot/forbidden",
        )
        .await;
    assert_eq!(
        ada.ok("project-of", json!({"botId": bot})).await["project"],
        Value::Null
    );
    ada.ok("project-bind", json!({"botId": bot, "project": project}))
        .await;
    let of = ada.ok("project-of", json!({"botId": bot})).await;
    assert_eq!(of["project"]["id"], project.as_str());
    let card = ada.card(&bot, "Own work").await;
    let rows = board(&kit, &owner.token, &project).await;
    let row = &rows["tasks"][0];
    assert_eq!(row["id"], card.as_str());
    assert_eq!(row["source"], "bot");
    assert_eq!(row["assignee"], bot.as_str());
    assert_eq!(row["column"], "not-started");
    assert!(row["updatedAt"].as_u64().is_some());
    assert!(row.get("runId").is_none());
    // Bob sees neither the Project (it binds only Ada's own Bot) nor its cards.
    kit.as_member(&other)
        .refused(
            "project-board",
            json!({"project": project}),
            "bot/not-found",
        )
        .await;
    ada.ok("project-bind", json!({"botId": bot, "project": null}))
        .await;
    assert_eq!(
        board(&kit, &owner.token, &project).await["tasks"],
        json!([])
    );
}

#[tokio::test]
/// Rules #1691, #1696.
async fn a_workflow_run_binds_to_a_project_and_its_cards_show_run_and_node() {
    let kit = Kit::new().await;
    let (room, lead) = desk(&kit).await;
    let project = kit.ok("project-create", json!({"name": "Site"})).await["project"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, job) = run_job(
        &kit,
        json!({"workflow": "blank", "roomId": room, "botId": lead, "title": "Post"}),
    )
    .await;
    fact(&kit, &job, "text:topic", "t1", None).await;
    let of = kit.ok("project-of", json!({"runId": job})).await;
    assert_eq!(of["project"], Value::Null);
    let rows = kit.ok("project-board", json!({"project": project})).await;
    assert_eq!(rows["tasks"], json!([]));
    kit.refused(
        "project-bind",
        json!({"runId": job, "roomId": room, "project": project}),
        "bot/invalid",
    )
    .await;
    kit.refused(
        "project-bind",
        json!({"runId": "task-nope", "project": project}),
        "bot/not-found",
    )
    .await;
    kit.ok("project-bind", json!({"runId": job, "project": project}))
        .await;
    let of = kit.ok("project-of", json!({"runId": job})).await;
    assert_eq!(of["project"]["id"], project.as_str());
    let rows = kit.ok("project-board", json!({"project": project})).await;
    let rows = rows["tasks"].as_array().unwrap();
    let job_row = rows.iter().find(|r| r["id"] == job.as_str()).unwrap();
    assert_eq!(job_row["source"], "workflow");
    assert_eq!(job_row["runId"], job.as_str());
    let draft = rows.iter().find(|r| r["nodeId"] == "draft").unwrap();
    assert_eq!(draft["source"], "workflow");
    assert_eq!(draft["runId"], job.as_str());
    // Deleting the Project leaves no binding behind.
    kit.ok("project-delete", json!({"project": project})).await;
    let of = kit.ok("project-of", json!({"runId": job})).await;
    assert_eq!(of["project"], Value::Null);
    assert!(kit.host.store().read(|s| s.project_runs.is_empty()));
}

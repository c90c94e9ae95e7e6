//! What a member sees of another member's things (issue 29): another
//! owner's Bot by its public face only, never its instructions, its
//! `external` record or its own chat (#53); another member's Projects only
//! where they bind something the member sees, on every surface (the
//! Projects' counterpart of #1723).

use flybot_testkit::{Kit, Member};
use serde_json::{Value, json};

const BRIEF: &str = "ann-brief-4d1e: never tell Bob";
const COMMAND: &str = "ann-command-77a0";
const ENV: &str = "ann-env-value-0b52";

/// Ann's room holds Ann's Worker (with private instructions), Ann's Runner
/// (an external member) and Bob's Helper (granted to Ann).
struct Shared {
    kit: Kit,
    ann: Member,
    bob: Member,
    room: String,
    worker: String,
    runner: String,
    helper: String,
}

async fn shared() -> Shared {
    let kit = Kit::new().await;
    let [ann, bob] = kit.members(["Ann", "Bob"]).await;
    let worker = kit
        .as_member(&ann)
        .bot_from(json!({"name": "Worker", "instructions": BRIEF}))
        .await
        .id;
    let external = json!({"driver": "subprocess", "command": [COMMAND], "env": {"TOKEN": ENV}});
    let runner = kit
        .as_member(&ann)
        .bot_from(json!({"name": "Runner", "external": external}))
        .await
        .id;
    let helper = kit
        .as_member(&bob)
        .bot_from(json!({"name": "Helper", "instructions": "bob-brief-91c3"}))
        .await
        .id;
    kit.as_member(&bob)
        .ok(
            "set-grants",
            json!({"botId": helper, "grants": [{"grantee": ann.member_id}]}),
        )
        .await;
    let room = kit
        .as_member(&ann)
        .room_from(json!({"name": "Shared", "members": [worker, runner, helper], "admin": worker}))
        .await
        .id;
    Shared {
        kit,
        ann,
        bob,
        room,
        worker,
        runner,
        helper,
    }
}

fn bot<'v>(view: &'v Value, id: &str) -> &'v Value {
    view["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == id)
        .unwrap_or_else(|| panic!("{id} is not in the view"))
}

fn keys(record: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = record.as_object().unwrap().keys().map(|k| &**k).collect();
    keys.sort_unstable();
    keys
}

fn ids(rows: &Value) -> Vec<&str> {
    let mut ids: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    ids
}

#[tokio::test]
/// Rule #53.
async fn another_owners_bot_shows_its_public_face_and_never_its_instructions_or_command() {
    let s = shared().await;
    let (kit, ann, bob) = (&s.kit, &s.ann, &s.bob);
    let (_, view) = kit.as_member(bob).state().await;
    // Bob sees Ann's Bots in the room they share, by name, owner and model ...
    for id in [&s.worker, &s.runner] {
        let seen = bot(&view, id);
        assert_eq!(
            keys(seen),
            [
                "createdAt",
                "hidden",
                "id",
                "model",
                "name",
                "ownerId",
                "updatedAt"
            ]
        );
        assert_eq!(seen["ownerId"], ann.member_id.as_str());
    }
    assert_eq!(bot(&view, &s.worker)["name"], "Worker");
    // ... but nothing that is Ann's own: not her brief, not the command
    // line or environment, not the Session of her chat with the Worker.
    let text = view.to_string();
    let ann_chat = kit
        .host
        .store()
        .read(|st| st.bots[&s.worker].session_id.clone());
    for secret in [BRIEF, COMMAND, ENV, ann_chat.as_str()] {
        assert!(!text.contains(secret), "{secret} leaked: {text}");
    }
    // His own Bot is whole, and Ann sees hers whole and his narrowed.
    assert_eq!(bot(&view, &s.helper)["instructions"], "bob-brief-91c3");
    let (_, anns) = kit.as_member(ann).state().await;
    assert_eq!(bot(&anns, &s.worker)["instructions"], BRIEF);
    assert_eq!(
        bot(&anns, &s.runner)["external"]["command"],
        json!([COMMAND])
    );
    assert!(bot(&anns, &s.helper).get("instructions").is_none());
    // Bob shared his Helper with Ann (unscoped): its chat is open to her,
    // its instructions are not; she sees the grant to her.
    assert!(bot(&anns, &s.helper)["sessionId"].is_string());
    assert_eq!(
        anns["grants"][&s.helper],
        json!([{"grantee": ann.member_id}])
    );
    assert!(!anns.to_string().contains("bob-brief-91c3"));
}

#[tokio::test]
/// Rule #53.
async fn another_owners_bot_has_no_chat_for_a_member_who_sees_it_in_a_room() {
    let s = shared().await;
    let (kit, ann, bob) = (&s.kit, &s.ann, &s.bob);
    kit.as_member(ann)
        .ok(
            "send",
            json!({"botId": s.worker, "text": "ann's private line"}),
        )
        .await;
    let session = kit
        .host
        .store()
        .read(|st| st.bots[&s.worker].session_id.clone());
    kit.idle(&session).await;
    let bob = kit.as_member(bob);
    for (endpoint, body) in [
        ("messages", json!({"botId": s.worker})),
        ("messages", json!({"sessionId": session})),
        ("send", json!({"botId": s.worker, "text": "let me in"})),
        ("cancel", json!({"botId": s.worker})),
    ] {
        bob.refused(endpoint, body, "bot/not-found").await;
    }
    // Ann's own chat is hers, with her line in it.
    let mine = kit
        .as_member(ann)
        .ok("messages", json!({"botId": s.worker}))
        .await;
    assert!(mine.to_string().contains("ann's private line"));
}

/// Makes a Project as `member`; answers its id.
async fn project(kit: &Kit, member: &Member, name: &str) -> String {
    let made = kit
        .as_member(member)
        .ok("project-create", json!({"name": name}))
        .await;
    made["project"]["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
/// Rule #1723.
async fn another_members_projects_show_only_where_they_bind_what_the_member_sees() {
    let s = shared().await;
    let (kit, ann, bob) = (&s.kit, &s.ann, &s.bob);
    // Ann's private Project binds her private room; her team Project binds
    // the room she shares with Bob; Bob has his own.
    let private = project(kit, ann, "Ann private plans").await;
    let team = project(kit, ann, "Team site").await;
    let mine = project(kit, bob, "Bob's").await;
    let solo = kit.as_member(ann).bot("Solo").await;
    let ann_room = kit.as_member(ann).room("Ann only", &[&solo]).await.id;
    for (room, project) in [(&ann_room, &private), (&s.room, &team)] {
        kit.as_member(ann)
            .ok("project-bind", json!({"roomId": room, "project": project}))
            .await;
    }
    let bob = kit.as_member(bob);
    let mut expected = vec![team.as_str(), mine.as_str()];
    expected.sort_unstable();
    let (_, view) = bob.state().await;
    assert_eq!(ids(&view["projects"]), expected);
    assert!(!view.to_string().contains("Ann private plans"));
    let listed = bob.ok("projects", json!({})).await;
    assert_eq!(ids(&listed["projects"]), expected);
    // The team Project reads, read-only; the private one is unknown to Bob
    // on every surface, and no refusal names it.
    let read = bob.ok("project-read", json!({"project": team})).await;
    assert_eq!(read["canManage"], false);
    let bob_solo = bob.bot("Bob solo").await;
    let bob_room = bob.room("Bob only", &[&bob_solo]).await;
    for (endpoint, body) in [
        ("project-read", json!({"project": private})),
        ("project-board", json!({"project": private})),
        ("project-of", json!({"roomId": ann_room})),
        ("project-delete", json!({"project": private})),
        (
            "project-bind",
            json!({"roomId": bob_room.id, "project": private}),
        ),
    ] {
        let refused = bob.refused(endpoint, body, "bot/not-found").await;
        assert!(
            !refused.to_string().contains("Ann private plans"),
            "{refused}"
        );
    }
    let of = bob.ok("project-of", json!({"roomId": s.room})).await;
    assert_eq!(of["project"]["id"], team.as_str());
    // Ann sees her two; Bob's binds nothing of hers.
    let (_, anns) = kit.as_member(ann).state().await;
    assert_eq!(ids(&anns["projects"]).len(), 2);
}

#[tokio::test]
/// Rule #540.
async fn a_room_shows_each_member_only_its_own_standing_approvals() {
    let s = shared().await;
    let (kit, ann, bob) = (&s.kit, &s.ann, &s.bob);
    // Bob answered an ask from the room "always-room": a standing approval
    // for his own Bots there, which is his, not the room owner's to read.
    let grant = json!({"kind": "run_command", "label": "Run `deploy-bob`", "at": 1,
                       "ownerId": bob.member_id});
    kit.host
        .team()
        .mutate("test", |change| {
            let mut room = change.state().rooms[&s.room].clone();
            room.extra
                .insert("standingApprovals".into(), json!([grant]));
            change.put_room(&room);
            Ok(())
        })
        .await
        .unwrap();
    let room_of = |view: &Value| {
        view["rooms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == s.room.as_str())
            .cloned()
            .unwrap()
    };
    let (_, bobs) = kit.as_member(bob).state().await;
    assert_eq!(room_of(&bobs)["standingApprovals"], json!([grant]));
    let (_, anns) = kit.as_member(ann).state().await;
    assert!(room_of(&anns).get("standingApprovals").is_none());
    assert!(!anns.to_string().contains("deploy-bob"));
}

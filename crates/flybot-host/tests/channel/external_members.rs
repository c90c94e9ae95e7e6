//! External room members through the channel (#198, #216): a Bot whose
//! record carries `external: {driver: "subprocess", command}` speaks in the
//! room through a supervised process. Peers are plain programs (`cat`
//! echoes the turn line back, which carries `text`; `ls` of a missing path
//! crashes with a stderr line; `sleep` never answers).

use flybot_interop::subprocess::SeatKey;
use flybot_testkit::{Kit, Room};
use serde_json::{Value, json};

async fn external_bot(kit: &Kit, name: &str, command: Value) -> String {
    let made = kit
        .ok(
            "create-bot",
            json!({"name": name, "external": {"driver": "subprocess", "command": command}}),
        )
        .await;
    assert_eq!(made["bot"]["external"]["driver"], "subprocess");
    made["bot"]["id"].as_str().unwrap().to_owned()
}

async fn room_with(kit: &Kit, members: &[&str]) -> Room {
    kit.room_from(json!({"name": "Pilot", "members": members, "admin": members[0]}))
        .await
}

/// Awaits the end of the room's rounds; answers its lines.
async fn settled(kit: &Kit, room: &Room) -> Vec<Value> {
    kit.round_ended(room).await;
    let answer = kit.ok("messages", json!({"roomId": room.id})).await;
    answer["messages"].as_array().unwrap().clone()
}

/// Awaits `bot` speaking in the room.
async fn speaking(kit: &Kit, room: &Room, bot: &str) {
    let speaks = || {
        kit.host.rooms().run(&room.id, |r| {
            r.speaking.as_ref().is_some_and(|(b, _)| b == bot)
        })
    };
    kit.until(&format!("{bot} speaks"), speaks).await;
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rsplit(')').next().map(|rest| rest.trim().to_owned()))
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

#[tokio::test]
async fn capability_failure_an_external_record_is_refused_naming_the_field() {
    let kit = Kit::new().await;
    let cases = [
        (
            json!({"driver": "subprocess", "command": "agent --stdio"}),
            "external.command",
        ),
        (
            json!({"driver": "docker", "command": ["agent"]}),
            "external.driver",
        ),
        (
            json!({"driver": "subprocess", "command": ["/bin/bash", "-c", "x"]}),
            "external.command[0]",
        ),
        (
            json!({"driver": "subprocess", "command": ["env", "agent"]}),
            "external.command[0]",
        ),
        (
            json!({"driver": "subprocess", "command": ["python3", "peer.py"]}),
            "external.command[0]",
        ),
        (
            json!({"driver": "subprocess", "command": ["node", "peer.js"]}),
            "external.command[0]",
        ),
    ];
    for (external, field) in cases {
        let refused = kit
            .refused(
                "create-bot",
                json!({"name": "Peer", "external": external}),
                "bot/invalid",
            )
            .await;
        assert_eq!(refused["error"]["details"]["field"], field, "{refused}");
    }
    let bot = kit.bot("Ada").await.id;
    let refused = kit
        .refused(
            "update-bot",
            json!({"id": bot, "external": {"driver": "subprocess", "command": ["zsh"]}}),
            "bot/invalid",
        )
        .await;
    assert_eq!(refused["error"]["details"]["field"], "external.command[0]");
}

#[tokio::test]
async fn complete_collaboration_an_external_member_answers_in_the_room_in_its_own_voice() {
    let kit = Kit::new().await;
    let ada = kit.bot("Ada").await.id;
    let peer = external_bot(&kit, "Coder", json!(["cat"])).await;
    let room = room_with(&kit, &[&peer, &ada]).await;
    kit.ok(
        "send",
        json!({"roomId": room.id, "text": "@Coder please fix the parser"}),
    )
    .await;
    let lines = settled(&kit, &room).await;
    let reply = lines
        .iter()
        .find(|l| l["authorId"] == json!(peer))
        .unwrap_or_else(|| panic!("{lines:?}"));
    assert_eq!(reply["kind"], "chat");
    assert!(
        reply["text"]
            .as_str()
            .unwrap()
            .contains("please fix the parser")
    );
    // Private data and injection: the process's words are stored fenced
    // by origin, so no internal Bot reads them as this home's own.
    assert!(
        flybot_core::fences::is_complete_fence(reply["text"].as_str().unwrap()),
        "{reply}"
    );
    let key = SeatKey {
        room_id: room.id.clone(),
        bot_id: peer.clone(),
    };
    let pid = kit.host.externals().supervisor().pid(&key).unwrap();
    // Deleting the Bot ends its process.
    kit.ok("delete-bot", json!({"id": peer})).await;
    // No host event says a process ended: the kit's backstop tick looks.
    kit.until("a deleted Bot's process ends", || !alive(pid))
        .await;
}

#[tokio::test]
async fn delivery_and_crash_a_crash_is_the_members_own_line_with_its_stderr() {
    let kit = Kit::new().await;
    let peer = external_bot(
        &kit,
        "Coder",
        json!(["ls", "/nonexistent-flybot-peer-folder"]),
    )
    .await;
    let room = room_with(&kit, &[&peer]).await;
    kit.ok("send", json!({"roomId": room.id, "text": "hello"}))
        .await;
    let lines = settled(&kit, &room).await;
    let crash = lines
        .iter()
        .find(|l| l["authorId"] == json!(peer))
        .unwrap_or_else(|| panic!("never silence: {lines:?}"));
    let text = crash["text"].as_str().unwrap();
    assert_eq!(crash["kind"], "event");
    assert!(text.contains("nonexistent-flybot-peer-folder"), "{text}");
    assert!(!text.contains('\n'));
}

#[tokio::test]
async fn stop_and_late_result_a_person_stop_ends_the_turn_with_nothing_to_answer() {
    let kit = Kit::new().await;
    let peer = external_bot(&kit, "Coder", json!(["sleep", "300"])).await;
    let room = room_with(&kit, &[&peer]).await;
    kit.ok("send", json!({"roomId": room.id, "text": "hello"}))
        .await;
    speaking(&kit, &room, &peer).await;
    let key = SeatKey {
        room_id: room.id.clone(),
        bot_id: peer.clone(),
    };
    let stop = kit
        .ok("send", json!({"roomId": room.id, "text": "stop"}))
        .await;
    assert_eq!(stop["queued"], "stop");
    // The stop line opens a next round with a fresh process; removing the
    // member ends that one.
    speaking(&kit, &room, &peer).await;
    let ada = kit.bot("Ada").await.id;
    kit.ok("update-room", json!({"id": room.id, "members": [ada]}))
        .await;
    let lines = settled(&kit, &room).await;
    assert!(
        lines.iter().all(|l| l["authorId"] != json!(peer)),
        "a stopped turn is not a failure: {lines:?}"
    );
    assert!(kit.host.externals().supervisor().pid(&key).is_none());
    assert!(kit.host.externals().supervisor().seats().is_empty());
}

//! External room members through the channel (#198, #216): a Bot whose
//! record carries `external: {driver: "subprocess", command}` speaks in the
//! room through a supervised process. Peers are plain programs (`cat`
//! echoes the turn line back, which carries `text`; `ls` of a missing path
//! crashes with a stderr line; `sleep` never answers).

use crate::support::TestHost;
use flybot_interop::subprocess::SeatKey;
use serde_json::{Value, json};
use std::time::Duration;

async fn external_bot(t: &TestHost, name: &str, command: Value) -> String {
    let made = t
        .ok(
            None,
            "create-bot",
            json!({"name": name, "external": {"driver": "subprocess", "command": command}}),
        )
        .await;
    assert_eq!(made["bot"]["external"]["driver"], "subprocess");
    made["bot"]["id"].as_str().unwrap().to_owned()
}

async fn room_with(t: &TestHost, members: &[&str]) -> String {
    let room = t
        .ok(
            None,
            "create-room",
            json!({"name": "Pilot", "members": members, "admin": members[0]}),
        )
        .await;
    room["room"]["id"].as_str().unwrap().to_owned()
}

async fn settled(t: &TestHost, room: &str) -> Vec<Value> {
    for _ in 0..200 {
        let answer = t.ok(None, "messages", json!({"roomId": room})).await;
        if answer["running"] == json!(false) {
            return answer["messages"].as_array().unwrap().clone();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the room never settled");
}

async fn speaking(t: &TestHost, room: &str, bot: &str) {
    for _ in 0..200 {
        let answer = t.ok(None, "messages", json!({"roomId": room})).await;
        if answer["speaking"] == json!(bot) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{bot} never spoke");
}

fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rsplit(')').next().map(|rest| rest.trim().to_owned()))
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

async fn gone(pid: u32) -> bool {
    for _ in 0..100 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test]
async fn capability_failure_an_external_record_is_refused_naming_the_field() {
    let t = TestHost::new();
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
        let refused = t
            .refused(
                None,
                "create-bot",
                json!({"name": "Peer", "external": external}),
                "bot/invalid",
            )
            .await;
        assert_eq!(refused["error"]["details"]["field"], field, "{refused}");
    }
    let bot = t.create_bot(None, "Ada").await;
    let refused = t
        .refused(
            None,
            "update-bot",
            json!({"id": bot, "external": {"driver": "subprocess", "command": ["zsh"]}}),
            "bot/invalid",
        )
        .await;
    assert_eq!(refused["error"]["details"]["field"], "external.command[0]");
}

#[tokio::test]
async fn complete_collaboration_an_external_member_answers_in_the_room_in_its_own_voice() {
    let t = TestHost::new();
    let ada = t.create_bot(None, "Ada").await;
    let peer = external_bot(&t, "Coder", json!(["cat"])).await;
    let room = room_with(&t, &[&peer, &ada]).await;
    t.ok(
        None,
        "send",
        json!({"roomId": room, "text": "@Coder please fix the parser"}),
    )
    .await;
    let lines = settled(&t, &room).await;
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
        room_id: room.clone(),
        bot_id: peer.clone(),
    };
    let pid = t.host.externals().supervisor().pid(&key).unwrap();
    // Deleting the Bot ends its process.
    t.ok(None, "delete-bot", json!({"id": peer})).await;
    assert!(gone(pid).await, "a deleted Bot's process ends");
}

#[tokio::test]
async fn delivery_and_crash_a_crash_is_the_members_own_line_with_its_stderr() {
    let t = TestHost::new();
    let peer = external_bot(
        &t,
        "Coder",
        json!(["ls", "/nonexistent-flybot-peer-folder"]),
    )
    .await;
    let room = room_with(&t, &[&peer]).await;
    t.ok(None, "send", json!({"roomId": room, "text": "hello"}))
        .await;
    let lines = settled(&t, &room).await;
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
    let t = TestHost::new();
    let peer = external_bot(&t, "Coder", json!(["sleep", "300"])).await;
    let room = room_with(&t, &[&peer]).await;
    t.ok(None, "send", json!({"roomId": room, "text": "hello"}))
        .await;
    speaking(&t, &room, &peer).await;
    let key = SeatKey {
        room_id: room.clone(),
        bot_id: peer.clone(),
    };
    let stop = t
        .ok(None, "send", json!({"roomId": room, "text": "stop"}))
        .await;
    assert_eq!(stop["queued"], "stop");
    // The stop line opens a next round with a fresh process; removing the
    // member ends that one.
    speaking(&t, &room, &peer).await;
    let ada = t.create_bot(None, "Ada").await;
    t.ok(None, "update-room", json!({"id": room, "members": [ada]}))
        .await;
    let lines = settled(&t, &room).await;
    assert!(
        lines.iter().all(|l| l["authorId"] != json!(peer)),
        "a stopped turn is not a failure: {lines:?}"
    );
    assert!(t.host.externals().supervisor().pid(&key).is_none());
    assert!(t.host.externals().supervisor().seats().is_empty());
}

//! `room-stop` (issue 12, the page's Stop round): the member speaking is
//! cancelled (#1267), the members still to speak never speak, and no next
//! round opens behind the person's back (#1679); a room with no round
//! answers `wasRunning: false`; a room the caller cannot see is not found.

use crate::approvals::scripted_kit;
use flybot_testkit::Kit;
use serde_json::json;

#[tokio::test(start_paused = true)]
async fn stop_round_cancels_the_speaker_and_skips_the_members_still_to_speak() {
    let kit = scripted_kit().await;
    let [ada, bo, cy] = kit.bots(["Ada", "Bo", "Cy"]).await;
    let room = kit.room("Build", &[&ada, &bo, &cy]).await;
    let mut live = kit.anyone().live(None).await;
    kit.ok("send", json!({"roomId": room.id, "text": "@all run it"}))
        .await;
    // Ada speaks first and waits on the owner's approval of run_command.
    live.until("approval.asked", |_| true).await;
    let stopped = kit.ok("room-stop", json!({"roomId": room.id})).await;
    assert_eq!(stopped["wasRunning"], true);
    kit.round_ended(&room).await;
    assert!(kit.said(&room, &bo).is_empty(), "Bo spoke after the stop");
    assert!(kit.said(&room, &cy).is_empty(), "Cy spoke after the stop");
    let authors: Vec<String> = kit
        .room_lines(&room)
        .iter()
        .map(|line| line.text.clone())
        .collect();
    assert_eq!(authors.first().map(String::as_str), Some("@all run it"));
    assert!(
        !authors.iter().any(|text| text.contains("stop")),
        "room-stop posts no line: {authors:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn stop_round_with_no_round_running_changes_nothing() {
    let kit = Kit::new().await;
    let [ada] = kit.bots(["Ada"]).await;
    let room = kit.room("Quiet", &[&ada]).await;
    let stopped = kit.ok("room-stop", json!({"roomId": room.id})).await;
    assert_eq!(stopped["wasRunning"], false);
    assert!(kit.room_lines(&room).is_empty());
}

#[tokio::test(start_paused = true)]
/// Rule #49.
async fn stop_round_in_a_room_the_member_cannot_see_is_not_found() {
    let kit = Kit::new().await;
    let owner = kit.owner("Olga").await;
    let bob = kit.as_member(&owner).invite("Bob").await;
    let ada = kit.as_member(&owner).bot("Ada").await;
    let room = kit.as_member(&owner).room("Olga's", &[&ada]).await;
    kit.as_member(&bob)
        .refused("room-stop", json!({"roomId": room.id}), "bot/not-found")
        .await;
}

//! The host-wide surfaces of Settings: notification preferences (#469),
//! the About block's build facts (#374) and the diagnostics log the owner
//! downloads from it (#68).

use flybot_testkit::Kit;
use serde_json::json;

#[tokio::test]
async fn notification_prefs_keep_only_what_is_off_469() {
    let kit = Kit::new().await;
    let set = |prefs| kit.ok("set-prefs", json!({ "prefs": prefs }));
    let answer = set(json!({"notifications": false, "notify": {"failed": false}})).await;
    assert_eq!(answer["prefs"]["notifications"], false);
    assert_eq!(answer["prefs"]["notify"], json!({"failed": false}));
    // notify merges: a false joins, a true clears its key only.
    let answer = set(json!({"notify": {"approval": false, "failed": true}})).await;
    assert_eq!(answer["prefs"]["notify"], json!({"approval": false}));
    // true clears the switch (on is the default); the last true empties notify.
    let answer = set(json!({"notifications": true, "notify": {"approval": true}})).await;
    assert!(answer["prefs"].get("notifications").is_none(), "{answer}");
    assert!(answer["prefs"].get("notify").is_none(), "{answer}");
    // A value the key cannot take is refused and changes nothing.
    set(json!({"notify": {"failed": false}})).await;
    for bad in [
        json!({"notify": {"sound": false}}),
        json!({"notifications": "off"}),
    ] {
        kit.anyone()
            .refused("set-prefs", json!({ "prefs": bad }), "bot/invalid")
            .await;
    }
    let (_, state) = kit.anyone().state().await;
    assert_eq!(state["prefs"]["notify"], json!({"failed": false}));
}

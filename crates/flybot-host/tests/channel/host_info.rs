//! The host-wide surfaces of Settings: notification preferences (#469),
//! the About block's build facts (#374) and the diagnostics log the owner
//! downloads from it (#68).

use flybot_testkit::Kit;
use serde_json::json;

#[tokio::test]
/// Rule #469.
async fn notification_prefs_keep_only_what_is_off() {
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

const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

#[tokio::test]
/// Rule #374.
async fn about_shows_the_stamped_build_and_the_links_and_no_build_without_git() {
    let kit = Kit::with_config(|c| {
        c.build = flybot_host::BuildInfo {
            branch: Some("main".into()),
            commit: Some(SHA.into()),
            pinned: false,
        }
    })
    .await;
    let about = kit.ok("diagnostics", json!({})).await["diagnostics"].clone();
    assert_eq!(
        about["build"],
        json!({"branch": "main", "commit": "0123456"})
    );
    assert_eq!(
        about["links"]["repository"],
        "https://github.com/ThinkFlowLab/FlyBot"
    );
    assert_eq!(
        about["links"]["issues"],
        "https://github.com/ThinkFlowLab/FlyBot/issues/new"
    );
    assert_eq!(about["behind"], json!(null));
    // A binary built without git (a source tarball) shows no build.
    let plain = Kit::new().await;
    let about = plain.ok("diagnostics", json!({})).await["diagnostics"].clone();
    assert_eq!(about["build"], json!(null));
}

/// #374: with the owner's update check on (here a loopback fake of the
/// repository API), `behind` is the compare answer's `ahead_by` when the
/// branch is ahead or identical, and null (unknown) when it diverged or
/// the check failed; with the check off nothing is asked.
#[tokio::test]
/// Rule #374.
async fn behind_is_the_branchs_lead_only_when_the_owners_check_answers_plainly() {
    use flybot_testkit::api_fake::{Answer, ApiFake};
    let path = format!("/repos/ThinkFlowLab/FlyBot/compare/{SHA}...main");
    let fake = ApiFake::routed(vec![(
        path.as_str(),
        vec![
            Answer::json(
                200,
                json!({"status": "ahead", "ahead_by": 3, "behind_by": 0}),
            ),
            Answer::json(
                200,
                json!({"status": "identical", "ahead_by": 0, "behind_by": 0}),
            ),
            Answer::json(
                200,
                json!({"status": "diverged", "ahead_by": 2, "behind_by": 1}),
            ),
            Answer::json(500, json!({"message": "down"})),
        ],
    )]);
    let api = format!("{}/repos/ThinkFlowLab/FlyBot", fake.base_url);
    let kit = Kit::with_config(|c| {
        c.build = flybot_host::BuildInfo {
            branch: Some("main".into()),
            commit: Some(SHA.into()),
            pinned: false,
        };
        c.update_check = Some(api);
    })
    .await;
    let mut seen = Vec::new();
    for _ in 0..4 {
        let about = kit.ok("diagnostics", json!({})).await["diagnostics"].clone();
        seen.push(about["behind"].clone());
    }
    assert_eq!(seen, [json!(3), json!(0), json!(null), json!(null)]);
    assert!(
        fake.seen()
            .iter()
            .all(|s| s.path == path && s.authorization.is_none())
    );
    assert_eq!(fake.seen().len(), 4);
    // A pinned build compares nothing: no request, unknown.
    let pinned = Kit::with_config(|c| {
        c.build = flybot_host::BuildInfo {
            branch: None,
            commit: Some(SHA.into()),
            pinned: true,
        };
        c.update_check = Some(format!("{}/repos/ThinkFlowLab/FlyBot", fake.base_url));
    })
    .await;
    let about = pinned.ok("diagnostics", json!({})).await["diagnostics"].clone();
    assert_eq!(about["behind"], json!(null));
    assert_eq!(fake.seen().len(), 4);
}

#[tokio::test]
/// Rule #68.
async fn the_owner_downloads_the_rotated_diagnostics_log_oldest_first_and_no_one_else() {
    use flybot_store::diagnostics_log::{DIAGNOSTICS_LOG, DIAGNOSTICS_LOG_ROTATED};
    let kit = Kit::new().await;
    let empty = kit.ok("diagnostics-log", json!({})).await;
    assert_eq!(empty["text"], "");
    std::fs::write(kit.home().join(DIAGNOSTICS_LOG_ROTATED), "older warning\n").unwrap();
    std::fs::write(kit.home().join(DIAGNOSTICS_LOG), "newer warning\n").unwrap();
    let log = kit.ok("diagnostics-log", json!({})).await;
    assert_eq!(log["name"], "diagnostics.log");
    assert_eq!(log["text"], "older warning\nnewer warning\n");
    assert_eq!(log["bytes"], 28);
    // Attack: once a second member exists, the log is the whole host's:
    // neither member reads it, and no one unsigned does.
    let ada = kit.owner("Ada").await;
    let bob = kit.as_member(&ada).invite("Bob").await;
    for member in [&ada, &bob] {
        kit.as_member(member)
            .refused("diagnostics-log", json!({}), "bot/blocked-shared")
            .await;
    }
    kit.anonymous()
        .refused("diagnostics-log", json!({}), "bot/unauthorized")
        .await;
}

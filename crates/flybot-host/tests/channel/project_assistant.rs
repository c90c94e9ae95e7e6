//! The Project Assistant through the channel (#1712, Stage 2.5): Project
//! memory is its owner's to write and goes with the Project; the daily
//! digest is one stored note a day in Asia/Shanghai on the host's injected
//! clock, written as the GitHub connector's account, and refused with
//! nothing written while no connector is signed in.

use flybot_testkit::Kit;
use flybot_testkit::ManualClock;
use serde_json::json;
use std::time::Duration;

#[tokio::test]
/// Rule #1712.
async fn project_memory_is_the_owners_to_write_and_goes_with_the_project() {
    let kit = Kit::new().await;
    let ada = kit.owner("Ada").await;
    let bob = kit.as_member(&ada).invite("Bob").await;
    let as_ada = kit.as_member(&ada);
    let project = as_ada.ok("project-create", json!({"name": "Site"})).await["project"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = json!({"project": project, "kind": "decision", "text": "Ship on Fridays"});
    let written = as_ada.ok("project-memory-write", body.clone()).await;
    assert_eq!(written["memory"]["decisions"][0]["text"], "Ship on Fridays");
    assert_eq!(
        written["memory"]["decisions"][0]["by"],
        ada.member_id.as_str()
    );
    let read = as_ada
        .ok("project-memory", json!({"project": project}))
        .await;
    assert_eq!(read["memory"], written["memory"]);
    // Attack: Bob neither reads, writes nor runs the digest of Ada's
    // Project; a blank entry is refused; nothing changes.
    let as_bob = kit.as_member(&bob);
    for (endpoint, body) in [
        ("project-memory", json!({"project": project})),
        ("project-memory-write", body),
        ("project-digest", json!({"project": project})),
    ] {
        as_bob.refused(endpoint, body, "bot/not-found").await;
    }
    let blank = json!({"project": project, "kind": "question", "text": " "});
    as_ada
        .refused("project-memory-write", blank, "bot/invalid")
        .await;
    as_ada
        .ok("project-delete", json!({"project": project}))
        .await;
    let kept = kit.host.store().read(|s| s.project_memory.len());
    assert_eq!(kept, 0, "the Project's memory went with it");
}

#[tokio::test]
/// Rule #1712.
async fn the_digest_is_one_note_a_day_posted_for_the_connector_account_and_refused_without_one() {
    // The store stamps cards on the system clock: the digest's clock starts
    // a day after it, so "since the last digest" reads those stamps as old.
    let clock = ManualClock::at(flybot_store::system_now_ms() + 24 * 60 * 60 * 1000);
    let day = |ms: u64| flybot_core::tasks::project_digest::digest_day(ms);
    let kit = Kit::with_config(|c| c.schedule_clock = clock.schedule_clock()).await;
    let project = kit.ok("project-create", json!({"name": "Site"})).await["project"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let digest = json!({"project": project});
    // No connector signed in: refused and escalated, nothing written.
    let refused = kit
        .anyone()
        .refused("project-digest", digest.clone(), "bot/forbidden")
        .await;
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("GitHub connector"),
        "{refused}"
    );
    let Some(server) = crate::connectors::everything() else {
        return;
    };
    kit.ok(
        "secret-set",
        json!({"name": "GITHUB_TOKEN", "value": "ghp_test"}),
    )
    .await;
    let row = kit
        .ok(
            "connector-connect",
            json!({"id": "github", "command": ["node", server, "stdio"],
                   "env": {"GITHUB_LOGIN": "ada-gh"}}),
        )
        .await;
    assert_eq!(row["connector"]["status"], "ready", "{row}");
    let bot = kit.bot("Dev").await;
    kit.ok("project-bind", json!({"botId": bot.id, "project": project}))
        .await;
    kit.card(&bot.id, "Write the parser").await;
    let first = kit.ok("project-digest", digest.clone()).await;
    assert_eq!(first["skipped"], false);
    let note = &first["digest"];
    assert_eq!(note["day"], day(clock.now()).as_str());
    let text = note["text"].as_str().unwrap();
    let head = format!("Digest of Site for {}\n", day(clock.now()));
    assert!(text.starts_with(&head), "{text}");
    assert!(
        text.contains("Next slice:\n- Write the parser — Dev"),
        "{text}"
    );
    assert!(
        text.ends_with("Written-by: Project Assistant (Site)\nPosted-for: ada-gh"),
        "{text}"
    );
    // The same Shanghai day: skipped, the one note kept.
    let later = (day(clock.now()) == day(clock.now() + 60_000)).then_some(60);
    clock.advance(Duration::from_secs(later.unwrap_or(0)));
    let again = kit.ok("project-digest", digest.clone()).await;
    assert_eq!(again["skipped"], true);
    assert_eq!(again["digest"], first["digest"]);
    // The next day, nothing moved: one line.
    clock.advance(Duration::from_secs(24 * 60 * 60));
    let next = kit.ok("project-digest", digest.clone()).await;
    let text = next["digest"]["text"].as_str().unwrap();
    let quiet = format!(
        "No change on Site since the last digest ({}).",
        day(clock.now())
    );
    assert!(text.starts_with(&quiet), "{text}");
    let memory = kit.ok("project-memory", digest).await;
    assert_eq!(memory["memory"]["digest"], next["digest"]);
}

//! The cross-member attack matrix of issue 29: for every endpoint of the
//! route table, Bob (a second member) calls with the ids of Ada (the owner)
//! and is refused with nothing changed, or answers a read that shows none
//! of Ada's records, or acts only on his own things; an endpoint with no
//! row fails the matrix, and so does a row naming no endpoint.

mod rows_people;
mod rows_work;
mod setup;
mod shared_room;

use flybot_testkit::{Kit, Member};
use serde_json::{Value, json};
use setup::Ada;
use std::collections::BTreeSet;

/// What Bob's call with Ada's ids must come to.
pub enum Row {
    /// Refused with this code, the home unchanged. The body is valid
    /// enough to reach the ownership check (never `bot/invalid`).
    Refused(Value, &'static str),
    /// A read that answers, showing none of Ada's private ids or texts.
    Answers(Value),
    /// Acts by its nature only on the caller's own things (the reason):
    /// whatever it answers, Ada's records stay as they were.
    OwnOnly(&'static str, Value),
}

impl Row {
    /// The body Bob sends.
    fn body(&self) -> &Value {
        match self {
            Row::Refused(body, _) | Row::Answers(body) | Row::OwnOnly(_, body) => body,
        }
    }
}

/// Every row, people's and work's.
fn table(ada: &Ada, bobs: &str) -> Vec<(&'static str, Row)> {
    let mut rows = rows_people::rows(ada);
    rows.extend(rows_work::rows(ada, bobs));
    rows
}

#[tokio::test]
async fn the_matrix_has_one_row_per_endpoint_and_no_other_29() {
    let (_kit, ada, _bob, bobs) = setup::ada_and_bob().await;
    let rows = table(&ada, &bobs);
    let named: Vec<&str> = rows.iter().map(|(name, _)| *name).collect();
    let unique: BTreeSet<&str> = named.iter().copied().collect();
    assert_eq!(unique.len(), named.len(), "a row is listed twice");
    let endpoints: BTreeSet<&str> = flybot_host::endpoint_names().into_iter().collect();
    let missing: Vec<_> = endpoints.difference(&unique).collect();
    assert!(missing.is_empty(), "endpoints without a row: {missing:?}");
    let unknown: Vec<_> = unique.difference(&endpoints).collect();
    assert!(unknown.is_empty(), "rows naming no endpoint: {unknown:?}");
}

#[tokio::test]
async fn a_second_member_reaches_nothing_of_the_first_through_any_endpoint_29() {
    let (kit, ada, bob, bobs) = setup::ada_and_bob().await;
    let mut failures = Vec::new();
    for (name, row) in table(&ada, &bobs) {
        if let Err(failure) = check(&kit, &ada, &bob, name, &row).await {
            failures.push(failure);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of the matrix's rows fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Endpoints whose body picks one of two handlers (`send` and `messages`
/// name a room or a Bot's chat; `messages` and `cancel` a Bot or a
/// Session): the table's row tries one form, these the others.
#[tokio::test]
async fn the_other_forms_of_the_two_handler_endpoints_reach_nothing_29() {
    let (kit, ada, bob, _) = setup::ada_and_bob().await;
    let not_found = |body: Value| Row::Refused(body, "bot/not-found");
    let forms = [
        ("send", not_found(json!({"roomId": ada.room, "text": "hi"}))),
        ("messages", not_found(json!({"roomId": ada.room}))),
        ("messages", not_found(json!({"sessionId": ada.seat}))),
        ("cancel", not_found(json!({"botId": ada.bot}))),
    ];
    let mut failures = Vec::new();
    for (name, row) in forms {
        if let Err(failure) = check(&kit, &ada, &bob, name, &row).await {
            failures.push(failure);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The control: Ada sends every body of the matrix (the removals last, so
/// each body still names a live record), and none is refused as invalid,
/// unknown or by the check that stops Bob, so Bob's refusals are the
/// owner checks' and not the body's.
#[tokio::test]
async fn every_body_of_the_matrix_reaches_the_records_owner_29() {
    let (kit, ada, _bob, bobs) = setup::ada_and_bob().await;
    let mut rows = table(&ada, &bobs);
    rows.sort_by_key(|(name, _)| REMOVALS.iter().position(|r| r == name));
    let mut wrong = Vec::new();
    for (name, row) in rows {
        // `answer-question` took the dock's card: dock one to dismiss.
        if name == "dismiss-question" {
            setup::dock_question(&kit, &ada.room, &ada.bot, &ada.lead).await;
        }
        let (status, answer) = kit.as_member(&ada.me).post(name, row.body().clone()).await;
        let code = answer["error"]["code"].as_str().unwrap_or("none");
        let mut owners_too = vec!["bot/invalid", "bot/not-found", "bot/unauthorized"];
        let mut shared = false;
        if let Row::Refused(_, want) = row {
            owners_too.push(want);
            shared = want == "bot/blocked-shared" && code == want;
        }
        let excused = OWNER_REFUSED.iter().any(|(row, _)| *row == name);
        if status >= 500 || (owners_too.contains(&code) && !shared && !excused) {
            let why = answer["error"]["message"].as_str().unwrap_or("");
            wrong.push(format!("{name}: {status} {code} {why}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "bodies that do not work for Ada herself:\n{}",
        wrong.join("\n")
    );
}

/// The rows that remove a record, in the order the control sends them,
/// after every other row.
const REMOVALS: [&str; 10] = [
    "model-provider-remove",
    "memory-delete",
    "schedule-delete",
    "project-delete",
    "auth-revoke-invite",
    "auth-revoke",
    "delete-room",
    "retire-bot",
    "delete-bot",
    "auth-remove-member",
];

/// Rows whose body even Ada's own call may not pass, and why.
const OWNER_REFUSED: [(&str, &str); 22] = [
    (
        "room-invite-mint",
        "Ada's home has no Matrix account here; tests/channel/social/invite_links.rs covers the owner's path",
    ),
    (
        "room-invite-revoke",
        "Ada's home has no Matrix account here; tests/channel/social/invite_links.rs covers the owner's path",
    ),
    (
        "room-invite-seat",
        "Ada's home has no Matrix account here; tests/channel/social/invite_links.rs covers the owner's path",
    ),
    (
        "room-invite-preview",
        "Ada's home has no Matrix account here; tests/channel/social/invite_links.rs covers the owner's path",
    ),
    (
        "room-invite-ask",
        "Ada's home has no Matrix account here; tests/channel/social/invite_links.rs covers the owner's path",
    ),
    (
        "room-share-hide",
        "Ada's room is her own, not one shared from another home; tests/channel/social/shared_rooms.rs hides a mirror",
    ),
    (
        "room-share-add",
        "Ada's home has no Matrix account here; tests/channel/social/shared_rooms.rs covers the owner's path",
    ),
    (
        "room-share-remove",
        "Ada's home has no Matrix account here; tests/channel/social/shared_rooms.rs covers the owner's path",
    ),
    (
        "face-room-create",
        "Ada's home has no Matrix account here; tests/channel/social/face_rooms.rs covers the owner's path",
    ),
    (
        "face-room-join",
        "Ada's home has no Matrix account here; tests/channel/social/face_rooms.rs covers the owner's path",
    ),
    (
        "face-room-leave",
        "Ada's home has no Matrix account here; tests/channel/social/face_rooms.rs covers the owner's path",
    ),
    (
        "face-room-lead",
        "Ada's home has no Matrix account here; tests/channel/social/face_lead.rs covers the maker's path",
    ),
    (
        "face-room-close",
        "Ada's home has no Matrix account here; tests/channel/social/face_lead.rs covers the maker's path",
    ),
    (
        "auth-redeem",
        "the code is a secret nobody but the invited person holds",
    ),
    (
        "social-connect",
        "the matrix has no homeserver; tests/channel/social.rs connects to a real Synapse",
    ),
    (
        "social-friend-add",
        "Ada's home has no Matrix account here; tests/channel/social.rs covers the owner's path",
    ),
    (
        "social-friend-decline",
        "Ada's home has no Matrix account here; tests/channel/social.rs covers the owner's path",
    ),
    (
        "social-publish",
        "Ada's home has no Matrix account here; tests/channel/social.rs covers the owner's path",
    ),
    (
        "social-unpublish",
        "Ada's home has no Matrix account here; tests/channel/social.rs covers the owner's path",
    ),
    (
        "social-send",
        "Ada's home has no Matrix account here; tests/channel/social.rs covers the owner's path",
    ),
    (
        "social-hold-answer",
        "nothing is held: a hold needs a friend's home; tests/channel/social/holds.rs covers the owner's path",
    ),
    (
        "auth-remove-member",
        "the owner is removed by nobody, herself included, while she owns Bots",
    ),
];

/// Calls `name` as Bob and checks the row; answers what went wrong.
async fn check(kit: &Kit, ada: &Ada, bob: &Member, name: &str, row: &Row) -> Result<(), String> {
    let body = row.body();
    let records_before = records(kit, ada).await;
    kit.host.store().snapshot_now().await.unwrap();
    let before = kit.fingerprint().await;
    let (status, answer) = kit.as_member(bob).post(name, body.clone()).await;
    let home_kept = before == kit.fingerprint().await;
    let records_kept = first_difference(&records_before, &records(kit, ada).await);
    let code = answer["error"]["code"].as_str().unwrap_or("none");
    let seen = match row {
        Row::OwnOnly(reason, _) => format!("{name} ({reason}): answered {status} {code}"),
        _ => format!("{name}: answered {status} {code}"),
    };
    // Ada's ids Bob sent may be echoed; nothing else of hers may show.
    let sent = body.to_string();
    let shown: Vec<String> = ada
        .private()
        .into_iter()
        .filter(|id| !sent.contains(id.as_str()) && answer.to_string().contains(id.as_str()))
        .collect();
    let mut wrong = Vec::new();
    if status >= 500 {
        wrong.push(format!("a host fault {answer}"));
    }
    match row {
        Row::Refused(_, want) => {
            assert_ne!(
                *want, "bot/invalid",
                "{name}: a row must reach the owner check"
            );
            if !(400..500).contains(&status) || code != *want {
                wrong.push(format!("expected {want}"));
            }
            if !home_kept {
                wrong.push("the refusal changed the home".to_owned());
            }
        }
        Row::Answers(_) => {
            if !home_kept {
                wrong.push("the read changed the home".to_owned());
            }
        }
        // The call may make or change Bob's own things: only Ada's
        // records are checked, below.
        Row::OwnOnly(..) => {}
    }
    if code == "bot/invalid" {
        wrong.push(format!("the body did not reach the owner check: {answer}"));
    }
    if !shown.is_empty() {
        wrong.push(format!("shows Ada's {shown:?}"));
    }
    if let Some(path) = records_kept {
        wrong.push(format!("changed Ada's records at {path}"));
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!("{seen}: {}", wrong.join("; ")))
    }
}

/// Ada's records as she reads them, her Bots, rooms, cards and Projects as
/// stored, and the secrets file: what no call of Bob's may change.
async fn records(kit: &Kit, ada: &Ada) -> Value {
    let me = kit.as_member(&ada.me);
    let mut reads = serde_json::Map::new();
    for (name, body) in [
        ("tasks", json!({"archive": true})),
        ("projects", json!({})),
        ("schedules", json!({})),
        ("memory", json!({"botId": ada.bot})),
        ("workflows", json!({})),
        ("approvals", json!({})),
    ] {
        reads.insert(name.to_owned(), me.post(name, body).await.1);
    }
    let mine = ada.me.member_id.clone();
    let stored = kit.host.store().read(|s| {
        let bots: Vec<_> = s.bots.values().filter(|b| b.owner_id == mine).collect();
        let tasks: Vec<_> = s
            .tasks
            .values()
            .filter(|t| s.bots.get(&t.bot_id).is_some_and(|b| b.owner_id == mine))
            .collect();
        let projects: Vec<_> = s
            .projects
            .values()
            .filter(|p| p.to_string().contains(&mine))
            .collect();
        json!({"bots": bots, "rooms": s.rooms, "tasks": tasks, "projects": projects})
    });
    reads.insert("stored".to_owned(), stored);
    // The secrets and the channel connectors live in files of their own.
    let secrets = std::fs::read_to_string(kit.home().join("secrets.json")).unwrap_or_default();
    reads.insert("secrets.json".to_owned(), Value::String(secrets));
    Value::Object(reads)
}

/// The JSON path of the first place `a` and `b` differ, if any.
fn first_difference(a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                let (l, r) = (
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                );
                first_difference(l, r).map(|path| format!("/{k}{path}"))
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (l, r))| first_difference(l, r).map(|path| format!("/{i}{path}"))),
        _ => (a != b).then(String::new),
    }
}

//! The moves a card's row carries (issue 31) against the channel: for a
//! matrix of cards and viewers, every move a row lists succeeds through its
//! endpoint, and every move it does not list is refused with the home
//! unchanged. The page draws the row's moves and nothing else, so this is
//! what keeps the page from offering a move the host refuses. All nine
//! moves are in it: claim, start and return (the requester's by #54, made
//! for the Bot), the requester's decisions, the edit, and the archive of a
//! finished card.

use flybot_testkit::{Caller, Kit, Member};
use serde_json::{Value, json};

const MOVES: [&str; 9] = [
    "claim",
    "start",
    "return",
    "accept-result",
    "send-back",
    "answer",
    "edit",
    "cancel",
    "archive",
];

/// The endpoint and body of `m` on card `id` (`question` is the card's
/// current question, if it has one).
fn request(m: &str, id: &str, question: Option<&str>) -> (&'static str, Value) {
    match m {
        "claim" => ("task-accept", json!({"id": id})),
        "start" => ("task-start", json!({"id": id})),
        "return" => ("task-return", json!({"id": id, "summary": "Done."})),
        "archive" => ("task-archive", json!({"id": id})),
        "accept-result" => ("task-accept-result", json!({"id": id})),
        "send-back" => ("task-send-back", json!({"id": id, "note": "Again."})),
        "answer" => (
            "task-answer-input",
            json!({"id": id, "questionId": question.unwrap_or("q-none"), "answer": "Blue."}),
        ),
        "edit" => (
            "task-update",
            json!({"id": id, "priority": "high", "progress": 40}),
        ),
        "cancel" => ("task-cancel", json!({"id": id})),
        other => panic!("no move {other}"),
    }
}

/// The moves `viewer` reads on card `id`: its row in `tasks {archive}`, or
/// none when the card is not in the viewer's read at all.
async fn listed(viewer: &Caller<'_>, id: &str) -> Vec<String> {
    let rows = viewer.ok("tasks", json!({"archive": true})).await;
    let Some(row) = rows["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
    else {
        return Vec::new();
    };
    let (_, state) = viewer.state().await;
    let in_view = state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id)
        .map(|t| t["moves"].clone());
    if let Some(view_moves) = in_view {
        assert_eq!(view_moves, row["moves"], "the state view and the row agree");
    }
    row["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_owned())
        .collect()
}

/// Strips the card's requester, as a record from before requesters were.
async fn without_requester(kit: &Kit, id: &str) {
    let id = id.to_owned();
    kit.host
        .team()
        .mutate("test", move |change| {
            let mut task = change.state().tasks[&id].clone();
            task.requester_id = None;
            change.put_task(&task);
            Ok(())
        })
        .await
        .unwrap();
}

struct Setup {
    kit: Kit,
    ada: Member,
    bob: Member,
    bot: String,
}

async fn setup() -> Setup {
    let kit = Kit::new().await;
    let [ada, bob] = kit.members(["Ada", "Bob"]).await;
    let bot = kit.as_member(&ada).bot("Worker").await.id;
    kit.as_member(&ada)
        .ok(
            "set-grants",
            json!({"botId": bot, "grants": [{"grantee": bob.member_id}]}),
        )
        .await;
    Setup { kit, ada, bob, bot }
}

/// For cards in `status`: every move a row lists is accepted, and every
/// other is refused with the home unchanged. One test per status, each on
/// a home of its own (issue 38: the six in one test took 72 s of CI, the
/// cards piling up in one home).
async fn every_move_a_row_lists_is_accepted_and_every_other_is_refused(status: &str) {
    let Setup { kit, ada, bob, bot } = setup().await;
    // (who asks for the card, whether its requester is then stripped)
    let askers = [("Ada", false), ("Bob", false), ("nobody", true)];
    for (asker, strip) in askers {
        for viewer_name in ["Ada", "Bob"] {
            for m in MOVES {
                let requester = if asker == "Bob" { &bob } else { &ada };
                let (id, question) = kit.as_member(requester).card_in(&bot, status).await;
                if strip {
                    without_requester(&kit, &id).await;
                }
                let member = if viewer_name == "Ada" { &ada } else { &bob };
                let viewer = kit.as_member(member);
                let moves = listed(&viewer, &id).await;
                let (endpoint, body) = request(m, &id, question.as_deref());
                let what = format!("{m} on a {status} card asked by {asker}, for {viewer_name}");
                if moves.iter().any(|l| l == m) {
                    let (code, answer) = viewer.post(endpoint, body).await;
                    assert_eq!(code, 200, "{what}: listed but refused: {answer}");
                } else {
                    kit.host.store().snapshot_now().await.unwrap();
                    let before = kit.fingerprint().await;
                    let (code, answer) = viewer.post(endpoint, body).await;
                    assert!(
                        (400..500).contains(&code),
                        "{what}: not listed but taken: {answer}"
                    );
                    assert!(before == kit.fingerprint().await, "{what}: a refusal wrote");
                }
            }
        }
    }
}

mod every_move_a_row_lists_is_accepted_and_every_other_is_refused_issue_31 {
    use super::every_move_a_row_lists_is_accepted_and_every_other_is_refused as check;

    #[tokio::test]
    async fn on_an_open_card() {
        check("open").await;
    }
    #[tokio::test]
    async fn on_a_claimed_card() {
        check("claimed").await;
    }
    #[tokio::test]
    async fn on_a_working_card() {
        check("working").await;
    }
    #[tokio::test]
    async fn on_a_blocked_card() {
        check("blocked").await;
    }
    #[tokio::test]
    async fn on_a_result_ready_card() {
        check("result-ready").await;
    }
    #[tokio::test]
    async fn on_an_accepted_card() {
        check("accepted").await;
    }
}

/// Claim, start and return are offered to the requester where the host
/// takes them (#54), and to no one else; the archive is the finished card's
/// only move, and an archived card leaves the Done slice the board polls.
#[tokio::test]
async fn claim_start_and_return_are_the_requesters_where_the_host_takes_them_and_a_card_with_no_requester_is_the_owners_issue_31()
 {
    let Setup { kit, ada, bob, bot } = setup().await;
    let (open, _) = kit.as_member(&ada).card_in(&bot, "open").await;
    assert_eq!(
        listed(&kit.as_member(&ada), &open).await,
        ["claim", "edit", "cancel"]
    );
    assert!(listed(&kit.as_member(&bob), &open).await.is_empty());
    kit.as_member(&bob)
        .refused("task-accept", json!({"id": open}), "bot/forbidden")
        .await;
    let (ready, _) = kit.as_member(&ada).card_in(&bot, "result-ready").await;
    assert_eq!(
        listed(&kit.as_member(&ada), &ready).await,
        ["accept-result", "send-back", "edit", "cancel"]
    );
    // The page's copy offered Bob this card; the host gives it to Ada.
    without_requester(&kit, &ready).await;
    assert!(listed(&kit.as_member(&bob), &ready).await.is_empty());
    kit.as_member(&bob)
        .refused("task-accept-result", json!({"id": ready}), "bot/forbidden")
        .await;
    assert_eq!(
        listed(&kit.as_member(&ada), &ready).await,
        ["accept-result", "send-back", "edit", "cancel"]
    );
}

/// Issue 31: the archive of a finished card. Only its requester or its
/// Bot's owner archives it, only once it is finished; a refusal leaves the
/// home as it was; an archived card leaves the Done slice
/// (`tasks {archive, limit}`) and stays in the whole archive, with no move.
#[tokio::test]
async fn a_finished_card_is_archived_off_the_done_column_and_a_refusal_changes_nothing_issue_31() {
    let Setup { kit, ada, bob, bot } = setup().await;
    let (working, _) = kit.as_member(&ada).card_in(&bot, "working").await;
    let (done, _) = kit.as_member(&ada).card_in(&bot, "accepted").await;
    let done_slice = |rows: Value| -> Vec<String> {
        rows["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let ada_caller = kit.as_member(&ada);
    assert_eq!(listed(&ada_caller, &done).await, ["archive"]);
    for (who, id, code) in [
        (&bob, &done, "bot/forbidden"),
        (&ada, &working, "bot/stale"),
    ] {
        kit.host.store().snapshot_now().await.unwrap();
        let before = kit.fingerprint().await;
        kit.as_member(who)
            .refused("task-archive", json!({"id": id}), code)
            .await;
        assert!(before == kit.fingerprint().await, "a refused archive wrote");
    }
    let slice = json!({"archive": true, "limit": 20});
    assert!(done_slice(ada_caller.ok("tasks", slice.clone()).await).contains(&done));
    ada_caller.ok("task-archive", json!({"id": done})).await;
    assert!(!done_slice(ada_caller.ok("tasks", slice).await).contains(&done));
    let all = ada_caller.ok("tasks", json!({"archive": true})).await;
    let row = all["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == done.as_str())
        .cloned()
        .unwrap();
    assert_eq!(row["status"], "accepted");
    assert!(row["archivedAt"].is_u64(), "{row}");
    assert_eq!(row["moves"], json!([]));
    ada_caller
        .refused("task-archive", json!({"id": done}), "bot/stale")
        .await;
}

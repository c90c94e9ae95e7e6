//! The live stream against the view (issue 29, #49, #53, #1723): two
//! members whose Bots share a room each drive every kind of event (their
//! own chat with streaming text and a line that reaches the running turn,
//! a tool approval, a recorded decision, a card, a memory entry, a room
//! line, a scheduled run), and neither stream carries anything of the
//! other's that the other's view does not show. Every event a page gets is
//! checked against what that member's view and reads show; an event kind
//! with no rule here fails the test, so a new kind gets one.

use crate::schedules::timed_kit;
use flybot_testkit::{Bot, Kit, Live, LiveEvent, Member, Room};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::time::Duration;

/// "run it" asks to run a command; "choose" records the member's own
/// decision; every other line is answered by text that streams in deltas.
const SCRIPT: &str = r#"[
  {"when": {"userContains": "run it", "step": 0},
   "reply": {"toolCalls": [{"name": "run_command", "arguments": {"argv": ["echo", "hi"]}}]}},
  {"when": {"userContains": "ann-private choose", "step": 0},
   "reply": {"toolCalls": [{"name": "record_decision", "arguments":
       {"option": "ann-option-5e1", "choice": "rejected", "why": "Ann's own reason"}}]}},
  {"when": {"userContains": "bob-private choose", "step": 0},
   "reply": {"toolCalls": [{"name": "record_decision", "arguments":
       {"option": "bob-option-8d2", "choice": "rejected", "why": "Bob's own reason"}}]}},
  {"when": {"afterTool": "*"}, "reply": {"text": "finished the step"}},
  {"reply": {"text": "an answer that streams in parts"}}
]"#;

/// One member, its Bot (seated in the shared room) and what it drove.
struct Side {
    member: Member,
    bot: Bot,
    tag: &'static str,
    /// The approvals its own `approvals` listed while they waited.
    approvals: BTreeSet<String>,
    /// Its private card.
    card: String,
    /// What its page showed.
    saw: Vec<LiveEvent>,
}

/// Ann's Worker and Bob's Helper (granted to Ann for this room only, which
/// opens her no chat with it) share Ann's room; both record decisions.
async fn setup(kit: &Kit) -> (Side, Side, Room) {
    let [ann, bob] = kit.members(["Ann", "Bob"]).await;
    let worker = kit.as_member(&ann).bot("Worker").await;
    let helper = kit.as_member(&bob).bot("Helper").await;
    let room = kit.as_member(&ann).room("Shared", &[&worker]).await;
    let grant = json!({"grantee": ann.member_id, "roomId": room.id});
    kit.as_member(&bob)
        .ok("set-grants", json!({"botId": helper.id, "grants": [grant]}))
        .await;
    let members = json!([worker.id, helper.id]);
    kit.as_member(&ann)
        .ok("update-room", json!({"id": room.id, "members": members}))
        .await;
    for bot in [&worker, &helper] {
        kit.host
            .team()
            .mutate("test", |change| {
                let mut record = change.state().bots[&bot.id].clone();
                record.record_decisions = Some(true);
                change.put_bot(&record);
                Ok(())
            })
            .await
            .unwrap();
    }
    let side = |member, bot, tag| Side {
        member,
        bot,
        tag,
        approvals: BTreeSet::new(),
        card: String::new(),
        saw: Vec::new(),
    };
    (side(ann, worker, "ann"), side(bob, helper, "bob"), room)
}

/// The member's own chat: a line whose turn asks an approval, a line that
/// reaches the running turn (acknowledged), the answer, a decision. The
/// page is read up to each approval event before the next step: the feed
/// tells them from the revisions it samples, so one asked and answered
/// between two samples would pass unseen.
async fn drive_own_chat(kit: &Kit, side: &mut Side, page: &mut Live<'_>) {
    let me = kit.as_member(&side.member);
    let (bot, tag) = (&side.bot, side.tag);
    me.ok(
        "send",
        json!({"botId": bot.id, "text": format!("{tag}-private run it")}),
    )
    .await;
    let id = kit
        .until_some("the approval waits", async || {
            let listed = me.ok("approvals", json!({})).await;
            listed["approvals"][0]["id"].as_str().map(str::to_owned)
        })
        .await;
    side.approvals.insert(id.clone());
    read_until(page, &mut side.saw, "approval.asked", &id).await;
    me.ok(
        "send",
        json!({"botId": bot.id, "text": format!("{tag}-private still there?")}),
    )
    .await;
    me.ok(
        "approval-answer",
        json!({"id": id, "answer": "allowed-once"}),
    )
    .await;
    read_until(page, &mut side.saw, "approval.answered", &id).await;
    kit.idle(&bot.session).await;
    me.ok(
        "send",
        json!({"botId": bot.id, "text": format!("{tag}-private choose a database")}),
    )
    .await;
    kit.idle(&bot.session).await;
}

/// Reads the page into `saw` up to the `name` event naming `approval`.
async fn read_until(page: &mut Live<'_>, saw: &mut Vec<LiveEvent>, name: &str, approval: &str) {
    let events = page
        .collect_until(name, |data| data["approvalId"] == approval)
        .await;
    saw.extend(events);
}

/// A private card, a memory entry, a line in the shared room that calls on
/// the other member's Bot (`mention`).
async fn drive_the_rest(kit: &Kit, side: &mut Side, room: &Room, mention: &str) {
    let me = kit.as_member(&side.member);
    let tag = side.tag;
    side.card = me.card(&side.bot.id, &format!("{tag} private card")).await;
    me.ok(
        "memory-append",
        json!({"botId": side.bot.id, "text": format!("{tag} private memory")}),
    )
    .await;
    let line = format!("@{mention} {tag} says hello");
    me.ok("send", json!({"roomId": room.id, "text": line}))
        .await;
    kit.round_ended(room).await;
}

/// Each member's scheduled task in its own chat, run once.
async fn drive_schedules(kit: &Kit, clock: &flybot_testkit::ManualClock, sides: [&Side; 2]) {
    for side in sides {
        kit.as_member(&side.member)
            .ok(
                "schedule-create",
                json!({"botId": side.bot.id, "title": "Standup",
                       "prompt": format!("{} private standup", side.tag),
                       "when": {"kind": "every", "seconds": 60}}),
            )
            .await;
    }
    kit.advance(clock, Duration::from_secs(60));
    for side in sides {
        let me = kit.as_member(&side.member);
        kit.until_some("the scheduled run settles", async || {
            let list = me.ok("schedules", json!({})).await;
            let last = list["schedules"][0]["lastRun"].clone();
            (last.is_object() && last["result"] != "running").then_some(())
        })
        .await;
        kit.idle(&side.bot.session).await;
    }
}

/// The page's events up to the `tasks.written` naming `last`.
async fn read_until_card(live: &mut Live<'_>, last: &str) -> Vec<LiveEvent> {
    live.collect_until("tasks.written", |data| {
        data["taskIds"].as_array().unwrap().contains(&json!(last))
    })
    .await
}

/// What a member's view and reads show: the ids an event may name.
#[derive(Debug, Default)]
struct Shown {
    sessions: BTreeSet<String>,
    rooms: BTreeSet<String>,
    bots: BTreeSet<String>,
    members: BTreeSet<String>,
    tasks: BTreeSet<String>,
    approvals: BTreeSet<String>,
}

fn strings<'v>(values: impl Iterator<Item = &'v Value>) -> BTreeSet<String> {
    values
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

async fn shown(kit: &Kit, side: &Side) -> Shown {
    let me = kit.as_member(&side.member);
    let (_, view) = me.state().await;
    let rows = |key: &str| view[key].as_array().unwrap().clone();
    let mut sessions = strings(rows("bots").iter().map(|b| &b["sessionId"]));
    for room in rows("rooms") {
        sessions.extend(strings(room["sessions"].as_object().unwrap().values()));
    }
    let tasks = me.ok("tasks", json!({"archive": true})).await;
    Shown {
        sessions,
        rooms: strings(rows("rooms").iter().map(|r| &r["id"])),
        bots: strings(rows("bots").iter().map(|b| &b["id"])),
        members: strings(rows("members").iter().map(|m| &m["id"])),
        tasks: strings(tasks["tasks"].as_array().unwrap().iter().map(|t| &t["id"])),
        approvals: side.approvals.clone(),
    }
}

/// Whether the event names only what `shown` holds; a kind with no rule
/// here is a failure.
fn names_only_shown(event: &LiveEvent, shown: &Shown) -> bool {
    let data = &event.data;
    let text = |key: &str| data[key].as_str().unwrap_or_default().to_owned();
    let session = || shown.sessions.contains(&text("sessionId"));
    let room = || shown.rooms.contains(&text("roomId"));
    match event.name.as_str() {
        "hello" | "revision" | "resync" => true,
        "work" | "turn.ended" | "text.delta" | "busy.ack.cleared" => session(),
        "busy.ack" if data.get("roomId").is_some() => room(),
        "busy.ack" => session(),
        "round.ended" | "room.line" => room(),
        "room.speaking" => room() && (data["sessionId"].is_null() || session()),
        "tasks.written" => {
            strings(data["taskIds"].as_array().unwrap().iter()).is_subset(&shown.tasks)
        }
        "approval.asked" | "approval.answered" => shown.approvals.contains(&text("approvalId")),
        "decision" => session() && shown.bots.contains(&text("botId")),
        "bot.created" => shown.bots.contains(&text("botId")),
        "presence" => {
            strings(data["memberIds"].as_array().unwrap().iter()).is_subset(&shown.members)
        }
        other => panic!("no rule for the live event kind {other}: give it one"),
    }
}

/// The names of the events that name `session`.
fn kinds_in(events: &[LiveEvent], session: &str) -> BTreeSet<String> {
    events
        .iter()
        .filter(|e| e.data["sessionId"] == session)
        .map(|e| e.name.clone())
        .collect()
}

#[tokio::test(start_paused = true)]
/// Rules #53, #1723.
async fn neither_members_stream_carries_what_the_others_view_does_not_show() {
    let (kit, clock) = timed_kit(Some(serde_json::from_str(SCRIPT).unwrap())).await;
    let (mut ann, mut bob, room) = setup(&kit).await;
    // The pages hold their member's token while the sides record the drive.
    let (ann_member, bob_member) = (ann.member.clone(), bob.member.clone());
    let mut ann_page = kit.as_member(&ann_member).live(None).await;
    let mut bob_page = kit.as_member(&bob_member).live(None).await;
    for (side, page, mention) in [
        (&mut ann, &mut ann_page, "Helper"),
        (&mut bob, &mut bob_page, "Worker"),
    ] {
        drive_own_chat(&kit, side, page).await;
        drive_the_rest(&kit, side, &room, mention).await;
    }
    drive_schedules(&kit, &clock, [&ann, &bob]).await;
    let ann_last = kit.as_member(&ann.member).card(&ann.bot.id, "last").await;
    let bob_last = kit.as_member(&bob.member).card(&bob.bot.id, "last").await;
    ann.saw
        .extend(read_until_card(&mut ann_page, &ann_last).await);
    bob.saw
        .extend(read_until_card(&mut bob_page, &bob_last).await);
    for (side, other) in [(&ann, &bob), (&bob, &ann)] {
        let saw = &side.saw;
        let shown = shown(&kit, side).await;
        for event in saw {
            assert!(names_only_shown(event, &shown), "{}: {event:?}", side.tag);
        }
        // The other's own chat, approvals, decisions and card never reach it ...
        assert!(kinds_in(saw, &other.bot.session).is_empty(), "{}", side.tag);
        let raw = format!("{saw:?}");
        for secret in other.approvals.iter().chain([&other.card]) {
            assert!(!raw.contains(secret.as_str()), "{}: {secret}", side.tag);
        }
        assert!(
            !raw.contains(&format!("{}-option", other.tag)),
            "{}",
            side.tag
        );
        // ... while its own do, and so does the room they share.
        let own = kinds_in(saw, &side.bot.session);
        for kind in ["work", "text.delta", "turn.ended", "busy.ack", "decision"] {
            assert!(
                own.contains(kind),
                "{}: no {kind} of its own chat",
                side.tag
            );
        }
        let named = |name: &str| saw.iter().filter(|e| e.name == name).count();
        assert_eq!(named("approval.asked"), 1, "{}", side.tag);
        assert!(
            named("room.line") >= 2,
            "{}: both members' room lines",
            side.tag
        );
        let other_seat = kit.seat(&room, &other.bot);
        assert!(
            kinds_in(saw, &other_seat).contains("text.delta"),
            "{}",
            side.tag
        );
    }
}

#[tokio::test(start_paused = true)]
/// Rule #50.
async fn a_person_seated_in_a_room_sees_it_its_bots_and_its_lines_live_as_its_chat_reads_them() {
    let kit = Kit::new().await;
    let [ada, bob] = kit.members(["Ada", "Bob"]).await;
    let worker = kit.as_member(&ada).bot("Worker").await;
    let seat = json!({"kind": "human", "memberId": bob.member_id});
    let room = kit
        .as_member(&ada)
        .room_from(json!({"name": "Desk", "members": [worker.id], "participants": [seat]}))
        .await;
    let bob_calls = kit.as_member(&bob);
    let mut page = bob_calls.live(None).await;
    kit.as_member(&ada)
        .ok("send", json!({"roomId": room.id, "text": "hello Bob"}))
        .await;
    // The room's chat reads Bob in; so do his view and his live stream.
    let line = page
        .until("room.line", |data| data["roomId"] == room.id.as_str())
        .await;
    assert_eq!(line.data["seq"], 1);
    kit.round_ended(&room).await;
    let lines = bob_calls.ok("messages", json!({"roomId": room.id})).await;
    assert!(lines.to_string().contains("hello Bob"));
    let (_, view) = bob_calls.state().await;
    assert!(view["rooms"].to_string().contains(&room.id));
    let bots = view["bots"].as_array().unwrap();
    let seen = bots.iter().find(|b| b["id"] == worker.id.as_str()).unwrap();
    assert_eq!(seen["name"], "Worker");
    assert!(seen.get("sessionId").is_none(), "{seen}");
}

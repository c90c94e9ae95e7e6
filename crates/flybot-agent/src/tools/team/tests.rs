//! The team tools on a real store and Sessions runtime (the scripted model):
//! dedupe on a paused clock, the hop and unread limits, archive refusals,
//! create_bot's model and silence, list_bots' tag, record_decision's rules.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::session::{ItemKind, SessionEvent, Sessions, Source};
use crate::testing::{Answer, ScriptedModel, TestEnv};
use crate::tools::{Tool, ToolContext, ToolError, ToolResult, ToolSet};
use flybot_protocol::state::{Bot, Member};
use flybot_store::{Store, StoreOptions};
use schemars::JsonSchema;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Never finishes: keeps a turn running.
struct Block;
#[derive(Deserialize, JsonSchema)]
struct BlockArgs {}
impl Tool for Block {
    type Args = BlockArgs;
    fn name(&self) -> &'static str {
        "block"
    }
    fn description(&self) -> &'static str {
        "Blocks."
    }
    async fn call(&self, _ctx: &ToolContext, _args: BlockArgs) -> ToolResult {
        std::future::pending::<()>().await;
        Ok(String::new())
    }
}

struct TestTeam {
    store: Store,
    sessions: Sessions,
    home: PathBuf,
    counter: AtomicU64,
    created: Mutex<Vec<String>>,
    decided: Mutex<Vec<serde_json::Value>>,
    recent: RecentLines,
}

impl TeamAccess for TestTeam {
    fn store(&self) -> &Store {
        &self.store
    }
    fn home(&self) -> &Path {
        &self.home
    }
    fn new_id(&self, prefix: &str) -> String {
        format!("{prefix}-t{}", self.counter.fetch_add(1, Ordering::Relaxed))
    }
    fn models(&self) -> Vec<String> {
        vec!["mock".to_owned(), "deep-1".to_owned()]
    }
    fn bot_created(&self, bot: &Bot) {
        self.created.lock().unwrap().push(bot.id.clone());
    }
    fn decision_recorded(&self, entry: &serde_json::Value) {
        self.decided.lock().unwrap().push(entry.clone());
    }
    fn recent_lines(&self) -> &RecentLines {
        &self.recent
    }
    fn reach(&self, send: &flybot_core::rooms::reach::Send) -> flybot_core::rooms::reach::Verdict {
        self.store
            .read(|state| flybot_core::rooms::reach::reach(state, send))
    }
    fn hold_send<'a>(
        &'a self,
        _: &'a str,
        _: &'a str,
        _: &'a str,
        _: u32,
        _: Option<&'a str>,
    ) -> crate::tools::BoxFuture<'a, Result<String, String>> {
        Box::pin(async { Ok("hold-1".to_owned()) })
    }
    fn post_to_group(&self, _: &str, _: &str, _: &str, _: u32, _: bool) -> Result<u64, String> {
        Err("No rooms in this test.".to_owned())
    }
    fn group_lines(&self, _: &str) -> Result<Vec<flybot_core::rooms::log::RoomLine>, String> {
        Err("No rooms in this test.".to_owned())
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    team: Arc<TestTeam>,
}

fn bot(id: &str, owner: &str, model: &str) -> Bot {
    Bot::new(
        id,
        id.to_uppercase(),
        owner,
        model,
        format!("session-{id}"),
        1,
    )
}

/// Bots a, b (owner m1, a is Main), c (owner m2), main2 (owner m1, Main).
async fn fixture(answers: Vec<Answer>) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_owned();
    let store = Store::open(&home, StoreOptions::default()).unwrap();
    store
        .mutate("test", |change| {
            for (id, at) in [("m1", 1), ("m2", 2)] {
                change.put_member(&Member {
                    id: id.into(),
                    name: id.into(),
                    created_at: at,
                    extra: Default::default(),
                });
            }
            change.put_bot(&bot("a", "m1", "deep-1"));
            change.put_bot(&bot("b", "m1", "mock"));
            change.put_bot(&bot("c", "m2", "mock"));
            change.put_bot(&bot("main2", "m1", "mock"));
            change.set_main_bot_ids(&["a".to_owned(), "main2".to_owned()]);
            Ok(())
        })
        .await
        .unwrap();
    let model = ScriptedModel::new(answers);
    let tools = ToolSet::new([Arc::new(Block) as Arc<dyn crate::tools::DynTool>]);
    let env = TestEnv::new(model, tools, home.clone());
    let sessions = Sessions::new(home.clone(), Arc::new(env));
    let team = Arc::new(TestTeam {
        store,
        sessions,
        home,
        counter: AtomicU64::new(0),
        created: Mutex::new(Vec::new()),
        decided: Mutex::new(Vec::new()),
        recent: RecentLines::default(),
    });
    Fixture { _dir: dir, team }
}

impl Fixture {
    fn ctx(&self, bot_id: &str) -> ToolContext {
        let mut ctx =
            ToolContext::new(&format!("session-{bot_id}"), bot_id, self.team.home.clone());
        ctx.env = ctx.env.with::<dyn TeamAccess>(self.team.clone());
        ctx.sessions = Some(self.team.sessions.clone());
        ctx
    }

    async fn message(&self, from: &str, to: &str, text: &str) -> ToolResult {
        MessageBot
            .call(
                &self.ctx(from),
                message::MessageBotArgs {
                    to: to.into(),
                    text: text.into(),
                    task_id: None,
                },
            )
            .await
    }

    /// The Bot messages `session` was handed, with their hops.
    fn bot_lines(&self, session: &str) -> Vec<(String, u32)> {
        self.team
            .sessions
            .transcript(session, 0)
            .unwrap()
            .into_iter()
            .filter_map(|e| match e.event {
                SessionEvent::UserMessage {
                    text,
                    source: Source::Bot { hops, .. },
                    ..
                } => Some((text, hops)),
                _ => None,
            })
            .collect()
    }

    fn get_bot(&self, id: &str) -> Bot {
        self.team.store.read(|s| s.bots[id].clone())
    }
}

fn refused(result: ToolResult) -> String {
    match result {
        Err(ToolError::Refused(text)) => text,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
/// Rule #641.
async fn message_bot_dedupes_a_repeat_for_60_s_on_a_paused_clock() {
    let f = fixture(vec![]).await;
    assert_eq!(
        f.message("a", "b", "please  review\nthe plan")
            .await
            .unwrap(),
        "Delivered to B."
    );
    f.team.sessions.wait_idle("session-b").await.unwrap();
    let again = f.message("a", "b", "please review the plan").await.unwrap();
    assert!(again.contains("not sent again"), "{again}");
    // The same line to another Session is its own delivery.
    assert_eq!(
        f.message("a", "main2", "please review the plan")
            .await
            .unwrap(),
        "Delivered to MAIN2."
    );
    tokio::time::advance(DEDUPE_WINDOW + std::time::Duration::from_secs(1)).await;
    assert_eq!(
        f.message("a", "b", "please review the plan").await.unwrap(),
        "Delivered to B."
    );
    f.team.sessions.wait_idle("session-b").await.unwrap();
    let lines = f.bot_lines("session-b");
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0].1, 1, "a person's turn starts a chain at hop 1");
}

#[tokio::test]
async fn message_bot_ends_a_chain_at_max_hops() {
    let f = fixture(vec![]).await;
    let sessions = &f.team.sessions;
    let from = |hops| Source::Bot {
        bot_id: "main2".into(),
        hops,
        room_id: None,
        origin: None,
    };
    sessions
        .deliver("session-a", "go on", from(MAX_HOPS - 1), ItemKind::NextTurn)
        .unwrap();
    sessions.wait_idle("session-a").await.unwrap();
    f.message("a", "b", "next step").await.unwrap();
    sessions.wait_idle("session-b").await.unwrap();
    assert_eq!(
        f.bot_lines("session-b"),
        [("next step".to_owned(), MAX_HOPS)]
    );
    sessions
        .deliver("session-a", "go on", from(MAX_HOPS), ItemKind::NextTurn)
        .unwrap();
    sessions.wait_idle("session-a").await.unwrap();
    let refusal = refused(f.message("a", "b", "one more").await);
    assert!(refusal.contains("6 hops"), "{refusal}");
    assert_eq!(f.bot_lines("session-b").len(), 1);
}

#[tokio::test]
async fn message_bot_refuses_past_max_unread_requests() {
    // B's turn waits forever on a tool, so Bot messages queue unread.
    let f = fixture(vec![Answer::Calls(vec![("block".into(), "{}".into())])]).await;
    let sessions = &f.team.sessions;
    sessions
        .deliver(
            "session-b",
            "work",
            Source::User { member_id: None },
            ItemKind::NextTurn,
        )
        .unwrap();
    while sessions.running_work().first().is_none_or(|w| w.calls == 0) {
        tokio::task::yield_now().await;
    }
    for n in 0..MAX_UNREAD_REQUESTS {
        f.message("a", "b", &format!("request {n}")).await.unwrap();
    }
    assert_eq!(sessions.unread_from_bots("session-b"), MAX_UNREAD_REQUESTS);
    let refusal = refused(f.message("a", "b", "one too many").await);
    assert!(refusal.contains("10 unread"), "{refusal}");
    // stop_bot ends B's running turn.
    let stopped = StopBot
        .call(&f.ctx("a"), update::StopBotArgs { name: "b".into() })
        .await
        .unwrap();
    assert_eq!(stopped, "Stopped B's running turn.");
}

#[tokio::test]
async fn message_bot_reaches_only_its_owners_bots_or_granted_ones() {
    let f = fixture(vec![]).await;
    let unknown = refused(f.message("a", "nobody", "hi").await);
    let other_owner = refused(f.message("a", "c", "hi").await);
    assert_eq!(other_owner, unknown.replace("nobody", "c"));
    f.team
        .store
        .mutate("test", |change| {
            change.set_grants(
                "c",
                &[flybot_protocol::state::Grant {
                    grantee: "m1".into(),
                    room_id: None,
                }],
            );
            Ok(())
        })
        .await
        .unwrap();
    // The core reach() opens a Bot-to-Bot send only when each side is
    // granted to the other's owner (#90).
    assert_eq!(
        refused(f.message("a", "c", "hi").await),
        unknown.replace("nobody", "c")
    );
    f.team
        .store
        .mutate("test", |change| {
            change.set_grants(
                "a",
                &[flybot_protocol::state::Grant {
                    grantee: "m2".into(),
                    room_id: None,
                }],
            );
            Ok(())
        })
        .await
        .unwrap();
    // Another owner's Bot: held for the sender's owner (#52).
    assert!(
        f.message("a", "c", "hi")
            .await
            .unwrap()
            .starts_with("Held for your owner's approval (request hold-1)")
    );
}

#[tokio::test]
/// Rules #638, #1700.
async fn archive_bot_is_main_only_terminal_and_refuses_like_unknown() {
    let f = fixture(vec![]).await;
    let archive = |by: &str, name: &str| {
        let ctx = f.ctx(by);
        let name = name.to_owned();
        async move {
            ArchiveBot
                .call(&ctx, archive::ArchiveBotArgs { name })
                .await
        }
    };
    assert!(refused(archive("b", "main2").await).contains("Only a Main Bot"));
    let line =
        |name: &str| format!("No Bot named {name} on your team; call list_bots for the names.");
    assert_eq!(refused(archive("a", "nobody").await), line("nobody"));
    assert_eq!(
        refused(archive("a", "main2").await),
        line("main2"),
        "a Main Bot"
    );
    assert_eq!(refused(archive("a", "A").await), line("A"), "itself");
    assert_eq!(
        refused(archive("a", "c").await),
        line("c"),
        "another owner's"
    );
    assert!(archive("a", "b").await.unwrap().starts_with("Archived B"));
    let b = f.get_bot("b");
    assert!(is_retired(&b) && b.hidden);
    assert_eq!(
        refused(archive("a", "b").await),
        line("b"),
        "already retired"
    );
    // Every resolving tool refuses the retired name like an unknown one.
    assert_eq!(refused(f.message("a", "b", "hi").await), line("b"));
    let stop = StopBot
        .call(&f.ctx("a"), update::StopBotArgs { name: "b".into() })
        .await;
    assert_eq!(refused(stop), line("b"));
    let listed = ListBots
        .call(&f.ctx("a"), list::ListBotsArgs {})
        .await
        .unwrap();
    assert!(!listed.contains("- B "), "{listed}");
    assert!(f.bot_lines("session-b").is_empty());
}

#[tokio::test]
/// Rules #410, #645.
async fn create_bot_inherits_the_makers_model_and_starts_no_turn() {
    let f = fixture(vec![]).await;
    let args = |name: &str, model: Option<&str>| create::CreateBotArgs {
        name: name.into(),
        brief: Some("review pull requests".into()),
        model: model.map(str::to_owned),
    };
    let answer = CreateBot
        .call(&f.ctx("a"), args("Kid", None))
        .await
        .unwrap();
    assert!(answer.contains("starts no turn"), "{answer}");
    let kid = f
        .team
        .store
        .read(|s| s.bots.values().find(|b| b.name == "Kid").cloned().unwrap());
    assert_eq!(kid.model, "deep-1");
    assert_eq!(kid.owner_id, "m1");
    assert_eq!(kid.created_by.as_deref(), Some("a"));
    assert_eq!(kid.instructions, "Why you exist: review pull requests");
    assert!(!f.team.sessions.is_running(&kid.session_id));
    assert!(
        f.team
            .sessions
            .transcript(&kid.session_id, 0)
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        f.team.created.lock().unwrap().as_slice(),
        std::slice::from_ref(&kid.id)
    );
    CreateBot
        .call(&f.ctx("a"), args("Named", Some("mock")))
        .await
        .unwrap();
    let named = f.team.store.read(|s| {
        s.bots
            .values()
            .find(|b| b.name == "Named")
            .cloned()
            .unwrap()
    });
    assert_eq!(named.model, "mock", "a model the caller names wins");
    assert!(
        refused(CreateBot.call(&f.ctx("a"), args("kid", None)).await).contains("already exists")
    );
}

#[tokio::test]
/// Rule #587.
async fn list_bots_tags_pending_approvals_and_update_bot_renames() {
    let f = fixture(vec![]).await;
    f.team
        .store
        .mutate("test", |change| {
            change.put_approval(
                "ap-1",
                &serde_json::json!({"botId": "b", "status": "waiting"}),
            );
            change.put_approval(
                "ap-2",
                &serde_json::json!({"botId": "b", "status": "rejected"}),
            );
            Ok(())
        })
        .await
        .unwrap();
    let listed = ListBots
        .call(&f.ctx("a"), list::ListBotsArgs {})
        .await
        .unwrap();
    assert!(
        listed.contains("- B (model mock) [1 to approve]"),
        "{listed}"
    );
    assert!(
        listed.contains("- A (model deep-1) (you) [Main Bot]"),
        "{listed}"
    );
    assert!(
        !listed.contains("- C "),
        "another owner's Bot is not listed: {listed}"
    );
    let updated = UpdateBot
        .call(
            &f.ctx("a"),
            update::UpdateBotArgs {
                name: "b".into(),
                new_name: Some("Bea".into()),
                instructions: None,
                model: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(updated, "Updated Bea (model mock).");
    assert_eq!(f.get_bot("b").name, "Bea");
}

#[tokio::test]
/// Rule #53.
async fn list_bots_includes_the_bots_of_the_current_room_and_only_there() {
    let f = fixture(vec![]).await;
    f.team
        .store
        .mutate("test", |change| {
            let room: flybot_protocol::state::Room = serde_json::from_value(serde_json::json!({
                "id": "room-1", "name": "Shared", "ownerId": "m1", "members": ["a", "c"],
                "sessions": {"a": "group-a", "c": "group-c"}, "createdAt": 1, "updatedAt": 1
            }))
            .unwrap();
            change.put_room(&room);
            Ok(())
        })
        .await
        .unwrap();
    let list = async |session: &str| {
        let mut ctx = f.ctx("a");
        ctx.session_id = session.to_owned();
        ListBots.call(&ctx, list::ListBotsArgs {}).await.unwrap()
    };
    // In the room's Session: another owner's Bot sitting there is listed.
    let in_room = list("group-a").await;
    assert!(
        in_room.contains("- C (model mock) [in this group]"),
        "{in_room}"
    );
    assert!(in_room.contains("- B (model mock)"), "{in_room}");
    // In its own chat, and in a Session of c's that is not a's: not listed.
    for session in ["session-a", "group-c"] {
        let listed = list(session).await;
        assert!(!listed.contains("- C "), "{session}: {listed}");
    }
}

#[tokio::test]
async fn configured_model_29_the_tools_refuse_a_model_nobody_configured() {
    let f = fixture(vec![]).await;
    let create = create::CreateBotArgs {
        name: "Kid".into(),
        brief: None,
        model: Some("gpt-9".into()),
    };
    let made = refused(CreateBot.call(&f.ctx("a"), create).await);
    let sentence = "No model named gpt-9 is configured on this host; choose one of: mock, deep-1.";
    assert!(made.contains(sentence), "{made}");
    let update = update::UpdateBotArgs {
        name: "b".into(),
        new_name: None,
        instructions: None,
        model: Some("gpt-9".into()),
    };
    let moved = refused(UpdateBot.call(&f.ctx("a"), update).await);
    assert!(moved.contains(sentence), "{moved}");
    assert_eq!(f.get_bot("b").model, "mock");
    assert!(
        f.team
            .store
            .read(|s| s.bots.values().all(|b| b.name != "Kid"))
    );
}

#[tokio::test]
/// Rule #396.
async fn record_decision_is_opt_in_refuses_secrets_and_appends() {
    let f = fixture(vec![]).await;
    let args = |why: &str| decision::RecordDecisionArgs {
        option: "Postgres".into(),
        choice: decision::Choice::Rejected,
        why: why.into(),
    };
    let off = refused(
        RecordDecision
            .call(&f.ctx("a"), args("one file is enough"))
            .await,
    );
    assert!(off.contains("off for this Bot"), "{off}");
    let mut a = f.get_bot("a");
    a.record_decisions = Some(true);
    f.team
        .store
        .mutate("test", |c| {
            c.put_bot(&a);
            Ok(())
        })
        .await
        .unwrap();
    let secret = refused(
        RecordDecision
            .call(&f.ctx("a"), args("password= hunter2hunter"))
            .await,
    );
    assert!(secret.contains("secret"), "{secret}");
    assert!(
        flybot_store::decisions::read_decisions(&f.team.home)
            .unwrap()
            .is_empty()
    );
    RecordDecision
        .call(&f.ctx("a"), args("one file is enough"))
        .await
        .unwrap();
    let lines = flybot_store::decisions::read_decisions(&f.team.home).unwrap();
    assert_eq!(lines.len(), 1);
    // Announced once, with the line as written; the refusals announced nothing.
    assert_eq!(*f.team.decided.lock().unwrap(), lines);
    assert_eq!(lines[0]["choice"], "rejected");
    assert_eq!(lines[0]["botId"], "a");
}

#[tokio::test]
async fn ask_user_answers_the_model_and_needs_a_question() {
    let f = fixture(vec![]).await;
    let ok = AskUser
        .call(
            &f.ctx("a"),
            ask::AskUserArgs {
                question: "Which branch?".into(),
            },
        )
        .await
        .unwrap();
    assert!(ok.contains("End your turn"), "{ok}");
    let empty = AskUser
        .call(
            &f.ctx("a"),
            ask::AskUserArgs {
                question: " ".into(),
            },
        )
        .await;
    assert!(matches!(empty, Err(ToolError::Invalid(_))));
}

#[tokio::test]
/// Rules #1700, #1182.
async fn create_group_and_update_group_follow_the_channels_rules_for_a_main_bot_or_the_admin() {
    let f = fixture(vec![]).await;
    let rooms = || f.team.store.read(|s| s.rooms.clone());
    let create = |from: &str, args: serde_json::Value| {
        let ctx = f.ctx(from);
        async move {
            CreateGroup
                .call(&ctx, serde_json::from_value(args).unwrap())
                .await
        }
    };
    let update = |from: &str, args: serde_json::Value| {
        let ctx = f.ctx(from);
        async move {
            UpdateGroup
                .call(&ctx, serde_json::from_value(args).unwrap())
                .await
        }
    };
    // Neither a Main Bot nor an admin: refused, nothing written.
    let no = refused(create("b", serde_json::json!({"name": "Crew", "members": ["A"]})).await);
    assert!(no.contains("Only a Main Bot or a group's admin"), "{no}");
    // Another owner's Bot, not granted: refused like an unknown name.
    let no = refused(create("a", serde_json::json!({"name": "Crew", "members": ["C"]})).await);
    assert!(no.contains("No Bot named C"), "{no}");
    assert!(rooms().is_empty());
    let made = create(
        "a",
        serde_json::json!({"name": "Crew", "members": ["B"], "task_lead": "B"}),
    )
    .await
    .unwrap();
    assert!(made.contains("Made the group Crew with 2 Bots"), "{made}");
    let room = rooms().into_values().next().unwrap();
    assert_eq!(room.owner_id, "m1");
    assert_eq!(room.members, ["a", "b"]);
    assert_eq!(room.admin.as_deref(), Some("a"));
    assert_eq!(room.extra["taskLead"], "b");
    assert_eq!(room.sessions.len(), 2);
    // b is a member but not the admin: it may not hand the lead over.
    let no = refused(
        update(
            "b",
            serde_json::json!({"group": "Crew", "task_lead": "none"}),
        )
        .await,
    );
    assert!(no.contains("Only a Main Bot or the admin of Crew"), "{no}");
    // The admin hands the admin role to b, and b (now admin) clears the lead.
    update("a", serde_json::json!({"group": "Crew", "admin": "B"}))
        .await
        .unwrap();
    update(
        "b",
        serde_json::json!({"group": "Crew", "task_lead": "none", "add_members": ["MAIN2"]}),
    )
    .await
    .unwrap();
    let room = rooms().into_values().next().unwrap();
    assert_eq!(room.admin.as_deref(), Some("b"));
    assert!(!room.extra.contains_key("taskLead"));
    assert_eq!(room.members, ["a", "b", "main2"]);
    // A lead outside the room is the core's refusal, and nothing changes.
    let no = refused(update("b", serde_json::json!({"group": "Crew", "task_lead": "C"})).await);
    assert!(no.contains("No Bot named C"), "{no}");
    // Another owner's Bot cannot find, let alone change, this group.
    let no = refused(
        update(
            "c",
            serde_json::json!({"group": "Crew", "task_lead": "none"}),
        )
        .await,
    );
    assert!(no.contains("No group named Crew"), "{no}");
    assert_eq!(rooms().into_values().next().unwrap(), room);
}

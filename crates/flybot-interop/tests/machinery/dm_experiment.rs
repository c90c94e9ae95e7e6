//! The contract's DM experiment (matrix row "Identity and scope", the
//! cross-home part): two homes with distinct owners and their own journals,
//! explicit per-Bot grants each way, a direct message delivered and
//! journaled by the recipient home, and the same-owner enrollment refused.

use crate::dm::{DmHome, DmRefusal, SyntheticTransport};
use crate::kit::*;
use flybot_interop::budgets::PROPOSED;
use flybot_interop::envelope::EnvelopeKind;
use flybot_interop::journal::{CorrelationKey, Decision, Journal, TaskBinding, TransportContext};
use tempfile::TempDir;

const OWNER_A: &str = "owner-a";
const OWNER_B: &str = "owner-b";

struct TwoHomes {
    transport: SyntheticTransport,
    _dirs: (TempDir, TempDir),
}

fn two_homes() -> TwoHomes {
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut transport = SyntheticTransport::new(SERVER);
    for (home, owner, dir, bot) in [
        ("home-a", OWNER_A, &dir_a, BOT_A),
        ("home-b", OWNER_B, &dir_b, BOT_B),
    ] {
        let journal = Journal::open(dir.path(), PROPOSED, 1_000).unwrap();
        transport.add_home(
            home,
            DmHome {
                owner: owner.into(),
                journal,
            },
        );
        transport.add_bot(home, bot);
    }
    TwoHomes {
        transport,
        _dirs: (dir_a, dir_b),
    }
}

fn bytes(envelope: &flybot_interop::envelope::Envelope) -> Vec<u8> {
    serde_json::to_vec(envelope).unwrap()
}

fn dm_context() -> TransportContext {
    TransportContext {
        conversation_id: Some("dm-1".into()),
        ..a_to_b()
    }
}

#[test]
fn identity_and_scope_dm_distinct_owners_grants_each_way_deliver_and_journal() {
    let mut h = two_homes();
    h.transport.enroll(BOT_A, BOT_B).unwrap();
    let request = request("task-1", "ev-1", "t1");
    // Default deny: no grant, no delivery.
    assert_eq!(
        h.transport
            .send(BOT_A, BOT_B, "dm-1", &bytes(&request), 1_000),
        Err(DmRefusal::NoGrant {
            from: BOT_A.into(),
            to: BOT_B.into()
        })
    );
    // One direction only is not enough.
    h.transport.set_grant(OWNER_A, BOT_A, BOT_B).unwrap();
    assert!(matches!(
        h.transport
            .send(BOT_A, BOT_B, "dm-1", &bytes(&request), 1_000),
        Err(DmRefusal::NoGrant { .. })
    ));
    // Owner A cannot grant for owner B's Bot.
    assert_eq!(
        h.transport.set_grant(OWNER_A, BOT_B, BOT_A),
        Err(DmRefusal::NotOwner(OWNER_A.into()))
    );
    h.transport.set_grant(OWNER_B, BOT_B, BOT_A).unwrap();
    assert_eq!(
        h.transport.home("home-b").unwrap().journal.inbox_cursor(),
        0
    );

    // Home B's host binding for the task, then the DM: journaled there.
    h.transport
        .home_mut("home-b")
        .unwrap()
        .journal
        .bind(TaskBinding {
            key: CorrelationKey::of(&dm_context(), "task-1"),
            responsible_bot: BOT_B.into(),
            owner_binding: OWNER_B.into(),
            runtime_installation: "opencode-fake".into(),
        })
        .unwrap();
    let record = h
        .transport
        .send(BOT_A, BOT_B, "dm-1", &bytes(&request), 1_000)
        .unwrap();
    assert_eq!(record.decision, Decision::Accepted);
    assert_eq!(record.context.sender_bot, BOT_A);
    assert_eq!(record.context.conversation_id.as_deref(), Some("dm-1"));
    let home_b = h.transport.home("home-b").unwrap();
    assert_eq!(
        home_b.journal.inbox_cursor(),
        1,
        "cursor moved after the record"
    );
    let task = home_b.journal.task("task-1").unwrap();
    assert_eq!(task.correlation.owner_binding, OWNER_B);
    assert!(
        h.transport
            .home("home-a")
            .unwrap()
            .journal
            .task("task-1")
            .is_none(),
        "nothing crossed into the sender's journal"
    );

    // The reply direction: delivered to home A, where no binding exists,
    // so it is journaled and starts no work there.
    let question = reply(EnvelopeKind::Question, "task-1", "q-1", "t1", "ev-1");
    let back = h
        .transport
        .send(BOT_B, BOT_A, "dm-1", &bytes(&question), 1_001)
        .unwrap();
    assert!(matches!(back.decision, Decision::Refused(_)), "{back:?}");
    assert_eq!(
        h.transport.home("home-a").unwrap().journal.inbox_cursor(),
        1
    );

    // Revocation stops new messages.
    h.transport.revoke(BOT_B, BOT_A);
    assert!(matches!(
        h.transport
            .send(BOT_A, BOT_B, "dm-1", &bytes(&request), 1_002),
        Err(DmRefusal::NoGrant { .. })
    ));
}

#[test]
fn identity_and_scope_dm_same_owner_enrollment_is_refused() {
    let mut h = two_homes();
    h.transport.add_bot("home-a", "bot-a2");
    assert_eq!(
        h.transport.enroll(BOT_A, "bot-a2"),
        Err(DmRefusal::SameOwner {
            owner: OWNER_A.into()
        })
    );
    h.transport.set_grant(OWNER_A, BOT_A, "bot-a2").unwrap();
    h.transport.set_grant(OWNER_A, "bot-a2", BOT_A).unwrap();
    let request = request("task-1", "ev-1", "t1");
    assert_eq!(
        h.transport
            .send(BOT_A, "bot-a2", "dm-1", &bytes(&request), 1_000),
        Err(DmRefusal::NotEnrolled),
        "grants alone never replace the refused enrollment"
    );
    assert_eq!(
        h.transport.home("home-a").unwrap().journal.inbox_cursor(),
        0
    );
}

#[test]
fn identity_and_scope_dm_room_scoped_event_is_not_a_direct_message() {
    let mut h = two_homes();
    h.transport.enroll(BOT_A, BOT_B).unwrap();
    h.transport.set_grant(OWNER_A, BOT_A, BOT_B).unwrap();
    h.transport.set_grant(OWNER_B, BOT_B, BOT_A).unwrap();
    let request = request("task-1", "ev-1", "t1");
    assert_eq!(
        h.transport
            .send(BOT_A, BOT_B, "room:pilot", &bytes(&request), 1_000),
        Err(DmRefusal::RoomScoped)
    );
    assert_eq!(
        h.transport.home("home-b").unwrap().journal.inbox_cursor(),
        0
    );
}

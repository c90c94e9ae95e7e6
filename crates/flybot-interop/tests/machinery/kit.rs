//! The harness every matrix group shares: a restartable journal in a
//! temporary folder, a fake clock, the two Bots' transport contexts and
//! envelope builders. No network, no sleeps.

use flybot_interop::budgets::PROPOSED;
use flybot_interop::cancel::TurnKey;
use flybot_interop::envelope::rules::input_digest;
use flybot_interop::envelope::{Envelope, EnvelopeKind};
use flybot_interop::journal::{
    CorrelationKey, Decision, IngressRecord, Journal, SendOperation, TaskBinding, TransportContext,
};
use tempfile::TempDir;

pub const SERVER: &str = "flybot-room-server";
pub const BOT_A: &str = "bot-a";
pub const BOT_B: &str = "bot-b";

pub fn a_to_b() -> TransportContext {
    TransportContext {
        server: SERVER.into(),
        sender_bot: BOT_A.into(),
        recipient_bot: BOT_B.into(),
        conversation_id: Some("room-1".into()),
    }
}

pub fn b_to_a() -> TransportContext {
    TransportContext {
        server: SERVER.into(),
        sender_bot: BOT_B.into(),
        recipient_bot: BOT_A.into(),
        conversation_id: Some("room-1".into()),
    }
}

pub struct Harness {
    pub home: TempDir,
    pub journal: Journal,
    pub now: u64,
    pub cursor: u64,
    /// Each producer's last seq, and the seq each (sender, eventId) went
    /// out with: a producer numbers its events, and resends one as it was.
    seqs: std::collections::HashMap<String, u64>,
    sent: std::collections::HashMap<(String, String), u64>,
}

impl Harness {
    pub fn new() -> Harness {
        let home = tempfile::tempdir().unwrap();
        let journal = Journal::open(home.path(), PROPOSED, 1_000).unwrap();
        Harness {
            home,
            journal,
            now: 1_000,
            cursor: 0,
            seqs: Default::default(),
            sent: Default::default(),
        }
    }

    /// A restart: the journal is dropped and replayed from disk.
    pub fn restart(&mut self) {
        let home = self.home.path().to_path_buf();
        // Drop the writer first so its lock is free.
        let placeholder = tempfile::tempdir().unwrap();
        let old = std::mem::replace(
            &mut self.journal,
            Journal::open(placeholder.path(), PROPOSED, self.now).unwrap(),
        );
        drop(old);
        self.journal = Journal::open(&home, PROPOSED, self.now).unwrap();
    }

    pub fn bind(&mut self, task: &str) {
        self.journal
            .bind(TaskBinding {
                key: CorrelationKey::of(&a_to_b(), task),
                responsible_bot: BOT_A.into(),
                owner_binding: "owner-1".into(),
                runtime_installation: "opencode-1.18.33".into(),
            })
            .unwrap();
    }

    /// Delivers one envelope through the whole ingress (check, journal,
    /// cursor) and returns its record.
    /// The envelope is numbered as its producer sends it: the next seq for
    /// a new event, the one it went out with for a resent one.
    pub fn deliver(&mut self, context: &TransportContext, envelope: &Envelope) -> IngressRecord {
        let key = (context.sender_bot.clone(), envelope.event_id.clone());
        let seq = match self.sent.get(&key) {
            Some(seq) => *seq,
            None => {
                let last = self.seqs.entry(context.sender_bot.clone()).or_default();
                *last += 1;
                self.sent.insert(key, *last);
                *last
            }
        };
        let mut numbered = envelope.clone();
        numbered.seq = seq;
        self.deliver_as_sent(context, &numbered)
    }

    /// Delivers the envelope with the seq it carries (a replay, an
    /// out-of-order event).
    pub fn deliver_as_sent(
        &mut self,
        context: &TransportContext,
        envelope: &Envelope,
    ) -> IngressRecord {
        self.cursor += 1;
        let bytes = serde_json::to_vec(envelope).unwrap();
        self.journal
            .receive(context, &bytes, self.cursor, self.now)
            .unwrap()
            .unwrap()
    }

    /// The journaled intent of submitting `turn` (a remote call follows).
    pub fn submit(&mut self, turn: &TurnKey) -> flybot_interop::journal::Result<u64> {
        self.journal.begin_send(
            &turn.task_id,
            SendOperation::SubmitTurn,
            Some(turn.clone()),
            None,
            self.now,
        )
    }

    pub fn accepted(&mut self, context: &TransportContext, envelope: &Envelope) {
        let record = self.deliver(context, envelope);
        assert_eq!(record.decision, Decision::Accepted, "{}", envelope.event_id);
    }
}

/// The first turn of `task`, generation 0.
pub fn first_turn(task: &str) -> TurnKey {
    TurnKey {
        task_id: task.into(),
        generation: 0,
        turn_id: "t1".into(),
    }
}

pub fn envelope(kind: EnvelopeKind, task: &str, event: &str) -> Envelope {
    Envelope::first(kind, event, task)
}

pub fn request(task: &str, event: &str, turn: &str) -> Envelope {
    let mut e = envelope(EnvelopeKind::Request, task, event);
    e.turn_id = Some(turn.into());
    e.payload.requirement = Some(format!("Fix the fixture of {task}."));
    e.payload.criteria = vec!["the tests pass".into()];
    e.input_digest = bound_digest(&e.payload, task);
    e
}

/// A request payload's inputDigest for `task`, sent to Bot B under the
/// harness's limits.
pub fn bound_digest(payload: &flybot_interop::envelope::Payload, task: &str) -> String {
    let scope = flybot_interop::envelope::input_scope::InputScope {
        recipient_bot: BOT_B,
        task_id: task,
        budget: &PROPOSED,
    };
    input_digest(payload, &scope).unwrap()
}

/// The inputDigest `request(task, ..)` enrolls, which every content
/// follow-up of the task carries.
pub fn enrolled_digest(task: &str) -> String {
    request(task, "ev", "t").input_digest
}

pub fn reply(kind: EnvelopeKind, task: &str, event: &str, turn: &str, to: &str) -> Envelope {
    let mut e = envelope(kind, task, event);
    e.input_digest = enrolled_digest(task);
    e.turn_id = Some(turn.into());
    e.in_reply_to = Some(to.into());
    e.payload.text = Some(format!("{} of {task}", kind.as_str()));
    e
}

pub fn progress(task: &str, event: &str, turn: &str) -> Envelope {
    let mut e = envelope(EnvelopeKind::Progress, task, event);
    e.input_digest = enrolled_digest(task);
    e.turn_id = Some(turn.into());
    e.payload.text = Some("working".into());
    e
}

pub fn cancel(task: &str, event: &str, generation: u64) -> Envelope {
    let mut e = envelope(EnvelopeKind::Cancel, task, event);
    e.generation = generation;
    e
}

/// Enrolls `task` with its request `ev-1` on turn `t1`.
pub fn enrolled(h: &mut Harness, task: &str) {
    h.bind(task);
    h.accepted(&a_to_b(), &request(task, &format!("{task}-ev-1"), "t1"));
}

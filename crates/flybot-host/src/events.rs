//! The host's event bus, made before any service: what a committed change or
//! a finished piece of work announces (`HostEvent`), and the one way a
//! service follows it (`follow_written`, `follow`). Services that would
//! otherwise call each other in a circle (the board wakes the drive, a turn's
//! end wakes the board and the usage ledger) meet here instead.

use serde::Serialize;
use std::future::Future;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, watch};

/// Something that happened, for the live stream and the host's own services.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum HostEvent {
    /// A Bot was made (create-bot, duplicate-bot, the first Main Bot); never
    /// sent for a run Bot (#645, #1373).
    #[serde(rename = "bot.created", rename_all = "camelCase")]
    BotCreated { bot_id: String, owner_id: String },
    /// A board write changed these cards: the task drive runs after it
    /// (#1109), and a client polling the board may refresh.
    #[serde(rename = "tasks.written", rename_all = "camelCase")]
    TasksWritten { task_ids: Vec<String> },
    /// A Session's work moved (a step, a tool call, a turn's end: #546,
    /// #471, #353), so a client redraws the state view's `work`.
    #[serde(rename = "work", rename_all = "camelCase")]
    Work { session_id: String },
    /// A Session's turn ended (its `turn/end` is on disk): the task drive
    /// and the usage ledger follow it.
    #[serde(rename = "turn.ended", rename_all = "camelCase")]
    TurnEnded { session_id: String, turn_id: String },
    /// A room's rounds ended: no person line is left waiting in it.
    #[serde(rename = "round.ended", rename_all = "camelCase")]
    RoundEnded { room_id: String },
    /// The running answer of a turn grew by `text` as the model streamed it;
    /// the whole answer is in the Session's log when the step ends.
    #[serde(rename = "text.delta", rename_all = "camelCase")]
    TextDelta {
        session_id: String,
        turn_id: String,
        text: String,
    },
    /// A line was added to a room's log.
    #[serde(rename = "room.line", rename_all = "camelCase")]
    RoomLine { room_id: String, seq: u64 },
    /// The member speaking in a room changed (none between two turns).
    #[serde(rename = "room.speaking", rename_all = "camelCase")]
    RoomSpeaking {
        room_id: String,
        bot_id: Option<String>,
        session_id: Option<String>,
    },
    /// A tool approval or a held send now waits on a person (#540, #754).
    #[serde(rename = "approval.asked", rename_all = "camelCase")]
    ApprovalAsked {
        approval_id: String,
        bot_id: String,
        session_id: Option<String>,
    },
    /// A waiting approval or held send was answered, cancelled or went stale.
    #[serde(rename = "approval.answered", rename_all = "camelCase")]
    ApprovalAnswered { approval_id: String, bot_id: String },
    /// A person's line reached a running turn and is acknowledged (#1584):
    /// an empty `text` first (the page draws dots), then its sentence.
    /// In a room it is the speaking member's, on the room (#1646).
    #[serde(rename = "busy.ack", rename_all = "camelCase")]
    BusyAck {
        session_id: String,
        line_id: String,
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        room_id: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        bot_id: Option<String>,
    },
    /// The turn ended: the Session's acknowledgments clear (#1665).
    #[serde(rename = "busy.ack.cleared", rename_all = "camelCase")]
    BusyAckCleared { session_id: String },
    /// The members who have a page open (a live stream connected).
    #[serde(rename = "presence", rename_all = "camelCase")]
    Presence { member_ids: Vec<String> },
    /// A Bot recorded a decision (#396): the line `decisions.jsonl` now
    /// holds, for the Bot's owner's activity feed.
    #[serde(rename = "decision", rename_all = "camelCase")]
    Decision {
        bot_id: String,
        session_id: String,
        entry: serde_json::Value,
    },
}

impl HostEvent {
    /// The event's name on the live stream.
    pub fn name(&self) -> &'static str {
        match self {
            HostEvent::BotCreated { .. } => "bot.created",
            HostEvent::TasksWritten { .. } => "tasks.written",
            HostEvent::Work { .. } => "work",
            HostEvent::TurnEnded { .. } => "turn.ended",
            HostEvent::RoundEnded { .. } => "round.ended",
            HostEvent::TextDelta { .. } => "text.delta",
            HostEvent::RoomLine { .. } => "room.line",
            HostEvent::RoomSpeaking { .. } => "room.speaking",
            HostEvent::ApprovalAsked { .. } => "approval.asked",
            HostEvent::ApprovalAnswered { .. } => "approval.answered",
            HostEvent::Presence { .. } => "presence",
            HostEvent::Decision { .. } => "decision",
            HostEvent::BusyAck { .. } => "busy.ack",
            HostEvent::BusyAckCleared { .. } => "busy.ack.cleared",
        }
    }
}

/// The bus: the board's and the roster's events, the work events apart (a
/// Session's or a room's work moving and ending: a busy turn sends many, and
/// they must not crowd the board's followers off), every event in one order
/// for the live stream (which alone reads streamed text, room lines,
/// approvals and presence: many and advisory), and the host's stop.
#[derive(Clone)]
pub struct Bus {
    events: broadcast::Sender<HostEvent>,
    work: broadcast::Sender<HostEvent>,
    /// Every event, in the order emitted: the live feed's one source.
    all: broadcast::Sender<HostEvent>,
    stopping: watch::Sender<bool>,
}

impl Default for Bus {
    fn default() -> Self {
        Bus {
            events: broadcast::channel(256).0,
            work: broadcast::channel(256).0,
            all: broadcast::channel(4096).0,
            stopping: watch::channel(false).0,
        }
    }
}

impl Bus {
    /// Announces `event`; nobody listening is fine, the event is advisory.
    pub fn emit(&self, event: HostEvent) {
        let bus = match &event {
            HostEvent::Work { .. } | HostEvent::TurnEnded { .. } | HostEvent::RoundEnded { .. } => {
                &self.work
            }
            HostEvent::BotCreated { .. } | HostEvent::TasksWritten { .. } => &self.events,
            HostEvent::TextDelta { .. }
            | HostEvent::RoomLine { .. }
            | HostEvent::RoomSpeaking { .. }
            | HostEvent::ApprovalAsked { .. }
            | HostEvent::ApprovalAnswered { .. }
            | HostEvent::BusyAck { .. }
            | HostEvent::BusyAckCleared { .. }
            | HostEvent::Presence { .. }
            | HostEvent::Decision { .. } => {
                let _ = self.all.send(event);
                return;
            }
        };
        let _ = self.all.send(event.clone());
        let _ = bus.send(event);
    }

    /// The board's and the roster's events.
    pub fn subscribe(&self) -> broadcast::Receiver<HostEvent> {
        self.events.subscribe()
    }

    /// `Work`, `TurnEnded` and `RoundEnded`.
    pub fn subscribe_work(&self) -> broadcast::Receiver<HostEvent> {
        self.work.subscribe()
    }

    /// Every event of the three channels, in the order they were emitted.
    pub fn subscribe_all(&self) -> broadcast::Receiver<HostEvent> {
        self.all.subscribe()
    }

    /// Starts the host's stop: followers end and live streams close.
    pub fn stop(&self) {
        self.stopping.send_replace(true);
    }

    /// Resolves once the host has started stopping.
    pub async fn stopped(&self) {
        let mut stopping = self.stopping.subscribe();
        // An error means every sender is gone, which is a stop too.
        let _ = stopping.wait_for(|stopping| *stopping).await;
    }
}

/// What a follower of board writes is handed: the cards one write changed,
/// or `Lagged` when it fell behind and must look at the whole board.
pub enum Written {
    Cards(Vec<String>),
    Lagged,
}

/// Runs `each` for every event of `events` (a receiver of `bus`) that `pick`
/// selects, one at a time and in order, until the host stops. The caller
/// subscribes before the call, so nothing announced after it is missed. Needs a tokio runtime; without one it does
/// nothing (a host built outside a runtime only reads).
pub fn follow<T, Fut>(
    mut events: broadcast::Receiver<HostEvent>,
    bus: &Bus,
    pick: impl Fn(Result<HostEvent, RecvError>) -> Option<T> + Send + 'static,
    mut each: impl FnMut(T) -> Fut + Send + 'static,
) where
    T: Send + 'static,
    Fut: Future<Output = ()> + Send,
{
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let stop = bus.clone();
    runtime.spawn(async move {
        let stopped = stop.stopped();
        tokio::pin!(stopped);
        loop {
            let event = tokio::select! {
                () = &mut stopped => break,
                event = events.recv() => event,
            };
            if matches!(event, Err(RecvError::Closed)) {
                break;
            }
            if let Some(item) = pick(event) {
                each(item).await;
            }
        }
    });
}

/// `follow` for board writes (`tasks.written`), the drive's, the questions'
/// and the workflow beat's trigger.
pub fn follow_written<Fut>(bus: &Bus, each: impl FnMut(Written) -> Fut + Send + 'static)
where
    Fut: Future<Output = ()> + Send,
{
    follow(
        bus.subscribe(),
        bus,
        |event| match event {
            Ok(HostEvent::TasksWritten { task_ids }) => Some(Written::Cards(task_ids)),
            Err(RecvError::Lagged(_)) => Some(Written::Lagged),
            Ok(_) | Err(RecvError::Closed) => None,
        },
        each,
    );
}

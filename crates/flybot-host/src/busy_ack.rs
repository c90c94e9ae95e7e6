//! Busy-send acknowledgments on the host (#1584, #1665, #1684, #1698): a
//! person's line that reaches a Session while its turn runs is acknowledged
//! at its arrival. The ack goes out at once on the live stream with an empty
//! text (the page draws blinking dots); one short model call, on
//! `modelFor['busy-ack']` or the chat's own model, reasoning off, at most
//! `ACK_MAX_TOKENS` and `ACK_TIMEOUT_MS`, writes its sentence. A timeout, an
//! error, an empty or overlong answer or no route leaves the text empty; the
//! turn's end clears the ack, and a late answer never revives it. The line
//! that opens a turn is never acknowledged: it does not reach a running
//! turn (#1698). The ledger of acknowledged ids is `flybot_core::busy_ack`.

use crate::events::HostEvent;
use crate::team::Team;
use flybot_agent::context::ask;
use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::{ChatMessage, Role};
use flybot_agent::session::{SessionEvent, Sessions};
use flybot_core::busy_ack::ledger::AckLedgers;
use flybot_core::busy_ack::{
    ACK_MAX_TOKENS, ACK_SYSTEM, ACK_TIMEOUT_MS, ack_request, ack_sentence,
};
use flybot_core::sync::lock;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use flybot_core::busy_ack::ACK_MODEL_KEY;

/// A line that reached a running turn.
pub struct Arrival {
    pub session_id: String,
    pub line_id: String,
    pub line: String,
    /// The model the acknowledgment is written on.
    pub model: String,
    /// The request the running turn works on.
    pub working_on: String,
    /// The running tool's step, when one runs.
    pub running_tool: Option<String>,
    /// A room member's turn: the room and the member, so the room draws
    /// the ack on the member's row (#1646).
    pub in_room: Option<(String, String)>,
}

impl Arrival {
    /// The line `line_id` that reached the running turn of `session_id`,
    /// with what that turn works on (its first line) and its running step.
    pub fn in_session(
        sessions: &Sessions,
        session_id: &str,
        line_id: String,
        line: &str,
        model: &str,
    ) -> Arrival {
        let running = sessions
            .running_work()
            .into_iter()
            .find(|work| work.session_id == session_id);
        let working_on = running
            .as_ref()
            .and_then(|work| {
                let log = sessions.transcript_written(session_id, 0).ok()?;
                log.into_iter().find_map(|entry| match entry.event {
                    SessionEvent::UserMessage { turn_id, text, .. } if turn_id == work.turn_id => {
                        Some(text)
                    }
                    _ => None,
                })
            })
            .unwrap_or_default();
        Arrival {
            session_id: session_id.to_owned(),
            line_id,
            line: line.to_owned(),
            model: model.to_owned(),
            working_on,
            running_tool: running.and_then(|work| work.step),
            in_room: None,
        }
    }
}

/// The host's acknowledgments. Cheap to clone.
#[derive(Clone)]
pub struct BusyAcks {
    team: Team,
    models: Arc<ProviderRegistry>,
    ack_model: Option<String>,
    ledgers: Arc<Mutex<AckLedgers>>,
    /// The acknowledged line ids of each Session's running turn.
    live: Arc<Mutex<HashMap<String, Vec<String>>>>,
}

impl BusyAcks {
    pub fn new(team: &Team, models: Arc<ProviderRegistry>, ack_model: Option<String>) -> BusyAcks {
        BusyAcks {
            team: team.clone(),
            models,
            ack_model,
            ledgers: Arc::default(),
            live: Arc::default(),
        }
    }

    /// Acknowledges `arrival` once per line id: the empty ack at once, its
    /// sentence when the model writes one in time.
    pub fn arrived(&self, arrival: Arrival) {
        if !lock(&self.ledgers).first_ack(&arrival.session_id, &arrival.line_id) {
            return;
        }
        lock(&self.live)
            .entry(arrival.session_id.clone())
            .or_default()
            .push(arrival.line_id.clone());
        self.publish(&arrival, "");
        let acks = self.clone();
        tokio::spawn(async move {
            let Some(sentence) = acks.sentence(&arrival).await else {
                return;
            };
            if acks.is_live(&arrival.session_id, &arrival.line_id) {
                acks.publish(&arrival, &sentence);
            }
        });
    }

    /// Clears a Session's acks at each turn's end, until the host stops.
    pub fn follow_turn_ends(&self) {
        let acks = self.clone();
        let bus = self.team.bus().clone();
        crate::events::follow(
            bus.subscribe_work(),
            &bus,
            |event| match event {
                Ok(HostEvent::TurnEnded { session_id, .. }) => Some(session_id),
                _ => None,
            },
            move |session_id| {
                acks.turn_ended(&session_id);
                async {}
            },
        );
    }

    /// The turn ended: its acks clear, and no late sentence revives them.
    pub fn turn_ended(&self, session_id: &str) {
        if lock(&self.live).remove(session_id).is_some() {
            self.team.bus().emit(HostEvent::BusyAckCleared {
                session_id: session_id.to_owned(),
            });
        }
    }

    fn is_live(&self, session_id: &str, line_id: &str) -> bool {
        lock(&self.live)
            .get(session_id)
            .is_some_and(|ids| ids.iter().any(|id| id == line_id))
    }

    fn publish(&self, arrival: &Arrival, text: &str) {
        let (room_id, bot_id) = arrival.in_room.clone().unzip();
        self.team.bus().emit(HostEvent::BusyAck {
            session_id: arrival.session_id.clone(),
            line_id: arrival.line_id.clone(),
            text: text.to_owned(),
            room_id,
            bot_id,
        });
    }

    /// The one short call, bounded by `ACK_TIMEOUT_MS`; `None` on any miss.
    async fn sentence(&self, arrival: &Arrival) -> Option<String> {
        let model = self.ack_model.as_deref().unwrap_or(&arrival.model);
        let route = self.models.route(model).ok()?;
        let messages = vec![
            ChatMessage::text(Role::System, ACK_SYSTEM),
            ChatMessage::text(
                Role::User,
                ack_request(
                    &arrival.line,
                    &arrival.working_on,
                    arrival.running_tool.as_deref(),
                ),
            ),
        ];
        let call = ask(
            route.provider.as_ref(),
            &route.provider_model,
            messages,
            ACK_MAX_TOKENS,
        );
        let answer = tokio::time::timeout(Duration::from_millis(ACK_TIMEOUT_MS), call).await;
        match answer {
            Ok(Ok(text)) => ack_sentence(&text),
            Ok(Err(e)) => {
                tracing::debug!("a busy-send acknowledgment was not written: {e}");
                None
            }
            Err(_) => None,
        }
    }
}

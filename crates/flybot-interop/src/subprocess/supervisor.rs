//! One supervised peer per (room, Bot) (#198). Start, clean exit, crash,
//! user stop and the room-turn timeout are explicit states. A turn that
//! reaches a dead process ends as a failure; the next turn starts a fresh
//! process. An entry whose stop is in flight leaves the table at once, so it
//! is never reused.

use super::peer::{Graces, Launch, Peer, PeerAnswer, StopEnd};
use super::wire::HostLine;
use flybot_core::sync::lock;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// A seat: the room and the Bot a peer speaks for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SeatKey {
    pub room_id: String,
    pub bot_id: String,
}

/// A seat's state, as the host shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatState {
    /// No process: never started, or the last one is gone.
    Idle,
    /// Started and waiting for a turn.
    Ready,
    /// Running a turn.
    Busy,
    /// The last process left with status 0.
    Exited,
    /// The last process died: its stderr tail.
    Crashed { detail: String },
    /// The person stopped it.
    Stopped,
    /// The room-turn limit passed; the process was stopped.
    TimedOut,
}

/// How a seat's turn ended, for the room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatOutcome {
    Text(String),
    /// Stopped by the person: nothing to answer.
    Stopped,
    /// A failure with a fixed code and a one-line detail.
    Failed {
        code: &'static str,
        detail: String,
    },
}

struct Seat {
    /// The idle process, put back after each turn.
    peer: Option<Peer>,
    stop: watch::Sender<bool>,
    busy: bool,
    launch: Launch,
}

/// The table of live seats.
pub struct Supervisor {
    seats: Mutex<HashMap<SeatKey, Seat>>,
    states: Mutex<HashMap<SeatKey, SeatState>>,
    graces: Graces,
    turn_limit: Duration,
    /// Stops that were started and have not ended yet.
    stops: Arc<Mutex<Vec<tokio::task::JoinHandle<StopEnd>>>>,
}

impl Supervisor {
    pub fn new(graces: Graces, turn_limit: Duration) -> Self {
        Supervisor {
            seats: Mutex::new(HashMap::new()),
            states: Mutex::new(HashMap::new()),
            graces,
            turn_limit,
            stops: Arc::new(Mutex::new(Vec::new())),
        }
    }

    fn set_state(&self, key: &SeatKey, state: SeatState) {
        lock(&self.states).insert(key.clone(), state);
    }

    /// The seat's state.
    pub fn state(&self, key: &SeatKey) -> SeatState {
        lock(&self.states)
            .get(key)
            .cloned()
            .unwrap_or(SeatState::Idle)
    }

    /// The seats with a live entry.
    pub fn seats(&self) -> Vec<SeatKey> {
        lock(&self.seats).keys().cloned().collect()
    }

    /// The pid of the seat's idle process, if one runs.
    pub fn pid(&self, key: &SeatKey) -> Option<u32> {
        lock(&self.seats)
            .get(key)
            .and_then(|s| s.peer.as_ref())
            .and_then(Peer::pid)
    }

    fn begin_stop(&self, peer: Peer) {
        // Outside a runtime (a host dropped late) the drop kills the group.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            drop(peer);
            return;
        };
        let handle = runtime.spawn(peer.stop(self.graces));
        let mut stops = lock(&self.stops);
        stops.retain(|h| !h.is_finished());
        stops.push(handle);
    }

    /// Waits for every stop in flight (host stop, tests).
    pub async fn settle(&self) {
        let handles: Vec<_> = std::mem::take(&mut *lock(&self.stops));
        for handle in handles {
            let _ = handle.await;
        }
    }

    /// Runs one turn on the seat, starting its process if none runs.
    pub async fn turn(&self, key: &SeatKey, launch: &Launch, line: HostLine) -> SeatOutcome {
        let (peer, mut stop) = {
            let mut seats = lock(&self.seats);
            if seats.get(key).is_some_and(|s| s.busy) {
                return SeatOutcome::Failed {
                    code: "BUSY",
                    detail: "a turn is already running".to_owned(),
                };
            }
            // A changed record is a new program: the old one is stopped.
            if seats.get(key).is_some_and(|s| &s.launch != launch)
                && let Some(seat) = seats.remove(key)
                && let Some(peer) = seat.peer
            {
                self.begin_stop(peer);
            }
            let seat = seats.entry(key.clone()).or_insert_with(|| Seat {
                peer: None,
                stop: watch::channel(false).0,
                busy: false,
                launch: launch.clone(),
            });
            seat.busy = true;
            (seat.peer.take(), seat.stop.subscribe())
        };
        let mut peer = match peer {
            Some(peer) => peer,
            None => match Peer::start(launch) {
                Ok(peer) => peer,
                Err(error) => {
                    lock(&self.seats).remove(key);
                    let detail = format!("{}: {error}", launch.command[0]);
                    self.set_state(
                        key,
                        SeatState::Crashed {
                            detail: detail.clone(),
                        },
                    );
                    return SeatOutcome::Failed {
                        code: "START",
                        detail,
                    };
                }
            },
        };
        self.set_state(key, SeatState::Busy);
        let answer = peer.turn(&line, &mut stop, self.turn_limit).await;
        self.finish(key, peer, answer)
    }

    fn finish(&self, key: &SeatKey, mut peer: Peer, answer: PeerAnswer) -> SeatOutcome {
        let mut seats = lock(&self.seats);
        // A stop that came in during the turn took the seat out of the table
        // (or replaced it): this process is not put back.
        let still_ours = seats.get(key).is_some_and(|s| s.busy && !*s.stop.borrow());
        let (outcome, state, keep) = match answer {
            PeerAnswer::Text(text) => (SeatOutcome::Text(text), SeatState::Ready, true),
            PeerAnswer::Error(error) => (
                SeatOutcome::Failed {
                    code: "PEER_ERROR",
                    detail: super::peer::one_line_tail(error.as_bytes()),
                },
                SeatState::Ready,
                true,
            ),
            PeerAnswer::Died { detail } => {
                let state = if detail.starts_with("exit status: 0") {
                    SeatState::Exited
                } else {
                    SeatState::Crashed {
                        detail: detail.clone(),
                    }
                };
                (
                    SeatOutcome::Failed {
                        code: "CRASHED",
                        detail,
                    },
                    state,
                    false,
                )
            }
            PeerAnswer::Protocol { detail } => (
                SeatOutcome::Failed {
                    code: "PROTOCOL",
                    detail,
                },
                SeatState::Crashed {
                    detail: "broke the line protocol".to_owned(),
                },
                false,
            ),
            PeerAnswer::Stopped => (SeatOutcome::Stopped, SeatState::Stopped, false),
            PeerAnswer::TimedOut => (
                SeatOutcome::Failed {
                    code: "TIMEOUT",
                    detail: format!("no answer within {} s", self.turn_limit.as_secs()),
                },
                SeatState::TimedOut,
                false,
            ),
        };
        let keep = keep && still_ours && !peer.has_exited();
        if keep {
            if let Some(seat) = seats.get_mut(key) {
                seat.busy = false;
                seat.peer = Some(peer);
            }
        } else {
            if still_ours {
                seats.remove(key);
            }
            drop(seats);
            self.begin_stop(peer);
        }
        let state = if !still_ours && state == SeatState::Ready {
            SeatState::Stopped
        } else {
            state
        };
        self.set_state(key, state);
        outcome
    }

    /// The person stops the seat: its running turn ends as "nothing to
    /// answer" and its process is stopped. Answers whether a turn ran.
    pub fn stop(&self, key: &SeatKey) -> bool {
        let Some(seat) = lock(&self.seats).remove(key) else {
            return false;
        };
        seat.stop.send_replace(true);
        if let Some(peer) = seat.peer {
            self.begin_stop(peer);
        }
        self.set_state(key, SeatState::Stopped);
        seat.busy
    }

    /// Ends every seat `keep` refuses (a member removed, a Bot deleted).
    pub fn retain(&self, keep: impl Fn(&SeatKey) -> bool) {
        let gone: Vec<SeatKey> = self.seats().into_iter().filter(|k| !keep(k)).collect();
        for key in gone {
            self.stop(&key);
        }
    }

    /// Ends every seat (the host stops).
    pub fn stop_all(&self) {
        self.retain(|_| false);
    }
}

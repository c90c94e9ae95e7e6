//! Search (issue 31): the host's side of the full-text index. It keeps
//! `search.sqlite` (`flybot_store::search`) caught up with the Bots' own
//! chats and the rooms, and answers a caller only from the conversations
//! `scope` lets it read.
//!
//! The index is derived and off the write path: a line is added after it
//! is durable in its log, following the bus (`work` and `turn.ended` for a
//! Session, `room.line` for a room), which only marks the conversation
//! dirty; the catch-up reads the log from the index's cursor on. A start
//! catches every conversation up (a new or rebuilt index is every line),
//! and a search first catches up what is dirty, so it answers lines
//! written a moment ago. Nothing waits on the index: a write it misses is
//! caught up later, and an index lost with its file is rebuilt.

mod lines;
pub(crate) mod scope;

use crate::events::{Bus, HostEvent};
use crate::rooms::RoomLogs;
use crate::team::Team;
use flybot_agent::session::Sessions;
use flybot_store::search::SearchIndex;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::OnceCell;
use tokio::sync::broadcast::{
    self,
    error::{RecvError, TryRecvError},
};

/// Whether an event says a conversation's log grew.
fn names_conversation(event: &HostEvent) -> bool {
    matches!(
        event,
        HostEvent::Work { .. } | HostEvent::TurnEnded { .. } | HostEvent::RoomLine { .. }
    )
}

/// The conversations whose logs grew since the last catch-up.
#[derive(Debug, Default)]
struct Dirty {
    /// Every conversation: at start, and when the follower fell behind.
    all: bool,
    sessions: HashSet<String>,
    rooms: HashSet<String>,
}

/// The search service. Cheap to clone.
#[derive(Clone)]
pub struct Search {
    inner: Arc<Inner>,
}

struct Inner {
    home: PathBuf,
    index: OnceCell<Option<SearchIndex>>,
    dirty: Mutex<Dirty>,
    /// Every event since the last drain, subscribed when the service was
    /// made, so nothing announced after that is missed.
    events: Mutex<broadcast::Receiver<HostEvent>>,
    /// One catch-up at a time: a second waits and finds little left.
    catching_up: tokio::sync::Mutex<()>,
    team: Team,
    sessions: Sessions,
    logs: Arc<RoomLogs>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Search {
    pub(crate) fn new(
        home: PathBuf,
        team: &Team,
        sessions: &Sessions,
        logs: &Arc<RoomLogs>,
    ) -> Search {
        Search {
            inner: Arc::new(Inner {
                home,
                index: OnceCell::new(),
                dirty: Mutex::new(Dirty {
                    all: true,
                    ..Dirty::default()
                }),
                events: Mutex::new(team.bus().subscribe_all()),
                catching_up: tokio::sync::Mutex::new(()),
                team: team.clone(),
                sessions: sessions.clone(),
                logs: logs.clone(),
            }),
        }
    }

    /// Follows the bus and catches every conversation up once, in the
    /// background. Needs a tokio runtime; without one the index is caught
    /// up by the first search.
    pub(crate) fn start(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let bus: Bus = self.inner.team.bus().clone();
        // This receiver only wakes the catch-up; the events themselves are
        // read from `inner.events`, which a search drains too.
        crate::events::follow(
            bus.subscribe_all(),
            &bus,
            |event| match event {
                Ok(event) => names_conversation(&event).then_some(()),
                Err(RecvError::Lagged(_)) => Some(()),
                Err(RecvError::Closed) => None,
            },
            {
                let search = self.clone();
                move |()| {
                    let search = search.clone();
                    async move { search.catch_up().await }
                }
            },
        );
        let search = self.clone();
        runtime.spawn(async move { search.catch_up().await });
    }

    /// Marks dirty every conversation the events since the last drain name.
    /// A search drains before it reads, so a line announced before the
    /// search began is in its answer.
    fn drain(&self) {
        let mut events = lock(&self.inner.events);
        let mut dirty = lock(&self.inner.dirty);
        loop {
            match events.try_recv() {
                Ok(HostEvent::Work { session_id } | HostEvent::TurnEnded { session_id, .. }) => {
                    dirty.sessions.insert(session_id);
                }
                Ok(HostEvent::RoomLine { room_id, .. }) => {
                    dirty.rooms.insert(room_id);
                }
                Ok(_) => {}
                Err(TryRecvError::Lagged(_)) => dirty.all = true,
                Err(TryRecvError::Empty | TryRecvError::Closed) => break,
            }
        }
    }

    /// The team whose conversations are searched.
    pub(crate) fn team(&self) -> &Team {
        &self.inner.team
    }

    /// The open index; `None` when it could not be opened (a warning, once).
    pub(crate) async fn index(&self) -> Option<&SearchIndex> {
        self.inner
            .index
            .get_or_init(|| async {
                match SearchIndex::open(&self.inner.home).await {
                    Ok(index) => Some(index),
                    Err(e) => {
                        tracing::warn!("search is off: {e}");
                        None
                    }
                }
            })
            .await
            .as_ref()
    }

    /// Adds what the dirty conversations' logs hold past their cursors.
    pub(crate) async fn catch_up(&self) {
        let _one = self.inner.catching_up.lock().await;
        self.drain();
        let Some(index) = self.index().await else {
            return;
        };
        let dirty = std::mem::take(&mut *lock(&self.inner.dirty));
        if !dirty.all && dirty.sessions.is_empty() && dirty.rooms.is_empty() {
            return;
        }
        let (chats, rooms) = self.inner.team.read(|state| {
            let chats: Vec<(String, String)> = state
                .bots
                .values()
                .filter(|bot| !bot.run)
                .filter(|bot| dirty.all || dirty.sessions.contains(&bot.session_id))
                .map(|bot| (bot.session_id.clone(), bot.id.clone()))
                .collect();
            let rooms: Vec<String> = state
                .rooms
                .keys()
                .filter(|id| dirty.all || dirty.rooms.contains(*id))
                .cloned()
                .collect();
            (chats, rooms)
        });
        let cursors: HashMap<String, u64> = match index.cursors().await {
            Ok(cursors) => cursors,
            Err(e) => {
                tracing::warn!("the search index could not be read: {e}");
                return;
            }
        };
        let cursor = |key: &str| cursors.get(key).copied().unwrap_or(0);
        for (session_id, bot_id) in chats {
            let key = scope::chat_key(&session_id);
            let read = self.inner.sessions.transcript(&session_id, cursor(&key));
            let added = match read {
                Ok(entries) => {
                    let (lines, through) = lines::of_chat(&entries, &bot_id, cursor(&key));
                    index
                        .add(&key, &lines, through)
                        .await
                        .map_err(|e| e.to_string())
                }
                Err(e) => Err(e.to_string()),
            };
            if let Err(e) = added {
                tracing::warn!("the chat of {bot_id} was not indexed for search: {e}");
            }
        }
        for room_id in rooms {
            let key = scope::room_key(&room_id);
            let after = cursor(&key);
            let added = match self.inner.logs.shown_after(&room_id, after) {
                Ok(shown) => {
                    let (lines, through) = lines::of_room(&shown, cursor(&key));
                    index
                        .add(&key, &lines, through)
                        .await
                        .map_err(|e| e.to_string())
                }
                Err(e) => Err(e.to_string()),
            };
            if let Err(e) = added {
                tracing::warn!("room {room_id} was not indexed for search: {e}");
            }
        }
    }
}

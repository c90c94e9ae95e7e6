//! The live feed: every event the live stream carries, numbered in one
//! order (`<epoch>.<n>`, the epoch new at each start of the host), with the
//! last `RING` kept so a page that reconnects with its last event id is
//! handed what it missed (issue 12). It follows every event of the bus and
//! the store's revision; from each revision it also tells which approvals
//! began or stopped waiting (`approval.asked` / `approval.answered`), and it
//! counts the open pages per member (`presence`).
//!
//! A team on PostgreSQL (issue 35) numbers its feed the same way on every
//! host: the epoch is the team's (`team_live_epoch`), and a revision's entry
//! takes the id `revision << REVISION_SHIFT` (or the next id, if later), so
//! an id says which revision a page had seen whichever host sent it. A page
//! that last read from a leader that died resumes on the standby that took
//! over: handed the revisions after its own, none it had (#1027).

use super::approvals_waiting::{Waiting, waiting};
use super::drafts::{Draft, Drafts};
use crate::events::{Bus, HostEvent, follow};
use crate::team::Team;
use flybot_core::sync::lock;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;

/// How many entries a reconnecting page can catch up on.
const RING: usize = 4096;

/// On a team-wide feed, the bits of an id below its revision.
pub const REVISION_SHIFT: u32 = 20;

/// What one entry carries.
#[derive(Debug, Clone, PartialEq)]
pub enum FeedItem {
    /// The store's revision moved (`{"revision": n}`).
    Revision(u64),
    Event(HostEvent),
    /// The feed itself fell behind the bus: what a page shows may be stale.
    Resync,
}

/// One numbered entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub id: u64,
    pub item: FeedItem,
}

/// Where a reconnecting page starts.
pub struct Resume {
    /// The entries after its last id, when the ring still holds them all.
    pub missed: Vec<Arc<Entry>>,
    /// False when the page's last id is of another start of the host or
    /// older than the ring: it must reload what it shows.
    pub resumed: bool,
    /// Everything after `missed`.
    pub next: broadcast::Receiver<Arc<Entry>>,
    /// The newest id when `next` was opened: `next` starts after it.
    pub at: u64,
}

struct Ring {
    entries: VecDeque<Arc<Entry>>,
    last_id: u64,
    drafts: Drafts,
}

/// The feed. Cheap to clone.
#[derive(Clone)]
pub struct LiveFeed {
    epoch: Arc<str>,
    /// Ids are numbered by the team's revision (a team on PostgreSQL).
    team_wide: bool,
    ring: Arc<Mutex<Ring>>,
    sender: broadcast::Sender<Arc<Entry>>,
    pages: Arc<Mutex<BTreeMap<String, usize>>>,
    bus: Bus,
}

impl LiveFeed {
    /// A feed of `team`'s events, following nothing until [`LiveFeed::follow`].
    pub fn new(team: &Team) -> LiveFeed {
        LiveFeed::with_epoch(team, None)
    }

    /// A feed numbered team-wide under `team_epoch` when given (a team on
    /// PostgreSQL, whose hosts share it), else under an epoch of this start.
    pub fn with_epoch(team: &Team, team_epoch: Option<String>) -> LiveFeed {
        let team_wide = team_epoch.is_some();
        let last_id = if team_wide {
            team.store().revision().saturating_mul(1 << REVISION_SHIFT)
        } else {
            0
        };
        LiveFeed {
            epoch: team_epoch
                .unwrap_or_else(|| crate::ids::new_id("live"))
                .into(),
            team_wide,
            ring: Arc::new(Mutex::new(Ring {
                entries: VecDeque::with_capacity(RING),
                last_id,
                drafts: Drafts::default(),
            })),
            sender: broadcast::channel(RING).0,
            pages: Arc::default(),
            bus: team.bus().clone(),
        }
    }

    /// Follows `team`'s bus and revision until the host stops.
    pub fn follow(&self, team: &Team) {
        let bus = team.bus();
        let feed = self.clone();
        follow(bus.subscribe_all(), bus, pick, move |item| {
            feed.push(item);
            async {}
        });
        self.follow_revisions(team);
    }

    /// A feed following `team` from now on.
    pub fn start(team: &Team) -> LiveFeed {
        let feed = LiveFeed::new(team);
        feed.follow(team);
        feed
    }

    /// This start of the host's epoch: the first part of every event id.
    pub fn epoch(&self) -> &str {
        &self.epoch
    }

    /// The id of the newest entry (0 before any).
    pub fn last_id(&self) -> u64 {
        lock(&self.ring).last_id
    }

    /// Numbers `item`, keeps it in the ring and hands it to every page.
    pub fn push(&self, item: FeedItem) {
        let mut ring = lock(&self.ring);
        ring.last_id = match &item {
            FeedItem::Revision(revision) if self.team_wide => {
                (ring.last_id + 1).max(revision.saturating_mul(1 << REVISION_SHIFT))
            }
            _ => ring.last_id + 1,
        };
        ring.drafts.note(&item);
        let entry = Arc::new(Entry {
            id: ring.last_id,
            item,
        });
        if ring.entries.len() == RING {
            ring.entries.pop_front();
        }
        ring.entries.push_back(entry.clone());
        // Sent under the ring's lock, so a page resuming sees one order.
        let _ = self.sender.send(entry);
    }

    /// The answer `session_id` streams now, with the id (`<epoch>.<n>`) of
    /// the newest entry it holds: a page draws it, then the deltas after
    /// that id.
    pub fn draft(&self, session_id: &str) -> Option<(Draft, String)> {
        let ring = lock(&self.ring);
        let draft = ring.drafts.of(session_id)?.clone();
        Some((draft, format!("{}.{}", self.epoch, ring.last_id)))
    }

    /// Where a page that last saw `last` (`<epoch>.<n>`, or none) starts.
    pub fn resume(&self, last: Option<&str>) -> Resume {
        let ring = lock(&self.ring);
        let next = self.sender.subscribe();
        let at = ring.last_id;
        let Some(last) = last else {
            return Resume {
                missed: Vec::new(),
                resumed: true,
                next,
                at,
            };
        };
        let seen = last
            .rsplit_once('.')
            .filter(|(epoch, _)| *epoch == &*self.epoch)
            .and_then(|(_, n)| n.parse::<u64>().ok())
            .filter(|n| self.seen_here(*n, ring.last_id));
        let oldest = ring.entries.front().map_or(ring.last_id + 1, |e| e.id);
        match seen {
            Some(seen) if seen + 1 >= oldest => Resume {
                missed: ring
                    .entries
                    .iter()
                    .filter(|e| e.id > seen)
                    .cloned()
                    .collect(),
                resumed: true,
                next,
                at,
            },
            _ => Resume {
                missed: Vec::new(),
                resumed: false,
                next,
                at,
            },
        }
    }

    /// Whether an id a page saw is one this feed has reached: on a
    /// team-wide feed, one of a revision this host has seen (another host
    /// may have sent more entries within it).
    fn seen_here(&self, seen: u64, last_id: u64) -> bool {
        if self.team_wide {
            seen >> REVISION_SHIFT <= last_id >> REVISION_SHIFT
        } else {
            seen <= last_id
        }
    }

    /// Counts a page of `member` open until the guard drops; each change
    /// of who is present is announced.
    pub fn present(&self, member: &str) -> PageOpen {
        *lock(&self.pages).entry(member.to_owned()).or_default() += 1;
        self.announce_presence();
        PageOpen {
            feed: self.clone(),
            member: member.to_owned(),
        }
    }

    /// The members with a page open.
    pub fn present_members(&self) -> Vec<String> {
        lock(&self.pages).keys().cloned().collect()
    }

    fn announce_presence(&self) {
        self.bus.emit(HostEvent::Presence {
            member_ids: self.present_members(),
        });
    }

    fn follow_revisions(&self, team: &Team) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (feed, team) = (self.clone(), team.clone());
        runtime.spawn(async move {
            let mut revisions = team.store().watch_revision();
            let mut before = team.read(waiting);
            let stopped = team.bus().stopped();
            tokio::pin!(stopped);
            loop {
                tokio::select! {
                    () = &mut stopped => break,
                    changed = revisions.changed() => if changed.is_err() { break },
                }
                let revision = *revisions.borrow_and_update();
                feed.push(FeedItem::Revision(revision));
                let now = team.read(waiting);
                feed.approvals_moved(&before, &now);
                before = now;
            }
        });
    }

    fn approvals_moved(&self, before: &Waiting, now: &Waiting) {
        for (id, (bot_id, session_id)) in now {
            if !before.contains_key(id) {
                self.push(FeedItem::Event(HostEvent::ApprovalAsked {
                    approval_id: id.clone(),
                    bot_id: bot_id.clone(),
                    session_id: session_id.clone(),
                }));
            }
        }
        for (id, (bot_id, _)) in before {
            if !now.contains_key(id) {
                self.push(FeedItem::Event(HostEvent::ApprovalAnswered {
                    approval_id: id.clone(),
                    bot_id: bot_id.clone(),
                }));
            }
        }
    }
}

fn pick(event: Result<HostEvent, RecvError>) -> Option<FeedItem> {
    match event {
        Ok(event) => Some(FeedItem::Event(event)),
        Err(RecvError::Lagged(_)) => Some(FeedItem::Resync),
        Err(RecvError::Closed) => None,
    }
}

/// A page counted as open; dropping it counts the page closed.
pub struct PageOpen {
    feed: LiveFeed,
    member: String,
}

impl Drop for PageOpen {
    fn drop(&mut self) {
        {
            let mut pages = lock(&self.feed.pages);
            if let Some(count) = pages.get_mut(&self.member) {
                *count -= 1;
                if *count == 0 {
                    pages.remove(&self.member);
                }
            }
        }
        self.feed.announce_presence();
    }
}

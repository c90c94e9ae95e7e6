//! Bot Social on Matrix (issue 33) as a service: the home's identity is a
//! Matrix account the owner connects (`connect`, its access token only in
//! `secrets.json`, scoped to no Bot's shell); the `/sync` long poll is the
//! one way in (`sync`: a batch's events, the event ids and the token after
//! them land in one journaled change, then friends' lines go to the Bots);
//! sends go through the journaled outbox (`outbox`: the outbox id is the
//! Matrix transaction id, retried with backoff, in order, never twice);
//! a Bot's answer to a friend's line is queued when its turn ends
//! (`answers`); friends and published Bots (`friends`); an expired token
//! traded for a new one (`refresh`); the owner's view (`view`); sends a
//! Bot's policy holds for the owner's Send or Don't send (`holds`, #52).
//! The Matrix calls themselves are `client`.

mod answers;
mod bot_send;
pub mod client;
mod connect;
mod crash_point;
pub mod face_to_face;
mod friends;
mod holds;
mod inbox;
pub mod invite_links;
mod outbox;
mod refresh;
mod room_follower;
pub mod shared_rooms;
mod sync;
mod view;

use crate::secrets::Secrets;
use crate::team::Team;
use client::Matrix;
pub use connect::check_owner;
use flybot_agent::session::{Sessions, WeakSessions};
use flybot_protocol::social::SocialAccount;
use flybot_protocol::{ApiError, ErrorCode};
pub use holds::friend_holds;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::Notify;

/// The name of the home's Matrix access token in `secrets.json`.
pub const TOKEN_SECRET: &str = "MATRIX_ACCESS_TOKEN";

/// How the link to the homeserver is doing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Link {
    /// `off`, `connecting`, `ready`, `error` or (in a view) `standby`.
    pub status: &'static str,
    pub last_error: Option<String>,
}

/// Bot Social. Cheap to clone.
#[derive(Clone)]
pub struct Social {
    inner: Arc<Inner>,
}

struct Inner {
    team: Team,
    secrets: Secrets,
    /// The Sessions a friend's line is handed to; Bot Social is made with
    /// them in one call (`Sessions::new_cyclic`), as the team tools reach it.
    sessions: WeakSessions,
    http: Option<reqwest::Client>,
    /// Rings when the outbox gains an item.
    outbox_bell: Notify,
    /// Rings when the account changes (the sync starts over).
    account_bell: Notify,
    link: Mutex<Link>,
    /// Sessions handed a friend's line and not answered yet, and how many.
    waiting: Mutex<HashMap<String, usize>>,
    /// One token refresh at a time (a refresh token is spent by its use).
    renewing: tokio::sync::Mutex<()>,
    /// The sync reached the homeserver again after failing: the outbox
    /// tries its waiting sends now rather than at their backed-off time.
    link_back: std::sync::atomic::AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while the lock was held left plain data: use it.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Social {
    pub fn new(team: &Team, secrets: &Secrets, sessions: &WeakSessions) -> Social {
        let social = Social {
            inner: Arc::new(Inner {
                team: team.clone(),
                secrets: secrets.clone(),
                sessions: sessions.clone(),
                http: client::http_client(),
                outbox_bell: Notify::new(),
                account_bell: Notify::new(),
                link: Mutex::new(Link {
                    status: "off",
                    last_error: None,
                }),
                waiting: Mutex::new(HashMap::new()),
                renewing: tokio::sync::Mutex::new(()),
                link_back: std::sync::atomic::AtomicBool::new(false),
            }),
        };
        answers::follow_answers(&social);
        social
    }

    /// The Sessions, while the host runs.
    fn sessions(&self) -> Option<Sessions> {
        self.inner.sessions.upgrade()
    }

    /// Starts the sync and the outbox (after the host picked up its turns),
    /// and hands the Bots any friend's line a crash left in the inbox.
    pub fn start(&self) {
        if tokio::runtime::Handle::try_current().is_err() {
            return;
        }
        self.redeliver_inbox();
        let social = self.clone();
        tokio::spawn(async move { social.sync_loop().await });
        let social = self.clone();
        tokio::spawn(async move { social.outbox_loop().await });
    }

    pub(crate) fn team(&self) -> &Team {
        &self.inner.team
    }

    /// The account and a client with its token, when connected.
    fn matrix(&self) -> Option<(SocialAccount, Matrix)> {
        let account = self.team().read(|s| s.social.account.clone())?;
        let token = self.inner.secrets.value(TOKEN_SECRET)?;
        let http = self.inner.http.clone()?;
        let matrix = Matrix::new(http, &account.homeserver, &token);
        Some((account, matrix))
    }

    /// The connected client, or the refusal that says to connect first.
    fn require_matrix(&self) -> Result<(SocialAccount, Matrix), ApiError> {
        self.matrix().ok_or_else(|| {
            ApiError::new(
                ErrorCode::Invalid,
                "This home is not connected to a Matrix account yet; connect one in Settings first.",
            )
        })
    }

    fn set_link(&self, status: &'static str, error: Option<String>) {
        let mut link = lock(&self.inner.link);
        link.status = status;
        if error.is_some() || status == "ready" {
            link.last_error = error;
        }
    }

    /// The invites waiting from `user`, taken (one journaled change: a
    /// restart in between finds them still waiting).
    async fn take_invites_from(&self, user: &str) -> Result<Vec<String>, ApiError> {
        let user = user.to_owned();
        self.team()
            .mutate("social", move |change| {
                let rooms: Vec<String> = (change.state().social.invites.iter())
                    .filter(|(_, inviter)| **inviter == user)
                    .map(|(room, _)| room.clone())
                    .collect();
                for room in &rooms {
                    change.remove_invite(room);
                }
                Ok(rooms)
            })
            .await
    }

    /// How the link is doing.
    pub fn link(&self) -> Link {
        lock(&self.inner.link).clone()
    }
}

//! The notifier of #355: one key per reminder (a repeat answers `duplicate`
//! with the first result, one in flight is joined), backoff 500 ms then 1 s
//! with `Retry-After` as a floor, three attempts, a structural failure
//! permanent, and `enabled` checked before every attempt (zero calls while
//! off). The transport is injected; Slack and Feishu are the two real ones.

use flybot_agent::tools::BoxFuture;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// The attempts one send makes at most, and the backoff's base and cap.
pub const ATTEMPTS: u32 = 3;
pub const BACKOFF_BASE: Duration = Duration::from_millis(500);
pub const BACKOFF_MAX: Duration = Duration::from_secs(1);
/// Sent keys kept, process-local.
const KEYS_KEPT: usize = 1_000;

/// What a transport's one post answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PostError {
    /// The API's rate limit; wait at least `retry_after` before asking again.
    RateLimited { retry_after: Option<Duration> },
    /// The link broke (connect, timeout, a 5xx): retryable.
    Network(String),
    /// The request can never succeed as is (`channel_not_found`, a refused
    /// signature, anything untyped): not retried.
    Structural(String),
}

/// One message out of the app.
pub trait Transport: Send + Sync {
    /// Posts `text`; answers the API's id for the message (`ts`, a message id).
    fn post<'a>(&'a self, text: &'a str) -> BoxFuture<'a, Result<String, PostError>>;
}

/// A send's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Sent {
        id: String,
    },
    /// The key went out before: the first result, no call made.
    Duplicate {
        id: String,
    },
    /// Three attempts ran out, or a structural failure (`permanent`).
    Failed {
        error: String,
        permanent: bool,
    },
    /// The channel is off: no call made.
    Off,
}

type Inflight = HashMap<String, watch::Receiver<Option<Outcome>>>;
/// The keys that went out (or failed for good), and their order for the cap.
type Done = (HashMap<String, Outcome>, VecDeque<String>);

/// The delivery policy around one transport. Cheap to clone.
#[derive(Clone)]
pub struct Notifier {
    transport: Arc<dyn Transport>,
    enabled: Arc<dyn Fn() -> bool + Send + Sync>,
    done: Arc<Mutex<Done>>,
    inflight: Arc<Mutex<Inflight>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Notifier {
    pub fn new(
        transport: Arc<dyn Transport>,
        enabled: Arc<dyn Fn() -> bool + Send + Sync>,
    ) -> Notifier {
        Notifier {
            transport,
            enabled,
            done: Arc::default(),
            inflight: Arc::default(),
        }
    }

    /// Sends `text` once for `key`.
    pub async fn send(&self, key: &str, text: &str) -> Outcome {
        if let Some(first) = lock(&self.done).0.get(key).cloned() {
            return match first {
                Outcome::Sent { id } | Outcome::Duplicate { id } => Outcome::Duplicate { id },
                other => other,
            };
        }
        let joined = lock(&self.inflight).get(key).cloned();
        if let Some(mut wait) = joined {
            let _ = wait.wait_for(Option::is_some).await;
            let seen = wait.borrow().clone();
            return seen.unwrap_or(Outcome::Off);
        }
        let (tell, wait) = watch::channel(None);
        lock(&self.inflight).insert(key.to_owned(), wait);
        let outcome = self.attempts(text).await;
        self.remember(key, &outcome);
        lock(&self.inflight).remove(key);
        let _ = tell.send(Some(outcome.clone()));
        outcome
    }

    async fn attempts(&self, text: &str) -> Outcome {
        let mut last = String::new();
        for attempt in 1..=ATTEMPTS {
            if !(self.enabled)() {
                return Outcome::Off;
            }
            let wait = match self.transport.post(text).await {
                Ok(id) => return Outcome::Sent { id },
                Err(PostError::Structural(error)) => {
                    return Outcome::Failed {
                        error,
                        permanent: true,
                    };
                }
                Err(PostError::RateLimited { retry_after }) => {
                    last = "rate limited".to_owned();
                    backoff(attempt).max(retry_after.unwrap_or_default())
                }
                Err(PostError::Network(error)) => {
                    last = error;
                    backoff(attempt)
                }
            };
            if attempt < ATTEMPTS {
                tokio::time::sleep(wait).await;
            }
        }
        Outcome::Failed {
            error: last,
            permanent: false,
        }
    }

    /// Keeps a sent key (and a permanent failure); running out of attempts
    /// is not a verdict, so a later send may try again.
    fn remember(&self, key: &str, outcome: &Outcome) {
        let keep = matches!(
            outcome,
            Outcome::Sent { .. }
                | Outcome::Failed {
                    permanent: true,
                    ..
                }
        );
        if !keep {
            return;
        }
        let mut done = lock(&self.done);
        done.0.insert(key.to_owned(), outcome.clone());
        done.1.push_back(key.to_owned());
        while done.1.len() > KEYS_KEPT {
            if let Some(old) = done.1.pop_front() {
                done.0.remove(&old);
            }
        }
    }
}

/// `min(base · 2^(n-1), max)`: 500 ms, then 1 s.
pub fn backoff(attempt: u32) -> Duration {
    BACKOFF_BASE
        .saturating_mul(1 << attempt.saturating_sub(1).min(16))
        .min(BACKOFF_MAX)
}

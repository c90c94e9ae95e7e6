//! A rate-limited call is asked again (#1308): a requests-per-window refusal
//! clears on its own, so it is not the turn's answer. The call is repeated
//! after 2 s, 8 s and 30 s, and the attempt that outlasts them fails once,
//! carrying the attempt count. A budget or quota refusal, or any other
//! failure, is never asked again. The provider's reset hint is never read.
//!
//! `after_failure` is the rule; `Retrying<P>` drives it around any provider
//! with `tokio::time::sleep`, so tests run it on a paused clock. Dropping the
//! stream during a wait drops the wait: a stopped turn makes no further call
//! (#1679).

use super::{ModelError, ModelProvider, ModelRequest, ModelStream, StreamEvent};
use futures_util::StreamExt;
use std::time::Duration;

/// The waits before the second, third and fourth attempt.
pub const RATE_LIMIT_BACKOFF: [Duration; 3] = [
    Duration::from_secs(2),
    Duration::from_secs(8),
    Duration::from_secs(30),
];

/// What to do after a failed attempt.
#[derive(Debug, Clone, PartialEq)]
pub enum RetryDecision {
    /// Wait this long, then ask again.
    AskAgainAfter(Duration),
    /// Stop here with this failure.
    GiveUp(ModelError),
}

/// The rule: after attempt number `attempts` (1 for the first call) failed
/// with `error` before anything was streamed.
pub fn after_failure(attempts: u32, error: ModelError) -> RetryDecision {
    match error {
        ModelError::RateLimited { .. } => {
            match usize::try_from(attempts.saturating_sub(1))
                .ok()
                .and_then(|index| RATE_LIMIT_BACKOFF.get(index))
            {
                Some(wait) => RetryDecision::AskAgainAfter(*wait),
                None => RetryDecision::GiveUp(ModelError::RateLimitExhausted { attempts }),
            }
        }
        ModelError::RateLimitExhausted { .. }
        | ModelError::Budget
        | ModelError::Auth
        | ModelError::MissingKey
        | ModelError::NoModel
        | ModelError::Provider { .. }
        | ModelError::Unsupported { .. }
        | ModelError::Timeout
        | ModelError::Transport(_)
        | ModelError::BadResponse(_)
        | ModelError::Cancelled => RetryDecision::GiveUp(error),
    }
}

/// A provider whose rate-limited calls are asked again by `after_failure`.
/// Only a failure before the first event is retried: once text has streamed,
/// asking again would repeat it.
#[derive(Debug, Clone)]
pub struct Retrying<P> {
    inner: P,
}

impl<P> Retrying<P> {
    pub fn new(inner: P) -> Self {
        Retrying { inner }
    }

    pub fn inner(&self) -> &P {
        &self.inner
    }
}

impl<P: ModelProvider + Clone + 'static> ModelProvider for Retrying<P> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn stream(&self, request: ModelRequest) -> ModelStream {
        let inner = self.inner.clone();
        let state = State::Asking {
            inner,
            request,
            attempts: 0,
        };
        Box::pin(futures_util::stream::unfold(state, step))
    }
}

enum State<P> {
    Asking {
        inner: P,
        request: ModelRequest,
        attempts: u32,
    },
    Streaming(ModelStream),
    Over,
}

async fn step<P: ModelProvider>(
    mut state: State<P>,
) -> Option<(Result<StreamEvent, ModelError>, State<P>)> {
    loop {
        match state {
            State::Over => return None,
            State::Streaming(mut stream) => {
                return stream
                    .next()
                    .await
                    .map(|item| (item, State::Streaming(stream)));
            }
            State::Asking {
                inner,
                request,
                attempts,
            } => {
                let attempts = attempts + 1;
                let mut stream = inner.stream(request.clone());
                match stream.next().await {
                    None => return None,
                    Some(Ok(event)) => return Some((Ok(event), State::Streaming(stream))),
                    Some(Err(error)) => match after_failure(attempts, error) {
                        RetryDecision::AskAgainAfter(wait) => {
                            // One line per attempt, without the provider's words.
                            tracing::info!(
                                provider = inner.name(),
                                attempt = attempts,
                                wait_s = wait.as_secs(),
                                "the provider is rate limiting; asking again"
                            );
                            drop(stream);
                            tokio::time::sleep(wait).await;
                            state = State::Asking {
                                inner,
                                request,
                                attempts,
                            };
                        }
                        RetryDecision::GiveUp(error) => return Some((Err(error), State::Over)),
                    },
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FinishReason, ModelStream, Usage};
    use std::sync::{Arc, Mutex};
    use tokio::time::Instant;

    #[test]
    fn the_rule_waits_2_8_30_then_gives_up_with_the_count() {
        let limited = || ModelError::RateLimited {
            retry_after: Some(Duration::from_secs(1)),
        };
        let waits: Vec<_> = (1..=4).map(|n| after_failure(n, limited())).collect();
        assert_eq!(
            waits,
            vec![
                RetryDecision::AskAgainAfter(Duration::from_secs(2)),
                RetryDecision::AskAgainAfter(Duration::from_secs(8)),
                RetryDecision::AskAgainAfter(Duration::from_secs(30)),
                RetryDecision::GiveUp(ModelError::RateLimitExhausted { attempts: 4 }),
            ]
        );
        for error in [
            ModelError::Budget,
            ModelError::Auth,
            ModelError::MissingKey,
            ModelError::Timeout,
        ] {
            assert_eq!(
                after_failure(1, error.clone()),
                RetryDecision::GiveUp(error)
            );
        }
    }

    /// A provider that answers from a script, one entry per call, and notes
    /// the (paused) clock of each call.
    #[derive(Clone)]
    struct Scripted {
        script: Arc<Mutex<Vec<Result<(), ModelError>>>>,
        calls: Arc<Mutex<Vec<Instant>>>,
    }

    impl Scripted {
        fn new(script: Vec<Result<(), ModelError>>) -> Self {
            Scripted {
                script: Arc::new(Mutex::new(script.into_iter().rev().collect())),
                calls: Arc::default(),
            }
        }

        /// The waits between calls, in whole seconds.
        fn gaps(&self) -> Vec<u64> {
            let calls = self.calls.lock().unwrap();
            calls.windows(2).map(|w| (w[1] - w[0]).as_secs()).collect()
        }
    }

    impl ModelProvider for Scripted {
        fn name(&self) -> &str {
            "scripted"
        }

        fn stream(&self, _request: ModelRequest) -> ModelStream {
            self.calls.lock().unwrap().push(Instant::now());
            let next = self.script.lock().unwrap().pop().unwrap_or(Ok(()));
            let items: Vec<Result<StreamEvent, ModelError>> = match next {
                Ok(()) => vec![
                    Ok(StreamEvent::TextDelta("hello".into())),
                    Ok(StreamEvent::Usage(Usage::default())),
                    Ok(StreamEvent::Done(FinishReason::Stop)),
                ],
                Err(error) => vec![Err(error)],
            };
            Box::pin(futures_util::stream::iter(items))
        }
    }

    fn request() -> ModelRequest {
        ModelRequest {
            model: "m".into(),
            messages: Vec::new(),
            tools: Vec::new(),
            max_tokens: None,
            thinking: None,
        }
    }

    async fn collect(provider: &Retrying<Scripted>) -> Vec<Result<StreamEvent, ModelError>> {
        provider.stream(request()).collect().await
    }

    fn limited() -> Result<(), ModelError> {
        Err(ModelError::RateLimited { retry_after: None })
    }

    #[tokio::test(start_paused = true)]
    async fn a_rate_limited_call_is_asked_again_and_then_answers() {
        let scripted = Scripted::new(vec![limited(), limited(), Ok(())]);
        let events = collect(&Retrying::new(scripted.clone())).await;
        assert_eq!(events[0], Ok(StreamEvent::TextDelta("hello".into())));
        assert_eq!(events.len(), 3);
        assert_eq!(scripted.gaps(), vec![2, 8]);
    }

    #[tokio::test(start_paused = true)]
    async fn the_fourth_refusal_ends_the_call_once_with_the_count() {
        let scripted = Scripted::new(vec![limited(), limited(), limited(), limited(), Ok(())]);
        let events = collect(&Retrying::new(scripted.clone())).await;
        assert_eq!(
            events,
            vec![Err(ModelError::RateLimitExhausted { attempts: 4 })]
        );
        assert_eq!(scripted.gaps(), vec![2, 8, 30]);
    }

    #[tokio::test(start_paused = true)]
    async fn budget_auth_and_missing_key_are_not_asked_again() {
        for error in [ModelError::Budget, ModelError::Auth, ModelError::MissingKey] {
            let scripted = Scripted::new(vec![Err(error.clone()), Ok(())]);
            let events = collect(&Retrying::new(scripted.clone())).await;
            assert_eq!(events, vec![Err(error)]);
            assert_eq!(scripted.calls.lock().unwrap().len(), 1);
        }
    }

    #[tokio::test(start_paused = true)]
    async fn dropping_the_stream_during_a_wait_makes_no_further_call() {
        let scripted = Scripted::new(vec![limited(), Ok(())]);
        let retrying = Retrying::new(scripted.clone());
        let mut stream = retrying.stream(request());
        let waited = tokio::time::timeout(Duration::from_secs(1), stream.next()).await;
        assert!(waited.is_err(), "still waiting out the first backoff");
        drop(stream);
        tokio::time::sleep(Duration::from_secs(60)).await;
        assert_eq!(scripted.calls.lock().unwrap().len(), 1);
    }
}

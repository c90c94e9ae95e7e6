//! Out-of-app delivery (#355, #1263): the notifier's policy over the two
//! real transports, each against a loopback server that speaks its API's
//! request and answer shapes (Slack's `chat.postMessage`, a Feishu custom
//! bot's webhook), 429s and error bodies included, on paused time; and a
//! scheduled run's answer going out through Slack.

use crate::schedules::{BASE, every, settled_run};
use flybot_host::notify::feishu::FeishuWebhook;
use flybot_host::notify::notifier::{Notifier, Outcome, Transport};
use flybot_host::notify::slack::SlackTransport;
use flybot_host::notify::{NotifyConfig, SlackConfig};
use flybot_testkit::api_fake::{Answer, ApiFake};
use flybot_testkit::{Kit, ManualClock};
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    // No timeout: on a paused clock a request timer would fire at once.
    reqwest::Client::builder().build().unwrap()
}

/// A variable every test process has, standing in for the token's.
const TOKEN_ENV: &str = "HOME";

fn slack(fake: &ApiFake) -> Arc<dyn Transport> {
    Arc::new(SlackTransport {
        http: http(),
        api: format!("{}/api", fake.base_url),
        token_env: TOKEN_ENV.to_owned(),
        channel: "C024BE91L".to_owned(),
    })
}

fn feishu(fake: &ApiFake) -> Arc<dyn Transport> {
    let url = format!("{}/open-apis/bot/v2/hook/abc-123", fake.base_url);
    Arc::new(FeishuWebhook::new(http(), &url, &fake.base_url).unwrap())
}

fn on() -> Arc<dyn Fn() -> bool + Send + Sync> {
    Arc::new(|| true)
}

fn slack_ok() -> Answer {
    Answer::json(
        200,
        json!({"ok": true, "channel": "C024BE91L", "ts": "1503435956.000247",
                             "message": {"text": "hi", "type": "message"}}),
    )
}

#[tokio::test(start_paused = true)]
/// Rule #355.
async fn notify_slack_posts_chat_postmessage_and_a_repeat_key_answers_duplicate() {
    let fake = ApiFake::start(vec![slack_ok()]);
    let notifier = Notifier::new(slack(&fake), on());
    let first = notifier.send("task-1:100", "Standup: done").await;
    assert_eq!(
        first,
        Outcome::Sent {
            id: "1503435956.000247".into()
        }
    );
    let again = notifier.send("task-1:100", "Standup: done").await;
    assert_eq!(
        again,
        Outcome::Duplicate {
            id: "1503435956.000247".into()
        }
    );
    let seen = fake.seen();
    assert_eq!(seen.len(), 1, "a repeat never reaches Slack");
    assert_eq!(seen[0].path, "/api/chat.postMessage");
    assert_eq!(
        seen[0].body,
        json!({"channel": "C024BE91L", "text": "Standup: done"})
    );
    let token = std::env::var(TOKEN_ENV).unwrap();
    assert_eq!(seen[0].authorization, Some(format!("Bearer {token}")));
}

#[tokio::test(start_paused = true)]
/// Rule #355.
async fn notify_slack_429_waits_its_retry_after_as_a_floor_then_sends() {
    let limited = Answer::json(429, json!({"ok": false, "error": "ratelimited"}))
        .with_header("retry-after", "3");
    let fake = ApiFake::start(vec![limited, slack_ok()]);
    let notifier = Notifier::new(slack(&fake), on());
    let start = tokio::time::Instant::now();
    let outcome = notifier.send("k", "hi").await;
    assert_eq!(
        outcome,
        Outcome::Sent {
            id: "1503435956.000247".into()
        }
    );
    assert!(
        start.elapsed() >= Duration::from_secs(3),
        "Retry-After is a floor over the 500 ms backoff"
    );
    assert_eq!(fake.seen().len(), 2);
}

#[tokio::test(start_paused = true)]
/// Rule #355.
async fn notify_a_structural_failure_is_permanent_after_one_call() {
    let fake = ApiFake::start(vec![Answer::json(
        200,
        json!({"ok": false, "error": "channel_not_found"}),
    )]);
    let notifier = Notifier::new(slack(&fake), on());
    let failed = Outcome::Failed {
        error: "channel_not_found".into(),
        permanent: true,
    };
    assert_eq!(notifier.send("k", "hi").await, failed);
    assert_eq!(
        notifier.send("k", "hi").await,
        failed,
        "answered without another call"
    );
    assert_eq!(fake.seen().len(), 1);
}

#[tokio::test(start_paused = true)]
/// Rule #355.
async fn notify_three_attempts_then_failed_and_a_later_send_may_try_again() {
    let fake = ApiFake::start(vec![Answer::json(
        503,
        json!({"ok": false, "error": "service_unavailable"}),
    )]);
    let notifier = Notifier::new(slack(&fake), on());
    let outcome = notifier.send("k", "hi").await;
    assert!(
        matches!(
            outcome,
            Outcome::Failed {
                permanent: false,
                ..
            }
        ),
        "{outcome:?}"
    );
    assert_eq!(fake.seen().len(), 3);
    notifier.send("k", "hi").await;
    assert_eq!(fake.seen().len(), 6, "running out is not a verdict");
}

#[tokio::test(start_paused = true)]
/// Rule #355.
async fn notify_off_makes_zero_calls_and_switching_off_stops_a_waiting_retry() {
    let fake = ApiFake::start(vec![Answer::json(
        429,
        json!({"ok": false, "error": "ratelimited"}),
    )]);
    let off = Notifier::new(slack(&fake), Arc::new(|| false));
    assert_eq!(off.send("k", "hi").await, Outcome::Off);
    assert!(fake.seen().is_empty());
    // On for the first attempt only: the backoff's end finds it off.
    let looks = Arc::new(AtomicUsize::new(0));
    let counted = looks.clone();
    let once = Notifier::new(
        slack(&fake),
        Arc::new(move || counted.fetch_add(1, Ordering::SeqCst) == 0),
    );
    assert_eq!(once.send("k2", "hi").await, Outcome::Off);
    assert_eq!(fake.seen().len(), 1);
}

#[tokio::test(start_paused = true)]
/// Rule #355.
async fn notify_a_send_in_flight_is_joined() {
    let limited = Answer::json(429, json!({"ok": false, "error": "ratelimited"}))
        .with_header("retry-after", "1");
    let fake = ApiFake::start(vec![limited, slack_ok()]);
    let notifier = Notifier::new(slack(&fake), on());
    let (a, b) = tokio::join!(notifier.send("k", "hi"), notifier.send("k", "hi"));
    assert_eq!(
        a,
        Outcome::Sent {
            id: "1503435956.000247".into()
        }
    );
    assert_eq!(b, a);
    assert_eq!(
        fake.seen().len(),
        2,
        "one send's two attempts, nothing for the joined one"
    );
}

#[tokio::test(start_paused = true)]
/// Rule #1263.
async fn feishu_webhook_posts_text_and_reads_the_verdict_in_the_body() {
    let fake = ApiFake::start(vec![
        Answer::json(
            200,
            json!({"code": 9499, "msg": "too many request", "data": {}}),
        ),
        Answer::json(429, json!({"code": 9499, "msg": "too many request"}))
            .with_header("retry-after", "2"),
        Answer::json(200, json!({"code": 0, "msg": "success", "data": {}})),
    ]);
    let notifier = Notifier::new(feishu(&fake), on());
    assert_eq!(
        notifier.send("k", "Standup: done").await,
        Outcome::Sent {
            id: "feishu".into()
        }
    );
    let seen = fake.seen();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0].path, "/open-apis/bot/v2/hook/abc-123");
    assert_eq!(
        seen[0].body,
        json!({"msg_type": "text", "content": {"text": "Standup: done"}})
    );
    assert_eq!(seen[0].authorization, None, "the URL is the credential");
}

#[tokio::test(start_paused = true)]
/// Rule #1263.
async fn feishu_a_refused_signature_is_permanent_and_the_url_must_be_on_the_origin() {
    let fake = ApiFake::start(vec![Answer::json(
        200,
        json!({"code": 19021, "msg": "sign match fail or timestamp is not within one hour from current time"}),
    )]);
    let notifier = Notifier::new(feishu(&fake), on());
    let outcome = notifier.send("k", "hi").await;
    assert!(
        matches!(outcome, Outcome::Failed { permanent: true, ref error } if error.starts_with("Feishu code 19021")),
        "{outcome:?}"
    );
    assert_eq!(fake.seen().len(), 1);
    let elsewhere = FeishuWebhook::new(
        http(),
        "https://evil.example/open-apis/bot/v2/hook/x",
        "https://open.feishu.cn",
    );
    assert_eq!(
        elsewhere.err().unwrap(),
        "A Feishu webhook must be https on https://open.feishu.cn."
    );
    let plain = FeishuWebhook::new(
        http(),
        "http://open.feishu.cn/open-apis/bot/v2/hook/x",
        "http://open.feishu.cn",
    );
    assert!(plain.is_err(), "plain http off loopback is refused");
}

#[tokio::test]
/// Rule #355.
async fn notify_a_scheduled_runs_answer_goes_out_through_slack_when_the_team_turns_it_on() {
    let fake = ApiFake::start(vec![slack_ok()]);
    let clock = ManualClock::at(BASE);
    let api = format!("{}/api", fake.base_url);
    let kit = Kit::with_config(|config| {
        config.schedule_clock = clock.schedule_clock();
        config.notify = NotifyConfig {
            slack: Some(SlackConfig {
                token_env: TOKEN_ENV.into(),
                channel: "C024BE91L".into(),
                api,
            }),
            feishu: None,
        };
    })
    .await;
    let ada = kit.bot("Ada").await;
    let id = every(&kit, &ada.id, 60).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    kit.advance(&clock, Duration::from_secs(60));
    settled_run(&kit, &id).await;
    kit.settled().await;
    assert!(fake.seen().is_empty(), "off until the team turns it on");
    kit.ok("set-prefs", json!({"prefs": {"outOfApp": {"slack": true}}}))
        .await;
    kit.advance(&clock, Duration::from_secs(60));
    kit.until_some("the run's answer reaches Slack", async || {
        (fake.seen().len() == 1).then_some(())
    })
    .await;
    let text = fake.seen()[0].body["text"].as_str().unwrap().to_owned();
    assert!(text.starts_with("Standup: "), "{text}");
}

/// #1712: the Project Assistant's digest is one delivery a day through the
/// out-of-app notifier when it is on, and so is its escalation while no
/// GitHub connector is signed in; a second run the same day sends nothing.
#[tokio::test]
/// Rule #1712.
async fn the_digest_and_its_escalation_go_out_once_a_day_through_the_out_of_app_notifier() {
    let fake = ApiFake::start(vec![slack_ok()]);
    let clock = ManualClock::at(flybot_store::system_now_ms() + 24 * 60 * 60 * 1000);
    let api = format!("{}/api", fake.base_url);
    let kit = Kit::with_config(|config| {
        config.schedule_clock = clock.schedule_clock();
        config.notify = NotifyConfig {
            slack: Some(SlackConfig {
                token_env: TOKEN_ENV.into(),
                channel: "C024BE91L".into(),
                api,
            }),
            feishu: None,
        };
    })
    .await;
    kit.ok("set-prefs", json!({"prefs": {"outOfApp": {"slack": true}}}))
        .await;
    let answer = kit.ok("project-create", json!({"name": "Site"})).await;
    let digest = json!({"project": answer["project"]["id"]});
    let texts = || -> Vec<String> {
        fake.seen()
            .iter()
            .map(|s| s.body["text"].as_str().unwrap_or("").to_owned())
            .collect()
    };
    // No connector: refused twice, escalated out of the app once.
    for _ in 0..2 {
        kit.refused("project-digest", digest.clone(), "bot/forbidden")
            .await;
    }
    kit.until_some("the escalation reaches Slack", async || {
        (!texts().is_empty()).then_some(())
    })
    .await;
    let Some(server) = crate::connectors::everything() else {
        return;
    };
    kit.ok(
        "secret-set",
        json!({"name": "GITHUB_TOKEN", "value": "ghp_test"}),
    )
    .await;
    let body = json!({"id": "github", "command": ["node", server, "stdio"],
                      "env": {"GITHUB_LOGIN": "ada-gh"}});
    kit.ok("connector-connect", body).await;
    let first = kit.ok("project-digest", digest.clone()).await;
    assert_eq!(first["skipped"], false);
    let again = kit.ok("project-digest", digest.clone()).await;
    assert_eq!(again["skipped"], true);
    kit.until_some("the digest reaches Slack", async || {
        (texts().len() == 2).then_some(())
    })
    .await;
    kit.settled().await;
    let sent = texts();
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert!(
        sent[0].starts_with("The Project Assistant did not post today's digest:")
            && sent[0].contains("GitHub connector"),
        "{sent:?}"
    );
    assert_eq!(
        sent[1],
        first["digest"]["text"].as_str().unwrap(),
        "{sent:?}"
    );
}

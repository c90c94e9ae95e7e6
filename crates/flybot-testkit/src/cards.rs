//! Task cards for the board tests: make a card and walk it to any status
//! through the channel, read a card as stored, give a Bot a role, and await
//! a card's move or the task drive's reminder.

use crate::{Caller, Kit};
use serde_json::{Value, json};

/// Every status, in the order `card_in` can reach them.
pub const STATUSES: [&str; 8] = [
    "open",
    "claimed",
    "working",
    "blocked",
    "result-ready",
    "accepted",
    "cancelled",
    "failed",
];

/// The request body that makes `endpoint` move card `id`.
pub fn move_body(endpoint: &str, id: &str, question: Option<&str>) -> Value {
    match endpoint {
        "task-return" => json!({"id": id, "summary": "Result."}),
        "task-wait-input" => json!({"id": id, "question": "Which?"}),
        "task-answer-input" => {
            json!({"id": id, "questionId": question.unwrap_or("question-none"), "answer": "This."})
        }
        "task-send-back" => json!({"id": id, "note": "Needs tests."}),
        _ => json!({"id": id}),
    }
}

/// The endpoints that walk a new card to `status`; "wait", "return" and
/// "delete-bot" take more than the card's id.
fn path_to(status: &str) -> &'static [&'static str] {
    match status {
        "open" => &[],
        "claimed" => &["task-accept"],
        "working" => &["task-accept", "task-start"],
        "blocked" => &["task-accept", "task-start", "wait"],
        "result-ready" => &["task-accept", "task-start", "return"],
        "accepted" => &["task-accept", "task-start", "return", "task-accept-result"],
        "cancelled" => &["task-cancel"],
        "failed" => &["task-accept", "task-start", "delete-bot"],
        other => panic!("no path to {other}"),
    }
}

impl Caller<'_> {
    /// Creates a card for `bot` and answers its id.
    pub async fn card(&self, bot: &str, title: &str) -> String {
        self.card_from(json!({"botId": bot, "title": title})).await
    }

    /// Creates a card from a whole `task-create` body (a room, a parent, a
    /// priority...) and answers its id.
    pub async fn card_from(&self, body: Value) -> String {
        let answer = self.ok("task-create", body).await;
        answer["task"]["id"].as_str().unwrap().to_owned()
    }

    /// A card in `status`, made through the channel; answers (id, question
    /// id). A failed card needs its Bot deleted, so it gets a Bot of its own.
    pub async fn card_in(&self, bot: &str, status: &str) -> (String, Option<String>) {
        let kit = self.kit();
        let bot = if status == "failed" {
            let name = format!("Doomed {}", kit.host.store().revision());
            self.bot(&name).await.id
        } else {
            bot.to_owned()
        };
        let id = self.card(&bot, &format!("card {status}")).await;
        let mut question = None;
        for step in path_to(status) {
            match *step {
                "wait" => {
                    let body = json!({"id": id, "question": "Which one?"});
                    let answer = self.ok("task-wait-input", body).await;
                    let asked = &answer["task"]["inputRequest"]["id"];
                    question = Some(asked.as_str().unwrap().to_owned());
                }
                "return" => {
                    let body = json!({"id": id, "summary": "Done it."});
                    self.ok("task-return", body).await;
                }
                "delete-bot" => {
                    self.ok("delete-bot", json!({"id": bot})).await;
                }
                endpoint => {
                    self.ok(endpoint, json!({"id": id})).await;
                }
            }
        }
        assert_eq!(kit.record(&id)["status"], status);
        (id, question)
    }
}

impl Kit {
    /// `anyone().card(..)`.
    pub async fn card(&self, bot: &str, title: &str) -> String {
        self.anyone().card(bot, title).await
    }

    /// `anyone().card_from(..)`.
    pub async fn card_from(&self, body: Value) -> String {
        self.anyone().card_from(body).await
    }

    /// `anyone().card_in(..)`.
    pub async fn card_in(&self, bot: &str, status: &str) -> (String, Option<String>) {
        self.anyone().card_in(bot, status).await
    }

    /// The card as the store holds it.
    pub fn record(&self, id: &str) -> Value {
        self.host
            .store()
            .read(|s| serde_json::to_value(&s.tasks[id]).unwrap())
    }

    /// How many cards the store holds.
    pub fn task_count(&self) -> usize {
        self.host.store().read(|s| s.tasks.len())
    }

    /// Gives a Bot a role: a Bot carries its role in its record's `role`
    /// field, which no endpoint of a person's sets directly.
    pub async fn set_role(&self, bot: &str, role: &str) {
        let (bot, role) = (bot.to_owned(), role.to_owned());
        self.host
            .team()
            .mutate("test", move |change| {
                let mut record = change.state().bots[&bot].clone();
                record.role = Some(role);
                change.put_bot(&record);
                Ok(())
            })
            .await
            .unwrap();
    }

    /// Awaits card `id` reaching `status`; answers the card as stored.
    pub async fn card_when(&self, id: &str, status: &str) -> Value {
        let what = format!("card {id} becomes {status}");
        let reached = || self.host.store().read(|s| s.tasks.get(id).cloned());
        self.until(&what, || {
            reached().is_some_and(|card| serde_json::to_value(card.status).unwrap() == status)
        })
        .await;
        self.record(id)
    }

    /// After a decision on a targeted card the task drive wakes the card's
    /// Bot in the background with a reminder to post the decision comment
    /// (#1172). Awaits the reminder in the Bot's chat, the chat going idle
    /// and a quiet home, so a refusal's unchanged-home check is not raced by
    /// the drive.
    pub async fn reminder_settled(&self, task_id: &str) {
        let bot = self.record(task_id)["botId"].as_str().unwrap().to_owned();
        let session = self.host.store().read(|s| s.bots[&bot].session_id.clone());
        self.until("the decision reminder reaches the Bot's chat", || {
            self.user_texts(&session)
                .iter()
                .any(|text| text.contains("Post the decision comment"))
        })
        .await;
        self.idle(&session).await;
        self.settled().await;
    }
}

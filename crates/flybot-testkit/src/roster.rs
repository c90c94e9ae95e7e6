//! Bots and rooms made through the channel, as the ids and Sessions a test
//! goes on to use.

use crate::{Caller, Kit};
use serde_json::{Value, json};

/// A Bot made through the channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bot {
    pub id: String,
    pub name: String,
    /// The Bot's own chat Session.
    pub session: String,
}

/// A room made through the channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Room {
    pub id: String,
    pub name: String,
}

impl Bot {
    /// Reads a Bot out of a `create-bot` (or any `{bot}`) answer.
    pub fn from_answer(answer: &Value) -> Bot {
        let text = |key: &str| answer["bot"][key].as_str().unwrap().to_owned();
        Bot {
            id: text("id"),
            name: text("name"),
            session: text("sessionId"),
        }
    }
}

impl Room {
    /// Reads a room out of a `create-room` (or any `{room}`) answer.
    pub fn from_answer(answer: &Value) -> Room {
        let text = |key: &str| answer["room"][key].as_str().unwrap().to_owned();
        Room {
            id: text("id"),
            name: text("name"),
        }
    }
}

impl Caller<'_> {
    /// `create-bot {name}`.
    pub async fn bot(&self, name: &str) -> Bot {
        self.bot_from(json!({"name": name})).await
    }

    /// One Bot per name, made in order.
    pub async fn bots<const N: usize>(&self, names: [&str; N]) -> [Bot; N] {
        let mut made = Vec::with_capacity(N);
        for name in names {
            made.push(self.bot(name).await);
        }
        made.try_into().unwrap()
    }

    /// `create-bot` with a whole body (a model, an `external` record...).
    pub async fn bot_from(&self, body: Value) -> Bot {
        Bot::from_answer(&self.ok("create-bot", body).await)
    }

    /// `create-room` with `members`, the first of them its admin.
    pub async fn room(&self, name: &str, members: &[&Bot]) -> Room {
        let ids: Vec<&str> = members.iter().map(|b| b.id.as_str()).collect();
        let admin = ids.first().copied();
        self.room_from(json!({"name": name, "members": ids, "admin": admin}))
            .await
    }

    /// `create-room` with a whole body (an admin that is not the first...).
    pub async fn room_from(&self, body: Value) -> Room {
        Room::from_answer(&self.ok("create-room", body).await)
    }
}

impl Kit {
    /// `anyone().bot(..)`.
    pub async fn bot(&self, name: &str) -> Bot {
        self.anyone().bot(name).await
    }

    /// `anyone().bots(..)`.
    pub async fn bots<const N: usize>(&self, names: [&str; N]) -> [Bot; N] {
        self.anyone().bots(names).await
    }

    /// `anyone().room(..)`.
    pub async fn room(&self, name: &str, members: &[&Bot]) -> Room {
        self.anyone().room(name, members).await
    }

    /// `anyone().room_from(..)`.
    pub async fn room_from(&self, body: Value) -> Room {
        self.anyone().room_from(body).await
    }

    /// The Session `bot` speaks through in `room` (its seat).
    pub fn seat(&self, room: &Room, bot: &Bot) -> String {
        self.host
            .store()
            .read(|s| s.rooms[&room.id].sessions[&bot.id].clone())
    }

    /// The id of the Bot named `name`.
    pub fn bot_named(&self, name: &str) -> String {
        self.host.store().read(|s| {
            s.bots
                .values()
                .find(|b| b.name == name)
                .map(|b| b.id.clone())
                .unwrap_or_else(|| panic!("no Bot named {name}"))
        })
    }
}

//! A local Bot writes to a friend's Bot (issue 33): `message_bot` with a
//! name no Bot of the team has asks here. The name is the friend's Bot's
//! one label or title (#498, #967); only the home owner's Bots speak for
//! the home (#90: the other home judges the rest with its own grants); a
//! share that ended gets #404's sentence. The line goes through the
//! journaled outbox like a person's, marked as not typed by a person
//! (#227), and the answer comes back to the chat of the Bot that asked
//! (each asker its own answer). A Bot whose policy is `ask-first` has its
//! line held for the owner's Send or Don't send (#52) instead.

use super::Social;
use flybot_core::access::{enforced, host_owner_id};
use flybot_core::social::{LINES_KEPT, NOT_SHARED, friend_bot_title, remote_mention_label};
use flybot_protocol::TeamState;
use flybot_protocol::social::{
    Asker, HeldItem, LINE_KEY, LineContent, OutboxItem, RemoteLine, RoomSide, SendPolicy,
};
use serde_json::json;

/// The friend's Bot room `name` names: its label or its title, any case.
fn room_named(state: &TeamState, name: &str) -> Option<String> {
    let wanted = name.trim().to_lowercase();
    let theirs: Vec<_> = (state.social.rooms.values())
        .filter(|r| r.side == RoomSide::Theirs)
        .map(|r| (r, friend_bot_title(&r.bot_name, &r.owner_name)))
        .collect();
    let others: Vec<(&str, &str)> = (theirs.iter())
        .map(|(r, t)| (t.as_str(), r.peer.as_str()))
        .collect();
    let named = theirs.iter().filter(|(r, title)| {
        let label = remote_mention_label(title, &r.peer, &others);
        label.to_lowercase() == wanted || title.to_lowercase() == wanted
    });
    let rooms: Vec<String> = named.map(|(r, _)| r.room_id.clone()).collect();
    // Two homes' Bots under one title: only the label with the home names one.
    match rooms.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// Whether `bot_id` is the home owner's Bot: only those speak for the home.
pub(super) fn speaks_for_home(state: &TeamState, bot_id: &str) -> bool {
    let Some(bot) = state.bots.get(bot_id).filter(|b| !b.is_retired()) else {
        return false;
    };
    !enforced(state) || host_owner_id(state).as_deref() == Some(bot.owner_id.as_str())
}

impl Social {
    /// `message_bot` to a friend's Bot; `None` when no friend's Bot has
    /// that name.
    pub async fn bot_send(
        &self,
        from_bot: &str,
        name: &str,
        text: &str,
    ) -> Option<Result<String, String>> {
        let room_id = self.team().read(|state| room_named(state, name))?;
        let Some((account, _)) = self.matrix() else {
            return Some(Err(
                "This home is not connected to Matrix now; ask your owner to connect it in Settings."
                    .to_owned(),
            ));
        };
        let (from_bot, text) = (from_bot.to_owned(), text.to_owned());
        let id = format!("out-{}", crate::ids::new_id("m"));
        let sent = self
            .team()
            .mutate("social", move |change| {
                let state = change.state();
                if !speaks_for_home(state, &from_bot) {
                    return Ok(Err(
                        "Only the home owner's Bots write to friends' Bots; ask your owner."
                            .to_owned(),
                    ));
                }
                let Some(mut room) = state.social.rooms.get(&room_id).cloned() else {
                    return Ok(Err(NOT_SHARED.to_owned()));
                };
                if !room.shared {
                    return Ok(Err(NOT_SHARED.to_owned()));
                }
                let now = change.now_ms();
                let item = OutboxItem {
                    id: id.clone(),
                    room_id: room.room_id.clone(),
                    content: json!({
                        "msgtype": "m.text",
                        "body": text,
                        // #227: a Bot wrote it, not a person.
                        LINE_KEY: LineContent::Ask { typed: false },
                    }),
                    created_at: now,
                    attempts: 0,
                    next_at: 0,
                };
                let policy = (state.social.policies.get(&from_bot).copied()).unwrap_or_default();
                let held = policy == SendPolicy::AskFirst;
                if held {
                    let friend = room.peer.clone();
                    let bot_id = from_bot.clone();
                    let held = HeldItem { item, bot_id, friend, reply: false, at: now };
                    change.put_held(&held);
                } else {
                    change.put_outbox(&item);
                    // #443: waiting on the reply from now on.
                    room.awaiting = true;
                }
                room.askers.push(Asker {
                    outbox_id: id.clone(),
                    event_id: None,
                    bot: from_bot.clone(),
                });
                let over = room.askers.len().saturating_sub(LINES_KEPT);
                room.askers.drain(..over);
                room.lines.push(RemoteLine {
                    id,
                    from_home: account.user_id.clone(),
                    bot: Some(from_bot.clone()),
                    verified: true,
                    typed_by: None,
                    text,
                    at: now,
                    not_sent: None,
                });
                let over = room.lines.len().saturating_sub(LINES_KEPT);
                room.lines.drain(..over);
                let title = friend_bot_title(&room.bot_name, &room.owner_name);
                change.put_social_room(&room);
                Ok(Ok(match held {
                    true => format!(
                        "Held for your owner's approval; it goes to {title}, a friend's Bot, once they say Send, and its answer comes to your chat."
                    ),
                    false => format!(
                        "Sent to {title}, a friend's Bot; its answer comes to your chat."
                    ),
                }))
            })
            .await;
        self.inner.outbox_bell.notify_one();
        Some(sent.unwrap_or_else(|e| Err(e.message)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn parse<T: serde::de::DeserializeOwned>(value: Value) -> T {
        serde_json::from_value(value).unwrap()
    }

    fn bot(id: &str, owner: &str) -> Value {
        json!({"id": id, "name": id, "ownerId": owner, "model": "mock", "instructions": "",
               "sessionId": format!("s-{id}"), "createdAt": 1, "updatedAt": 1})
    }

    fn room(id: &str, bot_name: &str, owner: &str, peer: &str) -> Value {
        json!({"roomId": id, "side": "theirs", "peer": peer, "bot": "b", "botName": bot_name,
               "ownerName": owner, "shared": true})
    }

    #[test]
    /// Rule #90.
    fn only_the_home_owners_bots_write_to_friends_bots() {
        let mut state = TeamState::default();
        state
            .bots
            .insert("mine".into(), parse(bot("mine", "m-owner")));
        state.bots.insert("ada".into(), parse(bot("ada", "m-ada")));
        let member = |id: &str, at: u64| parse(json!({"id": id, "name": id, "createdAt": at}));
        state.members.insert("m-owner".into(), member("m-owner", 1));
        // Alone in the home, the owner's Bots speak for it.
        assert!(speaks_for_home(&state, "mine"));
        state.members.insert("m-ada".into(), member("m-ada", 2));
        assert!(speaks_for_home(&state, "mine"));
        assert!(
            !speaks_for_home(&state, "ada"),
            "a member's Bot is not the home"
        );
        assert!(!speaks_for_home(&state, "nobody"));
    }

    #[test]
    /// Rule #967.
    fn a_friends_bot_is_named_by_its_label_and_a_shared_title_needs_the_home() {
        let mut state = TeamState::default();
        let rooms = [
            room("!a", "Helper", "Ann", "@ann:x"),
            room("!b", "Chief", "Bob", "@bob:x"),
            room("!c", "Chief", "Bob", "@bob2:y"),
        ];
        for r in rooms {
            let r: flybot_protocol::social::SocialRoom = parse(r);
            state.social.rooms.insert(r.room_id.clone(), r);
        }
        assert_eq!(room_named(&state, " helper (ann) "), Some("!a".into()));
        assert_eq!(
            room_named(&state, "Chief (Bob)"),
            None,
            "two homes: ambiguous"
        );
        assert_eq!(
            room_named(&state, "Chief (Bob) · @bob2:y"),
            Some("!c".into())
        );
        assert_eq!(room_named(&state, "Helper"), None);
    }
}

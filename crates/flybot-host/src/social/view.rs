//! The owner's view of Bot Social (issue 33): the account (never its
//! token), the link's status, friends and invites, friends' Bots titled by
//! the one formatter with the owner badge (#498) and labelled by the one
//! mention label (#967), kept as "no longer shared" when a share ends
//! (#956), each with its lines still in the
//! outbox (`pendingCount`, #371) and its last line as a row shows it
//! (#130); this home's published Bots, each Bot's waiting replies to
//! friends and its recent replies (`heldReplies`, #417, #418); and how
//! many sends wait in the outbox.

use super::Social;
use flybot_core::fences::preview::visible_text;
use flybot_core::social::{friend_bot_title, remote_mention_label};
use flybot_protocol::social::{
    LINE_KEY, LineContent, LocalBotView, OutboxItem, PublishedView, RemoteBotView, RoomSide,
    SocialRoom, SocialState, SocialView,
};
use std::collections::BTreeSet;

/// What an outbox item carries: a line to a friend's Bot, or a Bot's
/// reply (or refusal) to a friend.
fn line_of(item: &OutboxItem) -> Option<LineContent> {
    let line = item.content.get(LINE_KEY)?;
    serde_json::from_value(line.clone()).ok()
}

/// #371: this home's lines to a friend's Bot not taken by the homeserver,
/// or held for the owner (#52).
fn pending_in(social: &SocialState, room_id: &str) -> usize {
    let held = social.held.values().map(|h| &h.item);
    (social.outbox.values().chain(held))
        .filter(|item| item.room_id == room_id)
        .filter(|item| matches!(line_of(item), Some(LineContent::Ask { .. })))
        .count()
}

fn remote_bot(social: &SocialState, room: &SocialRoom, others: &[(&str, &str)]) -> RemoteBotView {
    let last = room.lines.last();
    let title = friend_bot_title(&room.bot_name, &room.owner_name);
    RemoteBotView {
        room_id: room.room_id.clone(),
        label: remote_mention_label(&title, &room.peer, others),
        title,
        owner: room.owner_name.clone(),
        home: room.peer.clone(),
        shared: room.shared,
        awaiting: room.awaiting,
        pending_count: pending_in(social, &room.room_id),
        preview: last.map(|l| visible_text(&l.text)).unwrap_or_default(),
        lines: room.lines.clone(),
    }
}

/// #418: a published Bot's replies to friends; the waiting ones counted.
fn local_bot(social: &SocialState, bot_id: &str) -> LocalBotView {
    let mut held_replies: Vec<_> = (social.replies.values())
        .filter(|r| r.bot_id == bot_id)
        .cloned()
        .collect();
    held_replies.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| a.id.cmp(&b.id)));
    // #371, #418: its replies not sent yet and its sends held.
    let waiting = (social.outbox.values())
        .filter(
            |item| matches!(line_of(item), Some(LineContent::Answer { bot, .. }) if bot == bot_id),
        )
        .count();
    let held = social.held.values().filter(|h| h.bot_id == bot_id).count();
    LocalBotView {
        bot_id: bot_id.to_owned(),
        pending_count: waiting + held,
        held_replies,
        policy: (social.policies.get(bot_id).copied()).unwrap_or_default(),
    }
}

impl Social {
    pub fn view(&self) -> SocialView {
        let mut link = self.link();
        // A standby leaves the homeserver to the leader until it takes
        // over (`Host::lead_once_taken_over`), and says so.
        if self.team().store().is_standby() {
            link.status = "standby";
        }
        self.team().read(|state| {
            let social = &state.social;
            let invites: BTreeSet<String> = social.invites.values().cloned().collect();
            let rooms = social.rooms.values();
            let theirs: Vec<(String, &str)> = (rooms.clone())
                .filter(|r| r.side == RoomSide::Theirs)
                .map(|r| {
                    (
                        friend_bot_title(&r.bot_name, &r.owner_name),
                        r.peer.as_str(),
                    )
                })
                .collect();
            let others: Vec<(&str, &str)> = theirs.iter().map(|(t, h)| (t.as_str(), *h)).collect();
            // Published Bots, and any with a policy or a held send.
            let published_bots: BTreeSet<&str> = (rooms.clone())
                .filter(|r| r.side == RoomSide::Mine)
                .map(|r| r.bot.as_str())
                .chain(social.policies.keys().map(String::as_str))
                .chain(social.held.values().map(|h| h.bot_id.as_str()))
                .filter(|bot| state.bots.contains_key(*bot))
                .collect();
            SocialView {
                account: social.account.clone(),
                status: link.status.to_owned(),
                last_error: link.last_error.clone(),
                invites: invites.into_iter().collect(),
                friends: social.friends.values().cloned().collect(),
                remote_bots: (rooms.clone())
                    .filter(|r| r.side == RoomSide::Theirs)
                    .map(|r| remote_bot(social, r, &others))
                    .collect(),
                published: rooms
                    .filter(|r| r.side == RoomSide::Mine)
                    .map(|r| PublishedView {
                        room_id: r.room_id.clone(),
                        bot_id: r.bot.clone(),
                        friend: r.peer.clone(),
                        shared: r.shared,
                    })
                    .collect(),
                bots: published_bots
                    .into_iter()
                    .map(|bot| local_bot(social, bot))
                    .collect(),
                pending_count: social.outbox.len(),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flybot_protocol::social::{HeldReply, ReplyStatus};
    use serde_json::json;

    fn item(id: &str, room: &str, line: serde_json::Value) -> OutboxItem {
        OutboxItem {
            id: id.to_owned(),
            room_id: room.to_owned(),
            content: json!({"msgtype": "m.text", "body": "x", LINE_KEY: line}),
            created_at: 1,
            attempts: 0,
            next_at: 0,
        }
    }

    fn reply(id: &str, status: ReplyStatus, at: u64) -> HeldReply {
        HeldReply {
            id: id.to_owned(),
            bot_id: "helper".to_owned(),
            policy: "auto-send".to_owned(),
            status,
            session_id: "s".to_owned(),
            turn: "t".to_owned(),
            friend: "@bob:x".to_owned(),
            to_owner: true,
            retry: None,
            error: None,
            at,
        }
    }

    #[test]
    /// Rules #371, #418.
    fn pending_counts_count_the_right_sends() {
        let mut social = SocialState::default();
        let sends = [
            item("a1", "!theirs", json!({"kind": "ask", "typed": true})),
            item("a2", "!theirs", json!({"kind": "ask", "typed": true})),
            item("r1", "!mine", json!({"kind": "answer", "bot": "helper"})),
            item("r2", "!mine", json!({"kind": "answer", "bot": "other"})),
            item("x1", "!mine", json!({"kind": "refused", "bot": "helper"})),
        ];
        for send in sends {
            social.outbox.insert(send.id.clone(), send);
        }
        social
            .replies
            .insert("r1".into(), reply("r1", ReplyStatus::Pending, 2));
        social
            .replies
            .insert("r0".into(), reply("r0", ReplyStatus::Auto, 1));
        // #371: a friend's chat counts this home's lines to it only.
        assert_eq!(pending_in(&social, "!theirs"), 2);
        assert_eq!(pending_in(&social, "!mine"), 0);
        // #418: a Bot counts its own replies waiting, newest listed first.
        let helper = local_bot(&social, "helper");
        assert_eq!(helper.pending_count, 1);
        let ids: Vec<&str> = helper.held_replies.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["r1", "r0"]);
        assert_eq!(local_bot(&social, "nobody").held_replies, []);
    }
}

//! Sends held for the owner (#52, #417, #418): a Bot whose policy is
//! `ask-first` (`social-policy`) has its replies to friends and its own
//! lines to friends' Bots held, text and all, outside the outbox. The
//! owner lists them beside the other holds (`approvals`, as
//! `friendHolds`) and says Send or Don't send (`social-hold-answer`).
//! Send checks `reach()` again first (#90, #52): a share that ended while
//! the send was held is not sent, and the reply is counted failed with
//! #404's sentence and no Retry (#954). A face-to-face room's line is
//! held the same way and decided by the face rooms' own rule
//! (`face_to_face::held`, #456).

use super::Social;
use super::bot_send::speaks_for_home;
use super::connect::check_owner;
use super::face_to_face::held::{self as face_held, is_face_hold, room_of_hold};
use super::outbox::{mark_not_sent, settle_reply};
use flybot_core::access::{Actor, enforced};
use flybot_core::social::{NOT_SHARED, friend_bot_title, is_home_owner, reach};
use flybot_protocol::social::{
    FriendHold, HeldItem, HoldDecided, LocalBotView, ReplyStatus, RoomSide, SocialHoldAnswer,
    SocialPolicy,
};
use flybot_protocol::{ApiError, TeamState};
use flybot_store::Change;

/// The sentence on a line its owner chose not to send.
pub const NOT_SENT_BY_OWNER: &str = "Not sent: you chose Don't send for this message.";

/// Whether `actor` may decide `bot_id`'s holds: the home's owner, for
/// their own Bot.
fn decides_for(state: &TeamState, actor: &Actor, bot_id: &str) -> bool {
    let owner = state.bots.get(bot_id).map(|b| b.owner_id.as_str());
    is_home_owner(state, actor) && (!enforced(state) || actor.member_id(state).as_deref() == owner)
}

/// #52: the held sends `actor` decides, oldest first, for the approvals
/// list.
pub fn friend_holds(state: &TeamState, actor: &Actor) -> Vec<FriendHold> {
    let mut holds: Vec<FriendHold> = (state.social.held.values())
        .filter(|h| decides_for(state, actor, &h.bot_id))
        .map(|h| {
            let face_room = is_face_hold(h).then(|| room_of_hold(h));
            let to = match (&face_room, h.reply) {
                (Some(room), _) => (state.rooms.get(room))
                    .map(|r| r.name.clone())
                    .unwrap_or_else(|| "a face-to-face room".to_owned()),
                (None, true) => h.friend.clone(),
                (None, false) => (state.social.rooms.get(&h.item.room_id))
                    .map(|r| friend_bot_title(&r.bot_name, &r.owner_name))
                    .unwrap_or_else(|| h.friend.clone()),
            };
            (h, face_room, to)
        })
        .map(|(h, face_room, to)| FriendHold {
            id: h.item.id.clone(),
            kind: "friend-hold",
            bot_id: h.bot_id.clone(),
            friend: h.friend.clone(),
            to,
            room_id: face_room,
            reply: h.reply,
            text: (h.item.content.get("body").and_then(|b| b.as_str()))
                .unwrap_or_default()
                .to_owned(),
            at: h.at,
        })
        .collect();
    holds.sort_by(|a, b| (a.at, &a.id).cmp(&(b.at, &b.id)));
    holds
}

/// #52: whether a held send may still go: a reply only while its Bot is
/// granted to the friend (#90), a line to a friend's Bot only while that
/// Bot is shared and the sender speaks for the home.
fn still_reaches(state: &TeamState, held: &HeldItem) -> bool {
    let room = state.social.rooms.get(&held.item.room_id);
    match held.reply {
        true => {
            room.is_some_and(|r| r.side == RoomSide::Mine)
                && reach(state, &held.bot_id, &held.friend).is_ok()
        }
        false => {
            room.is_some_and(|r| r.side == RoomSide::Theirs && r.shared)
                && speaks_for_home(state, &held.bot_id)
        }
    }
}

/// One decision, in the change that records it.
fn decide(change: &mut Change<'_>, held: HeldItem, send: bool) -> HoldDecided {
    let id = held.item.id.clone();
    change.remove_held(&id);
    if is_face_hold(&held) {
        let (status, error) = face_held::decide(change, &held, send);
        return HoldDecided {
            id,
            status,
            error: error.map(str::to_owned),
        };
    }
    let (status, error) = match (send, still_reaches(change.state(), &held)) {
        (false, _) => (ReplyStatus::Rejected, Some(NOT_SENT_BY_OWNER)),
        (true, true) => (ReplyStatus::Approved, None),
        // #404: the share ended while it was held.
        (true, false) => (ReplyStatus::Failed, Some(NOT_SHARED)),
    };
    match status {
        ReplyStatus::Approved => {
            let mut item = held.item.clone();
            // In the order the owner lets sends go.
            item.created_at = change.now_ms();
            change.put_outbox(&item);
            if let Some(reply) = change.state().social.replies.get(&id).cloned() {
                change.put_reply(&flybot_protocol::social::HeldReply {
                    status: ReplyStatus::Approved,
                    ..reply
                });
            }
            if !held.reply
                && let Some(mut room) = change.state().social.rooms.get(&item.room_id).cloned()
            {
                // #443: waiting on the reply from now on.
                room.awaiting = true;
                change.put_social_room(&room);
            }
        }
        ReplyStatus::Rejected | ReplyStatus::Failed => {
            let why = error.unwrap_or(NOT_SHARED);
            settle_reply(change, &id, status, Some(why));
            mark_not_sent(change, &held.item, why);
        }
        ReplyStatus::Pending | ReplyStatus::Auto => {}
    }
    HoldDecided {
        id,
        status,
        error: error.map(str::to_owned),
    }
}

impl Social {
    /// `social-policy {botId, policy}`: how one of the owner's own Bots
    /// sends to friends from now on (a send already held stays held).
    pub async fn set_policy(
        &self,
        actor: &Actor,
        req: SocialPolicy,
    ) -> Result<LocalBotView, ApiError> {
        check_owner(self, actor)?;
        self.check_own_bot(actor, &req.bot_id)?;
        let bot_id = req.bot_id.clone();
        self.team()
            .mutate("social", move |change| {
                let known = change.state().bots.get(&bot_id);
                if known.is_none_or(|b| b.is_retired()) {
                    return Err(ApiError::not_found("Bot", &bot_id));
                }
                change.set_send_policy(&bot_id, req.policy);
                Ok(())
            })
            .await?;
        let view = self.view();
        let mine = view.bots.into_iter().find(|b| b.bot_id == req.bot_id);
        Ok(mine.unwrap_or(LocalBotView {
            bot_id: req.bot_id,
            pending_count: 0,
            held_replies: Vec::new(),
            policy: req.policy,
        }))
    }

    /// `social-hold-answer {id, send}`: the owner's Send or Don't send.
    pub async fn answer_hold(
        &self,
        actor: &Actor,
        req: SocialHoldAnswer,
    ) -> Result<HoldDecided, ApiError> {
        check_owner(self, actor)?;
        let actor = actor.clone();
        let decided = self
            .team()
            .mutate("social", move |change| {
                let held = change.state().social.held.get(&req.id).cloned();
                let Some(held) = held else {
                    return Err(ApiError::not_found("held message", &req.id));
                };
                if !decides_for(change.state(), &actor, &held.bot_id) {
                    return Err(ApiError::forbidden(
                        "Only the owner of the Bot that wrote this message decides whether it is sent.",
                    ));
                }
                Ok(decide(change, held, req.send))
            })
            .await?;
        self.inner.outbox_bell.notify_one();
        Ok(decided)
    }
}

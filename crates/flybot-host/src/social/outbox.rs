//! The outbox (issue 33): every send is first a journaled outbox item, so
//! a send acknowledged to a person survives a crash; the loop sends the
//! oldest item first under its outbox id as the Matrix transaction id (a
//! retry after a crash is the same transaction, never a second message),
//! retries a homeserver that cannot be reached with backoff (and at once
//! when the sync finds it back) and keeps the order, and takes an item out
//! only once the homeserver answered. A refusal that retrying cannot
//! change ends the item, and a person's line says why in #404's one
//! sentence. An answer from one of this home's Bots
//! is checked by `reach()` before every try (#90, #52).

use super::Social;
use super::client::MatrixError;
use flybot_core::access::Actor;
use flybot_core::names::LINE_MAX;
use flybot_core::social::{NOT_SENT, NOT_SHARED, backoff_ms, reach};
use flybot_protocol::social::{
    HeldItem, HeldReply, LINE_KEY, LineContent, OutboxItem, RemoteLine, ReplyStatus, RoomSide,
    SocialSend, SocialSent,
};
use flybot_protocol::{ApiError, ErrorCode};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// A short, URL-safe digest of `text`, for outbox ids made from event ids.
pub fn short_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    flybot_core::hex::lower_hex(&digest[..12])
}

/// What became of one try.
enum Tried {
    /// Taken by the homeserver, as this event.
    Sent(String),
    Later,
    Dropped(&'static str),
}

impl Social {
    /// Puts a Bot's reply to a friend in the outbox (once) with its
    /// record (#417), in one change, and rings the sender; `held` keeps it
    /// for the owner's Send instead (#52, #418).
    pub(super) async fn enqueue_reply(&self, item: OutboxItem, reply: HeldReply, held: bool) {
        let put = self
            .team()
            .mutate("social", move |change| {
                let social = &change.state().social;
                let known = social.outbox.contains_key(&item.id)
                    || social.held.contains_key(&item.id)
                    || social.replies.contains_key(&item.id);
                if known {
                    return Ok(());
                }
                if held {
                    change.put_held(&HeldItem {
                        bot_id: reply.bot_id.clone(),
                        friend: reply.friend.clone(),
                        reply: true,
                        at: reply.at,
                        item,
                    });
                } else {
                    change.put_outbox(&item);
                }
                change.put_reply(&reply);
                Ok(())
            })
            .await;
        if let Err(e) = put {
            tracing::warn!("a reply could not be queued: {}", e.message);
        }
        self.inner.outbox_bell.notify_one();
    }

    /// `social-send`: a person's line to a friend's Bot, queued and shown.
    pub async fn send(&self, actor: &Actor, req: SocialSend) -> Result<SocialSent, ApiError> {
        super::connect::check_owner(self, actor)?;
        let (account, _) = self.require_matrix()?;
        let text = req.text.trim().to_owned();
        if text.is_empty() || text.chars().count() > LINE_MAX {
            return Err(ApiError::invalid(
                "text",
                format!("Write a line of at most {LINE_MAX} characters."),
            ));
        }
        let id = format!("out-{}", crate::ids::new_id("m"));
        let me = account.user_id.clone();
        let line = self
            .team()
            .mutate("social", move |change| {
                let room = change.state().social.rooms.get(&req.room_id).cloned();
                let Some(mut room) = room.filter(|r| r.side == RoomSide::Theirs) else {
                    return Err(ApiError::not_found("friend's Bot", &req.room_id));
                };
                if !room.shared {
                    // #404, #954: one sentence, no second "Try again.".
                    return Err(ApiError::new(ErrorCode::Forbidden, NOT_SHARED));
                }
                let now = change.now_ms();
                let item = OutboxItem {
                    id: id.clone(),
                    room_id: room.room_id.clone(),
                    content: json!({
                        "msgtype": "m.text",
                        "body": text,
                        LINE_KEY: LineContent::Ask { typed: true },
                    }),
                    created_at: now,
                    attempts: 0,
                    next_at: 0,
                };
                change.put_outbox(&item);
                let line = RemoteLine {
                    id,
                    from_home: me.clone(),
                    bot: None,
                    verified: true,
                    typed_by: Some(me),
                    text,
                    at: now,
                    not_sent: None,
                };
                room.lines.push(line.clone());
                let over = room
                    .lines
                    .len()
                    .saturating_sub(flybot_core::social::LINES_KEPT);
                room.lines.drain(..over);
                // #443: waiting on the reply from now on.
                room.awaiting = true;
                change.put_social_room(&room);
                Ok(line)
            })
            .await?;
        self.inner.outbox_bell.notify_one();
        Ok(SocialSent { line })
    }

    /// Sends until the host stops.
    pub(super) async fn outbox_loop(&self) {
        let bus = self.team().bus().clone();
        loop {
            let now = flybot_store::system_now_ms();
            let next = self.team().read(|state| {
                state
                    .social
                    .outbox
                    .values()
                    .min_by_key(|item| (item.created_at, item.id.clone()))
                    .cloned()
            });
            // The homeserver is back: what waited for it goes now.
            let link_back = self.inner.link_back.swap(false, Ordering::SeqCst);
            let wait = match (&next, self.matrix()) {
                (Some(item), Some(_)) if link_back || item.next_at <= now => None,
                (Some(item), Some(_)) => Some(item.next_at - now),
                _ => Some(60_000),
            };
            if let Some(wait) = wait {
                tokio::select! {
                    _ = self.inner.outbox_bell.notified() => {}
                    _ = self.inner.account_bell.notified() => {}
                    _ = tokio::time::sleep(Duration::from_millis(wait)) => {}
                    _ = bus.stopped() => return,
                }
                continue;
            }
            let Some(item) = next else { continue };
            let tried = self.try_send(&item).await;
            if matches!(tried, Tried::Sent(_)) {
                super::crash_point::sent(&item.id).await;
            }
            self.settle(item, tried).await;
        }
    }

    async fn try_send(&self, item: &OutboxItem) -> Tried {
        let Some((_, matrix)) = self.matrix() else {
            return Tried::Later;
        };
        let answering = item
            .content
            .get(LINE_KEY)
            .and_then(|l| serde_json::from_value::<LineContent>(l.clone()).ok());
        if let Some(LineContent::Answer { bot, .. }) = answering {
            let allowed = self.team().read(|state| {
                let peer = state
                    .social
                    .rooms
                    .get(&item.room_id)
                    .map(|r| r.peer.clone());
                peer.is_some_and(|peer| reach(state, &bot, &peer).is_ok())
            });
            if !allowed {
                return Tried::Dropped(NOT_SHARED);
            }
        }
        // A retry after a renewal is the same transaction id: a send that
        // did land is not doubled.
        let sent = self
            .renewing(&matrix, |m| async move {
                m.send(&item.room_id, &item.id, &item.content).await
            })
            .await;
        match sent {
            Ok(event_id) => Tried::Sent(event_id),
            Err(e) if e.is_transient() => {
                tracing::info!("a send waits for the homeserver: {e}");
                Tried::Later
            }
            Err(MatrixError::SignedOut) => Tried::Later,
            Err(e) => {
                tracing::warn!("a send was refused for good: {e}");
                Tried::Dropped(NOT_SENT)
            }
        }
    }

    /// Takes a sent or dropped item out, or sets its next try.
    async fn settle(&self, item: OutboxItem, tried: Tried) {
        let settled = self
            .team()
            .mutate("social", move |change| {
                match tried {
                    Tried::Sent(event_id) => {
                        change.remove_outbox(&item.id);
                        settle_reply(change, &item.id, ReplyStatus::Auto, None);
                        note_asked(change, &item, &event_id);
                    }
                    Tried::Later => {
                        let mut later = item.clone();
                        later.attempts = later.attempts.saturating_add(1);
                        later.next_at = change.now_ms() + backoff_ms(later.attempts);
                        change.put_outbox(&later);
                    }
                    Tried::Dropped(why) => {
                        change.remove_outbox(&item.id);
                        settle_reply(change, &item.id, ReplyStatus::Failed, Some(why));
                        mark_not_sent(change, &item, why);
                    }
                }
                Ok(())
            })
            .await;
        if let Err(e) = settled {
            tracing::warn!("the outbox could not be written: {}", e.message);
            tokio::time::sleep(Duration::from_millis(backoff_ms(3))).await;
        }
    }
}

/// A Bot's line the homeserver took: its asker waits on this event's
/// answer from now on.
fn note_asked(change: &mut flybot_store::Change<'_>, item: &OutboxItem, event_id: &str) {
    let Some(mut room) = change.state().social.rooms.get(&item.room_id).cloned() else {
        return;
    };
    let Some(asker) = room.askers.iter_mut().find(|a| a.outbox_id == item.id) else {
        return;
    };
    asker.event_id = Some(event_id.to_owned());
    change.put_social_room(&room);
}

/// A Bot's reply record follows its send (#417): sent, or failed with
/// whether a Retry could help (#954: not for a Bot no longer shared).
pub(super) fn settle_reply(
    change: &mut flybot_store::Change<'_>,
    id: &str,
    status: ReplyStatus,
    why: Option<&str>,
) {
    let Some(mut reply) = change.state().social.replies.get(id).cloned() else {
        return;
    };
    // A reply the owner let go stays `approved` once sent (#417: `auto`
    // is for one the Auto-send let go).
    if status == ReplyStatus::Auto && reply.status == ReplyStatus::Approved {
        return;
    }
    reply.status = status;
    reply.retry = (why.filter(|_| status == ReplyStatus::Failed)).map(|why| why != NOT_SHARED);
    reply.error = why.map(str::to_owned);
    change.put_reply(&reply);
}

/// A person's line that will not go out says why on its row (#404).
pub(super) fn mark_not_sent(change: &mut flybot_store::Change<'_>, item: &OutboxItem, why: &str) {
    let Some(mut room) = change.state().social.rooms.get(&item.room_id).cloned() else {
        return;
    };
    let Some(line) = room.lines.iter_mut().find(|l| l.id == item.id) else {
        return;
    };
    line.not_sent = Some(why.to_owned());
    room.awaiting = false;
    // A line that will not go out is answered by nobody.
    room.askers.retain(|a| a.outbox_id != item.id);
    change.put_social_room(&room);
}

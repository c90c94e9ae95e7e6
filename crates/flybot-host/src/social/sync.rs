//! The one way in (issue 33): the `/sync` long poll. A batch is applied in
//! one journaled change: each event not applied before is read and its id
//! noted, and the token after the batch is kept with them; a crash before
//! that change leaves the token where it was, so the same events come
//! again and are applied once. Friends' lines to this home's Bots are put
//! in the inbox in that same change and handed to the Bots after it
//! (`deliver`). An invite from a friend is joined; from anyone else it
//! waits for the owner to accept (`social-friend-add`) or decline it
//! (`social-friend-decline`). A token the homeserver signed out is renewed
//! with the refresh token when there is one (`refresh`).

use super::Social;
use super::client::{JoinedRoom, MatrixError, RoomEvent, SYNC_HOLD_MS, SyncBatch};
use super::refresh::Renewal;
use flybot_core::social::{
    LINES_KEPT, NOT_SHARED, RemoteMessage, backoff_ms, clean_label, reach, read_message,
};
use flybot_protocol::ApiError;
use flybot_protocol::social::{
    InboxLine, LINE_KEY, LineContent, OutboxItem, ROOM_STATE, RemoteLine, RoomMark, RoomSide,
    SocialRoom,
};
use flybot_store::Change;
use serde_json::json;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The sentence of a link the homeserver signed out.
const SIGNED_OUT: &str = "The homeserver signed this home out; connect the Matrix account again.";

impl Social {
    /// Polls until the host stops; waits while no account is connected.
    pub(super) async fn sync_loop(&self) {
        let bus = self.team().bus().clone();
        let mut failures = 0u32;
        loop {
            let Some((account, matrix)) = self.matrix() else {
                tokio::select! {
                    _ = self.inner.account_bell.notified() => continue,
                    _ = bus.stopped() => return,
                }
            };
            let since = self.team().read(|s| s.social.since.clone());
            let hold = if since.is_some() { SYNC_HOLD_MS } else { 0 };
            let polled = tokio::select! {
                polled = matrix.sync(since.as_deref(), hold) => polled,
                _ = self.inner.account_bell.notified() => continue,
                _ = bus.stopped() => return,
            };
            let outcome = match polled {
                Ok(batch) => {
                    self.set_link("ready", None);
                    super::crash_point::received(&account.user_id, &batch).await;
                    let strangers = self.take_invites(&account.user_id, &matrix, &batch).await;
                    self.apply_batch(&account.user_id, batch, strangers).await
                }
                Err(MatrixError::SignedOut) => match self.renew_after(matrix.token()).await {
                    Renewal::Renewed => continue,
                    Renewal::Later => Err(ApiError::new(
                        flybot_protocol::ErrorCode::Unavailable,
                        "The homeserver could not be reached to renew this home's sign-in.",
                    )),
                    Renewal::SignedOut => {
                        self.set_link("error", Some(SIGNED_OUT.to_owned()));
                        tokio::select! {
                            _ = self.inner.account_bell.notified() => continue,
                            _ = bus.stopped() => return,
                        }
                    }
                },
                Err(e) => Err(ApiError::new(
                    flybot_protocol::ErrorCode::Unavailable,
                    format!("The sync stopped: {e}."),
                )),
            };
            match outcome {
                Ok(lines) => {
                    if failures > 0 {
                        self.inner.link_back.store(true, Ordering::SeqCst);
                    }
                    failures = 0;
                    // A refusal the batch queued goes out now.
                    self.inner.outbox_bell.notify_one();
                    self.deliver(lines).await;
                }
                Err(e) => {
                    failures = failures.saturating_add(1);
                    self.set_link("error", Some(e.message.clone()));
                    let wait = Duration::from_millis(backoff_ms(failures));
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {}
                        _ = bus.stopped() => return,
                    }
                }
            }
        }
    }

    /// Joins the invites of friends; answers the others (room, inviter),
    /// which the batch's change keeps for the owner.
    async fn take_invites(
        &self,
        me: &str,
        matrix: &super::client::Matrix,
        batch: &SyncBatch,
    ) -> Vec<(String, String)> {
        let mut strangers = Vec::new();
        for (room_id, invited) in &batch.rooms.invite {
            let inviter = invited
                .invite_state
                .events
                .iter()
                .find(|e| e.kind == "m.room.member" && e.state_key.as_deref() == Some(me))
                .map(|e| e.sender.clone());
            let Some(inviter) = inviter else { continue };
            let friend = self.team().read(|s| {
                s.social.friends.contains_key(&inviter)
                    // Issue 34 (#884): the home whose link this one claimed.
                    || super::invite_links::knock::expects_invite_from(s, &inviter)
            });
            if !friend {
                strangers.push((room_id.clone(), inviter));
                continue;
            }
            let joined = self.renewing(matrix, |m| async move { m.join(room_id).await });
            if let Err(e) = joined.await {
                tracing::warn!("an invite from {inviter} could not be joined: {e}");
            }
        }
        strangers
    }

    /// One change: the batch's new events applied, their ids, strangers'
    /// invites (kept in the team with the token that moves past them, so a
    /// restart neither loses one nor brings back one already declined) and
    /// the token.
    async fn apply_batch(
        &self,
        me: &str,
        batch: SyncBatch,
        strangers: Vec<(String, String)>,
    ) -> Result<Vec<InboxLine>, ApiError> {
        let me = me.to_owned();
        let next = batch.next_batch;
        let joined = batch.rooms.join;
        let left = batch.rooms.leave;
        self.team()
            .mutate("social", move |change| {
                let mut taken = Vec::new();
                // A room this home was put out of: its events up to the
                // leave, which says so (issue 34: a face room's kick).
                for (room_id, room) in joined.iter().chain(&left) {
                    apply_room(change, &me, room_id, room, &mut taken);
                }
                for (room, inviter) in &strangers {
                    if change.state().social.invites.get(room) != Some(inviter) {
                        change.put_invite(room, inviter);
                    }
                }
                if change.state().social.since.as_deref() != Some(next.as_str()) {
                    change.set_social_since(&next);
                }
                Ok(taken)
            })
            .await
    }
}

fn apply_room(
    change: &mut Change<'_>,
    me: &str,
    room_id: &str,
    room: &JoinedRoom,
    taken: &mut Vec<InboxLine>,
) {
    for event in room.state.events.iter().chain(&room.timeline.events) {
        let id = &event.event_id;
        if id.is_empty() || change.state().social.applied.contains_key(id) {
            continue;
        }
        match event.kind.as_str() {
            // Issue 34: a face-to-face room's state, a home's part or a line.
            _ if super::face_to_face::receive::takes(event) => {
                super::face_to_face::receive::receive(change, me, room_id, event);
            }
            // Issue 34: a home kicked or banned from a face-to-face room.
            "m.room.member" if super::face_to_face::receive::holds(change, room_id) => {
                super::face_to_face::receive::receive_member(change, me, room_id, event);
            }
            // Issue 34: a shared room's join, leave or line.
            _ if event.sender != me && super::shared_rooms::receive::takes(event) => {
                super::shared_rooms::receive::receive(change, me, room_id, event);
            }
            // Issue 34: a knock on the lobby of a room's invite links.
            _ if event.sender != me && super::invite_links::knock::takes(event) => {
                super::invite_links::knock::receive(change, room_id, event);
            }
            ROOM_STATE if event.state_key.as_deref() == Some("") && event.sender != me => {
                apply_mark(change, room_id, event);
            }
            "m.room.message" if event.sender != me => apply_message(change, room_id, event, taken),
            _ => {}
        }
        change.note_applied(id);
    }
}

/// A friend's `org.flybot.room` mark: the Bot they share here. Only the
/// room's publisher, a friend, marks it; a mark on one of this home's own
/// rooms is ignored.
fn apply_mark(change: &mut Change<'_>, room_id: &str, event: &RoomEvent) {
    let Ok(mark) = serde_json::from_value::<RoomMark>(event.content.clone()) else {
        return;
    };
    let state = change.state();
    if !state.social.friends.contains_key(&event.sender) {
        return;
    }
    let known = state.social.rooms.get(room_id).cloned();
    if known
        .as_ref()
        .is_some_and(|r| r.side == RoomSide::Mine || r.peer != event.sender)
    {
        return;
    }
    let room = SocialRoom {
        room_id: room_id.to_owned(),
        side: RoomSide::Theirs,
        peer: event.sender.clone(),
        bot: clean_label(&mark.bot, "bot"),
        bot_name: clean_label(&mark.bot_name, "Bot"),
        owner_name: clean_label(&mark.owner_name, "Friend"),
        shared: mark.shared,
        joined: true,
        awaiting: known.as_ref().is_some_and(|r| r.awaiting) && mark.shared,
        asked_by: known.as_ref().and_then(|r| r.asked_by.clone()),
        askers: known.as_ref().map(|r| r.askers.clone()).unwrap_or_default(),
        lines: known.map(|r| r.lines).unwrap_or_default(),
        friend_line_at: None,
    };
    change.put_social_room(&room);
}

fn apply_message(
    change: &mut Change<'_>,
    room_id: &str,
    event: &RoomEvent,
    taken: &mut Vec<InboxLine>,
) {
    let Some(mut room) = change.state().social.rooms.get(room_id).cloned() else {
        return;
    };
    let (line, text) = match read_message(&event.content) {
        RemoteMessage::Other => return,
        RemoteMessage::Plain { text } => (LineContent::Ask { typed: true }, text),
        RemoteMessage::Line { line, text } => (line, text),
    };
    match room.side {
        RoomSide::Mine => to_my_bot(change, &mut room, event, line, text, taken),
        RoomSide::Theirs => from_their_home(change, &mut room, event, line, text, taken),
    }
}

/// A line in one of this home's rooms: an ask for the room's Bot, checked
/// by `reach()` against the authenticated sender (#90), never the event.
fn to_my_bot(
    change: &mut Change<'_>,
    room: &mut SocialRoom,
    event: &RoomEvent,
    line: LineContent,
    text: String,
    taken: &mut Vec<InboxLine>,
) {
    let LineContent::Ask { typed } = line else {
        return;
    };
    if reach(change.state(), &room.bot, &event.sender).is_err() {
        let refusal = OutboxItem {
            id: format!("ref-{}", super::outbox::short_hash(&event.event_id)),
            room_id: room.room_id.clone(),
            content: json!({
                "msgtype": "m.text",
                "body": NOT_SHARED,
                LINE_KEY: LineContent::Refused { bot: room.bot.clone() },
            }),
            created_at: change.now_ms(),
            attempts: 0,
            next_at: 0,
        };
        change.put_outbox(&refusal);
        return;
    }
    // #420: the senders seen per Bot; a sender's first line says so.
    let first_contact = change.note_contact(&room.bot, &event.sender);
    let inbox = InboxLine {
        event_id: event.event_id.clone(),
        room_id: room.room_id.clone(),
        bot_id: room.bot.clone(),
        from_home: event.sender.clone(),
        text,
        typed,
        first_contact,
        answer: false,
    };
    change.put_inbox(&inbox);
    taken.push(inbox);
    // #420: when a friend's line last reached this Bot.
    room.friend_line_at = Some(change.now_ms());
    change.put_social_room(room);
}

/// A line in a friend's Bot's room: the answer, a refusal, or a person of
/// that home typing. Its home is the sender; the Bot it names is verified
/// only when that sender is the room's publisher and the Bot its Bot.
fn from_their_home(
    change: &mut Change<'_>,
    room: &mut SocialRoom,
    event: &RoomEvent,
    line: LineContent,
    text: String,
    taken: &mut Vec<InboxLine>,
) {
    let from_peer = event.sender == room.peer;
    // For an answer: the event it names as the line it answers.
    let mut re: Option<Option<String>> = None;
    let mut remote = RemoteLine {
        id: event.event_id.clone(),
        from_home: event.sender.clone(),
        bot: None,
        verified: false,
        typed_by: None,
        text,
        at: change.now_ms(),
        not_sent: None,
    };
    match line {
        LineContent::Answer { bot, re: answers } => {
            remote.verified = from_peer && bot == room.bot;
            remote.bot = Some(clean_label(&bot, "bot"));
            re = Some(answers);
        }
        LineContent::Refused { bot } => {
            remote.verified = from_peer && bot == room.bot;
            remote.bot = Some(clean_label(&bot, "bot"));
            remote.not_sent = Some(NOT_SHARED.to_owned());
            if remote.verified {
                room.shared = false;
            }
        }
        // #227: a person typed it, as the transport says, never the text.
        LineContent::Ask { typed } => {
            remote.typed_by = typed.then(|| event.sender.clone());
        }
    }
    if from_peer {
        // #443: the friend's reply clears the wait.
        room.awaiting = false;
    }
    // A verified answer to this home's Bot's line goes back to the chat
    // of the Bot that asked it.
    let asker = match re {
        Some(re) if remote.verified => take_asker(change, room, re.as_deref()),
        _ => None,
    };
    if let Some(asker) = asker {
        let back = InboxLine {
            event_id: event.event_id.clone(),
            room_id: room.room_id.clone(),
            bot_id: asker,
            from_home: event.sender.clone(),
            text: remote.text.clone(),
            typed: false,
            first_contact: false,
            answer: true,
        };
        change.put_inbox(&back);
        taken.push(back);
    }
    room.lines.push(remote);
    let over = room.lines.len().saturating_sub(LINES_KEPT);
    room.lines.drain(..over);
    change.put_social_room(room);
}

/// The Bot waiting on the answer to event `re`: the one whose line that
/// was. An answer naming no event (an older home) goes to the oldest
/// asker. One naming an event this home has not matched yet goes to the
/// oldest asker whose line the homeserver took but whose event id is not
/// noted yet (a crash between the send and its record); otherwise it
/// answers a person's line and goes to no Bot.
fn take_asker(change: &Change<'_>, room: &mut SocialRoom, re: Option<&str>) -> Option<String> {
    let social = &change.state().social;
    let unsent = |id: &str| social.outbox.contains_key(id) || social.held.contains_key(id);
    let at = match re {
        Some(re) => (room
            .askers
            .iter()
            .position(|a| a.event_id.as_deref() == Some(re)))
        .or_else(|| {
            (room.askers.iter()).position(|a| a.event_id.is_none() && !unsent(&a.outbox_id))
        }),
        None => (!room.askers.is_empty()).then_some(0),
    };
    match at {
        Some(at) => Some(room.askers.remove(at).bot),
        None if re.is_none() => room.asked_by.take(),
        None => None,
    }
}

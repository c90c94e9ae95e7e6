//! The way out of a shared room: a local room gains a friend's Bot
//! (`room-share-add`) and the friend's home is invited into a Matrix room
//! whose `org.flybot.share` state is the join (roster, notice, history);
//! removing it sends the leave while the seat is still live (#1167). Each
//! chat line this home writes in a shared room (a person of this home, or
//! one of its Bots) goes out once: the log's lines after `fannedSeq` are
//! put in the journaled outbox with the new mark, in one change.

use super::SharedRooms;
use super::envelope::{
    HISTORY_MAX, HistoryLine, Join, JoinOp, RosterEntry, SHARE_KEY, ShareMessage, fit_join,
    fit_text,
};
use super::records::{
    HostShare, MirrorStatus, host_share, seat_id, set_host_share, set_shared_from, shared_from,
};
use crate::social::invite_links::peers::may_call;
use flybot_core::access::Actor;
use flybot_core::fences::readable_body;
use flybot_core::rooms::log::{AuthorKind, LineKind, RoomLine};
use flybot_core::rooms::mentions::{Named, calls};
use flybot_core::rooms::participants::{
    Participant, ParticipantKind, RoomRole, participants_of, to_values,
};
use flybot_protocol::social::{OutboxItem, RoomSide};
use flybot_protocol::state::{Room, TeamState};
use flybot_protocol::{ApiError, ErrorCode};
use serde::Deserialize;
use serde_json::json;

/// `room-share-add {roomId, friendBot}`: the friend's Bot (its row's
/// Matrix room) joins this home's room.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ShareAdd {
    pub room_id: String,
    pub friend_bot: String,
}

/// `room-share-remove {roomId, seat}`: a friend's Bot leaves the room.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ShareRemove {
    pub room_id: String,
    pub seat: String,
}

fn refused(e: &crate::social::client::MatrixError) -> ApiError {
    ApiError::new(
        ErrorCode::Unavailable,
        format!("The homeserver did not take it ({e}); nothing was shared, try again."),
    )
}

/// The actor's own room of this home, or its mirror of another home's
/// room, which it may share on (a re-share keeps its inviter, #883).
fn own_room(state: &TeamState, actor: &Actor, room_id: &str) -> Result<Room, ApiError> {
    let room = state
        .rooms
        .get(room_id)
        .filter(|r| actor.member_id(state).as_deref() == Some(r.owner_id.as_str()))
        .ok_or_else(|| ApiError::not_found("room", room_id))?;
    Ok(room.clone())
}

/// The person who invites (#848, #883): a person of the room, unless their
/// name is this home's own "You", else the home's owner-level name.
pub fn inviter_name(state: &TeamState, room: &Room) -> String {
    // #883: a room projected in from another home forwards its own
    // inviter, so re-sharing never renames the person who invited it.
    if let Some(from) = shared_from(room) {
        return from.inviter_name;
    }
    let person = participants_of(room)
        .into_iter()
        .filter(|p| p.kind == ParticipantKind::Human && p.is_live())
        .filter_map(|p| state.members.get(&p.id).map(|m| m.name.trim().to_owned()))
        .find(|name| !name.is_empty() && name != "You");
    let account = state.social.account.as_ref().map(|a| {
        let local = a.user_id.trim_start_matches('@');
        local.split(':').next().unwrap_or(local).to_owned()
    });
    let name = person.or(account).unwrap_or_default();
    flybot_core::social::clean_label(&name, "A friend")
}

/// The join of `room` as this home sends it: every Bot of the room, the
/// notice and the recent chat lines, fitted to the limit.
pub(crate) fn join_of(
    state: &TeamState,
    me: &str,
    room: &Room,
    history: Vec<RoomLine>,
    seq: u64,
) -> Join {
    let owner = inviter_name(state, room);
    let mut roster: Vec<RosterEntry> = room
        .members
        .iter()
        .filter_map(|id| state.bots.get(id))
        .map(|bot| RosterEntry {
            handle: Some(bot.id.clone()),
            home: Some(me.to_owned()),
            name: bot.name.clone(),
            owner_name: owner.clone(),
        })
        .collect();
    // #883: in a room shared on, the inviter's Bots keep their owner's name.
    let upstream = shared_from(room);
    roster.extend(remote_seats(room).into_iter().map(|(home, handle, seat)| {
        RosterEntry {
            handle: Some(handle),
            owner_name: (upstream.as_ref())
                .filter(|f| f.home == home)
                .map(|f| f.inviter_name.clone())
                .unwrap_or_default(),
            home: Some(home),
            name: seat.name.unwrap_or_default(),
        }
    }));
    let noted = super::records::names(room);
    let names = |id: &str| {
        state
            .bots
            .get(id)
            .map(|b| b.name.clone())
            .or_else(|| state.members.get(id).map(|m| m.name.clone()))
            .or_else(|| noted.get(id).cloned())
            .unwrap_or_else(|| id.to_owned())
    };
    let history = history
        .into_iter()
        .filter(|l| l.kind == LineKind::Chat && l.author_kind != AuthorKind::System)
        .map(|l| HistoryLine {
            who: names(&l.author_id),
            author_kind: l.author_kind,
            seq: l.seq,
            text: readable_body(&l.text),
            handle: (l.author_kind == AuthorKind::LocalBot).then(|| l.author_id.clone()),
        })
        .collect();
    let mut join = Join {
        op: JoinOp::Join,
        room_id: room.id.clone(),
        name: room.name.clone(),
        inviter_name: owner,
        roster: Some(roster),
        notice: Some(
            flybot_core::rooms::notice_seen::notice_of(room)
                .unwrap_or("")
                .to_owned(),
        ),
        history: Some(history),
        join_seq: seq,
    };
    fit_join(&mut join);
    join
}

/// The guest homes with a live seat in `room`: in a room shared on from
/// another home, that home is its inviter, no guest (#883).
fn live_homes(room: &Room) -> Vec<String> {
    let inviter = shared_from(room).map(|f| f.home);
    remote_seats(room)
        .into_iter()
        .map(|(home, _, _)| home)
        .filter(|home| inviter.as_ref() != Some(home))
        .collect()
}

/// The share as kept after a publish: its guests and rooms from the
/// homeserver's answer, the join's number, the fan-out mark kept.
pub(crate) fn merged(
    kept: Option<HostShare>,
    published: HostShare,
    seq: u64,
    fanned: u64,
) -> HostShare {
    let fanned_seq = kept.as_ref().map_or(fanned, |k| k.fanned_seq);
    HostShare {
        join_seq: seq,
        fanned_seq,
        ..published
    }
}

/// The live remote seats: (home, handle, seat).
fn remote_seats(room: &Room) -> Vec<(String, String, Participant)> {
    participants_of(room)
        .into_iter()
        .filter(|p| p.kind == ParticipantKind::RemoteBot && p.is_live())
        .filter_map(|p| {
            let home = p.owner.clone()?;
            let handle = p.id.strip_prefix(&format!("{home}/"))?.to_owned();
            Some((home, handle, p))
        })
        .collect()
}

impl SharedRooms {
    /// `room-share-add`: seats the friend's Bot, then shares the room.
    pub async fn add(&self, actor: &Actor, req: ShareAdd) -> Result<Room, ApiError> {
        let social = &self.social;
        crate::social::check_owner(social, actor)?;
        let (account, matrix) = social.require_matrix()?;
        let (room, friend) = social.team().read(|state| {
            let room = own_room(state, actor, &req.room_id)?;
            let friend = state
                .social
                .rooms
                .get(&req.friend_bot)
                .filter(|r| r.side == RoomSide::Theirs && r.shared)
                .cloned()
                .ok_or_else(|| {
                    ApiError::invalid("friendBot", "Pick a friend's Bot shared with this home.")
                })?;
            Ok::<_, ApiError>((room, friend))
        })?;
        let seat = seat_id(&friend.peer, &friend.bot);
        let mut seated = room.clone();
        let mut seats = participants_of(&seated);
        seats.retain(|s| s.id != seat);
        let mut new_seat = Participant::new(&seat, ParticipantKind::RemoteBot, RoomRole::Member, 0);
        new_seat.owner = Some(friend.peer.clone());
        new_seat.name = Some(flybot_core::social::friend_bot_title(
            &friend.bot_name,
            &friend.owner_name,
        ));
        new_seat.joined_seq = self.logs.last_seq(&room.id) + 1;
        seats.push(new_seat);
        seated.participants = to_values(&seats);
        let share = host_share(&room);
        let seq = share.as_ref().map_or(1, |s| s.join_seq + 1);
        let history = self.logs.recent(&room.id, HISTORY_MAX).unwrap_or_default();
        let join = social
            .team()
            .read(|state| join_of(state, &account.user_id, &seated, history, seq));
        let live = live_homes(&seated);
        let published = super::guests::publish(
            social,
            &matrix,
            &account.user_id,
            share,
            &room.name,
            &join,
            Some(&friend.peer),
            &live,
        );
        let published = published.await.map_err(|e| refused(&e))?;
        let fanned = self.logs.last_seq(&room.id);
        let room_id = room.id.clone();
        let kept = social
            .team()
            .mutate("social", move |change| {
                let Some(mut room) = change.state().rooms.get(&room_id).cloned() else {
                    return Err(ApiError::not_found("room", &room_id));
                };
                let share = merged(host_share(&room), published, seq, fanned);
                room.participants = seated.participants.clone();
                set_host_share(&mut room, &share);
                change.put_room(&room);
                Ok(room)
            })
            .await?;
        Ok(kept)
    }

    /// `room-share-remove`: the leave (sent while the seat is still live,
    /// #1167), then the seat ends.
    pub async fn remove(&self, actor: &Actor, req: ShareRemove) -> Result<Room, ApiError> {
        let social = &self.social;
        crate::social::check_owner(social, actor)?;
        let (account, matrix) = social.require_matrix()?;
        let room = social
            .team()
            .read(|state| own_room(state, actor, &req.room_id))?;
        let share =
            host_share(&room).ok_or_else(|| ApiError::not_found("shared room", &room.id))?;
        let mut seats = participants_of(&room);
        let inviter = shared_from(&room).map(|f| f.home);
        let Some(seat) = seats.iter_mut().find(|s| {
            s.id == req.seat
                && s.kind == ParticipantKind::RemoteBot
                && s.is_live()
                && (inviter.is_none() || s.owner != inviter)
        }) else {
            return Err(ApiError::not_found("friend's Bot", &req.seat));
        };
        seat.left_seq = Some(self.logs.last_seq(&room.id) + 1);
        // The home stays in its Matrix room (a guest), so a later add needs
        // no second invite; its mirror reads the roster without its Bots,
        // or a leave when it keeps none (per guest room).
        let mut after = room.clone();
        after.participants = to_values(&seats);
        let seq = share.join_seq + 1;
        let mut join = social
            .team()
            .read(|state| join_of(state, &account.user_id, &after, Vec::new(), seq));
        join.history = None;
        let live = live_homes(&after);
        let published = super::guests::publish(
            social,
            &matrix,
            &account.user_id,
            Some(share.clone()),
            &room.name,
            &join,
            None,
            &live,
        );
        published.await.map_err(|e| refused(&e))?;
        let room_id = room.id.clone();
        social
            .team()
            .mutate("social", move |change| {
                let Some(mut room) = change.state().rooms.get(&room_id).cloned() else {
                    return Err(ApiError::not_found("room", &room_id));
                };
                let mut share = host_share(&room).unwrap_or(share);
                share.join_seq = seq;
                room.participants = after.participants.clone();
                set_host_share(&mut room, &share);
                change.put_room(&room);
                Ok(room)
            })
            .await
    }

    /// Puts this home's new chat lines of every shared room in the outbox.
    pub(super) async fn fan_out(&self) {
        let shared: Vec<String> = self.social.team().read(|state| {
            state
                .rooms
                .values()
                .filter(|r| {
                    host_share(r).is_some()
                        || shared_from(r)
                            .is_some_and(|f| f.status == super::records::MirrorStatus::Open)
                })
                .map(|r| r.id.clone())
                .collect()
        });
        for room_id in shared {
            self.fan_out_room(&room_id).await;
        }
    }

    async fn fan_out_room(&self, room_id: &str) {
        let Some((fanned, last)) = self.social.team().read(|state| {
            let room = state.rooms.get(room_id)?;
            let fanned = targets(room).iter().map(|t| t.fanned).min()?;
            Some((fanned, self.logs.last_seq(room_id)))
        }) else {
            return;
        };
        if last <= fanned {
            return;
        }
        let Ok(lines) = self.logs.lines_after(room_id, fanned) else {
            return;
        };
        let room_id = room_id.to_owned();
        let written = self
            .social
            .team()
            .mutate("social", move |change| {
                let Some(mut room) = change.state().rooms.get(&room_id).cloned() else {
                    return Ok(false);
                };
                for target in targets(&room) {
                    let due: Vec<RoomLine> = (lines.iter())
                        .filter(|l| l.seq > target.fanned)
                        .cloned()
                        .collect();
                    for item in outgoing(change.state(), &room, &due, change.now_ms(), &target) {
                        if !change.state().social.outbox.contains_key(&item.id) {
                            change.put_outbox(&item);
                        }
                    }
                }
                let newest = lines.last().map_or(0, |l| l.seq);
                if let Some(mut share) = host_share(&room) {
                    share.fanned_seq = share.fanned_seq.max(newest);
                    set_host_share(&mut room, &share);
                }
                let open = |f: &super::records::SharedFrom| f.status == MirrorStatus::Open;
                if let Some(mut from) = shared_from(&room).filter(open) {
                    from.fanned_seq = from.fanned_seq.max(newest);
                    set_shared_from(&mut room, &from);
                }
                change.put_room(&room);
                Ok(true)
            })
            .await;
        match written {
            Ok(true) => self.social.inner.outbox_bell.notify_one(),
            Ok(false) => {}
            Err(e) => tracing::warn!("a shared room's lines were not queued: {}", e.message),
        }
    }
}

/// Where a room's own lines go: the Matrix room, the room id the line
/// names there, how far it went, and what its outbox ids add.
struct Target {
    matrix_room: String,
    room_id: String,
    fanned: u64,
    suffix: String,
    /// A guest room: its homes, whose own lines are not relayed back.
    guests: Option<Vec<String>>,
}

/// A room shared from here goes to its guests; a mirror goes back to its
/// inviter; a mirror shared on again (#883) goes both ways.
fn targets(room: &Room) -> Vec<Target> {
    let mut all = Vec::new();
    if let Some(share) = host_share(room) {
        for (matrix_room, homes) in super::guests::rooms(&share) {
            let suffix = match matrix_room == share.matrix_room_id {
                true => String::new(),
                false => format!(":{}", crate::social::outbox::short_hash(&matrix_room)),
            };
            all.push(Target {
                matrix_room,
                room_id: room.id.clone(),
                fanned: share.fanned_seq,
                suffix,
                guests: Some(homes),
            });
        }
    }
    if let Some(from) = shared_from(room).filter(|f| f.status == MirrorStatus::Open) {
        all.push(Target {
            matrix_room: from.matrix_room_id,
            room_id: from.remote_room_id,
            fanned: from.fanned_seq,
            suffix: if all.is_empty() {
                String::new()
            } else {
                ":up".into()
            },
            guests: None,
        });
    }
    all
}

/// Whether another home's line in `room` is relayed to `target`, with its
/// home and its Bot's handle: to a guest room, any other home's line, never
/// back to its own (#904); up to the inviter of a room shared on, a line of
/// this home's own guests, so it reaches the room's home once (#883).
fn relayed(room: &Room, line: &RoomLine, target: &Target) -> Option<(String, Option<String>)> {
    let (home, handle) = match line.author_id.split_once('/') {
        Some((home, handle)) => (home, Some(handle.to_owned())),
        None => (line.author_id.as_str(), None),
    };
    if !home.starts_with('@') {
        return None;
    }
    let relays = match &target.guests {
        Some(homes) => !homes.iter().any(|h| h == home),
        None => host_share(room).is_some_and(|s| s.guests.iter().any(|g| g == home)),
    };
    let handle = handle.filter(|_| line.author_kind == AuthorKind::RemoteBot);
    relays.then(|| (home.to_owned(), handle))
}

/// The outbox items of the lines this home wrote (a person of this home,
/// or one of the room's own Bots), each under an id made from the room and
/// the seq, so the same line queued twice is one Matrix transaction.
fn outgoing(
    state: &TeamState,
    room: &Room,
    lines: &[RoomLine],
    now: u64,
    target: &Target,
) -> Vec<OutboxItem> {
    let (matrix_room, room_id) = (target.matrix_room.clone(), target.room_id.clone());
    let remote: Vec<Named> = participants_of(room)
        .into_iter()
        .filter(|p| p.kind == ParticipantKind::RemoteBot && p.is_live())
        // #949: a Bot with no identity is shown, never called by a token.
        .filter(|p| !p.id.starts_with("not-connected:"))
        .map(|p| {
            let name = p.name.clone().unwrap_or_default();
            let bare = name.split(" (").next().unwrap_or(&name).to_owned();
            Named::new(&p.id, &bare)
        })
        .collect();
    lines
        .iter()
        .filter(|l| l.kind == LineKind::Chat)
        .filter_map(|l| {
            let (who, handle, home) = match l.author_kind {
                AuthorKind::LocalBot if room.members.contains(&l.author_id) => {
                    let name = state.bots.get(&l.author_id).map(|b| b.name.clone())?;
                    (name, Some(l.author_id.clone()), None)
                }
                AuthorKind::Human if !l.author_id.starts_with('@') => {
                    let name = state.members.get(&l.author_id).map(|m| m.name.clone())?;
                    (name, None, None)
                }
                // Another home's line, relayed with its author (#918).
                AuthorKind::RemoteBot | AuthorKind::Human => {
                    let (home, handle) = relayed(room, l, target)?;
                    let name = super::records::names(room).get(&l.author_id).cloned();
                    (name.unwrap_or_else(|| home.clone()), handle, Some(home))
                }
                _ => return None,
            };
            let text = crate::attachments::line::shown_text(&l.text).to_owned();
            let called = calls(&text, &remote)
                .ids
                .into_iter()
                // #923: a Bot of this home calls a seat a link made only
                // through that link's exact pair; the words still go.
                .filter(|id| {
                    l.author_kind != AuthorKind::LocalBot || may_call(state, room, &l.author_id, id)
                })
                .filter_map(|id| id.rsplit_once('/').map(|(_, h)| h.to_owned()))
                .collect();
            let message = ShareMessage::Line {
                room_id: room_id.clone(),
                seq: l.seq,
                who,
                author_kind: l.author_kind,
                handle,
                home,
                hop: l.hop,
                calls: called,
            };
            Some(OutboxItem {
                id: format!(
                    "shr-{}",
                    crate::social::outbox::short_hash(&format!(
                        "{}:{}{}",
                        room.id, l.seq, target.suffix
                    ))
                ),
                room_id: matrix_room.clone(),
                content: json!({"msgtype": "m.text", "body": fit_text(&text), SHARE_KEY: message}),
                created_at: now,
                attempts: 0,
                next_at: 0,
            })
        })
        .collect()
}

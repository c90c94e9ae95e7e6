//! A share taken from the sync, in the sync's own journaled change (so it
//! is applied once, with the event's id): a join projects or refreshes the
//! mirror, a leave marks it, a line is queued for the room log. Which room
//! a share may touch is decided by the transport (the Matrix room and its
//! authenticated sender), never by the payload (#873, #909); a refusal is
//! answered into the same room with the spec's code, and nothing changes.

use super::envelope::{
    HistoryLine, Join, JoinOp, RosterEntry, SHARE_KEY, SHARE_STATE, ShareMessage, fit_text,
};
use super::records::{
    HostShare, Inbound, MirrorStatus, SharedFrom, host_share, mirror_id, note_name, note_shown,
    seat_id, set_inbox, set_shared_from, shared_from, shown,
};
use crate::social::client::RoomEvent;
use flybot_core::fences::fence;
use flybot_core::rooms::participants::{
    Participant, ParticipantKind, RoomRole, participants_of, to_values,
};
use flybot_core::social::clean_label;
use flybot_protocol::room_line::AuthorKind;
use flybot_protocol::social::OutboxItem;
use flybot_protocol::state::{Room, TeamState};
use flybot_store::Change;
use serde_json::{Value, json};

/// Why a share was refused: the spec's code and one sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The sender is not the home whose room it names (#873, #909).
    NotInviter,
    /// A line for a room no join projected.
    UnknownRoom,
    /// A line for a room of this home from a home it seats no Bot of.
    NotSeated,
    /// A join that seats none of this home's Bots shared with the sender.
    NotShared,
    /// A line for a mirror its inviter left or this home hid (#1167).
    RoomLeft,
    /// A share that does not read.
    Invalid,
}

impl Refusal {
    pub fn code(self) -> &'static str {
        match self {
            Refusal::NotInviter => "not-inviter",
            Refusal::UnknownRoom => "unknown-room",
            Refusal::NotSeated => "not-seated",
            Refusal::NotShared => "not-shared",
            Refusal::RoomLeft => "room-left",
            Refusal::Invalid => "invalid",
        }
    }

    pub fn sentence(self) -> &'static str {
        match self {
            Refusal::NotInviter => "Only the home whose room it is may share that room.",
            Refusal::UnknownRoom => "This home was never invited into that room; share it first.",
            Refusal::NotSeated => "None of your Bots sits in that room; ask its owner to add one.",
            Refusal::NotShared => {
                "None of the Bots named is shared with you; ask its owner to share it."
            }
            Refusal::RoomLeft => "That shared room was left here; share it again to reopen it.",
            Refusal::Invalid => "That room share could not be read.",
        }
    }
}

/// Whether the sync hands this event to the shared rooms.
pub fn takes(event: &RoomEvent) -> bool {
    match event.kind.as_str() {
        SHARE_STATE if event.state_key.as_deref() == Some("") => true,
        "m.room.message" => event.content.get(SHARE_KEY).is_some(),
        _ => false,
    }
}

/// Applies one share event from another home; a refusal is answered.
pub fn receive(change: &mut Change<'_>, me: &str, matrix_room: &str, event: &RoomEvent) {
    let applied = if event.kind == SHARE_STATE {
        receive_join(change, me, matrix_room, event)
    } else {
        match serde_json::from_value::<ShareMessage>(event.content[SHARE_KEY].clone()) {
            Ok(ShareMessage::Line {
                room_id,
                seq,
                who,
                author_kind,
                handle,
                home,
                hop,
                calls,
            }) => {
                let line = LineIn {
                    room_id,
                    seq,
                    who,
                    author_kind,
                    handle,
                    home,
                    hop,
                    calls,
                    text: event.content["body"].as_str().unwrap_or("").to_owned(),
                };
                receive_line(change, matrix_room, &event.sender, line)
            }
            // A refusal is never refused back (no loop).
            Ok(ShareMessage::Refused { code, .. }) => {
                tracing::info!("{} refused a share of this home: {code}", event.sender);
                Ok(())
            }
            Err(_) => Err(Refusal::Invalid),
        }
    };
    if let Err(refusal) = applied {
        tracing::info!(
            "a room share from {} was refused: {}",
            event.sender,
            refusal.code()
        );
        refuse(change, matrix_room, &event.event_id, refusal);
    }
}

/// The refusal, answered into the room it came from, once per event.
fn refuse(change: &mut Change<'_>, matrix_room: &str, event_id: &str, refusal: Refusal) {
    let item = OutboxItem {
        id: format!("shr-ref-{}", crate::social::outbox::short_hash(event_id)),
        room_id: matrix_room.to_owned(),
        content: json!({
            "msgtype": "m.notice",
            "body": refusal.sentence(),
            SHARE_KEY: ShareMessage::Refused {
                code: refusal.code().to_owned(),
                event: event_id.to_owned(),
            },
        }),
        created_at: change.now_ms(),
        attempts: 0,
        next_at: 0,
    };
    change.put_outbox(&item);
}

/// The room of this home a Matrix room carries: its own shared room, or
/// the mirror of another home's.
fn room_of_matrix<'s>(state: &'s TeamState, matrix_room: &str) -> Option<&'s Room> {
    state.rooms.values().find(|r| {
        host_share(r).is_some_and(|s| super::guests::carries(&s, matrix_room))
            || shared_from(r).is_some_and(|f| f.matrix_room_id == matrix_room)
    })
}

/// #873, #909: whether `sender` may share `room_id` through `matrix_room`.
fn check_inviter(
    state: &TeamState,
    matrix_room: &str,
    sender: &str,
    room_id: &str,
) -> Result<(), Refusal> {
    // A room of this home, named by its own id, is nobody else's to share.
    if state.rooms.contains_key(room_id) {
        return Err(Refusal::NotInviter);
    }
    for room in state.rooms.values() {
        if host_share(room).is_some_and(|s: HostShare| super::guests::carries(&s, matrix_room)) {
            return Err(Refusal::NotInviter);
        }
        if let Some(from) = shared_from(room) {
            let same_transport = from.matrix_room_id == matrix_room;
            let same_room = from.remote_room_id == room_id;
            if (same_transport || same_room) && (from.home != sender || !same_room) {
                return Err(Refusal::NotInviter);
            }
        }
    }
    Ok(())
}

fn receive_join(
    change: &mut Change<'_>,
    me: &str,
    matrix_room: &str,
    event: &RoomEvent,
) -> Result<(), Refusal> {
    let join: Join = serde_json::from_value(event.content.clone()).map_err(|_| Refusal::Invalid)?;
    let sender = event.sender.as_str();
    check_inviter(change.state(), matrix_room, sender, &join.room_id)?;
    let id = mirror_id(matrix_room);
    let existing = change.state().rooms.get(&id).cloned();
    let from = existing.as_ref().and_then(shared_from);
    // A join or leave not newer than the last one changes nothing.
    if from.as_ref().is_some_and(|f| join.join_seq <= f.join_seq) {
        return Ok(());
    }
    match join.op {
        JoinOp::Leave => {
            if let (Some(mut room), Some(mut from)) = (existing, from) {
                from.status = MirrorStatus::Left;
                from.join_seq = join.join_seq;
                set_shared_from(&mut room, &from);
                change.put_room(&room);
            }
            Ok(())
        }
        JoinOp::Join => project(change, me, matrix_room, sender, join, existing),
    }
}

/// Projects (or refreshes) the mirror of a join: this home's Bots the join
/// names and the sender shares, the roster as remote seats, the notice,
/// and the history once into an empty mirror.
fn project(
    change: &mut Change<'_>,
    me: &str,
    matrix_room: &str,
    sender: &str,
    join: Join,
    existing: Option<Room>,
) -> Result<(), Refusal> {
    let state = change.state();
    let roster = join.roster.clone();
    let mine: Vec<String> = roster
        .iter()
        .flatten()
        .filter(|e| e.home.as_deref() == Some(me))
        .filter_map(|e| e.handle.clone())
        .filter(|h| state.bots.get(h).is_some_and(|b| !b.is_retired()))
        .filter(|h| {
            flybot_core::social::reach(state, h, sender).is_ok()
                // #884: a Bot this home claimed that room's link for.
                || crate::social::invite_links::peers::opened_by_link(state, h, sender)
        })
        .collect();
    let kept_members = existing
        .as_ref()
        .map(|r| r.members.clone())
        .unwrap_or_default();
    let members = if roster.is_some() { mine } else { kept_members };
    if members.is_empty() {
        // A roster that no longer names this home's Bots ends its part
        // (#1167): the mirror is marked left; a first join is refused.
        let Some(mut room) = existing else {
            return Err(Refusal::NotShared);
        };
        if let Some(mut from) = shared_from(&room) {
            from.status = MirrorStatus::Left;
            from.join_seq = join.join_seq;
            set_shared_from(&mut room, &from);
            change.put_room(&room);
        }
        return Ok(());
    }
    let owner = flybot_core::access::host_owner_id(state).ok_or(Refusal::NotShared)?;
    let now = change.now_ms();
    let fresh = existing.is_none();
    let mut room = existing.unwrap_or_else(|| Room {
        id: mirror_id(matrix_room),
        name: String::new(),
        owner_id: owner,
        members: Vec::new(),
        admin: None,
        participants: Vec::new(),
        sessions: Default::default(),
        created_at: now,
        updated_at: now,
        extra: Default::default(),
    });
    room.name = clean_label(&join.name, "Shared room");
    for bot in &members {
        room.sessions
            .entry(bot.clone())
            .or_insert_with(|| crate::ids::new_id("session"));
    }
    room.members = members;
    room.updated_at = now;
    let old = shared_from(&room);
    let inviter_name = clean_label(&join.inviter_name, "A friend");
    if let Some(roster) = &roster {
        seat_roster(&mut room, me, roster);
    }
    set_notice(&mut room, join.notice.as_deref(), &inviter_name);
    let mut from = SharedFrom {
        home: sender.to_owned(),
        remote_room_id: join.room_id.clone(),
        matrix_room_id: matrix_room.to_owned(),
        inviter_name,
        status: MirrorStatus::Open,
        join_seq: join.join_seq,
        roster: roster
            .unwrap_or_else(|| old.as_ref().map(|o| o.roster.clone()).unwrap_or_default()),
        history_taken: old.as_ref().is_some_and(|o| o.history_taken),
        fanned_seq: old.as_ref().map_or(0, |o| o.fanned_seq),
    };
    if let Some(history) = join.history.filter(|_| fresh && !from.history_taken) {
        copy_history(&mut room, &from, sender, history);
        from.history_taken = true;
    }
    set_shared_from(&mut room, &from);
    change.put_room(&room);
    Ok(())
}

/// The notice a join carries: replaced (fenced, #98), cleared by an empty
/// string, unchanged when absent.
fn set_notice(room: &mut Room, notice: Option<&str>, inviter_name: &str) {
    match notice {
        Some("") => {
            room.extra.remove("notice");
        }
        Some(notice) => {
            let fenced = fence(&format!("{inviter_name} (a friend's home)"), notice);
            room.extra.insert("notice".into(), Value::from(fenced));
        }
        None => {}
    }
}

/// History on join: the recent lines queued once into a new mirror,
/// fenced, shown once, starting no turn.
fn copy_history(room: &mut Room, from: &SharedFrom, sender: &str, history: Vec<HistoryLine>) {
    let lines: Vec<Inbound> = history
        .into_iter()
        .map(|l| {
            let who = clean_label(&l.who, "Someone");
            let author_id = history_author(from, sender, &l.author_kind, l.handle.as_deref());
            note_name(room, &author_id, &who);
            Inbound {
                key: format!("{sender}:{}", l.seq),
                text: fence(&format!("{who} ({sender})"), &fit_text(&l.text)),
                author_id,
                author_kind: remote_kind(l.author_kind),
                hop: 0,
                calls: Vec::new(),
                history: true,
            }
        })
        .collect();
    for line in &lines {
        note_shown(room, line.key.clone());
    }
    set_inbox(room, &lines);
}

/// A Bot's line as this home logs it: a Bot of another home, or a person.
fn remote_kind(kind: AuthorKind) -> AuthorKind {
    match kind {
        AuthorKind::Human => AuthorKind::Human,
        AuthorKind::LocalBot | AuthorKind::RemoteBot | AuthorKind::System => AuthorKind::RemoteBot,
    }
}

fn history_author(
    from: &SharedFrom,
    sender: &str,
    kind: &AuthorKind,
    handle: Option<&str>,
) -> String {
    match (kind, handle) {
        (AuthorKind::Human, _) | (_, None) => sender.to_owned(),
        (_, Some(handle)) => match verified(&from.roster, sender, handle) {
            true => seat_id(sender, handle),
            false => sender.to_owned(),
        },
    }
}

/// Whether `handle` traces to `sender` in the roster (#918).
fn verified(roster: &[RosterEntry], sender: &str, handle: &str) -> bool {
    roster
        .iter()
        .any(|e| e.home.as_deref() == Some(sender) && e.handle.as_deref() == Some(handle))
}

/// The roster as remote seats, one per (home, handle) (#904, #949): a
/// dropped entry is marked left (soft leave), a returning one rejoins.
fn seat_roster(room: &mut Room, me: &str, roster: &[RosterEntry]) {
    let mut seats = participants_of(room);
    let ids: Vec<(String, &RosterEntry)> = roster
        .iter()
        .filter(|e| e.home.as_deref() != Some(me))
        .map(|e| {
            let id = match (&e.home, &e.handle) {
                (Some(home), Some(handle)) => seat_id(home, handle),
                // #949: a Bot with no identity is shown, not connected.
                // Never a token: no `/`, so no `<home>/<handle>` reading.
                _ => format!(
                    "not-connected:{}",
                    clean_label(&e.name, "Bot").replace('/', " ")
                ),
            };
            (id, e)
        })
        .collect();
    for seat in seats
        .iter_mut()
        .filter(|s| s.kind == ParticipantKind::RemoteBot)
    {
        if !ids.iter().any(|(id, _)| *id == seat.id) && seat.left_seq.is_none() {
            seat.left_seq = Some(1);
        }
    }
    for (id, entry) in ids {
        let name = format!(
            "{} ({})",
            clean_label(&entry.name, "Bot"),
            clean_label(&entry.owner_name, "Friend")
        );
        match seats.iter_mut().find(|s| s.id == id) {
            Some(seat) => {
                seat.left_seq = None;
                seat.name = Some(name);
            }
            None => {
                let mut seat =
                    Participant::new(&id, ParticipantKind::RemoteBot, RoomRole::Member, 0);
                seat.owner = entry.home.clone();
                seat.name = Some(name);
                seats.push(seat);
            }
        }
    }
    room.participants = to_values(&seats);
}

/// A line as it arrived: the envelope and the message's text.
struct LineIn {
    room_id: String,
    seq: u64,
    who: String,
    author_kind: AuthorKind,
    handle: Option<String>,
    /// The home that wrote it, when the sender relays it (#918).
    home: Option<String>,
    hop: u32,
    calls: Vec<String>,
    text: String,
}

fn receive_line(
    change: &mut Change<'_>,
    matrix_room: &str,
    sender: &str,
    line: LineIn,
) -> Result<(), Refusal> {
    let state = change.state();
    let mut room = room_of_matrix(state, matrix_room)
        .cloned()
        .ok_or(Refusal::UnknownRoom)?;
    // A mirror shared on again (#883) is both: the Matrix room says which.
    let via_share = host_share(&room).is_some_and(|s| super::guests::carries(&s, matrix_room));
    let traces = match (
        shared_from(&room).filter(|_| !via_share),
        host_share(&room).filter(|_| via_share),
    ) {
        (Some(from), _) => {
            if from.remote_room_id != line.room_id {
                return Err(Refusal::UnknownRoom);
            }
            if from.status != MirrorStatus::Open {
                return Err(Refusal::RoomLeft);
            }
            // #918: a relayed line traces to the roster its inviter sent.
            let home = line.home.as_deref().unwrap_or(sender);
            line.handle
                .as_deref()
                .is_some_and(|h| verified(&from.roster, home, h))
        }
        (None, Some(share)) => {
            if room.id != line.room_id {
                return Err(Refusal::UnknownRoom);
            }
            // A guest writes in its own guest room only (#904).
            if super::guests::room_of_guest(&share, sender).as_deref() != Some(matrix_room) {
                return Err(Refusal::NotSeated);
            }
            let seats = participants_of(&room);
            let live = |id: &str| seats.iter().any(|s| s.id == id && s.is_live());
            let seated = seats.iter().any(|s| {
                s.kind == ParticipantKind::RemoteBot
                    && s.is_live()
                    && s.owner.as_deref() == Some(sender)
            });
            if !seated {
                return Err(Refusal::NotSeated);
            }
            // A guest speaks for its own seats only: what it relays from
            // elsewhere is no seat of this room's, so it is unverified.
            line.handle
                .as_deref()
                .is_some_and(|h| line.home.is_none() && live(&seat_id(sender, h)))
        }
        (None, None) => return Err(Refusal::UnknownRoom),
    };
    let key = format!("{sender}:{}", line.seq);
    if shown(&room, &key) {
        return Ok(());
    }
    let who = clean_label(&line.who, "Someone");
    let (author_id, author_kind, name) = match (line.author_kind, &line.handle) {
        (AuthorKind::Human, _) => (sender.to_owned(), AuthorKind::Human, who),
        // #918: the payload's author only when the handle traces to the
        // sender; else the Bot that delivered it, unverified.
        (_, Some(handle)) if traces => {
            let home = line.home.as_deref().unwrap_or(sender);
            (seat_id(home, handle), AuthorKind::RemoteBot, who)
        }
        _ => (
            sender.to_owned(),
            AuthorKind::RemoteBot,
            format!("{who} (unverified, from {sender})"),
        ),
    };
    let calls: Vec<String> = line
        .calls
        .into_iter()
        .filter(|c| room.members.contains(c))
        .collect();
    let inbound = Inbound {
        key: key.clone(),
        text: fence(&format!("{name} ({sender})"), &fit_text(&line.text)),
        author_id: author_id.clone(),
        author_kind,
        hop: line.hop,
        calls,
        history: false,
    };
    note_name(&mut room, &author_id, &name);
    note_shown(&mut room, key);
    let mut queued = super::records::inbox(&room);
    queued.push(inbound);
    set_inbox(&mut room, &queued);
    change.put_room(&room);
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn entry(handle: Option<&str>, home: Option<&str>, name: &str) -> RosterEntry {
        RosterEntry {
            handle: handle.map(str::to_owned),
            home: home.map(str::to_owned),
            name: name.into(),
            owner_name: "Alice".into(),
        }
    }

    fn seats(room: &Room) -> Vec<(String, bool)> {
        participants_of(room)
            .into_iter()
            .filter(|p| p.kind == ParticipantKind::RemoteBot)
            .map(|p| (p.id.clone(), p.is_live()))
            .collect()
    }

    #[test]
    /// Rules #904, #949.
    fn a_roster_that_drops_an_entry_marks_it_left_and_a_bot_with_no_identity_is_no_token() {
        let mut room = Room {
            id: "room-shr-1".into(),
            name: "Plans".into(),
            owner_id: "m".into(),
            members: vec!["bot-b".into()],
            admin: None,
            participants: vec![],
            sessions: Default::default(),
            created_at: 1,
            updated_at: 1,
            extra: Default::default(),
        };
        let me = "@bob:x";
        let atlas = entry(Some("bot-a"), Some("@alice:x"), "Atlas");
        let ghost = entry(None, None, "Ghost/bot-a");
        let mine = entry(Some("bot-b"), Some(me), "Bolt");
        seat_roster(&mut room, me, &[atlas.clone(), ghost.clone(), mine]);
        assert_eq!(
            seats(&room),
            vec![
                ("@alice:x/bot-a".to_owned(), true),
                ("not-connected:Ghost bot-a".to_owned(), true),
            ],
            "this home's own Bot is no remote seat"
        );
        // `not-connected:` ids never read as `<home>/<handle>`.
        assert!(participants_of(&room).iter().all(|p| {
            !p.id.starts_with("not-connected:") || (!p.id.contains('/') && p.owner.is_none())
        }));
        // A roster without Atlas: its seat stays, marked left (soft leave).
        seat_roster(&mut room, me, std::slice::from_ref(&ghost));
        assert_eq!(
            seats(&room),
            vec![
                ("@alice:x/bot-a".to_owned(), false),
                ("not-connected:Ghost bot-a".to_owned(), true),
            ]
        );
        // A join that names it again clears the mark.
        seat_roster(&mut room, me, &[atlas, ghost]);
        assert!(seats(&room).iter().all(|(_, live)| *live));
    }
}

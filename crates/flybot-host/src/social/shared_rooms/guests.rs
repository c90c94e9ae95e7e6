//! One Matrix room per guest home (#904: "nothing of another guest's home
//! is published"): a room of this home shared with Bots of several homes
//! keeps each guest home in a Matrix room of its own, and each room's join
//! names this home's Bots and that guest's own seats only. Lines travel
//! to every guest room; a guest's line is relayed to the others, never
//! back to its own. A share made before this keeps its guests together in
//! `matrix_room_id`.

use super::envelope::{Join, JoinOp, SHARE_STATE};
use super::records::HostShare;
use crate::social::Social;
use crate::social::client::{Matrix, MatrixError};
use serde_json::json;

/// Each Matrix room of a share with the guest homes in it.
pub fn rooms(share: &HostShare) -> Vec<(String, Vec<String>)> {
    let shared: Vec<String> = (share.guests.iter())
        .filter(|g| !share.guest_rooms.contains_key(*g))
        .cloned()
        .collect();
    let mut all = vec![(share.matrix_room_id.clone(), shared)];
    for (home, room) in &share.guest_rooms {
        all.push((room.clone(), vec![home.clone()]));
    }
    all
}

/// Whether `matrix_room` is one of the share's rooms.
pub fn carries(share: &HostShare, matrix_room: &str) -> bool {
    rooms(share).iter().any(|(room, _)| room == matrix_room)
}

/// The Matrix room a guest home is in, if it is a guest.
pub fn room_of_guest(share: &HostShare, home: &str) -> Option<String> {
    rooms(share)
        .into_iter()
        .find(|(_, homes)| homes.iter().any(|h| h == home))
        .map(|(room, _)| room)
}

/// The join as one guest room reads it: nothing of another guest home
/// (#904), so this home's Bots, the seats of `homes`, and, in a room shared
/// on from another home, that inviter's Bots (#883); a leave when none of
/// `homes` keeps a live seat (#1167).
pub fn for_homes(join: &Join, me: &str, homes: &[String], live: &[String]) -> Join {
    let mut theirs = join.clone();
    if let Some(roster) = &mut theirs.roster {
        roster.retain(|e| match e.home.as_deref() {
            None => true,
            Some(home) => {
                home == me || homes.iter().any(|h| h == home) || !live.iter().any(|h| h == home)
            }
        });
    }
    if !homes.iter().any(|h| live.contains(h)) {
        theirs.op = JoinOp::Leave;
    }
    theirs
}

/// Sets the join in each guest room (each with its own roster), making a
/// room for `guest` when it is new; answers the share's guests and rooms
/// as they now are (`join_seq` and `fanned_seq` are the caller's).
#[allow(clippy::too_many_arguments)]
pub(crate) async fn publish(
    social: &Social,
    matrix: &Matrix,
    me: &str,
    share: Option<HostShare>,
    name: &str,
    join: &Join,
    guest: Option<&str>,
    live: &[String],
) -> Result<HostShare, MatrixError> {
    let mut share = share.unwrap_or(HostShare {
        matrix_room_id: String::new(),
        guests: Vec::new(),
        guest_rooms: Default::default(),
        join_seq: join.join_seq,
        fanned_seq: 0,
    });
    for (room, homes) in rooms(&share).into_iter().filter(|(r, _)| !r.is_empty()) {
        let content = serde_json::to_value(for_homes(join, me, &homes, live)).unwrap_or_default();
        let (r, c) = (&room, &content);
        let set = social.renewing(
            matrix,
            |m| async move { m.set_state(r, SHARE_STATE, c).await },
        );
        set.await?;
    }
    if let Some(guest) = guest.filter(|g| !share.guests.iter().any(|h| h == g)) {
        let homes = vec![guest.to_owned()];
        let content = serde_json::to_value(for_homes(join, me, &homes, live)).unwrap_or_default();
        let state = vec![json!({"type": SHARE_STATE, "state_key": "", "content": content})];
        let (n, s) = (name, &state);
        let made = social.renewing(matrix, |m| async move {
            m.create_room(n, guest, s.clone()).await
        });
        let made = made.await?;
        if share.matrix_room_id.is_empty() {
            share.matrix_room_id = made;
        } else {
            share.guest_rooms.insert(guest.to_owned(), made);
        }
        share.guests.push(guest.to_owned());
    }
    Ok(share)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::social::shared_rooms::envelope::RosterEntry;

    fn entry(home: &str, handle: &str) -> RosterEntry {
        RosterEntry {
            handle: Some(handle.into()),
            home: Some(home.into()),
            name: handle.into(),
            owner_name: String::new(),
        }
    }

    #[test]
    /// Rule #904.
    fn each_guest_room_names_only_this_homes_bots_and_that_guests_own() {
        let join = Join {
            op: JoinOp::Join,
            room_id: "room-1".into(),
            name: "Plans".into(),
            inviter_name: "Alice".into(),
            roster: Some(vec![
                entry("@alice:x", "atlas"),
                entry("@bob:x", "bolt"),
                entry("@carol:x", "cleo"),
            ]),
            notice: None,
            history: None,
            join_seq: 4,
        };
        let live = vec!["@bob:x".to_owned(), "@carol:x".to_owned()];
        let carol = for_homes(&join, "@alice:x", &["@carol:x".into()], &live);
        let handles: Vec<_> = carol
            .roster
            .unwrap()
            .into_iter()
            .map(|e| e.handle.unwrap())
            .collect();
        assert_eq!(
            handles,
            ["atlas", "cleo"],
            "Bob's Bolt is not published to Carol"
        );
        assert_eq!(carol.op, JoinOp::Join);
        let gone = for_homes(&join, "@alice:x", &["@dave:x".into()], &live);
        assert_eq!(
            gone.op,
            JoinOp::Leave,
            "a guest with no live seat reads a leave"
        );
        let share = HostShare {
            matrix_room_id: "!one".into(),
            guests: vec!["@bob:x".into(), "@carol:x".into()],
            guest_rooms: [("@carol:x".to_owned(), "!two".to_owned())].into(),
            join_seq: 4,
            fanned_seq: 0,
        };
        assert_eq!(room_of_guest(&share, "@bob:x").as_deref(), Some("!one"));
        assert_eq!(room_of_guest(&share, "@carol:x").as_deref(), Some("!two"));
        assert!(carries(&share, "!two") && !carries(&share, "!three"));
        assert_eq!(room_of_guest(&share, "@dave:x"), None);
    }
}

//! The inviter's decision on one knock (#884), a pure rule: the claim the
//! homeserver holds (the knock's reason, read back with this home's own
//! credential) seats exactly the Bots it names, from the home that made
//! it, in the room whose link it carries, or nothing; each refusal its own
//! code: `unclaimed`, `claimed-elsewhere`, `wrong-room`, `lookup-failed`,
//! `expired`, `revoked`, `not-addable`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The most Bots one claim may bring.
pub const CLAIM_BOTS_MAX: usize = 6;
/// What a knock's reason starts with, so a person's own knock is no claim.
pub const CLAIM_MARK: &str = "room-invite";

/// Why a knock seats nobody.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The server holds no claim of that home on a link of this room.
    Unclaimed,
    /// The claim names another home than the one that made it.
    ClaimedElsewhere,
    /// The claim's ticket is a link of another room of this home.
    WrongRoom,
    /// The server could not be read: tried again later.
    LookupFailed,
    Expired,
    Revoked,
    /// Bots this room cannot take (none, too many, or unreadable).
    NotAddable,
}

impl Refusal {
    pub fn code(self) -> &'static str {
        match self {
            Refusal::Unclaimed => "unclaimed",
            Refusal::ClaimedElsewhere => "claimed-elsewhere",
            Refusal::WrongRoom => "wrong-room",
            Refusal::LookupFailed => "lookup-failed",
            Refusal::Expired => "expired",
            Refusal::Revoked => "revoked",
            Refusal::NotAddable => "not-addable",
        }
    }

    pub fn sentence(self) -> &'static str {
        match self {
            Refusal::Unclaimed => {
                "No claim of that home on this room's link was found; open the link and join again."
            }
            Refusal::ClaimedElsewhere => {
                "That claim names another home than the one that made it; only a home's own claim seats its Bots."
            }
            Refusal::WrongRoom => "That link belongs to another room; open the link of this room.",
            Refusal::LookupFailed => {
                "The homeserver could not be asked about that claim; it is tried again shortly."
            }
            Refusal::Expired => "That invite link is out of date; ask for a new one.",
            Refusal::Revoked => {
                "That invite link was withdrawn; ask the room's owner for a new one."
            }
            Refusal::NotAddable => {
                "Those Bots cannot be seated in this room; pick one to six of your own Bots."
            }
        }
    }

    /// Whether a later look may decide otherwise (the knock is kept).
    pub fn is_transient(self) -> bool {
        matches!(self, Refusal::LookupFailed)
    }

    pub fn from_code(code: &str) -> Option<Refusal> {
        [
            Refusal::Unclaimed,
            Refusal::ClaimedElsewhere,
            Refusal::WrongRoom,
            Refusal::LookupFailed,
            Refusal::Expired,
            Refusal::Revoked,
            Refusal::NotAddable,
        ]
        .into_iter()
        .find(|r| r.code() == code)
    }
}

/// One Bot a claim brings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimBot {
    pub id: String,
    pub name: String,
}

/// A knock's reason: the claim, as the asking home wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    pub flybot: String,
    pub ticket: String,
    /// The home the claim is for: must be the knock's own sender.
    pub home: String,
    pub bots: Vec<ClaimBot>,
}

impl Claim {
    pub fn new(ticket: &str, home: &str, bots: Vec<ClaimBot>) -> Claim {
        Claim {
            flybot: CLAIM_MARK.to_owned(),
            ticket: ticket.to_owned(),
            home: home.to_owned(),
            bots,
        }
    }

    /// The claim a knock's reason carries, if it is one.
    pub fn read(reason: &str) -> Option<Claim> {
        serde_json::from_str::<Claim>(reason)
            .ok()
            .filter(|c| c.flybot == CLAIM_MARK)
    }
}

/// A link as the lobby's state says it (this home wrote it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerLink {
    /// `open` or `withdrawn`.
    pub status: String,
    pub room_name: String,
    pub lead_name: String,
    pub inviter_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
}

/// What the server holds for one room's lobby, read back by this home.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerRecord {
    /// The links of this lobby, by ticket.
    pub links: BTreeMap<String, ServerLink>,
    /// The knocks: home → the reason it knocked with.
    pub knocks: BTreeMap<String, String>,
}

fn bot_shape(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// The decision on `home`'s knock: its ticket and Bots, or why not.
/// `other_rooms` are the tickets of this home's other rooms.
pub fn decide(
    record: Result<&ServerRecord, ()>,
    home: &str,
    other_rooms: &[String],
    now: u64,
) -> Result<Claim, Refusal> {
    let record = record.map_err(|()| Refusal::LookupFailed)?;
    let reason = record.knocks.get(home).ok_or(Refusal::Unclaimed)?;
    let claim = Claim::read(reason).ok_or(Refusal::Unclaimed)?;
    if claim.home != home {
        return Err(Refusal::ClaimedElsewhere);
    }
    let Some(link) = record.links.get(&claim.ticket) else {
        return Err(match other_rooms.contains(&claim.ticket) {
            true => Refusal::WrongRoom,
            false => Refusal::Unclaimed,
        });
    };
    if link.status != "open" {
        return Err(Refusal::Revoked);
    }
    if link.expires_at.is_some_and(|at| now >= at) {
        return Err(Refusal::Expired);
    }
    let fits = (1..=CLAIM_BOTS_MAX).contains(&claim.bots.len())
        && claim.bots.iter().all(|b| bot_shape(&b.id));
    let mut ids: Vec<&str> = claim.bots.iter().map(|b| b.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    if !fits || ids.len() != claim.bots.len() {
        return Err(Refusal::NotAddable);
    }
    Ok(claim)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const T: &str = "AAAAAAAAAAAAAAAAAAAAAA";
    const CAROL: &str = "@carol:x";

    fn link(status: &str, expires_at: Option<u64>) -> ServerLink {
        ServerLink {
            status: status.into(),
            room_name: "Plans".into(),
            lead_name: "Atlas".into(),
            inviter_name: "Alice".into(),
            expires_at,
        }
    }

    fn record(link: ServerLink, claim: &Claim) -> ServerRecord {
        ServerRecord {
            links: [(T.to_owned(), link)].into(),
            knocks: [(CAROL.to_owned(), serde_json::to_string(claim).unwrap())].into(),
        }
    }

    fn bots(ids: &[&str]) -> Vec<ClaimBot> {
        ids.iter()
            .map(|id| ClaimBot {
                id: (*id).into(),
                name: "Cleo".into(),
            })
            .collect()
    }

    fn check(record: &ServerRecord, want: Result<&[&str], Refusal>) {
        let got = decide(Ok(record), CAROL, &["B".repeat(22)], 100);
        let got = got.map(|c| c.bots.into_iter().map(|b| b.id).collect::<Vec<_>>());
        let want = want.map(|ids| ids.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
        assert_eq!(got, want);
    }

    #[test]
    /// Rules #884, #892.
    fn a_claim_on_an_open_link_seats_exactly_its_bots() {
        let claim = Claim::new(T, CAROL, bots(&["bot-c1"]));
        check(&record(link("open", None), &claim), Ok(&["bot-c1"]));
        check(&record(link("open", Some(101)), &claim), Ok(&["bot-c1"]));
    }

    #[test]
    /// Rules #884, #1064.
    fn each_refusal_is_its_own_code() {
        let claim = Claim::new(T, CAROL, bots(&["bot-c1"]));
        let open = record(link("open", None), &claim);
        assert_eq!(
            decide(Err(()), CAROL, &[], 1).unwrap_err().code(),
            "lookup-failed"
        );
        let mut none = open.clone();
        none.knocks.clear();
        check(&none, Err(Refusal::Unclaimed));
        let mut plain = open.clone();
        plain.knocks.insert(CAROL.into(), "let me in".into());
        check(&plain, Err(Refusal::Unclaimed));
        let forged = Claim::new(T, "@dave:x", bots(&["bot-d"]));
        check(
            &record(link("open", None), &forged),
            Err(Refusal::ClaimedElsewhere),
        );
        let elsewhere = Claim::new(&"B".repeat(22), CAROL, bots(&["bot-c1"]));
        check(
            &record(link("open", None), &elsewhere),
            Err(Refusal::WrongRoom),
        );
        let unknown = Claim::new(&"C".repeat(22), CAROL, bots(&["bot-c1"]));
        check(
            &record(link("open", None), &unknown),
            Err(Refusal::Unclaimed),
        );
        check(
            &record(link("withdrawn", None), &claim),
            Err(Refusal::Revoked),
        );
        check(
            &record(link("open", Some(100)), &claim),
            Err(Refusal::Expired),
        );
        for many in [
            bots(&[]),
            bots(&["a", "b", "c", "d", "e", "f", "g"]),
            bots(&["a", "a"]),
            bots(&["a b"]),
        ] {
            let claim = Claim::new(T, CAROL, many);
            check(
                &record(link("open", None), &claim),
                Err(Refusal::NotAddable),
            );
        }
        for r in [
            Refusal::Unclaimed,
            Refusal::NotAddable,
            Refusal::LookupFailed,
        ] {
            assert_eq!(Refusal::from_code(r.code()), Some(r));
            assert!(r.sentence().ends_with('.'));
        }
    }
}

//! The inviter's half of a claim (#884, #1064): a knock is only a request.
//! `seat_room` reads the lobby back from the homeserver with this home's
//! own credential and, for each home that knocked (the sync saw it, or the
//! quiet poll or the admin's Seat them finds it), seats exactly the Bots of
//! the claim that brought it, from that home, in this room, or nothing.
//! A seat is a remote Bot seat marked `{remote, admittedBy: 'ticket',
//! ticket, hostBotId}` with no published friend behind it; the home is
//! invited into the room's shared Matrix room and the join (roster,
//! notice, history) is set, as a friend's would be. A refusal is kept for
//! the room's admin and answered at the server (the knock denied with its
//! code), except `lookup-failed`, which the next look tries again.

use super::InviteLinks;
use super::lobby;
use super::poll::{Looked, looked_from};
use super::records::{
    Refused, TicketSeat, invites, knocks, lobby as lobby_of, refused, set_invites, set_knocks,
    set_refused, set_ticket_seats, set_tries, ticket_seats, tries,
};
use super::verdict::{Claim, Refusal, ServerRecord, decide};
use crate::social::shared_rooms::envelope::HISTORY_MAX;
use crate::social::shared_rooms::guests::publish;
use crate::social::shared_rooms::records::{host_share, seat_id, set_host_share};
use crate::social::shared_rooms::send::{join_of, merged};
use flybot_core::rooms::participants::{
    Participant, ParticipantKind, RoomRole, participants_of, to_values,
};
use flybot_core::social::clean_label;
use flybot_protocol::state::{Room, TeamState};
use flybot_protocol::{ApiError, ErrorCode};

/// The tickets of this home's rooms other than `room_id`.
fn other_tickets(state: &TeamState, room_id: &str) -> Vec<String> {
    (state.rooms.values())
        .filter(|r| r.id != room_id)
        .flat_map(|r| invites(r).into_iter().map(|l| l.ticket))
        .collect()
}

/// Homes a link of the room seated whose Bots still sit there, with their
/// handles. A home whose seats all ended (taken out, or left) is not among
/// them: a new knock of it by the same link seats it again (#884).
fn seated_homes(room: &Room) -> Vec<(String, Vec<String>)> {
    let live: Vec<String> = (participants_of(room).into_iter())
        .filter(|p| p.is_live())
        .map(|p| p.id)
        .collect();
    invites(room)
        .into_iter()
        .flat_map(|l| l.homes.into_iter())
        .filter(|(home, handles)| handles.iter().any(|h| live.contains(&seat_id(home, h))))
        .collect()
}

/// The room with `claim`'s Bots seated from `home` (a home seated again
/// by the same claim changes nothing).
fn with_seats(room: &Room, home: &str, claim: &Claim, joined_seq: u64) -> Room {
    let mut seated = room.clone();
    let mut seats = participants_of(&seated);
    let owner = home
        .trim_start_matches('@')
        .split(':')
        .next()
        .unwrap_or(home);
    for bot in &claim.bots {
        let id = seat_id(home, &bot.id);
        seats.retain(|s| s.id != id);
        let mut seat = Participant::new(
            &id,
            ParticipantKind::RemoteBot,
            RoomRole::Member,
            joined_seq,
        );
        seat.owner = Some(home.to_owned());
        seat.name = Some(format!(
            "{} ({})",
            clean_label(&bot.name, "Bot"),
            clean_label(owner, "Guest")
        ));
        seats.push(seat);
    }
    seated.participants = to_values(&seats);
    seated
}

/// #1064: a seat whose notice waits on the owner's approval.
pub const HELD: &str = "held";
/// #1064: a seat whose notice did not leave after `NOTICE_TRIES`.
pub const NOT_DELIVERED: &str = "not-delivered";
/// How many times a seat's notice is tried before it waits for Seat them.
pub const NOTICE_TRIES: u32 = 3;

/// Whether the seat `claim` asks for waits on the owner's approval: the
/// link's Bot, whose seat traffic it is, sends to other homes only when
/// they say Send (`ask-first`, #52); Seat them is that approval.
fn held(state: &TeamState, room: &Room, claim: &Claim) -> bool {
    let bot = (invites(room).into_iter())
        .find(|l| l.ticket == claim.ticket)
        .map(|l| l.bot_id);
    bot.and_then(|b| state.social.policies.get(&b).copied())
        == Some(flybot_protocol::social::SendPolicy::AskFirst)
}

/// A home kept waiting: the reason and the Bots its claim brings.
struct Wait {
    code: &'static str,
    ticket: String,
    bots: Vec<String>,
}

impl Wait {
    fn new(code: &'static str, claim: &Claim) -> Wait {
        Wait {
            code,
            ticket: claim.ticket.clone(),
            bots: (claim.bots.iter())
                .map(|b| clean_label(&b.name, "Bot"))
                .collect(),
        }
    }

    fn kept(self, at: u64) -> Refused {
        Refused {
            code: self.code.to_owned(),
            ticket: Some(self.ticket),
            at,
            bots: self.bots,
        }
    }
}

fn home_of(claim: Option<&Claim>) -> Option<String> {
    claim.map(|c| c.home.clone())
}

fn unavailable(e: &crate::social::client::MatrixError) -> ApiError {
    ApiError::new(
        ErrorCode::Unavailable,
        format!("The homeserver did not take the seat ({e}); it is tried again shortly."),
    )
}

impl InviteLinks {
    /// Reads the room's lobby and seats (or refuses) each knock not yet
    /// answered; `again` looks at refused homes too (Seat them).
    pub async fn seat_room(&self, room_id: &str, again: bool) -> Result<Looked, ApiError> {
        let social = &self.social;
        let (_, matrix) = social.require_matrix()?;
        let Some((room, lobby_id, others)) = social.team().read(|s| {
            let room = s.rooms.get(room_id)?.clone();
            let lobby_id = lobby_of(&room)?;
            Some((room, lobby_id, other_tickets(s, room_id)))
        }) else {
            return Ok(Looked::Read);
        };
        let l = &lobby_id;
        let read = social.renewing(&matrix, |m| async move { lobby::state(&m, l).await });
        let mut looked = Looked::Read;
        let record: Result<ServerRecord, ()> = read.await.map(|e| lobby::record(&e)).map_err(|e| {
            tracing::info!("the lobby of {room_id} could not be read: {e}");
            looked = looked_from(&e.to_string());
        });
        let seated = seated_homes(&room);
        let answered = refused(&room);
        let mut homes = knocks(&room);
        if let Ok(record) = &record {
            homes.extend(record.knocks.keys().cloned());
        }
        homes.sort();
        homes.dedup();
        let now = social.team().store().clock_ms();
        if again {
            // Seat them: the notices that did not leave get their tries back.
            self.note_try(room_id, None, None).await;
        }
        for home in homes {
            let done = seated.iter().any(|(h, _)| *h == home);
            let refused_before = answered.contains_key(&home) && !knocks(&room).contains(&home);
            if done || (refused_before && !again) {
                self.forget_knock(room_id, &home).await;
                continue;
            }
            match decide(record.as_ref().map_err(|_| ()), &home, &others, now) {
                // #1064: a seat whose notice waits on the owner's approval
                // (the link's Bot asks first) is held until Seat them.
                Ok(claim) if !again && social.team().read(|s| held(s, &room, &claim)) => {
                    let wait = Wait::new(HELD, &claim);
                    self.wait(room_id, &home, wait).await;
                }
                Ok(claim) => {
                    if let Err(e) = self.seat(room_id, &home, &claim).await {
                        tracing::warn!("a claim on {room_id} waits: {}", e.message);
                        self.note_try(room_id, Some(&home), Some(&claim)).await;
                    }
                }
                Err(refusal) => {
                    // The Bots a claim the room cannot take names, if any.
                    let bots = (record.as_ref().ok())
                        .and_then(|r| r.knocks.get(&home))
                        .and_then(|reason| Claim::read(reason))
                        .map(|c| {
                            c.bots
                                .into_iter()
                                .map(|b| clean_label(&b.name, "Bot"))
                                .collect()
                        })
                        .unwrap_or_default();
                    self.refuse(room_id, &lobby_id, &home, bots, refusal).await
                }
            }
        }
        Ok(looked)
    }

    /// Keeps `home` waiting on the link for `wait`'s reason, answering
    /// nothing at the server (it is no refusal); its knock is not looked at
    /// again until Seat them.
    async fn wait(&self, room_id: &str, home: &str, wait: Wait) {
        self.keep_answer(room_id, home, move |at| wait.kept(at))
            .await;
    }

    /// Keeps what `home`'s knock was answered (a refusal or a wait, made
    /// at the change's time) for the admin, and takes the knock off the
    /// room's list: one change.
    async fn keep_answer(
        &self,
        room_id: &str,
        home: &str,
        answer: impl FnOnce(u64) -> Refused + Send,
    ) {
        let (room_id, home) = (room_id.to_owned(), home.to_owned());
        let kept = (self.social.team())
            .mutate("social", move |change| {
                let Some(mut room) = change.state().rooms.get(&room_id).cloned() else {
                    return Ok(());
                };
                let mut all = refused(&room);
                all.insert(home.clone(), answer(change.now_ms()));
                set_refused(&mut room, &all);
                let mut left = knocks(&room);
                left.retain(|h| *h != home);
                set_knocks(&mut room, &left);
                change.put_room(&room);
                Ok(())
            })
            .await;
        if let Err(e) = kept {
            tracing::warn!(
                "the answer to a knock on a link was not kept: {}",
                e.message
            );
        }
    }

    /// One more try of `home`'s seat that did not leave: after
    /// `NOTICE_TRIES` it waits `not-delivered`. With no home, every try of
    /// the room is reset (Seat them).
    async fn note_try(&self, room_id: &str, home: Option<&str>, claim: Option<&Claim>) {
        let room = room_id.to_owned();
        let home = home.map(str::to_owned);
        let wait = claim.map(|c| Wait::new(NOT_DELIVERED, c));
        let counted = (self.social.team())
            .mutate("social", move |change| {
                let Some(mut room) = change.state().rooms.get(&room).cloned() else {
                    return Ok(false);
                };
                let mut all = tries(&room);
                let Some(home) = home else {
                    all.clear();
                    set_tries(&mut room, &all);
                    change.put_room(&room);
                    return Ok(false);
                };
                let count = all.entry(home).or_default();
                *count += 1;
                let out = *count >= NOTICE_TRIES;
                set_tries(&mut room, &all);
                change.put_room(&room);
                Ok(out)
            })
            .await;
        if let (Ok(true), Some(home), Some(wait)) = (counted, home_of(claim), wait) {
            self.wait(room_id, &home, wait).await;
        }
    }

    async fn forget_knock(&self, room_id: &str, home: &str) {
        let (room_id, home) = (room_id.to_owned(), home.to_owned());
        let _ = (self.social.team())
            .mutate("social", move |change| {
                if let Some(mut room) = change.state().rooms.get(&room_id).cloned() {
                    let mut left = knocks(&room);
                    if left.contains(&home) {
                        left.retain(|h| *h != home);
                        set_knocks(&mut room, &left);
                        change.put_room(&room);
                    }
                }
                Ok(())
            })
            .await;
    }

    /// Keeps the refusal for the admin; a definite one is answered at the
    /// server (the knock denied, its reason the code).
    async fn refuse(
        &self,
        room_id: &str,
        lobby_id: &str,
        home: &str,
        bots: Vec<String>,
        refusal: Refusal,
    ) {
        tracing::info!(
            "a knock of {home} on {room_id} seats nobody: {}",
            refusal.code()
        );
        if let (false, Some((_, matrix))) = (refusal.is_transient(), self.social.matrix()) {
            let (l, h, c) = (lobby_id, home, refusal.code());
            let denied =
                (self.social).renewing(&matrix, |m| async move { lobby::deny(&m, l, h, c).await });
            if let Err(e) = denied.await {
                tracing::info!("the knock of {home} stays at the server: {e}");
            }
        }
        let code = refusal.code().to_owned();
        let kept = move |at| Refused {
            code,
            ticket: None,
            at,
            bots,
        };
        self.keep_answer(room_id, home, kept).await;
    }

    /// Seats `claim`'s Bots from `home` and shares the room with it.
    async fn seat(&self, room_id: &str, home: &str, claim: &Claim) -> Result<(), ApiError> {
        let social = &self.social;
        let (account, matrix) = social.require_matrix()?;
        let room = (social.team().read(|s| s.rooms.get(room_id).cloned()))
            .ok_or_else(|| ApiError::not_found("room", room_id))?;
        let host_bot = (invites(&room).into_iter())
            .find(|l| l.ticket == claim.ticket)
            .map(|l| l.bot_id)
            .unwrap_or_default();
        let seated = with_seats(&room, home, claim, self.logs.last_seq(&room.id) + 1);
        let share = host_share(&room);
        let seq = share.as_ref().map_or(1, |s| s.join_seq + 1);
        let history = self.logs.recent(&room.id, HISTORY_MAX).unwrap_or_default();
        let join = (social.team()).read(|s| join_of(s, &account.user_id, &seated, history, seq));
        let live: Vec<String> = (participants_of(&seated).into_iter())
            .filter(|p| p.kind == ParticipantKind::RemoteBot && p.is_live())
            .filter_map(|p| p.owner)
            .collect();
        let published = publish(
            social,
            &matrix,
            &account.user_id,
            share,
            &room.name,
            &join,
            Some(home),
            &live,
        );
        let published = published.await.map_err(|e| unavailable(&e))?;
        let fanned = self.logs.last_seq(&room.id);
        let (room_id, home, claim) = (room_id.to_owned(), home.to_owned(), claim.clone());
        social
            .team()
            .mutate("social", move |change| {
                let Some(mut room) = change.state().rooms.get(&room_id).cloned() else {
                    return Err(ApiError::not_found("room", &room_id));
                };
                let share = merged(host_share(&room), published, seq, fanned);
                room.participants = seated.participants.clone();
                set_host_share(&mut room, &share);
                let ids: Vec<String> = claim.bots.iter().map(|b| b.id.clone()).collect();
                let mut links = invites(&room);
                for link in links.iter_mut().filter(|l| l.ticket == claim.ticket) {
                    link.homes.insert(home.clone(), ids.clone());
                }
                set_invites(&mut room, &links);
                let mut seats = ticket_seats(&room);
                for id in &ids {
                    seats.insert(
                        seat_id(&home, id),
                        TicketSeat {
                            remote: true,
                            admitted_by: "ticket".into(),
                            ticket: claim.ticket.clone(),
                            host_bot_id: host_bot.clone(),
                        },
                    );
                }
                set_ticket_seats(&mut room, &seats);
                let mut left = knocks(&room);
                left.retain(|h| *h != home);
                set_knocks(&mut room, &left);
                let mut answered = refused(&room);
                answered.remove(&home);
                set_refused(&mut room, &answered);
                let mut counted = tries(&room);
                counted.remove(&home);
                set_tries(&mut room, &counted);
                change.put_room(&room);
                Ok(())
            })
            .await
    }
}

//! The doors of a face-to-face room, the home owner's alone (Bot Social
//! speaks for the home): `face-room-create` makes the room on the Matrix
//! server (public by its number's alias, its own state settable by its
//! maker only, each home's part by that home only) and seats the Bots the
//! owner brings; `face-room-join` joins one by its number, or reopens a
//! past room of this home (#171, #1072: the same seats, a new window);
//! `face-room-leave` says so in the room and leaves it, keeping the local
//! transcript.

use super::FaceRooms;
use super::envelope::{
    ALIAS_PREFIX, BotEntry, CODE_DIGITS, FACE_STATE, FaceMeta, HOME_STATE, HomePart, HomeStatus,
    LeadRef, alias_of, read_code, server_of,
};
use super::receive::{put, take_meta, upsert_room};
use super::records::{FaceStatus, face};
use crate::social::client::{Matrix, MatrixError, room_creator};
use flybot_core::access::Actor;
use flybot_protocol::state::{Room, TeamState};
use flybot_protocol::{ApiError, ErrorCode};
use serde::Deserialize;
use serde_json::json;

/// `face-room-create {name?, bots, lead?}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FaceCreate {
    #[serde(default)]
    pub name: String,
    /// The owner's own Bots that sit in the room.
    #[serde(default)]
    pub bots: Vec<String>,
    /// One of `bots`, the room's lead (#476).
    #[serde(default)]
    pub lead: Option<String>,
}

/// `face-room-join {code | roomId, bots}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FaceJoin {
    /// The room's number, `123456` or `123456:server`.
    #[serde(default)]
    pub code: Option<String>,
    /// A past face room of this home, reopened (#171).
    #[serde(default)]
    pub room_id: Option<String>,
    #[serde(default)]
    pub bots: Vec<String>,
}

/// `face-room-leave {roomId}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FaceLeave {
    pub room_id: String,
}

pub(super) fn unreachable(e: &MatrixError) -> ApiError {
    ApiError::new(
        ErrorCode::Unavailable,
        format!("The homeserver did not take it ({e}); nothing changed, try again."),
    )
}

/// The name this home's person goes by in the room.
fn owner_name(state: &TeamState) -> String {
    let member = flybot_core::access::host_owner_id(state)
        .and_then(|id| state.members.get(&id))
        .map(|m| m.name.trim().to_owned())
        .filter(|n| !n.is_empty() && n != "You");
    let account = state.social.account.as_ref().map(|a| {
        let local = a.user_id.trim_start_matches('@');
        local.split(':').next().unwrap_or(local).to_owned()
    });
    flybot_core::social::clean_label(&member.or(account).unwrap_or_default(), "Someone")
}

/// The actor's own live Bots, as the room's part names them; a Bot that
/// is not theirs is refused, naming it.
fn own_bots(state: &TeamState, actor: &Actor, ids: &[String]) -> Result<Vec<BotEntry>, ApiError> {
    let me = actor.member_id(state).unwrap_or_default();
    ids.iter()
        .map(|id| {
            state
                .bots
                .get(id)
                .filter(|b| b.owner_id == me && !b.is_retired())
                .map(|b| BotEntry {
                    handle: b.id.clone(),
                    name: b.name.clone(),
                    role: b.role.clone(),
                    // This home's Bots have no look of their own: the
                    // other homes' pages seed one from the handle.
                    color: None,
                    avatar: None,
                })
                .ok_or_else(|| ApiError::invalid("bots", format!("{id} is not one of your Bots.")))
        })
        .collect()
}

/// Six random digits.
fn new_code() -> String {
    let mut bytes = [0u8; 4];
    let _ = getrandom::fill(&mut bytes);
    let n = u32::from_le_bytes(bytes) % 1_000_000;
    format!("{n:0width$}", width = CODE_DIGITS)
}

impl FaceRooms {
    /// `face-room-create`: a new room on the server, this home in it.
    pub async fn create(&self, actor: &Actor, req: FaceCreate) -> Result<Room, ApiError> {
        let social = &self.social;
        crate::social::check_owner(social, actor)?;
        let (account, matrix) = social.require_matrix()?;
        let (bots, me_name) = social
            .team()
            .read(|state| own_bots(state, actor, &req.bots).map(|b| (b, owner_name(state))))?;
        if req.lead.as_ref().is_some_and(|l| !req.bots.contains(l)) {
            return Err(ApiError::invalid(
                "lead",
                "The lead must be one of the Bots you bring.",
            ));
        }
        let name = flybot_core::social::clean_label(&req.name, "");
        let now = flybot_store::system_now_ms();
        let part = HomePart {
            owner_name: me_name,
            bots: bots.clone(),
            status: HomeStatus::Joined,
        };
        let mut made = None;
        for _ in 0..5 {
            let code = new_code();
            let meta = FaceMeta {
                code: code.clone(),
                name: name.clone(),
                created_at: now,
                lead: req.lead.clone().map(|handle| LeadRef {
                    home: account.user_id.clone(),
                    handle,
                }),
                closed: false,
            };
            let body = json!({
                "preset": "public_chat",
                "visibility": "private",
                "name": if name.is_empty() { format!("Face-to-face {code}") } else { name.clone() },
                "room_alias_name": format!("{ALIAS_PREFIX}{code}"),
                "power_level_content_override": {"events": {FACE_STATE: 100, HOME_STATE: 0}},
                "initial_state": [
                    {"type": FACE_STATE, "state_key": "", "content": meta},
                    {"type": HOME_STATE, "state_key": account.user_id, "content": part},
                ],
            });
            let body = &body;
            let tried = social.renewing(&matrix, |m| async move { m.create_room_from(body).await });
            match tried.await {
                Ok(room) => {
                    made = Some((room, meta));
                    break;
                }
                // The number is taken: another one.
                Err(MatrixError::Refused(e)) if e.contains("M_ROOM_IN_USE") => continue,
                Err(e) => return Err(unreachable(&e)),
            }
        }
        let (matrix_room, meta) = made.ok_or_else(|| {
            ApiError::new(
                ErrorCode::Unavailable,
                "No free room number was found; try again.",
            )
        })?;
        let origin = Origin {
            maker: account.user_id.clone(),
            meta: Some(meta),
        };
        self.seat_here(&account.user_id, &matrix_room, Some(origin), part, req.lead)
            .await
    }

    /// `face-room-join`: by number, or a past room of this home again.
    pub async fn join(&self, actor: &Actor, req: FaceJoin) -> Result<Room, ApiError> {
        let social = &self.social;
        crate::social::check_owner(social, actor)?;
        let (account, matrix) = social.require_matrix()?;
        let (bots, me_name, past) = social.team().read(|state| {
            let bots = own_bots(state, actor, &req.bots)?;
            let past = match &req.room_id {
                Some(id) => Some(
                    state
                        .rooms
                        .get(id)
                        .and_then(face)
                        .ok_or_else(|| ApiError::not_found("face-to-face room", id))?,
                ),
                None => None,
            };
            Ok::<_, ApiError>((bots, owner_name(state), past))
        })?;
        // #476: a room its maker closed is not written in again.
        if past
            .as_ref()
            .is_some_and(|r| r.status == FaceStatus::Closed)
        {
            return Err(ApiError::new(
                ErrorCode::RoomEnded,
                "The home that made this room closed it; its lines stay here to read.",
            ));
        }
        let target = match (&req.code, &past) {
            (_, Some(record)) => record.matrix_room_id.clone(),
            (Some(code), None) => {
                let (code, server) = read_code(code).ok_or_else(|| {
                    ApiError::invalid("code", "A room number is six digits, like 123456.")
                })?;
                let server = server.unwrap_or_else(|| server_of(&account.user_id).to_owned());
                alias_of(&code, &server)
            }
            (None, None) => {
                return Err(ApiError::invalid(
                    "code",
                    "Type the room's six-digit number.",
                ));
            }
        };
        let target = &target;
        let joined = social.renewing(&matrix, |m| async move { m.join_by(target).await });
        let matrix_room = joined.await.map_err(|e| match e {
            MatrixError::Refused(_) => ApiError::not_found("face-to-face room", target),
            e => unreachable(&e),
        })?;
        let origin = self.origin_of(&matrix, &matrix_room).await;
        if origin
            .as_ref()
            .and_then(|o| o.meta.as_ref())
            .is_some_and(|m| m.closed)
        {
            let id = &matrix_room;
            let _ = social
                .renewing(&matrix, |m| async move { m.leave(id).await })
                .await;
            return Err(ApiError::new(
                ErrorCode::RoomEnded,
                "The home that made this room closed it; nobody joins it any more.",
            ));
        }
        let part = HomePart {
            owner_name: me_name,
            bots: bots.clone(),
            status: HomeStatus::Joined,
        };
        let (id, kind, key, content) = (&matrix_room, HOME_STATE, &account.user_id, &part);
        let content = serde_json::to_value(content).unwrap_or_default();
        let content = &content;
        let set = social.renewing(&matrix, |m| async move {
            m.set_state_keyed(id, kind, key, content).await
        });
        set.await.map_err(|e| unreachable(&e))?;
        self.seat_here(&account.user_id, &matrix_room, origin, part, None)
            .await
    }

    /// `face-room-leave`: this home's part says left, then the Matrix room
    /// is left; the transcript stays for Past rooms (#171).
    pub async fn leave(&self, actor: &Actor, req: FaceLeave) -> Result<Room, ApiError> {
        let social = &self.social;
        crate::social::check_owner(social, actor)?;
        let (account, matrix) = social.require_matrix()?;
        let (record, me_name) = social.team().read(|state| {
            let record = state
                .rooms
                .get(&req.room_id)
                .and_then(face)
                .ok_or_else(|| ApiError::not_found("face-to-face room", &req.room_id))?;
            Ok::<_, ApiError>((record, owner_name(state)))
        })?;
        let part = HomePart {
            owner_name: me_name,
            bots: Vec::new(),
            status: HomeStatus::Left,
        };
        let content = serde_json::to_value(&part).unwrap_or_default();
        let (id, key, content) = (&record.matrix_room_id, &account.user_id, &content);
        let set = social.renewing(&matrix, |m| async move {
            m.set_state_keyed(id, HOME_STATE, key, content).await
        });
        // A room the server no longer carries is left here all the same.
        if let Err(e) = set.await {
            tracing::info!("a face room's leave was not said in the room: {e}");
        }
        let left = social.renewing(&matrix, |m| async move { m.leave(id).await });
        if let Err(e) = left.await {
            tracing::info!("a face room was not left on the server: {e}");
        }
        let room_id = req.room_id.clone();
        let me = account.user_id.clone();
        social
            .team()
            .mutate("social", move |change| {
                let room = change.state().rooms.get(&room_id).cloned();
                let Some(mut room) = room else {
                    return Err(ApiError::not_found("face-to-face room", &room_id));
                };
                let mut record = face(&room)
                    .ok_or_else(|| ApiError::not_found("face-to-face room", &room_id))?;
                record.status = FaceStatus::Left;
                record.homes.insert(me, part);
                room.admin = None;
                Ok(put(change, room, record))
            })
            .await
    }

    /// Who made the room and its state as the maker set it, read from the
    /// homeserver (#476); none when it cannot be read, and the room's first
    /// state is then taken as its maker's, as the sync does.
    async fn origin_of(&self, matrix: &Matrix, matrix_room: &str) -> Option<Origin> {
        let read =
            (self.social).renewing(matrix, |m| async move { m.room_state(matrix_room).await });
        let events = match read.await {
            Ok(events) => events,
            Err(e) => {
                tracing::warn!("the face-to-face room's maker could not be read: {e}");
                return None;
            }
        };
        let maker = room_creator(&events)?;
        let meta = events
            .iter()
            .find(|e| {
                e["type"] == FACE_STATE
                    && e["state_key"] == ""
                    && e["sender"].as_str() == Some(maker.as_str())
            })
            .and_then(|e| serde_json::from_value(e["content"].clone()).ok());
        Some(Origin { maker, meta })
    }

    /// Writes this home's side of a room it made or joined: the room open,
    /// its Bots seated (each with its Session), its part among the homes.
    async fn seat_here(
        &self,
        me: &str,
        matrix_room: &str,
        origin: Option<Origin>,
        part: HomePart,
        lead: Option<String>,
    ) -> Result<Room, ApiError> {
        let (me, matrix_room) = (me.to_owned(), matrix_room.to_owned());
        self.social
            .team()
            .mutate("social", move |change| {
                let (mut room, mut record) =
                    upsert_room(change, &matrix_room).ok_or_else(|| {
                        ApiError::new(
                            ErrorCode::Invalid,
                            "This home has no owner yet; sign in first.",
                        )
                    })?;
                if let Some(origin) = origin {
                    record.maker = origin.maker;
                    match &origin.meta {
                        Some(meta) => take_meta(&mut record, meta),
                        // The room's state is not its maker's: no lead.
                        None => record.lead = None,
                    }
                }
                record.status = FaceStatus::Open;
                room.members = part.bots.iter().map(|b| b.handle.clone()).collect();
                for bot in &room.members.clone() {
                    room.sessions
                        .entry(bot.clone())
                        .or_insert_with(|| crate::ids::new_id("session"));
                }
                let lead = lead.or_else(|| {
                    record
                        .lead
                        .as_ref()
                        .filter(|l| l.home == me)
                        .map(|l| l.handle.clone())
                });
                room.admin = lead.filter(|l| room.members.contains(l));
                record.homes.insert(me.clone(), part);
                Ok(put(change, room, record))
            })
            .await
    }
}

/// Who made a face room, and its state as that maker set it (none when the
/// room's state was last set by someone else).
struct Origin {
    maker: String,
    meta: Option<FaceMeta>,
}

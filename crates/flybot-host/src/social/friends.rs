//! Friends and published Bots (issue 33). A friend is a Matrix user the
//! owner invited or accepted (`social-friend-add`); an invite from a friend
//! is joined; the owner may decline a stranger's (`social-friend-decline`).
//! Publishing a Bot to a friend is a #90 grant naming the
//! friend's Matrix user (default deny, Chief included) plus one FlyBot room
//! for that Bot and that friend, marked by the `org.flybot.room` state
//! event; unpublishing takes the grant away and marks the room not shared,
//! so the friend's home keeps the row as "no longer shared" (#956).

use super::Social;
use super::connect::check_owner;
use flybot_core::access::Actor;
use flybot_core::social::is_user_id;
use flybot_protocol::social::{
    Friend, ROOM_STATE, RoomMark, RoomSide, SocialFriend, SocialPublish, SocialRoom,
};
use flybot_protocol::state::Grant;
use flybot_protocol::{ApiError, ErrorCode};
use serde_json::json;

fn matrix_refused(e: &super::client::MatrixError) -> ApiError {
    ApiError::new(
        ErrorCode::Unavailable,
        format!("The homeserver did not take it ({e}); nothing was shared, try again."),
    )
}

impl Social {
    /// `social-friend-add`: remembers the friend; a waiting invite from
    /// them is joined.
    pub async fn add_friend(&self, actor: &Actor, req: SocialFriend) -> Result<Friend, ApiError> {
        check_owner(self, actor)?;
        let (account, matrix) = self.require_matrix()?;
        if !is_user_id(&req.user_id) {
            return Err(ApiError::invalid(
                "userId",
                "A friend is a Matrix user id such as @bob:example.org; check it.",
            ));
        }
        if req.user_id == account.user_id {
            return Err(ApiError::invalid(
                "userId",
                "That is this home's own Matrix account; name another person.",
            ));
        }
        let friend = Friend {
            user_id: req.user_id.clone(),
            since: flybot_store::system_now_ms(),
        };
        let kept = friend.clone();
        let friend = self
            .team()
            .mutate("social", move |change| {
                if let Some(known) = change.state().social.friends.get(&kept.user_id) {
                    return Ok(known.clone());
                }
                change.put_friend(&kept);
                Ok(kept)
            })
            .await?;
        let invites = self.take_invites_from(&friend.user_id).await?;
        for room_id in invites {
            let joined = self.renewing(&matrix, |m| {
                let room_id = &room_id;
                async move { m.join(room_id).await }
            });
            if let Err(e) = joined.await {
                tracing::warn!("an invite from {} could not be joined: {e}", friend.user_id);
            }
        }
        Ok(friend)
    }

    /// `social-friend-decline`: the invites waiting from a user who is not
    /// a friend are declined (left on the homeserver) and forgotten; the
    /// user stays no friend, so nothing of theirs is joined.
    pub async fn decline_friend(
        &self,
        actor: &Actor,
        req: SocialFriend,
    ) -> Result<usize, ApiError> {
        check_owner(self, actor)?;
        let (_, matrix) = self.require_matrix()?;
        let invites = self.take_invites_from(&req.user_id).await?;
        if invites.is_empty() {
            return Err(ApiError::not_found("invite", &req.user_id));
        }
        let declined = invites.len();
        for room_id in invites {
            let left = self.renewing(&matrix, |m| {
                let room_id = &room_id;
                async move { m.leave(room_id).await }
            });
            if let Err(e) = left.await {
                // Not left on the homeserver, but forgotten here: it is
                // not joined, and a new invite asks again.
                tracing::warn!("an invite from {} was not declined: {e}", req.user_id);
            }
        }
        Ok(declined)
    }

    /// `social-publish`: a grant to the friend, and the Bot's room with them.
    pub async fn publish(&self, actor: &Actor, req: SocialPublish) -> Result<SocialRoom, ApiError> {
        check_owner(self, actor)?;
        self.check_own_bot(actor, &req.bot_id)?;
        let (_, matrix) = self.require_matrix()?;
        let (mark, existing) = self.team().read(|state| {
            let bot = state.bots.get(&req.bot_id).filter(|b| !b.is_retired());
            let friend = state.social.friends.contains_key(&req.user_id);
            let owner = owner_name(state);
            let existing = mine_room(state, &req.bot_id, &req.user_id);
            let mark = bot.map(|bot| RoomMark {
                bot: bot.id.clone(),
                bot_name: flybot_core::social::clean_label(&bot.name, "Bot"),
                owner_name: owner,
                shared: true,
            });
            (friend.then_some(mark).flatten(), existing)
        });
        let Some(mark) = mark else {
            return Err(ApiError::invalid(
                "botId",
                "Publish one of this home's Bots to a friend: add the friend first, and check the Bot.",
            ));
        };
        let content = serde_json::to_value(&mark).unwrap_or_default();
        let room_id = match &existing {
            Some(room) => {
                let (room_id, content) = (&room.room_id, &content);
                let set = self.renewing(&matrix, |m| async move {
                    m.set_state(room_id, ROOM_STATE, content).await
                });
                set.await.map_err(|e| matrix_refused(&e))?;
                room.room_id.clone()
            }
            None => {
                let name = flybot_core::social::friend_bot_title(&mark.bot_name, &mark.owner_name);
                let state = vec![json!({"type": ROOM_STATE, "state_key": "", "content": content})];
                let (name, friend, state) = (&name, &req.user_id, &state);
                let made = self.renewing(&matrix, |m| async move {
                    m.create_room(name, friend, state.clone()).await
                });
                made.await.map_err(|e| matrix_refused(&e))?
            }
        };
        let room = SocialRoom {
            room_id,
            side: RoomSide::Mine,
            peer: req.user_id.clone(),
            bot: mark.bot.clone(),
            bot_name: mark.bot_name.clone(),
            owner_name: mark.owner_name.clone(),
            shared: true,
            joined: true,
            awaiting: false,
            lines: existing.map(|r| r.lines).unwrap_or_default(),
            friend_line_at: None,
            asked_by: None,
            askers: Vec::new(),
        };
        let kept = room.clone();
        self.team()
            .mutate("social", move |change| {
                let mut grants = change
                    .state()
                    .grants
                    .get(&req.bot_id)
                    .cloned()
                    .unwrap_or_default();
                if !grants
                    .iter()
                    .any(|g| g.grantee == req.user_id && g.room_id.is_none())
                {
                    grants.push(Grant {
                        grantee: req.user_id.clone(),
                        room_id: None,
                    });
                    change.set_grants(&req.bot_id, &grants);
                }
                change.put_social_room(&kept);
                Ok(())
            })
            .await?;
        Ok(room)
    }

    /// `social-unpublish`: the grant taken away first (so no line reaches
    /// the Bot from then on), then the room marked not shared.
    pub async fn unpublish(
        &self,
        actor: &Actor,
        req: SocialPublish,
    ) -> Result<SocialRoom, ApiError> {
        check_owner(self, actor)?;
        let (_, matrix) = self.require_matrix()?;
        let user = req.user_id.clone();
        let bot_id = req.bot_id.clone();
        let room = self
            .team()
            .mutate("social", move |change| {
                let Some(mut room) = mine_room(change.state(), &bot_id, &user) else {
                    return Err(ApiError::not_found("published Bot", &bot_id));
                };
                let mut grants = change
                    .state()
                    .grants
                    .get(&bot_id)
                    .cloned()
                    .unwrap_or_default();
                grants.retain(|g| !(g.grantee == user && g.room_id.is_none()));
                change.set_grants(&bot_id, &grants);
                room.shared = false;
                change.put_social_room(&room);
                Ok(room)
            })
            .await?;
        let mark = RoomMark {
            bot: room.bot.clone(),
            bot_name: room.bot_name.clone(),
            owner_name: room.owner_name.clone(),
            shared: false,
        };
        let content = serde_json::to_value(&mark).unwrap_or_default();
        let (room_id, content) = (&room.room_id, &content);
        let set = self.renewing(&matrix, |m| async move {
            m.set_state(room_id, ROOM_STATE, content).await
        });
        if let Err(e) = set.await {
            // The grant is gone already: nothing reaches the Bot; the
            // friend's row learns on the next publish or unpublish.
            tracing::warn!("the room of an unpublished Bot was not marked: {e}");
        }
        Ok(room)
    }
}

impl Social {
    /// #90: the owner speaks only for their own Bots: a member's Bot is
    /// that member's to share (`bot/forbidden`, nothing changed). A Bot
    /// that is not there is left to the caller's own refusal.
    pub(super) fn check_own_bot(&self, actor: &Actor, bot_id: &str) -> Result<(), ApiError> {
        let theirs = self.team().read(|state| {
            let bot = state.bots.get(bot_id)?;
            let me = actor.member_id(state);
            let mine = !flybot_core::access::enforced(state)
                || me.as_deref() == Some(bot.owner_id.as_str());
            Some(!mine)
        });
        match theirs {
            Some(true) => Err(ApiError::forbidden(
                "That Bot belongs to another member of this home; only its owner may share it with friends.",
            )),
            Some(false) | None => Ok(()),
        }
    }
}

/// This home's room for `bot_id` and friend `user`, if any.
fn mine_room(state: &flybot_protocol::TeamState, bot_id: &str, user: &str) -> Option<SocialRoom> {
    state
        .social
        .rooms
        .values()
        .find(|r| r.side == RoomSide::Mine && r.bot == bot_id && r.peer == user)
        .cloned()
}

/// The name the home's Bots are published under: the host owner's.
fn owner_name(state: &flybot_protocol::TeamState) -> String {
    let owner = flybot_core::access::host_owner_id(state)
        .and_then(|id| state.members.get(&id).map(|m| m.name.clone()));
    let account = state.social.account.as_ref().map(|a| {
        let local = a.user_id.trim_start_matches('@');
        local.split(':').next().unwrap_or(local).to_owned()
    });
    let name = owner.or(account).unwrap_or_default();
    flybot_core::social::clean_label(&name, "Friend")
}

//! Bot Social's endpoints (issue 33): `social` (the owner's view),
//! `social-connect`, `social-disconnect`, `social-friend-add`,
//! `social-friend-decline`,
//! `social-publish`, `social-unpublish`, `social-send`, `social-policy`
//! and `social-hold-answer` (#52). Each is the home owner's alone (`flybot_core::social::is_home_owner`): another member
//! gets `bot/forbidden` and nothing changes.

use super::extract::route_table;
use super::{body::parse, typed};
use flybot_protocol::social::SocialView;

route_table! {
    "social" => |host, caller, body| {
        let _: flybot_protocol::channel::Empty = parse(body)?;
        let actor = caller.require()?;
        crate::social::check_owner(host.social(), actor)?;
        typed::<SocialView>(Ok(host.social().view()))
    };
    "social-connect" => |host, caller, body| {
        let actor = caller.require()?;
        typed(host.social().connect(actor, parse(body)?).await.map(|account| {
            serde_json::json!({"account": account})
        }))
    };
    "social-disconnect" => |host, caller, body| {
        let _: flybot_protocol::channel::Empty = parse(body)?;
        let actor = caller.require()?;
        typed(host.social().disconnect(actor).await.map(|()| serde_json::json!({})))
    };
    "social-friend-add" => |host, caller, body| {
        let actor = caller.require()?;
        typed(host.social().add_friend(actor, parse(body)?).await.map(|friend| {
            serde_json::json!({"friend": friend})
        }))
    };
    "social-friend-decline" => |host, caller, body| {
        let actor = caller.require()?;
        typed(host.social().decline_friend(actor, parse(body)?).await.map(|declined| {
            serde_json::json!({"declined": declined})
        }))
    };
    "social-publish" => |host, caller, body| {
        let actor = caller.require()?;
        typed(host.social().publish(actor, parse(body)?).await.map(|room| {
            serde_json::json!({"room": room})
        }))
    };
    "social-unpublish" => |host, caller, body| {
        let actor = caller.require()?;
        typed(host.social().unpublish(actor, parse(body)?).await.map(|room| {
            serde_json::json!({"room": room})
        }))
    };
    "social-send" => |host, caller, body| {
        let actor = caller.require()?;
        typed(host.social().send(actor, parse(body)?).await)
    };
    // #52: how a Bot sends to friends, and the owner's word on a held send.
    "social-policy" => |host, caller, body| {
        let actor = caller.require()?;
        typed(host.social().set_policy(actor, parse(body)?).await.map(|bot| {
            serde_json::json!({"bot": bot})
        }))
    };
    "social-hold-answer" => |host, caller, body| {
        let actor = caller.require()?;
        typed(host.social().answer_hold(actor, parse(body)?).await)
    };
}

//! The route table of chat, rooms' channels, approvals, memory, usage and
//! the state view.

use super::body::parse;
use super::extract::route_table;
use super::{approvals, chat, host as host_info, memory, typed};
use flybot_protocol::channel::Empty;

route_table! {
    // Test connection (#409): one real request on the Bot's route, or on
    // a model the host's owner names from Settings (issue 31).
    "test-model" => |host, caller, body| {
        let models = &host.config().models;
        typed(host_info::test_model::test_model(host.team(), models, caller.require()?, parse(body)?).await)
    };
    // Models from Settings (issue 31): the host's owner's.
    "models-config" => |host, caller, body| {
        let _: Empty = parse(body)?;
        typed(host_info::models::settings(&host).read(caller.require()?))
    };
    "model-provider-set" => |host, caller, body| {
        typed(host_info::models::settings(&host).set(caller.require()?, parse(body)?))
    };
    "model-provider-remove" => |host, caller, body| {
        typed(host_info::models::settings(&host).remove(caller.require()?, parse(body)?))
    };
    "model-default-set" => |host, caller, body| {
        typed(host_info::models::settings(&host).set_default(caller.require()?, parse(body)?))
    };
    // A Bot's own chat (#642, #1509), or a room's channel with a roomId
    // (issue 5).
    "send" => |host, caller, body| {
        let (actor, acks) = (caller.require()?, host.busy_acks());
        let default_model = host.config().models.default_model();
        let readers = crate::attachments::reading::Readers::of(host.config(), &default_model);
        if chat::room_chat::names_room(body) {
            typed(chat::room_chat::send(host.rounds(), acks, actor, &readers, parse(body)?).await)
        } else {
            typed(chat::own_chat::send(host.team(), host.sessions(), acks, actor, &readers, parse(body)?).await)
        }
    };
    "messages" => |host, caller, body| {
        let actor = caller.require()?;
        if chat::room_chat::names_room(body) {
            typed(chat::room_chat::messages(host.rounds(), host.live_feed(), actor, parse(body)?))
        } else {
            typed(chat::own_chat::messages(host.team(), host.sessions(), host.live_feed(), actor, parse(body)?))
        }
    };
    // A question about handed-out work, answered from the room's dock (#550).
    "answer-question" => |host, caller, body| {
        typed(chat::room_question::answer(host.rounds(), caller.require()?, parse(body)?).await)
    };
    "dismiss-question" => |host, caller, body| {
        typed(chat::room_question::dismiss(host.rounds(), caller.require()?, parse(body)?).await)
    };
    // A Bot chat's past conversations, and a fresh one (issue 31).
    "conversations" => |host, caller, body| {
        typed(chat::past::list(host.team(), host.sessions(), caller.require()?, parse(body)?))
    };
    "conversation-new" => |host, caller, body| {
        typed(chat::past::start(host.team(), host.sessions(), caller.require()?, parse(body)?))
    };
    // Search across the chats and rooms the caller may read (issue 31).
    "search" => |host, caller, body| {
        typed(chat::search::search(host.search(), caller.require()?, parse(body)?).await)
    };
    "room-stop" => |host, caller, body| {
        typed(chat::room_stop::stop(host.rounds(), caller.require()?, parse(body)?))
    };
    "cancel" => |host, caller, body| {
        typed(chat::own_chat::cancel(host.team(), host.sessions(), caller.require()?, parse(body)?))
    };
    // Tool approvals (#540, #754): the owner answers a waiting turn.
    "approvals" => |host, caller, body| {
        typed(approvals::list(host.approvals(), caller.require()?, parse(body)?))
    };
    "approval-answer" => |host, caller, body| {
        typed(approvals::answer(host.approvals(), caller.require()?, parse(body)?).await)
    };
    "standing-approval-remove" => |host, caller, body| {
        typed(approvals::remove_standing(host.approvals(), caller.require()?, parse(body)?).await)
    };
    // A Bot's memory, for its owner (#450, #638).
    "memory" => |host, caller, body| {
        typed(memory::read(&host.memory(), caller.require()?, parse(body)?))
    };
    "memory-append" => |host, caller, body| {
        typed(memory::append(&host.memory(), caller.require()?, parse(body)?).await)
    };
    "memory-edit" => |host, caller, body| {
        typed(memory::edit(&host.memory(), caller.require()?, parse(body)?).await)
    };
    "memory-delete" => |host, caller, body| {
        typed(memory::delete(&host.memory(), caller.require()?, parse(body)?).await)
    };
    "memory-pin" => |host, caller, body| {
        typed(memory::pin(&host.memory(), caller.require()?, parse(body)?).await)
    };
    // The usage ledger (#903): rows of the actor's own Bots.
    "usage" => |host, caller, body| {
        typed(host_info::usage::usage(host.team(), host.usage(), caller.require()?, parse(body)?).await)
    };
    "state" => |host, caller, body| {
        let _: Empty = parse(body)?;
        let (config, surfaces) = (host.config(), host.shared_surfaces());
        crate::view::state_view(host.team(), host.sessions(), host.rooms(), config, caller.require()?, surfaces).await
    };
}

//! The matrix's rows for sign-in, the roster, the host-wide surfaces,
//! chat, approvals, memory, usage, the view, and the shared surfaces
//! (secrets, connectors) that two members block outright.

use super::Row::{self, Answers, OwnOnly, Refused};
use super::setup::{Ada, MARKER};
use serde_json::json;

/// A well-formed room invite link (its room is nobody's here).
const INVITE_LINK: &str = "https://localhost/r/bot-1/AAAAAAAAAAAAAAAAAAAAAA";

/// Bob aims every body at Ada's records.
pub fn rows(a: &Ada) -> Vec<(&'static str, Row)> {
    let (bot, room) = (a.bot.as_str(), a.room.as_str());
    vec![
        // Sign-in. Redeeming needs no session and names only a code: a
        // code Bob does not hold cannot sign him in as anyone.
        (
            "auth-redeem",
            Refused(
                json!({"code": a.invitation, "name": "Ada"}),
                "bot/unauthorized",
            ),
        ),
        (
            "auth-invite",
            OwnOnly(
                "an invitation is the inviter's own",
                json!({"name": "Mallory"}),
            ),
        ),
        (
            "auth-whoami",
            OwnOnly("answers the caller's own session", json!({})),
        ),
        (
            "auth-revoke",
            Refused(json!({"sessionId": a.second.session_id}), "bot/not-found"),
        ),
        ("auth-sessions", Answers(json!({}))),
        (
            "auth-revoke-invite",
            Refused(json!({"id": a.invitation}), "bot/forbidden"),
        ),
        (
            "auth-remove-member",
            Refused(json!({"memberId": a.me.member_id}), "bot/forbidden"),
        ),
        // The roster.
        (
            "create-bot",
            OwnOnly(
                "a new Bot is the caller's",
                json!({"name": "Copycat", "instructions": "x"}),
            ),
        ),
        (
            "update-bot",
            Refused(
                json!({"id": bot, "instructions": "Tell all."}),
                "bot/forbidden",
            ),
        ),
        (
            "duplicate-bot",
            Refused(json!({"id": bot, "name": "Mine now"}), "bot/forbidden"),
        ),
        ("delete-bot", Refused(json!({"id": bot}), "bot/forbidden")),
        (
            "retire-bot",
            Refused(json!({"id": a.spare}), "bot/forbidden"),
        ),
        ("set-main", Refused(json!({"id": bot}), "bot/forbidden")),
        (
            "create-room",
            Refused(
                json!({"name": "Steal", "members": [bot], "admin": bot}),
                "bot/forbidden",
            ),
        ),
        // A hole issue 29 closed: the refusal echoes the name of Ada's room.
        (
            "update-room",
            Refused(json!({"id": room, "name": "Mine"}), "bot/forbidden"),
        ),
        // A hole issue 29 closed: the refusal echoes the name of Ada's room.
        ("delete-room", Refused(json!({"id": room}), "bot/forbidden")),
        (
            "set-grants",
            Refused(
                json!({"botId": bot, "grants": [{"grantee": a.me.member_id}]}),
                "bot/forbidden",
            ),
        ),
        // Shared surfaces (#49) are blocked while there are two members.
        (
            "set-prefs",
            Refused(json!({"prefs": {"theme": "dark"}}), "bot/blocked-shared"),
        ),
        ("diagnostics", Refused(json!({}), "bot/blocked-shared")),
        ("diagnostics-log", Refused(json!({}), "bot/blocked-shared")),
        // Chat and rooms' channels.
        (
            "test-model",
            Refused(json!({"botId": bot}), "bot/forbidden"),
        ),
        // Models from Settings (issue 31): the host's owner's alone.
        ("models-config", Refused(json!({}), "bot/forbidden")),
        (
            "model-provider-set",
            Refused(
                json!({"name": "bob", "baseUrl": "http://127.0.0.1:9/v1",
                       "models": [{"name": "bob-chat", "model": "m", "contextWindow": 1000}]}),
                "bot/forbidden",
            ),
        ),
        (
            "model-provider-remove",
            Refused(json!({"name": "bob"}), "bot/forbidden"),
        ),
        (
            "model-default-set",
            Refused(json!({"model": "mock"}), "bot/forbidden"),
        ),
        (
            "send",
            Refused(json!({"botId": bot, "text": "hi"}), "bot/not-found"),
        ),
        ("messages", Refused(json!({"botId": bot}), "bot/not-found")),
        // Past conversations (issue 31): the chat's own door.
        (
            "conversations",
            Refused(json!({"botId": bot}), "bot/not-found"),
        ),
        (
            "conversation-new",
            Refused(json!({"botId": bot}), "bot/not-found"),
        ),
        (
            "answer-question",
            Refused(json!({"roomId": room, "answer": "yes"}), "bot/not-found"),
        ),
        (
            "dismiss-question",
            Refused(json!({"roomId": room}), "bot/not-found"),
        ),
        // Attachments (issue 32): Bob's upload is his own; Ada's file is
        // unknown to him.
        (
            "attachment-upload",
            OwnOnly(
                "stores the caller's own file",
                json!({"name": "b.txt", "data": "aGk="}),
            ),
        ),
        (
            "attachment-info",
            Refused(json!({"ids": [a.attachment]}), "bot/not-found"),
        ),
        // Search answers only from Bob's own conversations (issue 31).
        ("search", Answers(json!({"query": "private ada Fact"}))),
        (
            "room-stop",
            Refused(json!({"roomId": room}), "bot/not-found"),
        ),
        // A hole issue 29 closed: the refusal names Ada's Bot behind the Session id Bob
        // sent, an id he may not see.
        (
            "cancel",
            Refused(json!({"sessionId": a.bot_session}), "bot/not-found"),
        ),
        // Approvals.
        ("approvals", Answers(json!({"botId": bot}))),
        (
            "approval-answer",
            Refused(
                json!({"id": a.approval, "answer": "allowed-once"}),
                "bot/forbidden",
            ),
        ),
        (
            "standing-approval-remove",
            Refused(
                json!({"scope": "bot", "id": bot, "kind": "run_command"}),
                "bot/forbidden",
            ),
        ),
        // Memory.
        ("memory", Refused(json!({"botId": bot}), "bot/forbidden")),
        (
            "memory-append",
            Refused(json!({"botId": bot, "text": "Planted."}), "bot/forbidden"),
        ),
        (
            "memory-edit",
            Refused(
                json!({"botId": bot, "id": a.memory, "text": "Changed."}),
                "bot/forbidden",
            ),
        ),
        (
            "memory-delete",
            Refused(json!({"botId": bot, "id": a.memory}), "bot/forbidden"),
        ),
        (
            "memory-pin",
            Refused(json!({"botId": bot, "text": "Pinned."}), "bot/forbidden"),
        ),
        // Usage and the view.
        ("usage", Answers(json!({"botId": bot}))),
        // A hole issue 29 closed: the view shows Ada's Project (its id and name).
        ("state", Answers(json!({}))),
        // Secrets and connectors: shared, non-isolatable (#49, #545, #601).
        ("secrets", Refused(json!({}), "bot/blocked-shared")),
        (
            "secret-set",
            Refused(
                json!({"name": "ADA_KEY", "value": MARKER}),
                "bot/blocked-shared",
            ),
        ),
        (
            "secret-update",
            Refused(
                json!({"name": "ADA_KEY", "value": MARKER}),
                "bot/blocked-shared",
            ),
        ),
        (
            "secret-delete",
            Refused(json!({"name": "ADA_KEY"}), "bot/blocked-shared"),
        ),
        ("connectors", Refused(json!({}), "bot/blocked-shared")),
        (
            "connector-connect",
            Refused(
                json!({"id": "ada-mcp", "command": ["true"]}),
                "bot/blocked-shared",
            ),
        ),
        (
            "connector-disconnect",
            Refused(json!({"id": "ada-mcp"}), "bot/blocked-shared"),
        ),
        // Issue 39: the host's owner may retry her saved connector; Bob may not.
        (
            "connector-retry",
            Refused(json!({"id": "ada-mcp"}), "bot/blocked-shared"),
        ),
        (
            "bot-connectors",
            Refused(
                json!({"botId": bot, "connector": "ada-mcp", "enabled": true}),
                "bot/blocked-shared",
            ),
        ),
        // The channel connectors' allow-list and send only require a caller
        // at the route; the shared block reaches them through the secrets'
        // writable check (`Secrets::check_writable`).
        (
            "connector-allow",
            Refused(
                json!({"id": "feishu-ada", "openId": "ou_x"}),
                "bot/blocked-shared",
            ),
        ),
        (
            "connector-block",
            Refused(
                json!({"id": "feishu-ada", "openId": "ou_x"}),
                "bot/blocked-shared",
            ),
        ),
        (
            "connector-send",
            Refused(
                json!({"id": "feishu-ada", "text": "hi"}),
                "bot/blocked-shared",
            ),
        ),
        // Bot Social (issue 33): the home's Matrix identity, friends and
        // published Bots are the host owner's alone.
        ("social", Refused(json!({}), "bot/forbidden")),
        (
            "social-connect",
            Refused(
                json!({"homeserver": "http://127.0.0.1:9", "accessToken": MARKER}),
                "bot/forbidden",
            ),
        ),
        ("social-disconnect", Refused(json!({}), "bot/forbidden")),
        (
            "social-friend-add",
            Refused(json!({"userId": "@mallory:localhost"}), "bot/forbidden"),
        ),
        (
            "social-friend-decline",
            Refused(json!({"userId": "@mallory:localhost"}), "bot/forbidden"),
        ),
        (
            "social-publish",
            Refused(
                json!({"botId": bot, "userId": "@mallory:localhost"}),
                "bot/forbidden",
            ),
        ),
        (
            "social-unpublish",
            Refused(
                json!({"botId": bot, "userId": "@mallory:localhost"}),
                "bot/forbidden",
            ),
        ),
        (
            "social-send",
            Refused(
                json!({"roomId": "!ada:localhost", "text": MARKER}),
                "bot/forbidden",
            ),
        ),
        // Inbound shared rooms (issue 34): Bot Social speaks for the home,
        // so only its owner shares her rooms with friends' Bots.
        (
            "room-share-add",
            Refused(
                json!({"roomId": room, "friendBot": "!ada:localhost"}),
                "bot/forbidden",
            ),
        ),
        (
            "room-share-hide",
            Refused(json!({"roomId": room}), "bot/forbidden"),
        ),
        (
            "room-share-remove",
            Refused(
                json!({"roomId": room, "seat": "@mallory:localhost/bot-1"}),
                "bot/forbidden",
            ),
        ),
        // Invite links (issue 34, #876): the home owner's, on her rooms.
        (
            "room-invite",
            Refused(json!({"roomId": room}), "bot/forbidden"),
        ),
        (
            "room-invite-mint",
            Refused(json!({"roomId": room}), "bot/forbidden"),
        ),
        (
            "room-invite-revoke",
            Refused(json!({"roomId": room}), "bot/forbidden"),
        ),
        (
            "room-invite-seat",
            Refused(json!({"roomId": room}), "bot/forbidden"),
        ),
        (
            "room-invite-preview",
            Refused(json!({"link": INVITE_LINK}), "bot/forbidden"),
        ),
        (
            "room-invite-ask",
            Refused(json!({"link": INVITE_LINK, "bots": [bot]}), "bot/forbidden"),
        ),
        // Face-to-face rooms (issue 34): Bot Social speaks for the home, so
        // only its owner makes, joins or leaves one.
        (
            "face-room-create",
            Refused(json!({"bots": [bot]}), "bot/forbidden"),
        ),
        (
            "face-room-join",
            Refused(json!({"code": "123456", "bots": [bot]}), "bot/forbidden"),
        ),
        (
            "face-room-leave",
            Refused(json!({"roomId": room}), "bot/forbidden"),
        ),
        // #476: only the owner of the home that made the room.
        (
            "face-room-lead",
            Refused(json!({"roomId": room, "lead": bot}), "bot/forbidden"),
        ),
        (
            "face-room-close",
            Refused(json!({"roomId": room}), "bot/forbidden"),
        ),
        (
            "social-policy",
            Refused(
                json!({"botId": bot, "policy": "ask-first"}),
                "bot/forbidden",
            ),
        ),
        (
            "social-hold-answer",
            Refused(json!({"id": "out-ada", "send": true}), "bot/forbidden"),
        ),
    ]
}

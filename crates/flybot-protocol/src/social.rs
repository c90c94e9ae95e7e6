//! Bot Social on Matrix (issue 33): the home's identity, its friends, the
//! rooms it shares Bots in, the sync token and applied event ids, and the
//! outbox of sends, as the team keeps them (`state.social`, every change
//! journaled); the channel's requests and answers of the `social-*`
//! endpoints; the content FlyBot puts in a Matrix message.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The custom key of a FlyBot line inside an `m.room.message`'s content.
pub const LINE_KEY: &str = "org.flybot.line";
/// The state event type that marks a room FlyBot made (one published Bot
/// shared with one friend).
pub const ROOM_STATE: &str = "org.flybot.room";

/// Everything Bot Social keeps in the team.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SocialState {
    /// The Matrix account that is this home's identity; its access token
    /// lives only in `secrets.json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<SocialAccount>,
    /// The `/sync` token after the last batch applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Event ids applied, with when (the newest `APPLIED_KEPT`).
    #[serde(default)]
    pub applied: BTreeMap<String, u64>,
    /// Sends not yet acknowledged by the homeserver, by outbox id (also the
    /// Matrix transaction id, so a retry after a crash is the same send).
    #[serde(default)]
    pub outbox: BTreeMap<String, OutboxItem>,
    /// Friends' lines taken but not yet handed to the Bot, by event id.
    #[serde(default)]
    pub inbox: BTreeMap<String, InboxLine>,
    /// Matrix user ids the owner invited or accepted.
    #[serde(default)]
    pub friends: BTreeMap<String, Friend>,
    /// FlyBot rooms by Matrix room id.
    #[serde(default)]
    pub rooms: BTreeMap<String, SocialRoom>,
    /// #420 `remoteContacts`: the friends' homes seen writing to each of
    /// this home's Bots, by Bot id then sender (at most 200 per Bot, gone
    /// with the Bot). Host only: no view shows it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub contacts: BTreeMap<String, BTreeMap<String, RemoteContact>>,
    /// #417, #418: this home's Bots' replies to friends, newest 200, by
    /// outbox id (no text).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub replies: BTreeMap<String, HeldReply>,
    /// #52, #417: how each of this home's Bots sends to friends, by Bot id;
    /// a Bot not named here sends on the owner's Auto-send.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub policies: BTreeMap<String, SendPolicy>,
    /// #52, #418: sends held for the owner's Send or Don't send, by outbox
    /// id; none of them is in the outbox until the owner says Send.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub held: BTreeMap<String, HeldItem>,
    /// Invites from Matrix users who are not friends yet, by room id (the
    /// inviter), kept across a restart: the sync token has moved past them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub invites: BTreeMap<String, String>,
    /// Issue 34, #884 `roomClaims`: the room invite links this home claimed
    /// for some of its Bots (the knock it made at the server), by ticket.
    /// A join from a stranger projects only a room one of these names.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub room_claims: BTreeMap<String, RoomClaim>,
}

/// One room invite link this home claimed (#884): whose room (the home
/// that made the link, as the homeserver says), which Bots, and when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoomClaim {
    pub ticket: String,
    /// The inviting home's Matrix user id: the lobby's maker.
    pub inviter: String,
    /// The Bot the link knocks on, by its id in the inviter's home.
    pub handle: String,
    /// The Matrix room the knock went to.
    pub lobby: String,
    /// This home's Bots the claim brings, by id.
    pub bots: Vec<String>,
    pub at: u64,
    /// The newest join or leave of this home's mirror of the inviter's room
    /// holding these Bots when the claim was made (0: none). A mirror left
    /// before the claim (Bots taken out, then asked again by the link) does
    /// not end it; only a leave after it does.
    #[serde(default)]
    pub after_join_seq: u64,
}

/// #52, #417: how a Bot's sends to friends go, its replies and its own
/// lines to friends' Bots alike.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SendPolicy {
    /// Sent at once, on the owner's Auto-send (#417).
    #[default]
    AutoSend,
    /// Held until the owner says Send or Don't send (#52, #418).
    AskFirst,
}

impl SendPolicy {
    /// The word a reply record names its policy by.
    pub fn as_str(self) -> &'static str {
        match self {
            SendPolicy::AutoSend => "auto-send",
            SendPolicy::AskFirst => "ask-first",
        }
    }
}

/// #52: a send held for the owner: the exact send (its content fixed when
/// held, so what the owner reads is what goes), whose Bot wrote it, and to
/// which friend's home.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeldItem {
    pub item: OutboxItem,
    pub bot_id: String,
    /// The friend's home (their Matrix user id).
    pub friend: String,
    /// A reply to a friend's line; otherwise this home's Bot's own line to
    /// a friend's Bot.
    pub reply: bool,
    pub at: u64,
}

/// #52: a held send as the owner decides it (the text shown: it is the
/// owner's own Bot's words).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FriendHold {
    pub id: String,
    /// `friend-hold`, so a page tells it from the team's own held sends.
    pub kind: &'static str,
    pub bot_id: String,
    /// The friend's home (their Matrix user id).
    pub friend: String,
    /// Whom it goes to as the page names it: the friend's Bot's title for
    /// a line to it, the friend's home for a reply, the room's name for a
    /// face-to-face room's line (#456).
    pub to: String,
    /// The face-to-face room a held line was written in (#456); none for
    /// a send to one friend's home.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub room_id: Option<String>,
    pub reply: bool,
    pub text: String,
    pub at: u64,
}

/// `social-policy {botId, policy}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SocialPolicy {
    pub bot_id: String,
    pub policy: SendPolicy,
}

/// `social-hold-answer {id, send}`: the owner's Send (`true`) or Don't
/// send (`false`).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SocialHoldAnswer {
    pub id: String,
    pub send: bool,
}

/// `social-hold-answer`'s answer: the reply record as decided (`approved`:
/// in the outbox now; `rejected`; `failed` when `reach()` no longer lets
/// it go, #404).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HoldDecided {
    pub id: String,
    pub status: ReplyStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// #420: a friend's home seen writing to one of this home's Bots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteContact {
    pub first_at: u64,
    pub last_at: u64,
}

/// Where a reply to a friend is (#417, #418).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ReplyStatus {
    /// Waiting: held for the owner (policy `ask-first`, #52), or in the
    /// outbox, not yet taken by the homeserver.
    Pending,
    /// Held, then let go by the owner's Send (#52).
    Approved,
    /// Held, and the owner said Don't send.
    Rejected,
    /// Let go on the owner's Auto-send and taken by the homeserver (#417).
    Auto,
    /// Not sent; `retry` says whether a Retry could change that (#954).
    Failed,
}

/// #371, #417, #418 `heldReplies`: one reply of a Bot to a friend, as its
/// owner sees it; never its text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeldReply {
    /// The outbox id (also the Matrix transaction id).
    pub id: String,
    pub bot_id: String,
    /// The policy it went out under: `auto-send` or `ask-first` (#417).
    pub policy: String,
    pub status: ReplyStatus,
    /// The Bot's chat and the turn the reply answers.
    pub session_id: String,
    pub turn: String,
    /// The friend's home (their Matrix user id).
    pub friend: String,
    /// Whether it answers a line a person typed (#227), rather than a Bot.
    pub to_owner: bool,
    /// For a failed reply: whether Retry may help (#954, #968).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<bool>,
    /// The sentence of a failed reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub at: u64,
}

impl SocialState {
    /// Whether nothing is kept (a home that never connected).
    pub fn is_empty(&self) -> bool {
        *self == SocialState::default()
    }
}

/// The home's Matrix account (never its token).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SocialAccount {
    pub homeserver: String,
    pub user_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_id: Option<String>,
    pub connected_at: u64,
}

/// A friend: a Matrix user the owner invited, or whose invite it accepted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Friend {
    pub user_id: String,
    pub since: u64,
}

/// Which home's Bot a room shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RoomSide {
    /// One of this home's Bots, published to `peer`.
    Mine,
    /// A Bot of `peer`'s home, published to this home.
    Theirs,
}

/// One FlyBot room: one published Bot, one friend.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SocialRoom {
    pub room_id: String,
    pub side: RoomSide,
    /// The other home's Matrix user id (the transport's sender).
    pub peer: String,
    /// The Bot's handle in its own home (its id there).
    pub bot: String,
    /// The Bot's name as its home published it, sanitised (#75, #137).
    pub bot_name: String,
    /// The owner's name as its home published it, sanitised.
    pub owner_name: String,
    /// Whether the Bot is still shared (#956: kept, marked, when not).
    pub shared: bool,
    /// Whether this home has joined the room.
    #[serde(default)]
    pub joined: bool,
    /// A line sent and not answered yet (#443).
    #[serde(default)]
    pub awaiting: bool,
    /// The last lines, newest last (at most `LINES_KEPT`).
    #[serde(default)]
    pub lines: Vec<RemoteLine>,
    /// When a friend's line last reached this Bot (#420).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friend_line_at: Option<u64>,
    /// This home's Bot whose line to the friend's Bot waits for its
    /// answer, as an older build kept it (one per room); `askers` now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked_by: Option<String>,
    /// This home's Bots whose lines to the friend's Bot wait for their
    /// answers, oldest first: each answer goes back to the Bot that asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub askers: Vec<Asker>,
}

/// One of this home's Bots waiting on a friend's Bot's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Asker {
    /// The line's outbox id (its Matrix transaction id).
    pub outbox_id: String,
    /// Its Matrix event id, once the homeserver took it: an answer names
    /// the event it answers (`re`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_id: Option<String>,
    pub bot: String,
}

/// One line of a remote chat as this home shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteLine {
    /// The Matrix event id, or the outbox id of a line not sent yet.
    pub id: String,
    /// The home that sent it: the sender the homeserver authenticated.
    pub from_home: String,
    /// The Bot of that home that wrote it, when the line names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<String>,
    /// Whether `bot` is a Bot that home shares here; a line naming another
    /// home's Bot, or one not published, is unverified.
    #[serde(default)]
    pub verified: bool,
    /// The person who typed it, when the transport says a person did (#227).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub typed_by: Option<String>,
    pub text: String,
    pub at: u64,
    /// Why a send failed, in one sentence (#404, #1068); none when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_sent: Option<String>,
}

/// A send waiting for the homeserver.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutboxItem {
    pub id: String,
    pub room_id: String,
    /// The `m.room.message` content.
    pub content: Value,
    pub created_at: u64,
    #[serde(default)]
    pub attempts: u32,
    /// Not before this time (milliseconds), after a failed try.
    #[serde(default)]
    pub next_at: u64,
}

/// A friend's line taken from the sync, not yet handed to the Bot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InboxLine {
    pub event_id: String,
    pub room_id: String,
    pub bot_id: String,
    pub from_home: String,
    pub text: String,
    #[serde(default)]
    pub typed: bool,
    /// The sender's first line to this Bot (#420 `firstContact`).
    #[serde(default)]
    pub first_contact: bool,
    /// The friend's Bot's answer to a line this home's Bot `bot_id` sent
    /// it: handed back to that Bot, not a line reaching it (#90 is the
    /// other home's to judge).
    #[serde(default)]
    pub answer: bool,
}

/// What FlyBot carries in a message's `org.flybot.line`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum LineContent {
    /// A line to the room's Bot; `typed` when a person typed it (#227).
    Ask {
        #[serde(default)]
        typed: bool,
    },
    /// The Bot's answer; `re` is the event id of the line it answers.
    Answer {
        bot: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        re: Option<String>,
    },
    /// The Bot's home refused the line (#90): the Bot is not shared.
    Refused { bot: String },
}

/// The `org.flybot.room` state content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoomMark {
    pub bot: String,
    pub bot_name: String,
    pub owner_name: String,
    pub shared: bool,
}

/// `social-connect`: the homeserver, then a password or an access token.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SocialConnect {
    pub homeserver: String,
    #[serde(default)]
    pub user: Option<String>,
    #[serde(default)]
    pub password: Option<crate::secrets::SecretValue>,
    #[serde(default)]
    pub access_token: Option<crate::secrets::SecretValue>,
}

/// `social-friend-add {userId}`: invite or accept a friend.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SocialFriend {
    pub user_id: String,
}

/// `social-publish` / `social-unpublish {botId, userId}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SocialPublish {
    pub bot_id: String,
    pub user_id: String,
}

/// `social-send {roomId, text}`: a person's line to a friend's Bot.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SocialSend {
    pub room_id: String,
    pub text: String,
}

/// The owner's view of Bot Social.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SocialView {
    pub account: Option<SocialAccount>,
    /// The link to the homeserver: `off`, `connecting`, `ready`, `error`,
    /// or `standby` on a standby, which leaves it to the leader (#83).
    pub status: String,
    /// Why the link last failed, in one sentence.
    pub last_error: Option<String>,
    /// Matrix users who invited this home and are not friends yet.
    pub invites: Vec<String>,
    pub friends: Vec<Friend>,
    /// Friends' Bots shared with this home, with the owner badge's label.
    pub remote_bots: Vec<RemoteBotView>,
    /// This home's Bots published, by friend.
    pub published: Vec<PublishedView>,
    /// Lines waiting to go out.
    pub pending_count: usize,
    /// This home's published Bots with their replies to friends (#371,
    /// #418).
    pub bots: Vec<LocalBotView>,
}

/// One of this home's published Bots: its waiting replies to friends and
/// the list of its recent replies (#371, #417, #418).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalBotView {
    pub bot_id: String,
    pub pending_count: usize,
    pub held_replies: Vec<HeldReply>,
    /// How it sends to friends (#52, #417).
    pub policy: SendPolicy,
}

/// A friend's Bot as the sidebar lists it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteBotView {
    pub room_id: String,
    /// `friendBotTitle`: `Name (Owner)` (#498).
    pub title: String,
    /// `remoteMentionLabel`: the title, with the home when another home's
    /// Bot has the same title (#967); the sidebar shows this.
    pub label: String,
    pub owner: String,
    pub home: String,
    pub shared: bool,
    pub awaiting: bool,
    /// This home's lines to it still waiting in the outbox (#371).
    pub pending_count: usize,
    /// The last line as the sidebar row shows it (#130 `visibleText`).
    pub preview: String,
    pub lines: Vec<RemoteLine>,
}

/// One of this home's Bots published to a friend.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PublishedView {
    pub room_id: String,
    pub bot_id: String,
    pub friend: String,
    pub shared: bool,
}

/// `social-send`'s answer: the line as the chat shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SocialSent {
    pub line: RemoteLine,
}

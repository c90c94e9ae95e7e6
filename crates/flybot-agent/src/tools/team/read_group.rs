//! `read_group_chat` (#1203): the exact stored lines of a group the Bot
//! sits in. A member turn shows a budgeted window of the room and says when
//! earlier lines were left out; this tool hands back what was left out,
//! from the Bot's own join on, as stored (a Bot essay is its stub, #1251).

use super::{caller, team};
use crate::tools::{Tool, ToolContext, ToolError, ToolResult};
use flybot_core::rooms::log::{AuthorKind, RoomLine};
use flybot_core::rooms::participants::{ParticipantKind, participants_of};
use flybot_protocol::state::{Room, TeamState};
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

/// The most lines one call hands back.
const MAX_LINES: usize = 50;
/// Lines handed back when the call names no count.
const DEFAULT_LINES: usize = 20;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadGroupChatArgs {
    /// The group's name or id; by default the group you are speaking in.
    #[serde(default)]
    pub group: Option<String>,
    /// One exact line, by the number shown before it (`#12`).
    #[serde(default)]
    pub seq: Option<u64>,
    /// The lines before this number (the newest ones when left out).
    #[serde(default)]
    pub before: Option<u64>,
    /// How many lines, 1 to 50 (20 when left out).
    #[serde(default)]
    pub limit: Option<usize>,
}

pub struct ReadGroupChat;

/// The room the call reads: the named group the Bot sits in, or the one
/// whose member Session is speaking.
fn room_for<'a>(
    state: &'a TeamState,
    bot_id: &str,
    session_id: &str,
    group: Option<&str>,
) -> Result<&'a Room, ToolError> {
    let mine = |r: &&Room| r.members.iter().any(|m| m == bot_id);
    let found = match group.map(str::trim).filter(|g| !g.is_empty()) {
        Some(name) => {
            let lower = name.to_lowercase();
            state
                .rooms
                .values()
                .filter(mine)
                .find(|r| r.id == name || r.name.to_lowercase() == lower)
        }
        None => state
            .rooms
            .values()
            .find(|r| r.sessions.values().any(|s| s == session_id)),
    };
    found.ok_or_else(|| match group {
        Some(name) => ToolError::Refused(format!(
            "You are not a member of a group named {}.",
            name.trim()
        )),
        None => ToolError::Invalid("Name the group: you are not speaking in one now.".to_owned()),
    })
}

/// Where the Bot's view of the room starts (its seat's join).
fn joined_at(room: &Room, bot_id: &str) -> u64 {
    participants_of(room)
        .into_iter()
        .find(|p| p.id == bot_id && p.kind == ParticipantKind::LocalBot)
        .map_or(0, |p| p.joined_seq)
}

fn author(state: &TeamState, line: &RoomLine) -> String {
    match line.author_kind {
        AuthorKind::System => "(notice)".to_owned(),
        AuthorKind::Human | AuthorKind::LocalBot | AuthorKind::RemoteBot => state
            .bots
            .get(&line.author_id)
            .map(|b| b.name.clone())
            .or_else(|| state.members.get(&line.author_id).map(|m| m.name.clone()))
            .unwrap_or_else(|| line.author_id.clone()),
    }
}

/// The lines `args` asks for among `lines` (oldest first).
fn chosen<'a>(lines: &'a [RoomLine], args: &ReadGroupChatArgs) -> Vec<&'a RoomLine> {
    if let Some(seq) = args.seq {
        return lines.iter().filter(|l| l.seq == seq).collect();
    }
    let limit = args.limit.unwrap_or(DEFAULT_LINES).clamp(1, MAX_LINES);
    let before: Vec<&RoomLine> = lines
        .iter()
        .filter(|l| args.before.is_none_or(|b| l.seq < b))
        .collect();
    before[before.len().saturating_sub(limit)..].to_vec()
}

impl Tool for ReadGroupChat {
    type Args = ReadGroupChatArgs;
    fn name(&self) -> &'static str {
        tool_names::READ_GROUP_CHAT
    }
    fn description(&self) -> &'static str {
        "Read a group's earlier lines exactly as stored: one line by its number, or the lines before a number. By default the group you are speaking in."
    }
    async fn call(&self, ctx: &ToolContext, args: ReadGroupChatArgs) -> ToolResult {
        let team = team(ctx)?;
        let (room_id, from) = team.store().read(|state| {
            let me = caller(state, ctx, true)?;
            let room = room_for(state, &me.id, &ctx.session_id, args.group.as_deref())?;
            Ok::<_, ToolError>((room.id.clone(), joined_at(room, &me.id)))
        })?;
        let lines = team.group_lines(&room_id).map_err(ToolError::Failed)?;
        let visible: Vec<RoomLine> = lines.into_iter().filter(|l| l.seq >= from).collect();
        let picked = chosen(&visible, &args);
        if picked.is_empty() {
            return Ok(match args.seq {
                Some(seq) => format!("There is no line #{seq} you can read in this group."),
                None => "No earlier lines.".to_owned(),
            });
        }
        let text = team.store().read(|state| {
            picked
                .iter()
                .map(|l| format!("#{} {}: {}", l.seq, author(state, l), l.text))
                .collect::<Vec<_>>()
                .join("\n")
        });
        Ok(text)
    }
}

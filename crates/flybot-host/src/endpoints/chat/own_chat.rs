//! A Bot's own chat: `send` (a person's line, through the settle window
//! #642), `messages` (the Session's transcript in order, short form) and
//! `cancel` (Stop, with or without `keepInbox`). Owner-scoped: a Bot's own
//! chat is its owner's and a grantee's the owner shared the Bot with
//! (`visibility::own_chat_open`). A turn that runs work a group member
//! handed over is hidden here (#550, #553): its reply goes to the group.

use crate::attachments::line;
use crate::attachments::reading::{Readers, served};
use crate::busy_ack::{Arrival, BusyAcks};
use crate::live::feed::LiveFeed;
use crate::team::Team;
use crate::turns::bot_of_session;
use flybot_agent::session::Sessions;
use flybot_agent::session::{AbortedBy, EndReason, LogEntry, SendOutcome, SessionEvent, Source};
use flybot_core::access::Actor;
use flybot_core::attachments::images::sees_images;
use flybot_core::fences::failure::failure_sentence;
use flybot_core::rooms::wake::wake_event;
use flybot_core::roster::session_owner::{SessionOwner, session_owner};
use flybot_core::visibility::own_chat_open;
use flybot_protocol::answers::{
    Cancelled, ChatDraft, ChatLine, ChatMessages, LineQueued, LineSent,
};
use flybot_protocol::attachment::Posting;
use flybot_protocol::state::Bot;
use flybot_protocol::{ApiError, ErrorCode};
use serde::Deserialize;
use serde_json::Value;

/// A tool call's arguments or result in the transcript, at most.
const SHORT: usize = 200;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Send {
    pub bot_id: String,
    pub text: String,
    /// Uploads of the sender's own the line carries (issue 32).
    #[serde(default)]
    pub attachments: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Messages {
    #[serde(default)]
    pub bot_id: Option<String>,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub after: Option<u64>,
    /// Only lines older than this seq (a page of earlier history).
    #[serde(default)]
    pub before: Option<u64>,
    /// At most this many lines, the newest of those asked for.
    #[serde(default)]
    pub limit: Option<usize>,
    /// The conversation to read, by the part it begins with
    /// (`conversations`); the current one when none.
    #[serde(default)]
    pub part: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Cancel {
    #[serde(default)]
    pub bot_id: Option<String>,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub keep_inbox: bool,
}

/// The Bot named by `bot_id` or owning `session_id`, if the actor sees it.
pub(super) fn chat_bot(
    team: &Team,
    actor: &Actor,
    bot_id: Option<&str>,
    session_id: Option<&str>,
) -> Result<Bot, ApiError> {
    team.store().read(|state| {
        let bot = match (bot_id, session_id) {
            (Some(id), None) => state
                .bots
                .get(id)
                .ok_or_else(|| ApiError::not_found("Bot", id))?,
            (None, Some(id)) => bot_of_session(state, id).ok_or_else(|| {
                // A deleted Bot's Session still names its Bot (#1453).
                match session_owner(state, id) {
                    SessionOwner::Retired { .. } => ApiError::new(
                        ErrorCode::NotFound,
                        "The Bot this Session worked for was deleted; its chat is closed.",
                    )
                    .with("id", id),
                    SessionOwner::Live { .. } | SessionOwner::Unknown => {
                        ApiError::not_found("Session", id)
                    }
                }
            })?,
            (Some(_), Some(_)) | (None, None) => {
                return Err(ApiError::invalid(
                    "botId",
                    "Name the chat with botId or sessionId, one of the two.",
                ));
            }
        };
        // A Bot's own chat is its owner's and an unscoped grantee's (#53,
        // #90): another member's Bot, even one it sees in a shared room,
        // answers like an unknown one.
        if !own_chat_open(state, actor, bot) || bot.run {
            // Named as the caller named it: a Session id never answers
            // with the Bot behind it (issue 29).
            return Err(match session_id {
                Some(id) => ApiError::not_found("Session", id),
                None => ApiError::not_found("Bot", &bot.id),
            });
        }
        Ok(bot.clone())
    })
}

pub(super) fn io_refusal(e: std::io::Error) -> ApiError {
    tracing::error!("a Session log could not be used: {e}");
    // A log the disk will not give back is the host's fault (issue 29).
    ApiError::new(
        flybot_protocol::ErrorCode::Unavailable,
        "The chat could not be opened on this host; try again.",
    )
}

/// `send {botId, text}` → `{sessionId, queued: "held"|"queued"|"interrupted"}`.
/// A line that reaches a running turn is acknowledged (#1584).
pub async fn send(
    team: &Team,
    sessions: &Sessions,
    acks: &BusyAcks,
    actor: &Actor,
    readers: &Readers<'_>,
    req: Send,
) -> Result<LineSent, ApiError> {
    super::not_on_standby(team)?;
    let text = flybot_core::names::clean_line(&req.text)?;
    let bot = chat_bot(team, actor, Some(&req.bot_id), None)?;
    let attached = line::check(team, actor, &req.attachments)?;
    let sees = sees_images(
        &served(readers.models),
        &readers.config.text_only_models,
        &bot.model,
    );
    let said = attached.text_for_model(text, readers, sees).await;
    let posting = Posting::Chat {
        session_id: bot.session_id.clone(),
    };
    attached.post(team, actor, posting).await?;
    let member = team.store().read(|state| actor.member_id(state));
    let (outcome, line_id) = sessions
        .send_line_with(&bot.session_id, &said, member, attached.ids())
        .map_err(io_refusal)?;
    if let Some(line_id) = line_id {
        acks.arrived(Arrival::in_session(
            sessions,
            &bot.session_id,
            line_id,
            text,
            &bot.model,
        ));
    }
    let queued = match outcome {
        SendOutcome::Held => LineQueued::Held,
        SendOutcome::Queued => LineQueued::Queued,
        SendOutcome::Interrupted => LineQueued::Interrupted,
    };
    Ok(LineSent {
        session_id: bot.session_id,
        bot_id: bot.id,
        queued,
    })
}

/// `messages {botId | sessionId, after?, before?, limit?}` → `{sessionId, running, messages}`.
pub fn messages(
    team: &Team,
    sessions: &Sessions,
    feed: &LiveFeed,
    actor: &Actor,
    req: Messages,
) -> Result<ChatMessages, ApiError> {
    let bot = chat_bot(
        team,
        actor,
        req.bot_id.as_deref(),
        req.session_id.as_deref(),
    )?;
    let conversation = super::past::conversation(sessions, &bot, req.part)?;
    let mut entries = sessions
        .transcript(&bot.session_id, req.after.unwrap_or(0))
        .map_err(io_refusal)?;
    let last = entries.last().map_or(req.after.unwrap_or(0), |e| e.seq);
    entries.retain(|e| conversation.holds(e.seq));
    // A hidden turn is told by its request, which a later page may not hold.
    let whole;
    let hidden = if req.after.unwrap_or(0) > 0 {
        whole = sessions
            .transcript(&bot.session_id, 0)
            .map_err(io_refusal)?;
        handed_turns(&whole)
    } else {
        handed_turns(&entries)
    };
    let (messages, earlier) = page(&entries, &hidden, req.before, req.limit);
    let running = sessions.is_running(&bot.session_id);
    let draft = feed
        .draft(&bot.session_id)
        .filter(|_| running)
        .filter(|(draft, _)| !hidden.contains(&draft.turn_id.as_str()))
        .map(|(draft, at)| ChatDraft {
            turn_id: draft.turn_id,
            text: draft.text,
            at,
        });
    Ok(ChatMessages {
        running,
        draft,
        session_id: bot.session_id,
        bot_id: bot.id,
        messages,
        last,
        earlier,
    })
}

/// `cancel {botId | sessionId, keepInbox?}` → `{wasRunning, dropped}`.
pub fn cancel(
    team: &Team,
    sessions: &Sessions,
    actor: &Actor,
    req: Cancel,
) -> Result<Cancelled, ApiError> {
    let bot = chat_bot(
        team,
        actor,
        req.bot_id.as_deref(),
        req.session_id.as_deref(),
    )?;
    let outcome = sessions
        .cancel(&bot.session_id, AbortedBy::User, req.keep_inbox)
        .map_err(io_refusal)?;
    Ok(Cancelled {
        session_id: bot.session_id,
        was_running: outcome.was_running,
        dropped: outcome.dropped,
    })
}

/// One transcript line as a client draws it; step starts are left out.
/// The lines older than `before` (all when none), the newest `limit` of
/// them, and whether older lines are left for a page before these.
fn page(
    entries: &[LogEntry],
    hidden: &[&str],
    before: Option<u64>,
    limit: Option<usize>,
) -> (Vec<ChatLine>, bool) {
    // An ask_user the tool sent to the group that handed the work over is
    // no card of the owner's own chat (#550): it is drawn as a tool call.
    let in_group: Vec<&str> = entries
        .iter()
        .filter_map(|entry| match &entry.event {
            SessionEvent::ToolResult {
                tool_call_id, text, ..
            } if text.starts_with(flybot_agent::tools::team::ASKED_IN_GROUP) => {
                Some(tool_call_id.as_str())
            }
            _ => None,
        })
        .collect();
    let mut lines: Vec<ChatLine> = entries
        .iter()
        .filter(|entry| before.is_none_or(|before| entry.seq < before))
        .filter(|entry| !hidden.contains(&entry.event.turn_id()))
        .filter_map(short_form)
        .map(|mut line| {
            let asked_there = line
                .tool_call_id
                .as_deref()
                .is_some_and(|id| in_group.contains(&id));
            if line.kind == "question" && asked_there {
                line.kind = "tool-call".into();
            }
            line
        })
        .collect();
    drop_repeated_events(&mut lines);
    let cut = limit.map_or(0, |limit| lines.len().saturating_sub(limit));
    let lines = lines.split_off(cut);
    (lines, cut > 0)
}

/// The turns that run work a group member handed over, or a group's
/// answer to it (#550, #553): hidden from the Bot's own chat, request,
/// tool calls and reply alike, since the reply goes back to the group. A
/// turn a person's line also went into stays shown, and so does one whose
/// question came to this chat after all (the group no longer held the
/// member that handed the work over, so `ask_user` asked the owner here).
fn handed_turns(entries: &[LogEntry]) -> Vec<&str> {
    let mut handed: Vec<&str> = Vec::new();
    let mut spoken: Vec<&str> = Vec::new();
    let mut asks: Vec<&str> = Vec::new();
    for entry in entries {
        match &entry.event {
            SessionEvent::UserMessage {
                turn_id, source, ..
            } => match source {
                Source::Bot {
                    room_id: Some(_), ..
                } => handed.push(turn_id),
                _ => spoken.push(turn_id),
            },
            SessionEvent::ToolCall {
                tool_call_id, name, ..
            } if name == flybot_protocol::tool_names::ASK_USER => asks.push(tool_call_id),
            SessionEvent::ToolResult {
                turn_id,
                tool_call_id,
                text,
                ..
            } if asks.contains(&tool_call_id.as_str())
                && !text.starts_with(flybot_agent::tools::team::ASKED_IN_GROUP) =>
            {
                spoken.push(turn_id)
            }
            _ => {}
        }
    }
    handed.retain(|turn| !spoken.contains(turn));
    handed
}

/// Wakes for one card in a row, with nothing said between them, read as
/// one event line: the first (issue 31). Tool rows and turn ends do not
/// count as said.
fn drop_repeated_events(lines: &mut Vec<ChatLine>) {
    let mut last_said: Option<(String, Option<String>)> = None;
    lines.retain(|line| {
        let said = matches!(
            line.kind.as_str(),
            "user" | "assistant" | "question" | "event"
        ) && line.text.as_deref().is_some_and(|t| !t.is_empty());
        if !said {
            return true;
        }
        let this = (line.kind.clone(), line.text.clone());
        let repeat = line.kind == "event" && last_said.as_ref() == Some(&this);
        last_said = Some(this);
        !repeat
    });
}

/// One transcript line as a client draws it; step starts are left out.
fn short_form(entry: &LogEntry) -> Option<ChatLine> {
    let line = |kind: &str| ChatLine::new(entry.seq, entry.at, kind, entry.event.turn_id());
    Some(match &entry.event {
        SessionEvent::TurnStart { .. }
        | SessionEvent::StepStart { .. }
        | SessionEvent::StepEnd { .. } => return None,
        // A task wake is the host's, not a person's: one muted event line
        // naming the card (issue 31).
        SessionEvent::UserMessage {
            text,
            source: Source::Host,
            ..
        } if wake_event(text).is_some() => ChatLine {
            text: wake_event(text),
            ..line("event")
        },
        SessionEvent::UserMessage {
            text,
            source,
            attachments,
            ..
        } => ChatLine {
            text: Some(line::shown_text(text).to_owned()),
            attachments: attachments.clone(),
            source: Some(serde_json::to_value(source).unwrap_or(Value::Null)),
            ..line("user")
        },
        SessionEvent::AssistantMessage {
            text, attachments, ..
        } => ChatLine {
            text: Some(text.clone()),
            // The files the Bot attached with `attach_file` (issue 32).
            attachments: attachments.clone(),
            ..line("assistant")
        },
        SessionEvent::ToolCall {
            tool_call_id,
            name,
            arguments,
            ..
        } => {
            // An ask_user call is a question for the owner, drawn whole.
            let (kind, text) = match question_of(name, arguments) {
                Some(question) => ("question", question),
                None => ("tool-call", clip(arguments)),
            };
            ChatLine {
                tool_call_id: Some(tool_call_id.clone()),
                name: Some(name.clone()),
                text: Some(text),
                ..line(kind)
            }
        }
        SessionEvent::ToolResult {
            tool_call_id,
            text,
            is_error,
            ..
        } => ChatLine {
            tool_call_id: Some(tool_call_id.clone()),
            text: Some(clip(text)),
            is_error: Some(*is_error),
            ..line("tool-result")
        },
        SessionEvent::TurnEnd { reason, calls, .. } => ChatLine {
            reason: Some(serde_json::to_value(reason).unwrap_or(Value::Null)),
            sentence: match reason {
                EndReason::Error { code, message } => Some(failure_sentence(code, message)),
                _ => None,
            },
            calls: Some(*calls),
            ..line("turn-end")
        },
    })
}

/// The question of an `ask_user` call, the one tool the chat draws as its
/// own line.
fn question_of(name: &str, arguments: &str) -> Option<String> {
    if name != flybot_protocol::tool_names::ASK_USER {
        return None;
    }
    let args: Value = serde_json::from_str(arguments).ok()?;
    Some(args.get("question")?.as_str()?.to_owned())
}

fn clip(text: &str) -> String {
    if text.chars().count() <= SHORT {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(SHORT).collect();
    short.push('…');
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(seq: u64, event: SessionEvent) -> LogEntry {
        LogEntry {
            seq,
            at: seq,
            event,
        }
    }

    fn said(turn: &str, source: Source) -> SessionEvent {
        SessionEvent::UserMessage {
            turn_id: turn.into(),
            message_id: format!("m-{turn}"),
            text: "x".into(),
            source,
            attachments: Vec::new(),
        }
    }

    fn handed(from_room: bool) -> Source {
        Source::Bot {
            bot_id: "lead".into(),
            hops: 1,
            room_id: from_room.then(|| "room-1".into()),
            origin: None,
        }
    }

    fn ask(turn: &str, id: &str, result: &str) -> [SessionEvent; 2] {
        [
            SessionEvent::ToolCall {
                turn_id: turn.into(),
                tool_call_id: id.into(),
                name: flybot_protocol::tool_names::ASK_USER.into(),
                arguments: "{}".into(),
            },
            SessionEvent::ToolResult {
                turn_id: turn.into(),
                tool_call_id: id.into(),
                text: result.into(),
                is_error: false,
            },
        ]
    }

    #[test]
    /// Rule #553.
    fn only_a_turn_of_handed_out_work_alone_is_hidden() {
        let in_group = format!(
            "{} Ship, which handed you this work",
            flybot_agent::tools::team::ASKED_IN_GROUP
        );
        let [call_a, result_a] = ask("t1", "c1", &in_group);
        let [call_b, result_b] = ask("t4", "c2", "Your owner sees the question in your chat");
        let log: Vec<LogEntry> = [
            said("t1", handed(true)),
            call_a,
            result_a,
            said("t2", handed(false)),
            said("t3", handed(true)),
            said("t3", Source::User { member_id: None }),
            said("t4", handed(true)),
            call_b,
            result_b,
        ]
        .into_iter()
        .enumerate()
        .map(|(i, e)| entry(i as u64 + 1, e))
        .collect();
        // t2: a Bot's own-chat message; t3: a person spoke too; t4: its
        // question came to this chat after all.
        assert_eq!(handed_turns(&log), ["t1"]);
    }
}

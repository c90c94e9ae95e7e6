//! `answer-question {roomId, answer}` (#550): a person answers the question
//! waiting in a room's dock, the one a Bot asked about work a member of
//! that room handed it. Only the asking Bot's owner or the room's owner
//! may (core `group_questions::may_answer`). The card is taken in the same
//! change that checks it, so two answers cannot both land; the answer goes
//! to the asking Bot's own chat as a request from the member that handed
//! the work over (naming the group, so the Bot's reply goes back there),
//! and the room shows one quiet notice. No round opens. The answer keeps
//! the asking turn's origin only when the asking Bot's owner gives it
//! (core `answer_origin`, fail closed).
//!
//! `dismiss-question {roomId}` takes the card away unanswered, under the
//! same check; the room shows one quiet notice and the Bot is told nothing.

use crate::actor::journal_actor;
use crate::endpoints::tasks::board::decider_name;
use crate::rooms::Rounds;
use flybot_agent::session::{ItemKind, Source};
use flybot_core::access::Actor;
use flybot_core::rooms::group_questions::{
    answer_notice, answer_origin, answer_request, clean_answer, dismiss_notice, may_answer,
};
use flybot_core::rooms::log::{AuthorKind, LineKind};
use flybot_protocol::ApiError;
use flybot_store::room_log::NewLine;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnswerQuestion {
    pub room_id: String,
    pub answer: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DismissQuestion {
    pub room_id: String,
}

/// `{roomId, dismissed}`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestionDismissed {
    pub room_id: String,
    pub dismissed: bool,
}

/// `{roomId, delivered}`: whether the asking Bot's chat took the answer.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestionAnswered {
    pub room_id: String,
    pub delivered: bool,
}

pub async fn answer(
    rounds: &Rounds,
    actor: &Actor,
    req: AnswerQuestion,
) -> Result<QuestionAnswered, ApiError> {
    let answer = clean_answer(&req.answer)?;
    let (card, room_name, session, who, origin) = rounds
        .team()
        .mutate(journal_actor(actor), |change| {
            let state = change.state();
            let card = may_answer(state, actor, &req.room_id)?.clone();
            let room_name = state
                .rooms
                .get(&req.room_id)
                .map(|r| r.name.clone())
                .unwrap_or_default();
            let session = state
                .bots
                .get(&card.bot_id)
                .map(|b| b.session_id.clone())
                .ok_or_else(|| ApiError::not_found("Bot", &card.bot_id))?;
            let who = decider_name(state, actor);
            let origin = answer_origin(state, actor, &card);
            change.remove_question(&req.room_id);
            Ok((card, room_name, session, who, origin))
        })
        .await?;
    let delivered = rounds
        .sessions()
        .deliver(
            &session,
            &answer_request(&room_name, &who, &card, &answer),
            Source::Bot {
                bot_id: card.reply_to.bot_id.clone(),
                hops: card.reply_to.hop.saturating_add(1),
                room_id: Some(req.room_id.clone()),
                origin,
            },
            ItemKind::NextTurn,
        )
        .map_err(|e| tracing::warn!("an answer could not reach {}: {e}", card.bot_id))
        .is_ok();
    quiet_notice(rounds, &req.room_id, answer_notice(&who, &card, &answer));
    Ok(QuestionAnswered {
        room_id: req.room_id,
        delivered,
    })
}

/// `dismiss-question {roomId}` → `{roomId, dismissed}` (#550): the card is
/// taken away unanswered by whoever may answer it; others are refused and
/// the card stays.
pub async fn dismiss(
    rounds: &Rounds,
    actor: &Actor,
    req: DismissQuestion,
) -> Result<QuestionDismissed, ApiError> {
    let (card, who) = rounds
        .team()
        .mutate(journal_actor(actor), |change| {
            let state = change.state();
            let card = may_answer(state, actor, &req.room_id)?.clone();
            let who = decider_name(state, actor);
            change.remove_question(&req.room_id);
            Ok((card, who))
        })
        .await?;
    quiet_notice(rounds, &req.room_id, dismiss_notice(&who, &card));
    Ok(QuestionDismissed {
        room_id: req.room_id,
        dismissed: true,
    })
}

/// One quiet event line in the room; no round opens.
fn quiet_notice(rounds: &Rounds, room_id: &str, text: String) {
    let notice = NewLine {
        author_id: String::new(),
        author_kind: AuthorKind::System,
        kind: LineKind::Event,
        text,
        at: flybot_store::system_now_ms(),
        hop: 0,
    };
    if let Err(e) = rounds.logs().append(room_id, notice) {
        tracing::warn!("a question notice of {room_id} could not be logged: {e}");
    }
}

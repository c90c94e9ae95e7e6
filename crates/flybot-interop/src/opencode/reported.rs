//! What the runtime reported of a turn that ended with words (#198,
//! completion evidence): question versus result rests on it, never on the
//! words themselves. A question is OpenCode's own question request (its
//! `question` tool, a `question.asked` event); a result is an idle session
//! whose completed answer follows a completed file change of the same turn.

use crate::envelope::EnvelopeKind;
use serde_json::Value;
use std::collections::BTreeSet;

/// The runtime's tools whose completed call changed a file in the workspace.
const FILE_CHANGING_TOOLS: [&str; 5] = ["write", "edit", "patch", "apply_patch", "multiedit"];

/// How the runtime reported a turn that ended with words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reported {
    /// The runtime's question tool asked for a selected input.
    Question,
    /// Idle with a completed answer after a completed file change (a diff).
    AnswerWithChanges,
    /// Idle with a completed answer and no file change: not a result.
    AnswerOnly,
}

impl Reported {
    /// The envelope Bot B's words travel in, and what it carries: an
    /// answer that neither asked nor changed a file is failure evidence.
    pub fn envelope(self, text: &str) -> (EnvelopeKind, String) {
        match self {
            Reported::Question => (EnvelopeKind::Question, text.to_owned()),
            Reported::AnswerWithChanges => (EnvelopeKind::Result, text.to_owned()),
            Reported::AnswerOnly => (
                EnvelopeKind::Failure,
                format!(
                    "OpenCode went idle with an answer but neither asked a question nor changed a file, so it is not a result: {text}"
                ),
            ),
        }
    }
}

/// The tool parts of the turn's new assistant messages (those not in
/// `before`).
fn new_tool_parts<'a>(
    history: &'a [Value],
    before: &'a BTreeSet<String>,
) -> impl Iterator<Item = &'a Value> {
    history
        .iter()
        .filter(|m| m["info"]["role"] == "assistant")
        .filter(|m| {
            m["info"]["id"]
                .as_str()
                .is_some_and(|id| !before.contains(id))
        })
        .filter_map(|m| m["parts"].as_array())
        .flatten()
        .filter(|part| part["type"] == "tool")
}

/// The question the runtime's question tool asked in this turn, as its
/// history records the call (a restart's reconciliation reads it there).
pub(crate) fn question_in(history: &[Value], before: &BTreeSet<String>) -> Option<String> {
    new_tool_parts(history, before)
        .find(|part| part["tool"] == "question")
        .map(|part| question_text(&part["state"]["input"]))
}

/// Whether the turn's new assistant messages show a completed call of a
/// file-changing tool.
pub(crate) fn reported_in(history: &[Value], before: &BTreeSet<String>) -> Reported {
    let changed = new_tool_parts(history, before).any(|part| {
        part["state"]["status"] == "completed"
            && part["tool"]
                .as_str()
                .is_some_and(|tool| FILE_CHANGING_TOOLS.contains(&tool))
    });
    if changed {
        Reported::AnswerWithChanges
    } else {
        Reported::AnswerOnly
    }
}

/// The text of a `question.asked` request: each question, with its
/// options' labels when it offers some.
pub(crate) fn question_text(properties: &Value) -> String {
    let asked: Vec<String> = properties["questions"]
        .as_array()
        .map(|questions| {
            questions
                .iter()
                .filter_map(|q| {
                    let question = q["question"].as_str()?.trim();
                    let labels: Vec<&str> = q["options"]
                        .as_array()
                        .map(|o| o.iter().filter_map(|o| o["label"].as_str()).collect())
                        .unwrap_or_default();
                    Some(match labels.is_empty() {
                        true => question.to_owned(),
                        false => format!("{question} ({})", labels.join(" / ")),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    match asked.is_empty() {
        true => "(OpenCode asked a question with no text)".to_owned(),
        false => asked.join("\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(id: &str, parts: Value) -> Value {
        json!({"info": {"id": id, "role": "assistant"}, "parts": parts})
    }

    #[test]
    fn completion_evidence_only_a_completed_file_change_of_this_turn_makes_a_result() {
        let write = json!([{"type": "tool", "tool": "write", "state": {"status": "completed"}}]);
        let failed = json!([{"type": "tool", "tool": "write", "state": {"status": "error"}}]);
        let read = json!([{"type": "tool", "tool": "read", "state": {"status": "completed"}}]);
        let before: BTreeSet<String> = ["old".to_owned()].into();
        let earlier = [message("old", write.clone()), message("new", json!([]))];
        assert_eq!(reported_in(&earlier, &before), Reported::AnswerOnly);
        assert_eq!(
            reported_in(&[message("new", failed)], &before),
            Reported::AnswerOnly
        );
        assert_eq!(
            reported_in(&[message("new", read)], &before),
            Reported::AnswerOnly
        );
        assert_eq!(
            reported_in(&[message("new", write)], &before),
            Reported::AnswerWithChanges
        );
    }

    #[test]
    fn completion_evidence_a_question_request_reads_as_its_questions_and_options() {
        let asked = json!({"questions": [{"question": "Accents", "header": "h",
            "options": [{"label": "transliterate"}, {"label": "drop"}]}]});
        assert_eq!(question_text(&asked), "Accents (transliterate / drop)");
        assert!(question_text(&json!({})).contains("no text"));
    }
}

//! A round's closing report for `report_back` (#913). A member the round's
//! line named that ended without a line was addressed and did not answer,
//! which is not the same as a member with nothing to add: the first is "No
//! answer to your @" (the poster's own line or a person's line named it) or
//! "Called, but no answer" (another member's call); only the rest stayed
//! silent. Nothing is re-called.

use super::round::{Round, SlotOutcome};

fn join_names(ids: &[String], name: &impl Fn(&str) -> String) -> String {
    ids.iter().map(|id| name(id)).collect::<Vec<_>>().join(", ")
}

/// The report the poster of the round's line reads.
pub fn closing_report(round: &Round, poster: &str, name: impl Fn(&str) -> String) -> String {
    let mut answered: Vec<String> = Vec::new();
    let mut no_answer: Vec<String> = Vec::new();
    let mut called: Vec<String> = Vec::new();
    let mut silent: Vec<String> = Vec::new();
    for slot in &round.slots {
        let id = slot.bot_id.clone();
        let push = |v: &mut Vec<String>| {
            if !v.contains(&id) {
                v.push(id.clone());
            }
        };
        match slot.outcome {
            Some(SlotOutcome::Answered) => push(&mut answered),
            Some(SlotOutcome::Passed)
            | Some(SlotOutcome::Skipped)
            | Some(SlotOutcome::Stopped)
            | Some(SlotOutcome::Failed)
            | None => {
                let by_poster = slot.by.as_deref() == Some(poster);
                if slot.addressed || by_poster {
                    push(&mut no_answer)
                } else if slot.by.is_some() {
                    push(&mut called)
                } else {
                    push(&mut silent)
                }
            }
        }
    }
    no_answer.retain(|id| !answered.contains(id));
    called.retain(|id| !answered.contains(id) && !no_answer.contains(id));
    silent.retain(|id| !answered.contains(id) && !no_answer.contains(id) && !called.contains(id));
    let mut parts = vec!["[Round report]".to_string()];
    if !answered.is_empty() {
        parts.push(format!("Answered: {}.", join_names(&answered, &name)));
    }
    if !no_answer.is_empty() {
        parts.push(format!(
            "No answer to your @: {}.",
            join_names(&no_answer, &name)
        ));
    }
    if !called.is_empty() {
        parts.push(format!(
            "Called, but no answer: {}.",
            join_names(&called, &name)
        ));
    }
    if !silent.is_empty() {
        parts.push(format!("Stayed silent: {}.", join_names(&silent, &name)));
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::super::mentions::Named;
    use super::super::round::{Opener, Reply, Setup};
    use super::*;

    #[test]
    /// Rule #913.
    fn an_addressed_member_without_a_line_is_no_answer_not_silence() {
        let setup = Setup {
            order: vec![
                Named::new("bot-a", "Ada"),
                Named::new("bot-b", "Bo"),
                Named::new("bot-c", "Cy"),
            ],
            admin: None,
            last_speaker: None,
        };
        let mut round = Round::open(
            setup,
            Opener::Bot {
                from: "bot-a",
                text: "@Bo @Cy status?",
            },
            0,
        );
        while let Some(call) = round.next_turn() {
            let text = match call.bot_id.as_str() {
                "bot-b" => "[PASS]",
                _ => "all green",
            };
            round.record(&call.bot_id, Reply::Line(text));
        }
        let name = |id: &str| id.trim_start_matches("bot-").to_uppercase();
        let report = closing_report(&round, "bot-a", name);
        assert_eq!(
            report,
            "[Round report] Answered: C. No answer to your @: B."
        );
    }
}

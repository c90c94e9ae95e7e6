//! The Project Assistant's hidden Bot and its one daily task (#1712, Stage
//! 2.5), pure half. `project-create` makes one hidden Bot (its own Session,
//! in no room, left out of the roster's lists) per Project, named on the
//! Project's record as `assistantBotId`, with exactly one task on that
//! Session: each day at 09:00 in `DIGEST_ZONE`, made by the same core rule
//! `schedule-create` runs. When that task is due the host builds the
//! digest itself (no model turn); `project-delete` removes the Bot and its
//! task with the Project. No backfill: a Project made before this has no
//! assistant until it is made again.

use super::project_digest::DIGEST_ZONE;
use flybot_protocol::schedule::Timing;
use flybot_protocol::state::{Bot, TeamState};
use serde_json::Value;

/// The Project record's field naming its assistant Bot.
pub const ASSISTANT_BOT: &str = "assistantBotId";
/// When the digest runs each day, in `DIGEST_ZONE`.
pub const DIGEST_TIME: &str = "09:00";
/// The daily task's title and prompt.
pub const DIGEST_TITLE: &str = "Daily digest";
pub const DIGEST_PROMPT: &str =
    "Write the Project's daily digest from its board and its Project State files.";

/// The assistant's name: it signs every digest with it.
pub fn assistant_name(project: &Value) -> String {
    let name = project
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("Project");
    format!("Project Assistant ({name})")
}

/// The hidden Bot of `project`, owned by the Project's owner.
pub fn assistant_bot(
    project: &Value,
    bot_id: &str,
    session_id: &str,
    model: &str,
    now: u64,
) -> Bot {
    let owner = project
        .get("ownerUserId")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mut bot = Bot::new(
        bot_id,
        assistant_name(project),
        owner,
        model,
        session_id,
        now,
    );
    bot.hidden = true;
    bot.instructions =
        "You are a Project's assistant: you write its daily digest from its board.".to_owned();
    bot
}

/// The daily task's timing: 09:00 Asia/Shanghai.
pub fn digest_timing() -> Timing {
    Timing::Daily {
        time: DIGEST_TIME.to_owned(),
        zone: Some(DIGEST_ZONE.to_owned()),
    }
}

/// The assistant Bot of Project `id`, when it has one.
pub fn assistant_of<'a>(state: &'a TeamState, id: &str) -> Option<&'a Bot> {
    let bot_id = state.projects.get(id)?.get(ASSISTANT_BOT)?.as_str()?;
    state.bots.get(bot_id)
}

/// The Project whose assistant's Session is `session_id`.
pub fn project_of_session(state: &TeamState, session_id: &str) -> Option<String> {
    state
        .projects
        .keys()
        .find(|id| assistant_of(state, id).is_some_and(|bot| bot.session_id == session_id))
        .cloned()
}

/// The tasks on the assistant's Session, which go with the Project.
pub fn assistant_tasks(state: &TeamState, id: &str) -> Vec<String> {
    let Some(bot) = assistant_of(state, id) else {
        return Vec::new();
    };
    state
        .schedules
        .values()
        .filter(|task| task.session_id == bot.session_id)
        .map(|task| task.id.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    /// Rule #1712.
    fn one_hidden_assistant_per_project_found_by_its_session() {
        let mut state = TeamState::default();
        let project = json!({"id": "project-1", "name": "Site", "ownerUserId": "ada",
                             "assistantBotId": "bot-a"});
        let bot = assistant_bot(&project, "bot-a", "s-a", "mock", 5);
        assert!(bot.hidden && !bot.run);
        assert_eq!(bot.name, "Project Assistant (Site)");
        assert_eq!(bot.owner_id, "ada");
        state.bots.insert("bot-a".into(), bot);
        state.projects.insert("project-1".into(), project);
        assert_eq!(assistant_of(&state, "project-1").unwrap().id, "bot-a");
        assert_eq!(
            project_of_session(&state, "s-a").as_deref(),
            Some("project-1")
        );
        assert_eq!(project_of_session(&state, "s-other"), None);
        assert!(assistant_of(&state, "project-2").is_none());
        assert_eq!(
            digest_timing(),
            Timing::Daily {
                time: "09:00".into(),
                zone: Some("Asia/Shanghai".into())
            }
        );
    }
}

//! The system prompt of a Bot's turn, built from ordered sections: who the
//! Bot is (a Main Bot's section is headed "You are the Main Bot", #276), its
//! instructions, and the team rules with the idle default (#699). Pure text.

/// What the prompt is built from.
#[derive(Debug, Clone, Copy)]
pub struct PromptInput<'a> {
    pub bot_name: &'a str,
    pub is_main: bool,
    pub instructions: &'a str,
    /// The other Bots the Bot may reach, by name.
    pub team: &'a [String],
}

/// The team rules: the idle default of #699.
pub const TEAM_RULES: &str = "## Team rules\n\
You do nothing until the user addresses you, you are @-mentioned in a group, your parent gives you a task, or unfinished tasks you were already given are still on your board. \
Do not invent work. A coordinator acts on a user task rather than on its own initiative; when you are addressed, answer.";

/// The prompt's sections, in order.
pub fn prompt_sections(input: PromptInput<'_>) -> Vec<String> {
    let mut sections = Vec::with_capacity(4);
    if input.is_main {
        sections.push(format!(
            "## You are the Main Bot\nYou are {}, the Main Bot of this team: the person's first contact. \
You can make, update, stop and retire the team's Bots and message them.",
            input.bot_name
        ));
    } else {
        sections.push(format!(
            "## You are {}\nYou are a Bot of this team.",
            input.bot_name
        ));
    }
    if !input.instructions.trim().is_empty() {
        sections.push(format!(
            "## Your instructions\n{}",
            input.instructions.trim()
        ));
    }
    if !input.team.is_empty() {
        sections.push(format!("## Your team\n{}", input.team.join(", ")));
    }
    sections.push(TEAM_RULES.to_owned());
    sections
}

/// The whole prompt.
pub fn system_prompt(input: PromptInput<'_>) -> String {
    prompt_sections(input).join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_main_bot_is_headed_you_are_the_main_bot_and_the_rules_come_last() {
        let team = vec!["Ada".to_owned()];
        let sections = prompt_sections(PromptInput {
            bot_name: "Chief",
            is_main: true,
            instructions: "Be brief.",
            team: &team,
        });
        assert!(sections[0].starts_with("## You are the Main Bot"));
        assert!(sections[1].contains("Be brief."));
        assert!(sections.last().unwrap().contains("Do not invent work"));
        let plain = system_prompt(PromptInput {
            bot_name: "Ada",
            is_main: false,
            instructions: "",
            team: &[],
        });
        assert!(!plain.contains("Main Bot"));
    }
}

//! Run Bots (#1373, #1445, #1544, #1582): the hidden Bot a workflow node
//! runs as. It is not a team member, so every tool whose effect reaches past
//! its own Session is denied; it is capped by the connector switches of the
//! Bots in `cappedBy` (the caller travels there, never in `createdBy`).
//! The caps are recorded even while no connector exists.

use flybot_protocol::tool_names;

/// Tools a run Bot never has (#1445): they reach past its own Session. The
/// spec's list names tools this build does not offer too; those stay spelled
/// here, the ones it offers are their `tool_names` constants.
pub const EPHEMERAL_DENIED_TOOLS: [&str; 21] = [
    tool_names::MESSAGE_BOT,
    tool_names::STOP_BOT,
    tool_names::CREATE_BOT,
    tool_names::UPDATE_BOT,
    tool_names::CREATE_GROUP,
    // The spec's `post_group` is this build's `post_to_group`.
    tool_names::POST_TO_GROUP,
    tool_names::ASK_USER,
    "grant_capability",
    "revoke_capability",
    "request_secret",
    "list_secrets",
    tool_names::SCHEDULE_CREATE,
    tool_names::SCHEDULE_UPDATE,
    tool_names::SCHEDULE_DELETE,
    "send_message",
    "social_post",
    tool_names::RUN_WORKFLOW,
    tool_names::DEFINE_WORKFLOW,
    "read_browser",
    tool_names::RECALL,
    "create_child_bot",
];

/// The read-only tools and the run Bot's own memory writes (#1445).
pub const EPHEMERAL_ALLOWED_TOOLS: [&str; 9] = [
    tool_names::LIST_BOTS,
    "list_models",
    "list_capabilities",
    tool_names::BOT_SCHEDULES,
    tool_names::SCHEDULE_LIST,
    "read_own_chat",
    tool_names::READ_GROUP_CHAT,
    tool_names::REMEMBER,
    "forget",
];

/// The sentence a denied call is refused with (#1445).
pub const NOT_A_TEAM_MEMBER: &str = "A running Bot is not a team member.";

/// The node's word for the shell: a node naming it grants `run_command`.
pub const SHELL: &str = "shell";

/// The tool a run Bot works its own node card with (#1373): reporting on
/// the card it was made for reaches nothing past its own Session.
pub const RUN_BOT_CARD_TOOLS: [&str; 1] = [tool_names::TRACK_TASKS];

/// Whether the node's step tools name `tool` (the shell names `run_command`).
fn node_names(tool: &str, node_tools: &[String]) -> bool {
    node_tools
        .iter()
        .any(|t| t == tool || (t == SHELL && tool == tool_names::RUN_COMMAND))
}

/// Whether a run Bot may call `tool`: a connector or the shell only when its
/// node names it, the allowed list and its card's tool always, anything else
/// never (#1445).
pub fn run_bot_may_call(tool: &str, node_tools: &[String]) -> Result<(), String> {
    if EPHEMERAL_DENIED_TOOLS.contains(&tool) {
        return Err(NOT_A_TEAM_MEMBER.to_owned());
    }
    if EPHEMERAL_ALLOWED_TOOLS.contains(&tool)
        || RUN_BOT_CARD_TOOLS.contains(&tool)
        || node_names(tool, node_tools)
    {
        return Ok(());
    }
    Err(format!("{tool} is not granted to this run."))
}

/// The run Bot's own tool list: what is offered, less the denied names and
/// anything neither allowed nor named by the node.
pub fn run_bot_tools(offered: &[&str], node_tools: &[String]) -> Vec<String> {
    offered
        .iter()
        .filter(|tool| run_bot_may_call(tool, node_tools).is_ok())
        .map(|tool| (*tool).to_owned())
        .collect()
}

/// Who caps a run (#1544, #1582): the Bot whose tool call started it and
/// the Bot that saved the workflow, once each. A save with no Bot behind it
/// is the owner's own edit and adds no cap.
pub fn capped_by(caller_bot: Option<&str>, saved_by_bot: Option<&str>) -> Vec<String> {
    let mut caps: Vec<String> = Vec::new();
    for bot in [caller_bot, saved_by_bot].into_iter().flatten() {
        if !caps.iter().any(|c| c == bot) {
            caps.push(bot.to_owned());
        }
    }
    caps
}

/// One capping Bot's switch for a connector, as the team holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CapSwitch {
    /// A Bot of this team, with its switch for the connector.
    Team { name: String, on: bool },
    /// A friend's Bot: no switch table of ours, read as all off (#1555).
    Remote { name: String },
    /// A Bot the team no longer has: no switch to intersect with.
    Gone,
}

/// Whether a run may use `connector`: its node must name it, and no
/// capping Bot may have it turned off.
pub fn connector_refusal(
    connector: &str,
    node_tools: &[String],
    caps: &[CapSwitch],
) -> Option<String> {
    if !node_tools.iter().any(|t| t == connector) {
        return Some(format!("{connector} is not granted to this run."));
    }
    for cap in caps {
        match cap {
            CapSwitch::Team { name, on: false } => {
                return Some(format!(
                    "The {connector} connector is turned off for {name}."
                ));
            }
            CapSwitch::Remote { .. } => {
                return Some(format!(
                    "The {connector} connector is not available to a run started by a friend's Bot."
                ));
            }
            CapSwitch::Team { on: true, .. } | CapSwitch::Gone => {}
        }
    }
    None
}

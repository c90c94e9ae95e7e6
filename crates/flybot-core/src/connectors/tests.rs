//! Connector access: the room's read half (#1234), composio in a room
//! (#1237), a run started by a friend's Bot (#1555), the per-Bot switch
//! (#601), the mounted names.

use super::*;
use crate::rooms::participants::{Participant, RoomRole, to_values};
use crate::roster::fixture::team;
use serde_json::json;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|n| (*n).to_owned()).collect()
}

const GITHUB_TOOLS: [&str; 6] = [
    "mcp__github__list_issues",
    "mcp__github__get_file_contents",
    "mcp__github__search_code",
    "mcp__github__create_pull_request",
    "mcp__github__merge_pull_request",
    "mcp__github__fork_repository",
];

#[test]
/// Rule #311.
fn connector_tools_are_named_mcp_connector_tool_and_split_back() {
    assert_eq!(tool_name("everything", "echo"), "mcp__everything__echo");
    assert_eq!(
        split_tool_name("mcp__everything__get_sum"),
        Some(("everything", "get_sum"))
    );
    assert_eq!(split_tool_name("read_file"), None);
    assert!(check_name("github").is_ok() && check_name("my-server2").is_ok());
    for bad in ["", "Git", "a_b", "9x", &"a".repeat(33)] {
        assert!(check_name(bad).is_err(), "{bad}");
    }
}

#[test]
/// Rule #1234.
fn room_reads_only_list_get_search_of_github_stay_unclassified_fail_closed() {
    let state = team();
    let ada = &state.bots["bot-a"];
    let all = names(&GITHUB_TOOLS);
    let in_room: Vec<String> = denied(&state, ada, true, &all)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(in_room, names(&GITHUB_TOOLS[3..]));
    let (_, why) = &denied(&state, ada, true, &all)[0];
    assert_eq!(
        why,
        "The mcp__github__create_pull_request tool is not available in a group room (#1234): a room gets GitHub's read tools (list/get/search) only. Change GitHub from your own chat."
    );
    // The own chat is untouched; another connector keeps its tools in a room.
    assert!(denied(&state, ada, false, &all).is_empty());
    assert!(denied(&state, ada, true, &names(&["mcp__everything__echo"])).is_empty());
}

#[test]
/// Rule #1237.
fn room_gateway_composio_is_hidden_in_a_room_only() {
    let state = team();
    let ada = &state.bots["bot-a"];
    let tools = names(&["mcp__composio__run", "read_file"]);
    let denied_in_room = denied(&state, ada, true, &tools);
    assert_eq!(denied_in_room.len(), 1);
    assert!(
        denied_in_room[0]
            .1
            .contains("not available in a group room")
    );
    assert!(denied(&state, ada, false, &tools).is_empty());
}

#[test]
/// Rule #601.
fn bot_switch_off_denies_every_tool_of_that_connector_absent_is_on() {
    let mut state = team();
    let tools = names(&["mcp__everything__echo", "mcp__github__list_issues"]);
    assert!(denied(&state, &state.bots["bot-a"], false, &tools).is_empty());
    let ada = state.bots.get_mut("bot-a").unwrap();
    ada.extra.insert(
        SWITCHES.into(),
        json!({"everything": false, "github": true}),
    );
    let ada = &state.bots["bot-a"];
    assert_eq!(
        denied(&state, ada, false, &tools),
        vec![(
            "mcp__everything__echo".to_owned(),
            "The everything connector is turned off for Ada.".to_owned()
        )]
    );
}

#[test]
/// Rule #1555.
fn friends_run_a_run_capped_by_a_friends_bot_reaches_no_connector() {
    let mut state = team();
    let mut seats = vec![Participant::new(
        "friend@far",
        ParticipantKind::RemoteBot,
        RoomRole::Member,
        1,
    )];
    seats[0].owner = Some("friend-owner".into());
    state.rooms.get_mut("room-1").unwrap().participants = to_values(&seats);
    let mut run = crate::roster::fixture::bot("bot-run", "node run", "member-a");
    run.run = true;
    run.extra.insert(STEP_TOOLS.into(), json!(["github"]));
    run.extra.insert(CAPPED_BY.into(), json!(["friend@far"]));
    let tools = names(&["mcp__github__list_issues"]);
    let denied_run = denied(&state, &run, false, &tools);
    assert_eq!(
        denied_run[0].1,
        "The github connector is not available to a run started by a friend's Bot."
    );
    // An in-team caller whose switch is on, and a node naming it, get it.
    run.extra.insert(CAPPED_BY.into(), json!(["bot-a"]));
    assert!(denied(&state, &run, false, &tools).is_empty());
    // Another member's Bot is a friend's Bot to the host owner's connectors.
    run.extra.insert(CAPPED_BY.into(), json!(["bot-rev"]));
    assert_eq!(
        denied(&state, &run, false, &tools)[0].1,
        "The github connector is not available to a run started by a friend's Bot."
    );
    run.extra.insert(CAPPED_BY.into(), json!(["bot-a"]));
    // A node that does not name the connector does not get it.
    run.extra.insert(STEP_TOOLS.into(), json!(["shell"]));
    assert_eq!(denied(&state, &run, false, &tools).len(), 1);
}

#[test]
/// Rule #49.
fn owners_own_bots_another_members_bot_gets_none_of_the_owners_connectors() {
    let mut state = team();
    let tools = names(&["mcp__everything__echo", "mcp__github__list_issues"]);
    // member-a is the host owner (the first member): her Bot keeps them.
    assert!(denied(&state, &state.bots["bot-a"], false, &tools).is_empty());
    let rex = state.bots["bot-rev"].clone();
    let refused = denied(&state, &rex, false, &tools);
    assert_eq!(
        refused,
        vec![
            (
                tools[0].clone(),
                "The everything connector is the host owner's; it is not available to another member's Bot.".to_owned()
            ),
            (
                tools[1].clone(),
                "The github connector is the host owner's; it is not available to another member's Bot.".to_owned()
            ),
        ]
    );
    // Before anyone is a member, every Bot is the one person's.
    state.members.clear();
    assert!(denied(&state, &rex, false, &tools).is_empty());
}

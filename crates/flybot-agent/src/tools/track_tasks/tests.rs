//! `track_tasks` arguments: one call per invocation, queue items need a role.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::tools::parse_args;

#[test]
/// Rule #1247.
fn exactly_one_action_and_a_queue_item_names_its_role() {
    let args: TrackTasksArgs =
        parse_args(r#"{"tasks":[{"title":"Build","assignee":"Dev","column":"in-progress"}]}"#)
            .unwrap();
    let TaskCall::Write(writes) = args.into_call().unwrap() else {
        panic!("not a write");
    };
    let CardWrite::Track(item) = &writes[0] else {
        panic!("not a card");
    };
    assert_eq!(item.assignee.as_deref(), Some("Dev"));
    let both: TrackTasksArgs =
        parse_args(r#"{"claim":true,"postResult":{"task":"t","ok":true}}"#).unwrap();
    assert!(both.into_call().is_err());
    let queue: TrackTasksArgs = parse_args(r#"{"tasks":[{"queue":true,"title":"x"}]}"#).unwrap();
    assert!(queue.into_call().is_err());
    let claim: TrackTasksArgs = parse_args(r#"{"claim":true,"id":"t-1"}"#).unwrap();
    assert_eq!(
        claim.into_call().unwrap(),
        TaskCall::Claim {
            id: Some("t-1".into())
        }
    );
}

#[test]
/// Rule #1720.
fn a_card_carries_the_contract_fields_the_endpoint_accepts() {
    use flybot_protocol::task::TaskClass;
    let args: TrackTasksArgs = parse_args(
        r#"{"tasks":[{"title":"Fix","taskClass":"rework","reworkOf":"task-1",
            "handoff":{"from":"requester","to":"Dev","reason":"tests"},
            "evidence":[{"sha":"abc1234","check":"tests pass"}]}]}"#,
    )
    .unwrap();
    let TaskCall::Write(writes) = args.into_call().unwrap() else {
        panic!("not a write");
    };
    let CardWrite::Track(item) = &writes[0] else {
        panic!("not a card");
    };
    assert_eq!(item.contract.task_class, Some(TaskClass::Rework));
    assert_eq!(item.contract.rework_of.as_deref(), Some("task-1"));
    assert_eq!(item.contract.handoff.as_ref().unwrap().to, "Dev");
    let evidence = item.contract.evidence.as_ref().unwrap();
    assert_eq!(evidence[0].check.as_deref(), Some("tests pass"));
    let unknown: Result<TrackTasksArgs, _> =
        parse_args(r#"{"tasks":[{"title":"Fix","taskClass":"chore"}]}"#);
    assert!(unknown.is_err());
}

//! The workflow tools: typed arguments, the host reached through
//! `WorkflowAccess`, a definition that does not read refused before it.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::tools::{BoxFuture, ToolSet, parse_args};
use std::sync::Mutex;

#[derive(Default)]
struct Recorder {
    runs: Mutex<Vec<(WorkflowCaller, RunWorkflowArgs)>>,
    defines: Mutex<Vec<DefineWorkflowArgs>>,
}

impl WorkflowAccess for Recorder {
    fn run<'a>(
        &'a self,
        caller: WorkflowCaller,
        args: RunWorkflowArgs,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            self.runs.lock().unwrap().push((caller, args));
            Ok("started".to_owned())
        })
    }

    fn define<'a>(
        &'a self,
        _caller: WorkflowCaller,
        args: DefineWorkflowArgs,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let refused = args.definition.id == "blank";
            self.defines.lock().unwrap().push(args);
            if refused {
                Err("The workflow blank is a preset.".to_owned())
            } else {
                Ok("saved".to_owned())
            }
        })
    }
}

fn ctx(recorder: &Arc<Recorder>) -> ToolContext {
    let mut ctx = ToolContext::new("session-1", "bot-1", std::env::temp_dir());
    ctx.env = ctx.env.with::<dyn WorkflowAccess>(recorder.clone());
    ctx
}

#[tokio::test]
/// Rule #1316.
async fn run_workflow_reaches_the_host_with_typed_args() {
    let recorder = Arc::new(Recorder::default());
    let set = ToolSet::new(workflow_tools());
    let answer = set
        .call(
            &ctx(&recorder),
            "run_workflow",
            r#"{"workflow":"blank","title":"Post","inputs":{"text:topic":{"revision":"t1"}}}"#,
        )
        .await;
    assert_eq!(answer, Ok("started".to_owned()));
    let runs = recorder.runs.lock().unwrap();
    assert_eq!(runs[0].0.bot_id, "bot-1");
    assert_eq!(runs[0].1.workflow, "blank");
    assert_eq!(runs[0].1.inputs["text:topic"]["revision"], "t1");
    let unknown: Result<RunWorkflowToolArgs, _> =
        parse_args(r#"{"workflow":"blank","title":"x","roomId":"r"}"#);
    assert!(unknown.is_err(), "unknown fields are refused");
}

#[tokio::test]
/// Rule #1299.
async fn define_workflow_types_the_definition_and_answers_the_hosts_refusal() {
    let recorder = Arc::new(Recorder::default());
    let set = ToolSet::new(workflow_tools());
    let bad = set
        .call(
            &ctx(&recorder),
            "define_workflow",
            r#"{"definition":{"id":"x","name":"X","nodes":[],"colour":1}}"#,
        )
        .await;
    assert!(matches!(bad, Err(ToolError::Invalid(_))), "{bad:?}");
    assert!(recorder.defines.lock().unwrap().is_empty());
    let preset = set
        .call(
            &ctx(&recorder),
            "define_workflow",
            r#"{"definition":{"id":"blank","name":"Blank","nodes":[]}}"#,
        )
        .await;
    assert_eq!(
        preset,
        Err(ToolError::Refused(
            "The workflow blank is a preset.".to_owned()
        ))
    );
}

#[tokio::test]
async fn without_a_host_the_tools_refuse() {
    let set = ToolSet::new(workflow_tools());
    let ctx = ToolContext::new("s", "b", std::env::temp_dir());
    let answer = set
        .call(&ctx, "run_workflow", r#"{"workflow":"blank","title":"x"}"#)
        .await;
    assert!(matches!(answer, Err(ToolError::Refused(_))));
}

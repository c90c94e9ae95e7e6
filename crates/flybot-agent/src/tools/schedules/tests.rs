//! The schedule tools hand the calling Session to the host and say what it
//! answered; without a host they refuse with one sentence.

use super::*;
use crate::tools::DynTool;
use std::sync::Mutex;

#[derive(Default)]
struct Recording {
    calls: Mutex<Vec<(String, ScheduleCaller)>>,
}

impl ScheduleAccess for Recording {
    fn create<'a>(
        &'a self,
        caller: ScheduleCaller,
        args: CreateArgs,
    ) -> BoxFuture<'a, Result<String, String>> {
        self.calls
            .lock()
            .unwrap()
            .push((format!("create {}", args.title), caller));
        Box::pin(async { Ok("made".to_owned()) })
    }
    fn list(&self, caller: ScheduleCaller) -> Result<String, String> {
        self.calls.lock().unwrap().push(("list".into(), caller));
        Ok("[]".into())
    }
    fn update<'a>(
        &'a self,
        caller: ScheduleCaller,
        args: UpdateArgs,
    ) -> BoxFuture<'a, Result<String, String>> {
        self.calls
            .lock()
            .unwrap()
            .push((format!("update {}", args.id), caller));
        Box::pin(async { Err("No such task.".to_owned()) })
    }
    fn delete<'a>(
        &'a self,
        caller: ScheduleCaller,
        id: String,
    ) -> BoxFuture<'a, Result<String, String>> {
        self.calls
            .lock()
            .unwrap()
            .push((format!("delete {id}"), caller));
        Box::pin(async { Ok("deleted".to_owned()) })
    }
    fn bot_wide(&self, caller: ScheduleCaller) -> Result<String, String> {
        self.calls.lock().unwrap().push(("bot".into(), caller));
        Ok("Bot-wide".into())
    }
}

fn ctx(access: Option<Arc<dyn ScheduleAccess>>) -> ToolContext {
    let mut ctx = ToolContext::new("s-ada", "bot-ada", std::env::temp_dir());
    if let Some(access) = access {
        ctx.env = ctx.env.with::<dyn ScheduleAccess>(access);
    }
    ctx
}

#[tokio::test]
async fn schedule_tools_act_on_the_calling_session_and_pass_refusals_through() {
    let host = Arc::new(Recording::default());
    let ctx = ctx(Some(host.clone()));
    let create = ScheduleCreate
        .call_json(&ctx, r#"{"title": "Standup", "prompt": "Post it", "when": {"kind": "every", "seconds": 60}}"#)
        .await;
    assert_eq!(create, Ok("made".to_owned()));
    let update = ScheduleUpdate
        .call_json(&ctx, r#"{"id": "schedule-9"}"#)
        .await;
    assert_eq!(update, Err(ToolError::Refused("No such task.".to_owned())));
    let calls = host.calls.lock().unwrap().clone();
    let caller = ScheduleCaller {
        bot_id: "bot-ada".into(),
        session_id: "s-ada".into(),
    };
    assert_eq!(
        calls,
        vec![
            ("create Standup".to_owned(), caller.clone()),
            ("update schedule-9".to_owned(), caller)
        ]
    );
}

#[tokio::test]
async fn schedule_tools_refuse_without_a_host_and_a_bad_timing_kind() {
    let none = ctx(None);
    assert!(matches!(
        ScheduleList.call_json(&none, "").await,
        Err(ToolError::Refused(_))
    ));
    let host: Arc<dyn ScheduleAccess> = Arc::new(Recording::default());
    let bad = ScheduleCreate
        .call_json(
            &ctx(Some(host)),
            r#"{"title": "t", "prompt": "p", "when": {"kind": "hourly"}}"#,
        )
        .await;
    assert!(matches!(bad, Err(ToolError::Invalid(_))));
}

//! The workspace tools through the `Tool` boundary a turn uses: JSON
//! arguments in, the model's text or a refusal out, and their schemas.

use super::*;
use crate::tools::ToolSet;

fn tools() -> ToolSet {
    ToolSet::new(workspace_tools(RunCommandApproval::NotNeeded))
}

async fn call(dir: &std::path::Path, name: &str, arguments: &str) -> ToolResult {
    let ctx = ToolContext::new("session-1", "bot-1", dir.to_path_buf());
    let tool = tools().resolve(name).unwrap();
    tool.call_json(&ctx, arguments).await
}

#[tokio::test]
async fn workspace_tools_write_edit_read_list_search_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    assert_eq!(
        call(
            root,
            "write_file",
            r#"{"path": "src/a.txt", "content": "alpha\nbeta\n"}"#
        )
        .await,
        Ok("Wrote 11 bytes to `src/a.txt`.".to_owned())
    );
    assert_eq!(
        call(
            root,
            "edit_file",
            r#"{"path": "src/a.txt", "old_text": "beta", "new_text": "gamma"}"#
        )
        .await,
        Ok("Edited `src/a.txt`: replaced 1 occurrence.".to_owned())
    );
    assert_eq!(
        call(
            root,
            "read_file",
            r#"{"path": "src/a.txt", "start_line": 2}"#
        )
        .await,
        Ok("gamma\n".to_owned())
    );
    assert_eq!(
        call(root, "list_files", r#"{"recursive": true}"#).await,
        Ok("src/\nsrc/a.txt".to_owned())
    );
    assert_eq!(call(root, "list_files", "").await, Ok("src/".to_owned()));
    assert_eq!(
        call(root, "search_files", r#"{"query": "gam"}"#).await,
        Ok("src/a.txt:2: gamma".to_owned())
    );
    assert_eq!(
        call(
            root,
            "run_command",
            r#"{"argv": ["cat", "a.txt"], "cwd": "src"}"#
        )
        .await,
        Ok("Exit code 0.\nalpha\ngamma\n".to_owned())
    );
}

#[tokio::test]
async fn workspace_tools_refusals_reach_the_model_as_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    assert_eq!(
        call(root, "read_file", r#"{"path": "../secret"}"#).await,
        Err(ToolError::Refused(
            "`../secret` goes up with `..`; give a path inside the working folder without `..`."
                .to_owned()
        ))
    );
    assert_eq!(
        call(root, "write_file", r#"{"path": "/etc/x", "content": ""}"#).await,
        Err(ToolError::Refused(
            "`/etc/x` is an absolute path outside the working folder; give a path relative to the working folder."
                .to_owned()
        ))
    );
    assert_eq!(
        call(root, "read_file", r#"{"path": "missing.txt"}"#).await,
        Err(ToolError::Failed(
            "Could not read `missing.txt`: it does not exist.".to_owned()
        ))
    );
    assert!(matches!(
        call(root, "read_file", r#"{"file": "x"}"#).await,
        Err(ToolError::Invalid(_))
    ));
    let gone = root.join("gone");
    assert_eq!(
        call(&gone, "list_files", "{}").await,
        Err(ToolError::Refused(Refusal::RootMissing.to_string()))
    );
    assert_eq!(
        call(&gone, "run_command", r#"{"argv": ["true"]}"#).await,
        Err(ToolError::Refused(Refusal::RootMissing.to_string()))
    );
}

#[test]
fn workspace_tools_schemas_are_complete_objects_with_descriptions() {
    let set = tools();
    let specs = set.specs();
    let mut names: Vec<&str> = specs.iter().map(|spec| spec.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "edit_file",
            "list_files",
            "project_state",
            "read_file",
            "run_command",
            "search_files",
            "write_file"
        ]
    );
    for name in names {
        let schema = set.resolve(name).unwrap().parameters();
        assert_eq!(schema["type"], "object", "{name}");
        assert!(schema["properties"].is_object(), "{name}");
        assert!(schema["required"].is_array(), "{name}");
    }
    let run = set.resolve("run_command").unwrap().parameters();
    assert_eq!(run["required"], serde_json::json!(["argv"]));
    assert!(
        run["properties"]["argv"]["description"]
            .as_str()
            .unwrap()
            .starts_with("The program and its arguments")
    );
    let search = set.resolve("search_files").unwrap().parameters();
    assert!(search.to_string().contains("wildcard"), "{search}");
}

#[test]
fn workspace_run_command_approval_names_the_command() {
    let asking = RunCommand {
        approval: RunCommandApproval::EveryRun,
    };
    let args: RunCommandArgs =
        serde_json::from_str(r#"{"argv": ["cargo", "test"], "cwd": "app"}"#).unwrap();
    assert_eq!(
        Tool::approval(&asking, &args),
        Some("Run `cargo test` in `app`.".to_owned())
    );
    let silent = RunCommand {
        approval: RunCommandApproval::NotNeeded,
    };
    assert_eq!(Tool::approval(&silent, &args), None);
}

#[tokio::test]
/// Rule #1702.
async fn project_state_answers_through_the_tool_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    std::fs::write(root.join("PROJECT.md"), "# Site\n").unwrap();
    let before: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let one = call(root, "project_state", r#"{"file": "PROJECT.md"}"#)
        .await
        .unwrap();
    let one: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(one["status"], "file");
    assert_eq!(one["file"]["content"], "# Site\n");
    assert_eq!(one["file"]["size"], 7);
    let list = call(root, "project_state", "{}").await.unwrap();
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    assert_eq!(list["files"][0]["sha256"], one["file"]["sha256"]);
    assert_eq!(list["files"][1]["status"], "absent");
    let refused = call(root, "project_state", r#"{"file": "src/main.rs"}"#).await;
    assert!(
        matches!(refused, Err(ToolError::Refused(ref s)) if s.contains("not a Project State file"))
    );
    let after: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(before, after, "a call only reads");
}

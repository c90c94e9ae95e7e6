//! Workspace tools for an internal Bot, inside its own working folder only
//! (`ctx.workdir`): read, write and edit a file, list and search, read the
//! Project State files (`project_state`), and run a command with a timeout
//! and an output cap. A path outside the folder is
//! refused (`path`).
//!
//! Each tool's work is a plain function over a [`WorkingFolder`] and a typed
//! argument struct (tested on its own); the `Tool` impls here only open the
//! folder, run that function off the async threads, and turn the outcome into
//! the model's text. Register them with [`workspace_tools`]:
//!
//! ```ignore
//! let tools = ToolSet::new(workspace_tools(RunCommandApproval::NotNeeded));
//! ```

pub mod command;
pub mod error;
pub mod files;
pub mod list;
pub mod path;
pub mod project_state;
pub mod search;
mod walk;

pub use command::{
    CommandLimits, CommandOutcome, RunCommandArgs, run_command, run_command_with_env,
};
pub use error::{Refusal, WorkspaceError};
pub use files::{
    EditFileArgs, FileText, ReadFileArgs, WriteFileArgs, edit_file, read_file, write_file,
};
pub use list::{ListFilesArgs, Listing, list_files};
pub use path::WorkingFolder;
pub use project_state::{ProjectState, ProjectStateArgs, project_state};
pub use search::{SearchFilesArgs, SearchMode, SearchResults, search_files};

use super::{DynTool, Tool, ToolContext, ToolError, ToolResult};
use flybot_protocol::tool_names;
use std::sync::Arc;

/// The model's view of a workspace failure: a refusal stays a refusal, a
/// file-system failure is a failure; the internal detail goes to the log.
fn to_tool_error(error: WorkspaceError) -> ToolError {
    match &error {
        WorkspaceError::Refused(refusal) => ToolError::Refused(refusal.to_string()),
        WorkspaceError::Io { .. } => {
            tracing::warn!(%error, "workspace tool failed");
            ToolError::Failed(error.model_sentence())
        }
    }
}

/// Opens the Session's folder and runs `work` on a blocking thread: file
/// walks and reads must not stall the turns of other Sessions.
async fn in_folder<A, T>(
    ctx: &ToolContext,
    args: A,
    work: fn(&WorkingFolder, &A) -> Result<T, WorkspaceError>,
    answer: fn(T) -> String,
) -> ToolResult
where
    A: Send + 'static,
    T: Send + 'static,
{
    let workdir = ctx.workdir.clone();
    let joined = tokio::task::spawn_blocking(move || {
        let folder = WorkingFolder::open(&workdir)?;
        work(&folder, &args)
    })
    .await;
    match joined {
        Ok(Ok(value)) => Ok(answer(value)),
        Ok(Err(error)) => Err(to_tool_error(error)),
        Err(join) => {
            tracing::error!(error = %join, "workspace tool thread ended abnormally");
            Err(ToolError::Failed(
                "The tool stopped unexpectedly; try the call again.".to_owned(),
            ))
        }
    }
}

/// `read_file`.
pub struct ReadFile;

impl Tool for ReadFile {
    type Args = ReadFileArgs;
    fn name(&self) -> &'static str {
        tool_names::READ_FILE
    }
    fn description(&self) -> &'static str {
        "Read a text file in your working folder, optionally only some lines."
    }
    async fn call(&self, ctx: &ToolContext, args: ReadFileArgs) -> ToolResult {
        in_folder(ctx, args, read_file, |text| text.to_model_text()).await
    }
}

/// `write_file`.
pub struct WriteFile;

impl Tool for WriteFile {
    type Args = WriteFileArgs;
    fn name(&self) -> &'static str {
        tool_names::WRITE_FILE
    }
    fn description(&self) -> &'static str {
        "Create or overwrite a text file in your working folder; missing folders are created."
    }
    async fn call(&self, ctx: &ToolContext, args: WriteFileArgs) -> ToolResult {
        in_folder(ctx, args, write_file, |answer| answer).await
    }
}

/// `edit_file`.
pub struct EditFile;

impl Tool for EditFile {
    type Args = EditFileArgs;
    fn name(&self) -> &'static str {
        tool_names::EDIT_FILE
    }
    fn description(&self) -> &'static str {
        "Replace one exact piece of text in a file in your working folder; the text must occur exactly once."
    }
    async fn call(&self, ctx: &ToolContext, args: EditFileArgs) -> ToolResult {
        in_folder(ctx, args, edit_file, |answer| answer).await
    }
}

/// `list_files`.
pub struct ListFiles;

impl Tool for ListFiles {
    type Args = ListFilesArgs;
    fn name(&self) -> &'static str {
        tool_names::LIST_FILES
    }
    fn description(&self) -> &'static str {
        "List the files and folders in your working folder or a folder inside it, optionally the whole tree."
    }
    async fn call(&self, ctx: &ToolContext, args: ListFilesArgs) -> ToolResult {
        in_folder(ctx, args, list_files, |listing| listing.to_model_text()).await
    }
}

/// `search_files`.
pub struct SearchFiles;

impl Tool for SearchFiles {
    type Args = SearchFilesArgs;
    fn name(&self) -> &'static str {
        tool_names::SEARCH_FILES
    }
    fn description(&self) -> &'static str {
        "Find the lines holding a text or a wildcard pattern in the text files of your working folder."
    }
    async fn call(&self, ctx: &ToolContext, args: SearchFilesArgs) -> ToolResult {
        in_folder(ctx, args, search_files, |results| results.to_model_text()).await
    }
}

/// `project_state` (#1702): read only, so it asks nobody.
pub struct ProjectStateTool;

impl Tool for ProjectStateTool {
    type Args = ProjectStateArgs;
    fn name(&self) -> &'static str {
        tool_names::PROJECT_STATE
    }
    fn description(&self) -> &'static str {
        "List the Project State files of your working folder (PROJECT.md, ROADMAP.md, docs/governance.md, decisions/*.md, LESSONS.md) with size, sha256 and modified time, or read one whole (up to 200,000 bytes); compare the hash with the copy you had."
    }
    async fn call(&self, ctx: &ToolContext, args: ProjectStateArgs) -> ToolResult {
        in_folder(ctx, args, project_state, |state| state.to_model_text()).await
    }
}

/// Whether `run_command` asks the owner before each run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunCommandApproval {
    NotNeeded,
    /// Every run produces an approval request naming the command.
    EveryRun,
}

/// `run_command`.
pub struct RunCommand {
    pub approval: RunCommandApproval,
}

impl Tool for RunCommand {
    type Args = RunCommandArgs;
    fn name(&self) -> &'static str {
        tool_names::RUN_COMMAND
    }
    fn description(&self) -> &'static str {
        "Run a program with its arguments in your working folder, with a timeout; answers the exit code and the combined output (cut at 64 KiB)."
    }
    fn approval(&self, args: &RunCommandArgs) -> Option<String> {
        match self.approval {
            RunCommandApproval::NotNeeded => None,
            RunCommandApproval::EveryRun => Some(format!(
                "Run `{}` in `{}`.",
                args.argv.join(" "),
                args.cwd.as_deref().unwrap_or(".")
            )),
        }
    }
    async fn call(&self, ctx: &ToolContext, args: RunCommandArgs) -> ToolResult {
        let folder = WorkingFolder::open(&ctx.workdir).map_err(to_tool_error)?;
        let limits = CommandLimits::for_args(&args);
        // The Bot's keys (#545; none for a friend's asking, #651), and never their values in what the
        // Session log keeps: the output is redacted before it is answered.
        let shell = super::secrets::turn_shell(ctx).unwrap_or_default();
        let redact = |text: String| flybot_core::secrets::redact(&text, &shell.values());
        run_command_with_env(&folder, &args, limits, &shell.env())
            .await
            .map(|outcome| redact(outcome.to_model_text()))
            .map_err(|e| match to_tool_error(e) {
                ToolError::Failed(text) => ToolError::Failed(redact(text)),
                other => other,
            })
    }
}

/// The seven workspace tools, ready for a `ToolSet`.
pub fn workspace_tools(run_command_approval: RunCommandApproval) -> Vec<Arc<dyn DynTool>> {
    vec![
        Arc::new(ReadFile),
        Arc::new(WriteFile),
        Arc::new(EditFile),
        Arc::new(ListFiles),
        Arc::new(SearchFiles),
        Arc::new(ProjectStateTool),
        Arc::new(RunCommand {
            approval: run_command_approval,
        }),
    ]
}

#[cfg(test)]
mod command_tests;
#[cfg(test)]
mod tests;

//! The fake OpenCode's "bash": a scripted command run as the real seat's
//! commands are, in the sandbox, writing only the workspace (issue 30).

use std::path::Path;
use std::process::Stdio;

/// Runs `command` (argv, no shell) in `workspace`; answers its stdout.
pub(super) async fn run(workspace: &Path, command: &[String]) -> String {
    let Some((program, args)) = command.split_first() else {
        return String::new();
    };
    let mut child = tokio::process::Command::new(program);
    child
        .args(args)
        .current_dir(workspace)
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    let policy = flybot_sandbox::Policy::writing(&[workspace])
        .reading(flybot_sandbox::program_roots(command, None));
    match flybot_sandbox::spawn(child, &policy) {
        Ok((child, _sandbox)) => match child.wait_with_output().await {
            Ok(ran) => String::from_utf8_lossy(&ran.stdout).into_owned(),
            Err(_) => String::new(),
        },
        Err(_) => String::new(),
    }
}

//! `run_command`: one program with its arguments (no shell string), run in
//! the working folder or a folder inside it, with a timeout, a cap on its
//! combined output and a minimal environment.
//!
//! The program starts through `flybot-sandbox` (issue 30): it writes only
//! the working folder and a private temporary folder, reads the system's
//! programs and nothing else of the home, has no network, and is held to
//! a process, memory and CPU limit (a limit it runs into is said in the
//! answer). It leads its own process group, and the whole group is
//! stopped: on timeout (SIGTERM, a grace period, then SIGKILL), when the
//! program exits (leftover background children are killed), and when the
//! call is dropped mid-run (a cancelled turn), by the sandbox's drop.

use super::error::{Refusal, Result, WorkspaceError};
use super::path::WorkingFolder;
use flybot_sandbox::Signal;
use schemars::JsonSchema;
use serde::Deserialize;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::{Pin, pin};
use std::process::{ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, ChildStderr, ChildStdout, Command};

/// The timeout unless the call asks for another.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest timeout a call may ask for.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(600);
/// Combined stdout and stderr kept; the rest is counted and dropped.
pub const OUTPUT_CAP_BYTES: usize = 64 * 1024;
/// Between SIGTERM and SIGKILL on timeout.
pub const KILL_GRACE: Duration = Duration::from_secs(2);
/// How long output is still read once the group has been killed; a process
/// that left the group (setsid) and kept the pipe open cannot hold the call.
const DRAIN_AFTER_KILL: Duration = Duration::from_secs(1);
/// PATH when the host has none.
const FALLBACK_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Run a program in the working folder.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunCommandArgs {
    /// The program and its arguments, one item each, e.g. ["cargo", "test", "--quiet"]. There is no shell; for pipes or redirections run ["sh", "-c", "..."].
    pub argv: Vec<String>,
    /// The folder to run in, relative to the working folder (default: the working folder itself).
    #[serde(default)]
    pub cwd: Option<String>,
    /// Seconds before the command is stopped (default 60, at most 600).
    #[serde(default)]
    pub timeout_secs: Option<u64>,
}

/// The limits one run is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandLimits {
    pub timeout: Duration,
    pub output_cap: usize,
    pub grace: Duration,
}

impl CommandLimits {
    /// The model's timeout, clamped to 1..=600 s, with the standard cap and grace.
    pub fn for_args(args: &RunCommandArgs) -> CommandLimits {
        let timeout = args
            .timeout_secs
            .map(|secs| Duration::from_secs(secs.clamp(1, MAX_TIMEOUT.as_secs())))
            .unwrap_or(DEFAULT_TIMEOUT);
        CommandLimits {
            timeout,
            output_cap: OUTPUT_CAP_BYTES,
            grace: KILL_GRACE,
        }
    }
}

/// How a run ended and what it printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutcome {
    /// The exit code, when the program exited by itself.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// The timeout stopped it.
    pub timed_out: bool,
    pub timeout: Duration,
    /// stdout and stderr interleaved as they arrived, up to the cap.
    pub output: String,
    /// Bytes past the cap, dropped.
    pub dropped_bytes: u64,
    pub elapsed: Duration,
    /// The sandbox's sentence when the program ran into one of its limits.
    pub limit: Option<String>,
}

impl CommandOutcome {
    /// The first line says how it ended; the output follows.
    pub fn to_model_text(&self) -> String {
        let ending = if self.timed_out {
            format!(
                "Timed out after {} s; the command and its child processes were stopped.",
                self.timeout.as_secs_f64()
            )
        } else if let Some(code) = self.exit_code {
            format!("Exit code {code}.")
        } else if let Some(signal) = self.signal {
            format!("Ended by signal {signal}.")
        } else {
            "Ended without an exit code.".to_owned()
        };
        let mut text = ending;
        if let Some(limit) = &self.limit {
            text.push(' ');
            text.push_str(limit);
        }
        if !self.output.is_empty() {
            text.push('\n');
            text.push_str(&self.output);
        }
        if self.dropped_bytes > 0 {
            text.push_str(&format!(
                "\n[output cut at {} bytes; {} more bytes dropped]",
                self.output.len(),
                self.dropped_bytes
            ));
        }
        text
    }
}

/// Output kept up to a cap; the rest only counted.
struct Capture {
    kept: Vec<u8>,
    cap: usize,
    dropped: u64,
}

impl Capture {
    fn push(&mut self, chunk: &[u8]) {
        let room = self.cap.saturating_sub(self.kept.len());
        let kept = chunk.len().min(room);
        self.kept.extend_from_slice(&chunk[..kept]);
        self.dropped += (chunk.len() - kept) as u64;
    }
}

/// Reads a pipe to its end into the shared capture. Reading goes on past
/// the cap so a chatty program never blocks on a full pipe.
async fn pump(mut pipe: impl AsyncRead + Unpin, capture: &Mutex<Capture>) {
    let mut buffer = [0u8; 8 * 1024];
    loop {
        match pipe.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(read) => {
                if let Ok(mut capture) = capture.lock() {
                    capture.push(&buffer[..read]);
                }
            }
        }
    }
}

/// Waits for the program while its output keeps being read, until it exits
/// or `limit` passes (`None`).
async fn wait_reading<O: Future<Output = ()>>(
    child: &mut Child,
    outputs: &mut Pin<&mut O>,
    outputs_done: &mut bool,
    limit: Duration,
) -> Option<std::io::Result<ExitStatus>> {
    let mut deadline = pin!(tokio::time::sleep(limit));
    loop {
        // `Child::wait` is cancel safe, so a new one each round loses nothing.
        tokio::select! {
            status = child.wait() => return Some(status),
            () = outputs.as_mut(), if !*outputs_done => *outputs_done = true,
            () = &mut deadline => return None,
        }
    }
}

/// Runs `args.argv` in the folder and answers how it ended.
pub async fn run_command(
    folder: &WorkingFolder,
    args: &RunCommandArgs,
    limits: CommandLimits,
) -> Result<CommandOutcome> {
    run_command_with_env(folder, args, limits, &[]).await
}

/// `run_command` with `env` added to the minimal environment (the Bot's
/// keys, #545).
pub async fn run_command_with_env(
    folder: &WorkingFolder,
    args: &RunCommandArgs,
    limits: CommandLimits,
    env: &[(String, String)],
) -> Result<CommandOutcome> {
    let (program, arguments, cwd) = program_and_folder(folder, args)?;
    let mut command = confined_command(folder, program, arguments, &cwd);
    command.envs(env.iter().map(|(k, v)| (k, v)));
    let started = Instant::now();
    let policy =
        flybot_sandbox::Policy::writing(&[folder.root()]).reading(flybot_sandbox::path_roots());
    let (mut child, mut sandbox) = flybot_sandbox::spawn(command, &policy)
        .map_err(|e| WorkspaceError::io("start", cwd.join(program), program, e))?;

    let capture = Mutex::new(Capture {
        kept: Vec::new(),
        cap: limits.output_cap,
        dropped: 0,
    });
    let outputs = read_outputs(child.stdout.take(), child.stderr.take(), &capture);
    let mut outputs = pin!(outputs);
    let mut outputs_done = false;
    let (status, timed_out) = wait_then_stop_group(
        &mut child,
        &mut sandbox,
        &mut outputs,
        &mut outputs_done,
        limits,
    )
    .await;
    let status =
        status.map_err(|e| WorkspaceError::io("wait for", cwd.join(program), program, e))?;
    if !outputs_done {
        let _ = tokio::time::timeout(DRAIN_AFTER_KILL, outputs.as_mut()).await;
    }

    let (output, dropped_bytes) = captured_output(&capture);
    use std::os::unix::process::ExitStatusExt;
    Ok(CommandOutcome {
        limit: sandbox.limit_reached(status.signal()),
        exit_code: status.code(),
        signal: status.signal(),
        timed_out,
        timeout: limits.timeout,
        output,
        dropped_bytes,
        elapsed: started.elapsed(),
    })
}

/// The program, its arguments and the folder to run in: a program must be
/// named, and the folder must be a folder inside the working folder.
fn program_and_folder<'a>(
    folder: &WorkingFolder,
    args: &'a RunCommandArgs,
) -> Result<(&'a str, &'a [String], PathBuf)> {
    let Some((program, arguments)) = args.argv.split_first() else {
        return Err(Refusal::EmptyCommand.into());
    };
    if program.is_empty() {
        return Err(Refusal::EmptyCommand.into());
    }
    let shown_cwd = args.cwd.as_deref().unwrap_or(".");
    let cwd = folder.resolve(shown_cwd)?;
    if !cwd.is_dir() {
        return Err(Refusal::NotAFolder {
            path: shown_cwd.to_owned(),
        }
        .into());
    }
    Ok((program, arguments, cwd))
}

/// The command as it will start: in `cwd`, with a minimal environment, no
/// stdin and piped output (the sandbox makes it lead its own group).
fn confined_command(
    folder: &WorkingFolder,
    program: &str,
    arguments: &[String],
    cwd: &Path,
) -> Command {
    let mut command = Command::new(program);
    command
        .args(arguments)
        .current_dir(cwd)
        // Not the host's environment: it holds the provider keys.
        .env_clear()
        .env(
            "PATH",
            std::env::var_os("PATH").unwrap_or_else(|| FALLBACK_PATH.into()),
        )
        .env("HOME", folder.root())
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Reads both pipes to their ends into the shared capture.
async fn read_outputs(
    stdout: Option<ChildStdout>,
    stderr: Option<ChildStderr>,
    capture: &Mutex<Capture>,
) {
    let read_out = async {
        if let Some(pipe) = stdout {
            pump(pipe, capture).await;
        }
    };
    let read_err = async {
        if let Some(pipe) = stderr {
            pump(pipe, capture).await;
        }
    };
    tokio::join!(read_out, read_err);
}

/// Waits for the program up to the timeout (then SIGTERM and the grace),
/// kills what is left of its group and reaps it. Answers its status and
/// whether the timeout stopped it.
async fn wait_then_stop_group<O: Future<Output = ()>>(
    child: &mut Child,
    sandbox: &mut flybot_sandbox::ChildSandbox,
    outputs: &mut Pin<&mut O>,
    outputs_done: &mut bool,
    limits: CommandLimits,
) -> (std::io::Result<ExitStatus>, bool) {
    let mut timed_out = false;
    let mut status = wait_reading(child, outputs, outputs_done, limits.timeout).await;
    if status.is_none() {
        timed_out = true;
        sandbox.group().signal(Signal::TERM);
        status = wait_reading(child, outputs, outputs_done, limits.grace).await;
    }
    // Whatever is left of the group goes: after a timeout the program
    // itself if it ignored SIGTERM, after an exit its background children.
    sandbox.group().signal(Signal::KILL);
    let status = match status {
        Some(status) => status,
        None => child.wait().await,
    };
    sandbox.group_mut().disarm();
    (status, timed_out)
}

/// The output kept so far, as text, and the bytes dropped past the cap.
fn captured_output(capture: &Mutex<Capture>) -> (String, u64) {
    match capture.lock() {
        Ok(capture) => (
            String::from_utf8_lossy(&capture.kept).into_owned(),
            capture.dropped,
        ),
        Err(_) => (String::new(), 0),
    }
}

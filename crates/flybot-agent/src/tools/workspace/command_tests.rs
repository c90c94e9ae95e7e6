//! `run_command` on real short subprocesses: exit codes, the output cap, the
//! timeout and the process-group kill (on timeout, on exit, on drop), the
//! minimal environment and the folder refusals. No test sleeps over 100 ms;
//! waiting for a process to vanish polls in 10 ms steps.

use super::*;
use std::path::Path;
use std::time::Duration;

fn folder() -> (tempfile::TempDir, WorkingFolder) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let folder = WorkingFolder::open(dir.path()).unwrap();
    (dir, folder)
}

fn args(argv: &[&str]) -> RunCommandArgs {
    RunCommandArgs {
        argv: argv.iter().map(|s| s.to_string()).collect(),
        cwd: None,
        timeout_secs: None,
    }
}

fn limits(timeout_ms: u64) -> CommandLimits {
    CommandLimits {
        timeout: Duration::from_millis(timeout_ms),
        output_cap: command::OUTPUT_CAP_BYTES,
        grace: Duration::from_millis(100),
    }
}

/// Alive and not a zombie (a container's pid 1 may never reap an orphan).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => {
            let state = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.trim_start().chars().next());
            !matches!(state, Some('Z') | Some('X'))
        }
    }
}

async fn gone_soon(pid: u32) -> bool {
    for _ in 0..300 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

async fn read_pid_soon(path: &Path) -> u32 {
    for _ in 0..300 {
        if let Ok(text) = std::fs::read_to_string(path)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{} never appeared", path.display());
}

/// Starts a shell that notes its pid, starts a sleeping grandchild and
/// notes its pid, then waits.
const PARENT_AND_GRANDCHILD: &str = "echo $$ > sh.pid; sleep 5 & echo $! > gc.pid; wait";

#[tokio::test]
async fn workspace_command_reports_exit_code_and_both_streams() {
    let (_dir, folder) = folder();
    let outcome = run_command(
        &folder,
        &args(&["sh", "-c", "echo out; echo err >&2; exit 3"]),
        limits(5_000),
    )
    .await
    .unwrap();
    assert_eq!(outcome.exit_code, Some(3));
    assert_eq!(outcome.signal, None);
    assert!(!outcome.timed_out);
    assert!(outcome.output.contains("out\n") && outcome.output.contains("err\n"));
    assert!(outcome.to_model_text().starts_with("Exit code 3.\n"));

    let ok = run_command(&folder, &args(&["true"]), limits(5_000))
        .await
        .unwrap();
    assert_eq!(ok.to_model_text(), "Exit code 0.");
}

#[tokio::test]
async fn workspace_command_output_cap() {
    let (_dir, folder) = folder();
    let mut small = limits(5_000);
    small.output_cap = 1_000;
    let outcome = run_command(
        &folder,
        &args(&["sh", "-c", "head -c 200000 /dev/zero | tr '\\0' a"]),
        small,
    )
    .await
    .unwrap();
    assert_eq!(
        outcome.exit_code,
        Some(0),
        "the program is never blocked by the cap"
    );
    assert_eq!(outcome.output, "a".repeat(1_000));
    assert_eq!(outcome.dropped_bytes, 199_000);
    assert!(
        outcome
            .to_model_text()
            .ends_with("[output cut at 1000 bytes; 199000 more bytes dropped]")
    );
}

#[tokio::test]
async fn workspace_command_timeout_stops_a_long_sleep() {
    let (_dir, folder) = folder();
    let outcome = run_command(&folder, &args(&["sleep", "5"]), limits(50))
        .await
        .unwrap();
    assert!(outcome.timed_out);
    assert_eq!(outcome.exit_code, None);
    assert_eq!(outcome.signal, Some(15), "SIGTERM was enough for sleep");
    assert!(
        outcome.elapsed < Duration::from_secs(4),
        "{:?}",
        outcome.elapsed
    );
    assert!(
        outcome.to_model_text().starts_with(
            "Timed out after 0.05 s; the command and its child processes were stopped."
        )
    );
}

#[tokio::test]
async fn workspace_command_timeout_kills_the_whole_group() {
    let (dir, folder) = folder();
    // Long enough for the shell to start its grandchild on a loaded machine.
    let outcome = run_command(
        &folder,
        &args(&["sh", "-c", PARENT_AND_GRANDCHILD]),
        limits(300),
    )
    .await
    .unwrap();
    assert!(outcome.timed_out);
    let shell = read_pid_soon(&dir.path().join("sh.pid")).await;
    let grandchild = read_pid_soon(&dir.path().join("gc.pid")).await;
    assert!(gone_soon(shell).await, "the shell is gone");
    assert!(gone_soon(grandchild).await, "the grandchild is gone");
}

#[tokio::test]
async fn workspace_command_exit_kills_leftover_background_children() {
    let (dir, folder) = folder();
    // The shell exits at once; its background sleep would hold the pipe open.
    let outcome = run_command(
        &folder,
        &args(&["sh", "-c", "sleep 5 & echo $! > gc.pid; echo started"]),
        limits(10_000),
    )
    .await
    .unwrap();
    assert_eq!(outcome.exit_code, Some(0));
    assert_eq!(outcome.output, "started\n");
    assert!(
        outcome.elapsed < Duration::from_secs(4),
        "{:?}",
        outcome.elapsed
    );
    let grandchild = read_pid_soon(&dir.path().join("gc.pid")).await;
    assert!(gone_soon(grandchild).await);
}

#[tokio::test]
async fn workspace_command_dropped_call_kills_the_group() {
    let (dir, folder) = folder();
    let running = tokio::spawn(async move {
        run_command(
            &folder,
            &args(&["sh", "-c", PARENT_AND_GRANDCHILD]),
            limits(60_000),
        )
        .await
    });
    let shell = read_pid_soon(&dir.path().join("sh.pid")).await;
    let grandchild = read_pid_soon(&dir.path().join("gc.pid")).await;
    assert!(alive(shell) && alive(grandchild));
    // A cancelled turn drops the call.
    running.abort();
    assert!(running.await.unwrap_err().is_cancelled());
    assert!(gone_soon(shell).await, "the shell is gone");
    assert!(gone_soon(grandchild).await, "the grandchild is gone");
}

#[tokio::test]
async fn workspace_command_minimal_environment_and_cwd() {
    let (dir, folder) = folder();
    let outcome = run_command(&folder, &args(&["env"]), limits(5_000))
        .await
        .unwrap();
    let mut names: Vec<&str> = outcome
        .output
        .lines()
        .filter_map(|line| line.split_once('=').map(|(name, _)| name))
        .collect();
    names.sort_unstable();
    // The sandbox adds its private temporary folder (issue 30).
    assert_eq!(names, ["HOME", "LANG", "PATH", "TEMP", "TMP", "TMPDIR"]);
    let home = format!("HOME={}", folder.root().display());
    assert!(outcome.output.lines().any(|line| line == home));

    let mut in_sub = args(&["pwd"]);
    in_sub.cwd = Some("sub".into());
    let outcome = run_command(&folder, &in_sub, limits(5_000)).await.unwrap();
    let canonical_sub = std::fs::canonicalize(dir.path().join("sub")).unwrap();
    assert_eq!(outcome.output.trim_end(), canonical_sub.to_str().unwrap());
}

#[tokio::test]
async fn workspace_command_refusals() {
    let (_dir, folder) = folder();
    let refused = |result: Result<CommandOutcome, WorkspaceError>| match result {
        Err(WorkspaceError::Refused(refusal)) => refusal,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert_eq!(
        refused(run_command(&folder, &args(&[]), limits(1_000)).await),
        Refusal::EmptyCommand
    );
    assert_eq!(
        refused(run_command(&folder, &args(&[""]), limits(1_000)).await),
        Refusal::EmptyCommand
    );
    let mut outside = args(&["ls"]);
    outside.cwd = Some("..".into());
    assert_eq!(
        refused(run_command(&folder, &outside, limits(1_000)).await),
        Refusal::ParentDir { path: "..".into() }
    );
    outside.cwd = Some("/tmp".into());
    assert_eq!(
        refused(run_command(&folder, &outside, limits(1_000)).await),
        Refusal::AbsoluteOutside {
            path: "/tmp".into()
        }
    );
    outside.cwd = Some("missing".into());
    assert_eq!(
        refused(run_command(&folder, &outside, limits(1_000)).await),
        Refusal::NotAFolder {
            path: "missing".into()
        }
    );
    let unknown = run_command(&folder, &args(&["no-such-program-xyz"]), limits(1_000))
        .await
        .unwrap_err();
    assert_eq!(
        unknown.model_sentence(),
        "Could not start `no-such-program-xyz`: it does not exist."
    );
}

#[test]
fn workspace_command_limits_clamp_the_model_timeout() {
    let with = |secs: Option<u64>| {
        let mut a = args(&["true"]);
        a.timeout_secs = secs;
        CommandLimits::for_args(&a).timeout
    };
    assert_eq!(with(None), Duration::from_secs(60));
    assert_eq!(with(Some(0)), Duration::from_secs(1));
    assert_eq!(with(Some(30)), Duration::from_secs(30));
    assert_eq!(with(Some(86_400)), Duration::from_secs(600));
}

/// On a paused clock the 60 s default fires as soon as the runtime idles,
/// so the default timeout's path runs without waiting a minute.
#[tokio::test(start_paused = true)]
async fn workspace_command_default_timeout_on_a_paused_clock() {
    let (_dir, folder) = folder();
    let sleeper = args(&["sleep", "5"]);
    let outcome = run_command(&folder, &sleeper, CommandLimits::for_args(&sleeper))
        .await
        .unwrap();
    assert!(outcome.timed_out);
    assert_eq!(outcome.timeout, Duration::from_secs(60));
    assert!(outcome.to_model_text().starts_with("Timed out after 60 s;"));
}

#[tokio::test]
async fn workspace_command_fork_bomb_30_ends_with_the_sandboxs_sentence() {
    if !flybot_sandbox::support().cgroup_pids {
        // RLIMIT_NPROC alone does not bind root; nothing to show here.
        return;
    }
    let (_dir, folder) = folder();
    // More sleepers than the shell's 512-process limit allows.
    let bomb = "i=0; while [ $i -lt 700 ]; do sleep 30 >/dev/null 2>&1 & i=$((i+1)); done; echo all-started";
    let outcome = run_command(&folder, &args(&["sh", "-c", bomb]), limits(20_000))
        .await
        .unwrap();
    let text = outcome.to_model_text();
    assert!(!text.contains("all-started"), "{text}");
    assert!(
        text.contains(
            "The sandbox's limit of 512 processes was reached: starting another process failed."
        ),
        "{text}"
    );
}

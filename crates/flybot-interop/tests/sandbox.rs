//! The network sandbox (#198, "no network" for the child, its test runs
//! and the verification): a listener on a loopback port the sandbox does
//! not allow is never reached, by a sandboxed command or by the verifier's
//! test run, while an allowed port is; the same commands outside the
//! sandbox do connect, so each refusal is the sandbox's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use flybot_interop::project::run_tests_with;
use flybot_interop::sandbox::{self, NetworkPolicy};
use flybot_sandbox::{Network, Policy};
use std::net::TcpListener;
use std::process::Stdio;

/// A listener on 127.0.0.1 that never accepts on its own: what reached it
/// stays in its backlog for `reached` to count.
fn listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

fn reached(listener: &TcpListener) -> usize {
    std::iter::from_fn(|| listener.accept().ok()).count()
}

/// `bash -c` opening a TCP connection to `port` on loopback: exit 0 only
/// when it connected.
fn connect_command(port: u16) -> Vec<String> {
    vec![
        "bash".to_owned(),
        "-c".to_owned(),
        format!("exec 3<>/dev/tcp/127.0.0.1/{port}"),
    ]
}

/// A child that writes only a scratch folder and reaches `allowed` only.
fn only(allowed: u16) -> Policy {
    Policy::writing(&[&std::env::temp_dir()]).network(Network::Loopback {
        connect_port: allowed,
        serve: false,
    })
}

async fn run(policy: Option<&Policy>, port: u16) -> (bool, String) {
    let argv = connect_command(port);
    let mut command = tokio::process::Command::new(&argv[0]);
    command
        .args(&argv[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let (child, _sandbox) = match policy {
        Some(policy) => {
            let (child, sandbox) = flybot_sandbox::spawn(command, policy).unwrap();
            (child, Some(sandbox))
        }
        None => (command.spawn().unwrap(), None),
    };
    let output = child.wait_with_output().await.unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn no_network_a_sandboxed_command_reaches_only_the_allowed_port() {
    let (allowed, allowed_port) = listener();
    let (forbidden, forbidden_port) = listener();
    let policy = only(allowed_port);

    let (connected, stderr) = run(Some(&policy), forbidden_port).await;
    assert!(!connected, "the forbidden port was reached");
    assert!(stderr.contains("Permission denied"), "{stderr}");
    assert_eq!(reached(&forbidden), 0);

    let (connected, stderr) = run(Some(&policy), allowed_port).await;
    assert!(connected, "{stderr}");
    assert_eq!(reached(&allowed), 1);

    // Outside the sandbox the same command reaches the forbidden port.
    let (connected, stderr) = run(None, forbidden_port).await;
    assert!(connected, "{stderr}");
    assert_eq!(reached(&forbidden), 1);
}

#[tokio::test]
async fn no_network_a_child_of_the_sandboxed_command_is_inside_it_too() {
    let (forbidden, port) = listener();
    let mut command = tokio::process::Command::new("bash");
    // The connection is made by a grandchild, started after the spawn.
    command
        .args([
            "-c",
            &format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}'"),
        ])
        .stderr(Stdio::null());
    let policy = Policy::writing(&[&std::env::temp_dir()]);
    let (child, _sandbox) = flybot_sandbox::spawn(command, &policy).unwrap();
    let output = child.wait_with_output().await.unwrap();
    assert!(!output.status.success());
    assert_eq!(reached(&forbidden), 0);
}

#[tokio::test]
async fn no_network_the_verifiers_test_run_cannot_connect_anywhere() {
    let (forbidden, port) = listener();
    let folder = tempfile::tempdir().unwrap();
    let run = run_tests_with(folder.path(), &connect_command(port))
        .await
        .unwrap();
    assert!(!run.passed, "{run:?}");
    assert_eq!(run.exit_code, Some(1));
    assert_eq!(
        reached(&forbidden),
        0,
        "the verifier's run reached the listener"
    );
    // A test command that needs no network still passes in the sandbox.
    let plain = run_tests_with(folder.path(), &["true".to_owned()])
        .await
        .unwrap();
    assert!(plain.passed, "{plain:?}");
}

#[test]
fn no_network_this_kernel_enforces_the_tcp_rules() {
    // CI runs on a kernel with Landlock's TCP rules; a probe that fails
    // here would refuse every real trial.
    let mechanism = sandbox::probe(&NetworkPolicy::only(&[1234])).unwrap();
    assert!(
        mechanism.starts_with("Landlock ABI ")
            && mechanism.contains("TCP connect to port 1234 only"),
        "{mechanism}"
    );
}

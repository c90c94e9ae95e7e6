//! A real Matrix homeserver for the tests of homes that meet (issue 33):
//! Synapse from PyPI (`matrix-synapse`, in the git-ignored venv
//! `.tools/synapse` that `./scripts/test` makes), started privately on a
//! loopback port with SQLite in a temporary folder, registration only by
//! the shared secret and every rate limit lifted. `./scripts/test` sets
//! `FLYBOT_REQUIRE_SYNAPSE`, so there a missing server fails the test
//! instead of skipping it.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::process::{Child, Command};

/// The venv `./scripts/test` makes, from the workspace root.
pub const SYNAPSE_VENV: &str = ".tools/synapse";
/// The homeserver's name: user ids read `@name:localhost`.
pub const SERVER_NAME: &str = "localhost";
const SHARED_SECRET: &str = "flybot-test-registration";

/// A running Synapse; killed (with its folder removed) when dropped.
pub struct Synapse {
    /// `http://127.0.0.1:<port>`.
    pub base_url: String,
    port: u16,
    python: PathBuf,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

/// The venv's python, by `$FLYBOT_SYNAPSE_PYTHON` or the workspace's venv.
fn python() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("FLYBOT_SYNAPSE_PYTHON") {
        return Some(PathBuf::from(path));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = root.join(SYNAPSE_VENV).join("bin/python");
    python.exists().then_some(python)
}

// A skipped test says why on the test's own stderr, as the llama tests do.
#[allow(clippy::print_stderr)]
fn missing(why: &str) -> Option<Synapse> {
    assert!(
        std::env::var_os("FLYBOT_REQUIRE_SYNAPSE").is_none(),
        "FLYBOT_REQUIRE_SYNAPSE is set and {why}: run ./scripts/test"
    );
    eprintln!("skipped: Synapse is not installed ({why})");
    None
}

fn config(dir: &Path, port: u16, extra: &str) -> String {
    let d = dir.display();
    let lifted = "{per_second: 100000, burst_count: 100000}";
    format!(
        "server_name: \"{SERVER_NAME}\"
pid_file: {d}/homeserver.pid
listeners:
  - port: {port}
    bind_addresses: ['127.0.0.1']
    type: http
    tls: false
    x_forwarded: false
    resources:
      - names: [client]
        compress: false
database:
  name: sqlite3
  args:
    database: {d}/homeserver.db
media_store_path: {d}/media
registration_shared_secret: \"{SHARED_SECRET}\"
enable_registration: false
report_stats: false
signing_key_path: {d}/signing.key
trusted_key_servers: []
suppress_key_server_warning: true
enable_metrics: false
rc_message: {lifted}
rc_registration: {lifted}
rc_login:
  address: {lifted}
  account: {lifted}
  failed_attempts: {lifted}
rc_joins:
  local: {lifted}
  remote: {lifted}
rc_invites:
  per_room: {lifted}
  per_user: {lifted}
  per_issuer: {lifted}
{extra}
"
    )
}

/// Starts a private Synapse, or `None` (with the reason on stderr) when it
/// is not installed; with `FLYBOT_REQUIRE_SYNAPSE` set, a missing one panics.
pub async fn start_synapse() -> Option<Synapse> {
    start_synapse_with("").await
}

/// As `start_synapse`, with `extra` lines of `homeserver.yaml` (such as a
/// short `refreshable_access_token_lifetime`).
pub async fn start_synapse_with(extra: &str) -> Option<Synapse> {
    let Some(python) = python() else {
        return missing("no venv at .tools/synapse");
    };
    let dir = tempfile::tempdir().expect("a folder for Synapse");
    let port = free_port();
    std::fs::write(
        dir.path().join("homeserver.yaml"),
        config(dir.path(), port, extra),
    )
    .expect("Synapse's config is written");
    let keys = Command::new(&python)
        .args(["-m", "synapse.app.homeserver", "-c", "homeserver.yaml"])
        .arg("--generate-keys")
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .await
        .expect("Synapse makes its signing key");
    assert!(keys.success(), "Synapse could not make its signing key");
    let mut synapse = Synapse {
        base_url: format!("http://127.0.0.1:{port}"),
        port,
        python,
        dir,
        child: None,
    };
    synapse.start().await;
    Some(synapse)
}

impl Synapse {
    /// Starts the server on its folder and port (again, after `stop`), and
    /// waits until it answers.
    pub async fn start(&mut self) {
        let log = std::fs::File::create(self.dir.path().join("out.log")).expect("a log file");
        let child = Command::new(&self.python)
            .args(["-m", "synapse.app.homeserver", "-c", "homeserver.yaml"])
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .kill_on_drop(true)
            .spawn()
            .expect("Synapse starts");
        self.child = Some(child);
        let url = format!("{}/_matrix/client/versions", self.base_url);
        let client = reqwest_client();
        for _ in 0..1200 {
            if let Ok(answer) = client.get(&url).send().await
                && answer.status().is_success()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "Synapse did not answer on port {} within a minute: {}",
            self.port,
            std::fs::read_to_string(self.dir.path().join("out.log")).unwrap_or_default()
        );
    }

    /// Stops the server (SIGKILL); its database stays for `start`.
    pub async fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill().await;
        }
    }

    /// Registers `name` with `password` by the shared secret; answers the
    /// user id (`@name:localhost`).
    pub async fn register(&self, name: &str, password: &str) -> String {
        let script = self
            .python
            .parent()
            .expect("the venv's bin folder")
            .join("register_new_matrix_user");
        let status = Command::new(script)
            .args([
                "-u",
                name,
                "-p",
                password,
                "--no-admin",
                "-k",
                SHARED_SECRET,
            ])
            .arg(&self.base_url)
            .current_dir(self.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await
            .expect("register_new_matrix_user runs");
        assert!(status.success(), "Synapse did not register {name}");
        format!("@{name}:{SERVER_NAME}")
    }
}

fn reqwest_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .expect("an HTTP client")
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

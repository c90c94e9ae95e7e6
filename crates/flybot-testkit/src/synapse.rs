//! A real Matrix homeserver for the tests of homes that meet (issue 33):
//! Synapse from PyPI (`matrix-synapse`, in the git-ignored venv
//! `.tools/synapse` that `./scripts/test` makes), started privately on a
//! loopback port with SQLite in a temporary folder, registration only by
//! the shared secret, every rate limit lifted and passwords hashed with
//! bcrypt's fewest rounds (12 rounds cost a quarter second a login on two
//! cores, and a test logs in many times). `./scripts/test` sets
//! `FLYBOT_REQUIRE_SYNAPSE`, so there a missing server fails the test
//! instead of skipping it.

use crate::ports::{free_loopback_port, loopback_client};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::process::{Child, Command};

/// The venv `./scripts/test` makes, from the workspace root.
pub const SYNAPSE_VENV: &str = ".tools/synapse";
/// The homeserver's name: user ids read `@name:localhost`.
pub const SERVER_NAME: &str = "localhost";
const SHARED_SECRET: &str = "flybot-test-registration";

/// A running Synapse; a test's own is killed (with its folder removed)
/// when dropped, the run's shared one (`synapse_shared`) is left running.
pub struct Synapse {
    /// `http://127.0.0.1:<port>`.
    pub base_url: String,
    pub(crate) port: u16,
    /// The version of this server's own signing key: the key server names
    /// it, so a probe knows this Synapse from another test's on the port.
    pub(crate) key_version: String,
    python: PathBuf,
    /// The server's folder: its config, database, key and log.
    pub(crate) folder: PathBuf,
    /// The test's own folder, removed when dropped; `None` when shared.
    _own: Option<tempfile::TempDir>,
    child: Option<Child>,
    /// What this test's users' names end with: empty on a test's own
    /// server, a tag of its own on the shared one.
    pub(crate) tag: String,
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
      - names: [client, keys]
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
bcrypt_rounds: 4
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

/// A Synapse for a test that never stops it: the run's shared server when
/// `./scripts/test` made one (`synapse_shared`), else a private one. `None`
/// (with the reason on stderr) when it is not installed; with
/// `FLYBOT_REQUIRE_SYNAPSE` set, a missing one panics.
pub async fn start_synapse() -> Option<Synapse> {
    match crate::synapse_shared::folder() {
        Some(folder) => crate::synapse_shared::join(folder).await,
        None => start_private_synapse().await,
    }
}

/// A Synapse of the test's own, which it may stop and start again.
pub async fn start_private_synapse() -> Option<Synapse> {
    start_synapse_with("").await
}

/// As `start_synapse`, with `extra` lines of `homeserver.yaml` (such as a
/// short `refreshable_access_token_lifetime`). A port is free only until
/// Synapse binds it, a second or so later; when another test's server took
/// it meanwhile, this one starts again on another port.
pub async fn start_synapse_with(extra: &str) -> Option<Synapse> {
    let own = tempfile::tempdir().expect("a folder for Synapse");
    start_on(free_loopback_port, extra, Place::Own(own)).await
}

/// Where a Synapse keeps its files.
pub(crate) enum Place {
    /// A test's own folder, removed with its server.
    Own(tempfile::TempDir),
    /// The run's shared folder: the server outlives the test that made it.
    Shared(PathBuf),
}

/// Starts a Synapse on the first of `ports` it can keep.
pub(crate) async fn start_on(
    mut ports: impl FnMut() -> u16,
    extra: &str,
    place: Place,
) -> Option<Synapse> {
    let Some(python) = python() else {
        return missing("no venv at .tools/synapse");
    };
    let (folder, own) = match place {
        Place::Own(dir) => (dir.path().to_owned(), Some(dir)),
        Place::Shared(folder) => (folder, None),
    };
    let key_version = format!("t{}", flybot_core::hex::lower_hex(&random_bytes::<6>()));
    std::fs::write(folder.join("signing.key"), signing_key(&key_version))
        .expect("Synapse's signing key is written");
    let mut synapse = Synapse {
        base_url: String::new(),
        port: 0,
        key_version,
        python,
        folder,
        _own: own,
        child: None,
        tag: String::new(),
    };
    let mut lost = Vec::new();
    for _ in 0..PORT_TRIES {
        synapse.take_port(ports(), extra);
        match synapse.launch().await {
            Ok(()) => return Some(synapse),
            Err(why) => lost.push(why),
        }
    }
    panic!("Synapse could not keep a port in {PORT_TRIES} tries: {lost:?}")
}

/// How many ports a Synapse tries before the test gives up.
const PORT_TRIES: usize = 5;

impl Synapse {
    /// The server process's id, while this handle holds it.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.child.as_ref().and_then(Child::id)
    }

    /// The shared server another test started in `folder`, on `port` with
    /// the key `key_version`, once it answers as that server.
    pub(crate) async fn joined(folder: PathBuf, port: u16, key_version: String) -> Option<Synapse> {
        let mut synapse = Synapse {
            base_url: format!("http://127.0.0.1:{port}"),
            port,
            key_version,
            python: python()?,
            folder,
            _own: None,
            child: None,
            tag: String::new(),
        };
        synapse.answers().await.ok()?;
        Some(synapse)
    }

    fn take_port(&mut self, port: u16, extra: &str) {
        self.port = port;
        self.base_url = format!("http://127.0.0.1:{port}");
        std::fs::write(
            self.folder.join("homeserver.yaml"),
            config(&self.folder, port, extra),
        )
        .expect("Synapse's config is written");
    }

    /// Starts the server again on its folder and port, after `stop`, and
    /// waits until it answers.
    pub async fn start(&mut self) {
        self.refuse_if_shared("started again");
        if let Err(why) = self.launch().await {
            panic!("Synapse did not come back on port {}: {why}", self.port);
        }
    }

    /// Spawns the server and waits until its key server names this
    /// server's key; an error says why it is not this server that answers
    /// (it exited, or another test's Synapse holds the port).
    async fn launch(&mut self) -> Result<(), String> {
        let log = std::fs::File::create(self.folder.join("out.log")).expect("a log file");
        let own = self._own.is_some();
        let mut command = Command::new(&self.python);
        command
            .args(["-m", "synapse.app.homeserver", "-c", "homeserver.yaml"])
            .current_dir(&self.folder)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .kill_on_drop(own);
        if !own {
            // Out of the test's process group: the shared server outlives
            // the test that started it; `./scripts/test` stops it.
            command.process_group(0);
        }
        let child = command.spawn().expect("Synapse starts");
        self.child = Some(child);
        let answered = self.answers().await;
        if answered.is_err() {
            self.end().await;
        }
        answered
    }

    async fn answers(&mut self) -> Result<(), String> {
        let url = format!("{}/_matrix/key/v2/server", self.base_url);
        let ours = format!("ed25519:{}", self.key_version);
        let client = loopback_client();
        for _ in 0..1200 {
            if let Some(Ok(Some(status))) = self.child.as_mut().map(Child::try_wait) {
                return Err(format!("it exited ({status}): {}", self.log()));
            }
            if let Ok(answer) = client.get(&url).send().await
                && let Ok(keys) = answer.json::<serde_json::Value>().await
            {
                return match keys["verify_keys"].get(&ours) {
                    Some(_) => Ok(()),
                    None => Err(format!("port {} answers for another server", self.port)),
                };
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Err(format!("no answer within a minute: {}", self.log()))
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.folder.join("out.log")).unwrap_or_default()
    }

    /// Stops the server (SIGKILL); its database stays for `start`.
    pub async fn stop(&mut self) {
        self.refuse_if_shared("stopped");
        self.end().await;
    }

    pub(crate) async fn end(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill().await;
        }
    }

    fn refuse_if_shared(&self, what: &str) {
        assert!(
            self._own.is_some(),
            "the run's shared Synapse cannot be {what}: take start_private_synapse"
        );
    }

    /// The login name of this test's user `name`: `name` itself on a
    /// test's own server, `name` and the test's tag on the shared one.
    pub fn user(&self, name: &str) -> String {
        format!("{name}{}", self.tag)
    }

    /// Registers this test's user `name` (`user`) with `password` by the
    /// shared secret (the admin API `register_new_matrix_user` calls);
    /// answers the user id (`@name:localhost`, the tag after the name on
    /// the shared server).
    /// Its display name is `name` alone, so what a home shows of the user
    /// (a friend's Bot titled by its owner) reads the same on either.
    pub async fn register(&self, name: &str, password: &str) -> String {
        let (shown, name) = (name, &self.user(name));
        let url = format!("{}/_synapse/admin/v1/register", self.base_url);
        let client = loopback_client();
        let nonce: serde_json::Value = client
            .get(&url)
            .send()
            .await
            .expect("Synapse answers for a nonce")
            .json()
            .await
            .expect("the nonce is JSON");
        let nonce = nonce["nonce"].as_str().expect("a nonce");
        let body = serde_json::json!({
            "nonce": nonce,
            "username": name,
            "password": password,
            "displayname": shown,
            "admin": false,
            "mac": registration_mac(nonce, name, password),
        });
        let answer = client.post(&url).json(&body).send().await;
        let answer = answer.expect("Synapse answers the registration");
        let status = answer.status();
        assert!(
            status.is_success(),
            "Synapse did not register {name}: {status} {}",
            answer.text().await.unwrap_or_default()
        );
        format!("@{name}:{SERVER_NAME}")
    }
}

/// A fresh ed25519 signing key in Synapse's file form: the algorithm,
/// `version` and the 32-byte seed in unpadded base64.
fn signing_key(version: &str) -> String {
    use base64::Engine;
    let seed = base64::engine::general_purpose::STANDARD_NO_PAD.encode(random_bytes::<32>());
    format!("ed25519 {version} {seed}\n")
}

pub(crate) fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).expect("random bytes");
    bytes
}

/// Shared-secret registration's MAC: HMAC-SHA1 of the nonce, name,
/// password and "notadmin", NUL-separated, in hex.
fn registration_mac(nonce: &str, name: &str, password: &str) -> String {
    use hmac::{KeyInit, Mac};
    let mut mac = hmac::Hmac::<sha1::Sha1>::new_from_slice(SHARED_SECRET.as_bytes())
        .expect("HMAC takes a key of any length");
    for part in [nonce, name, password] {
        mac.update(part.as_bytes());
        mac.update(b"\0");
    }
    mac.update(b"notadmin");
    flybot_core::hex::lower_hex(&mac.finalize().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two tests' servers handed the same port: the later one sees the
    /// earlier one's key, not its own, and moves to another port, where
    /// a registration reaches it alone.
    #[tokio::test]
    async fn a_synapse_handed_a_taken_port_starts_on_another() {
        let Some(first) = start_private_synapse().await else {
            return;
        };
        let mut handed = vec![free_loopback_port(), first.port];
        let own = tempfile::tempdir().unwrap();
        let second = start_on(|| handed.pop().expect("a port to try"), "", Place::Own(own))
            .await
            .expect("Synapse is installed");
        assert_ne!(second.port, first.port, "the second server moved on");
        assert_eq!(first.register("alice", "pw-one").await, "@alice:localhost");
        assert_eq!(second.register("alice", "pw-two").await, "@alice:localhost");
    }
}

//! The A2A agent as the driver's supervised child: the official SDK
//! (`a2a-sdk`, pinned) in its venv, found and version-checked before
//! anything starts, serving the fixture agent (shipped in this binary,
//! written into the child's own folder) on a loopback port it binds
//! itself. It runs inside the sandbox (`flybot-sandbox`): it writes only
//! its folder and its workspace, and may listen on one ephemeral port but
//! connect nowhere. It is killed with its process group when this drops.

use flybot_sandbox::{ChildSandbox, Limits, Network, Policy};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// The pinned SDK version (`scripts/test` installs it).
pub const PINNED_SDK: &str = "1.3.0";
/// The agent, written against the SDK's `AgentExecutor`.
pub const AGENT_SOURCE: &str = include_str!("../../fixtures/a2a/agent.py");
/// How long the agent may take to say where it listens.
const START_LIMIT: Duration = Duration::from_secs(30);

/// A venv holding the pinned SDK.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Venv {
    pub folder: PathBuf,
    /// How it was found, for a person.
    pub found_by: &'static str,
    /// The SDK version it holds (the pinned one).
    pub sdk_version: String,
}

/// Why no pinned SDK could be used.
#[derive(Debug, thiserror::Error)]
pub enum NoVenv {
    #[error(
        "no A2A venv found (looked at $FLYBOT_A2A_VENV and .tools/a2a); scripts/test installs a2a-sdk=={PINNED_SDK} there"
    )]
    Missing,
    #[error(
        "{0} holds no Python venv (no bin/python); scripts/test installs a2a-sdk=={PINNED_SDK} into .tools/a2a"
    )]
    NotThere(String),
    #[error("the A2A venv at {folder} holds a2a-sdk {found}, not the pinned {PINNED_SDK}")]
    WrongVersion { folder: String, found: String },
}

/// The venv: `env` (`--a2a-venv` or `$FLYBOT_A2A_VENV`) when named, and
/// then only it; else `.tools/a2a` under each of `roots` and their
/// parents. Its SDK's version must be the pinned one.
pub async fn locate(env: Option<&Path>, roots: &[PathBuf]) -> Result<Venv, NoVenv> {
    let mut candidates: Vec<(PathBuf, &'static str)> = Vec::new();
    if let Some(folder) = env {
        // A venv named explicitly is the only one looked at.
        if !folder.join("bin").join("python").is_file() {
            return Err(NoVenv::NotThere(folder.display().to_string()));
        }
        candidates.push((folder.to_owned(), "the named venv"));
    }
    for root in roots {
        for folder in root.ancestors() {
            candidates.push((folder.join(".tools").join("a2a"), ".tools/a2a"));
        }
    }
    for (folder, found_by) in candidates {
        if !folder.join("bin").join("python").is_file() {
            continue;
        }
        let found = sdk_version(&folder).await.unwrap_or_default();
        if found != PINNED_SDK {
            return Err(NoVenv::WrongVersion {
                folder: folder.display().to_string(),
                found,
            });
        }
        return Ok(Venv {
            folder,
            found_by,
            sdk_version: found,
        });
    }
    Err(NoVenv::Missing)
}

/// The `a2a-sdk` version the venv's Python reports. The probe runs the
/// venv's own Python, so it is held like the agent: it writes nothing,
/// reads the system and its venv, and has no network.
async fn sdk_version(folder: &Path) -> std::io::Result<String> {
    let python = folder.join("bin").join("python");
    let mut command = Command::new(&python);
    command
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('a2a-sdk'))",
        ])
        .current_dir(folder)
        .env_clear()
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let policy = Policy::writing(&[])
        .reading(venv_roots(&python, folder)?)
        .limits(Limits::COMMAND)
        .network(Network::Off);
    let (child, _sandbox) = flybot_sandbox::spawn(command, &policy)?;
    let out = tokio::time::timeout(START_LIMIT, child.wait_with_output())
        .await
        .map_err(|_| std::io::Error::other("the A2A venv's Python did not answer"))??;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// What a child of the venv reads besides the system: its Python's
/// install and the venv itself.
fn venv_roots(python: &Path, folder: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut reading = flybot_sandbox::program_roots(&[python.display().to_string()], None);
    reading.push(folder.canonicalize()?);
    Ok(reading)
}

/// What the agent may touch: it writes only `root` (its own folder) and
/// `workspace`, reads its venv, and may listen on one ephemeral port but
/// connect nowhere (port 0 is never a peer).
pub fn agent_policy(venv: &Venv, root: &Path, workspace: &Path) -> std::io::Result<Policy> {
    let python = venv.folder.join("bin").join("python");
    Ok(Policy::writing(&[root, workspace])
        .reading(venv_roots(&python, &venv.folder)?)
        .limits(Limits::SERVER)
        .network(Network::Loopback {
            connect_port: 0,
            serve: true,
        }))
}

/// A running agent.
pub struct AgentProcess {
    _child: Child,
    /// Kills the group when the agent drops.
    sandbox: ChildSandbox,
    base: String,
}

impl AgentProcess {
    /// Starts the agent under `root` (its private folder) on `workspace`.
    pub async fn start(venv: &Venv, root: &Path, workspace: &Path) -> std::io::Result<Self> {
        flybot_store::private::private_dirs(root)?;
        let script = root.join("agent.py");
        std::fs::write(&script, AGENT_SOURCE)?;
        let python = venv.folder.join("bin").join("python");
        let mut command = Command::new(&python);
        command
            .arg(&script)
            .arg(workspace)
            .current_dir(root)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("LANG", "C.UTF-8")
            .env("HOME", root)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("PYTHONNOUSERSITE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let policy = agent_policy(venv, root, workspace)?;
        let (mut child, sandbox) = flybot_sandbox::spawn(command, &policy)?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| std::io::Error::other("no stdout"))?;
        let mut lines = BufReader::new(stdout).lines();
        let said = tokio::time::timeout(START_LIMIT, async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(base) = line.strip_prefix("A2A_LISTENING ") {
                    return Some(base.trim().to_owned());
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
        .ok_or_else(|| std::io::Error::other("the A2A agent never said where it listens"))?;
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let base = super::client::loopback_base(&said).map_err(std::io::Error::other)?;
        Ok(AgentProcess {
            _child: child,
            sandbox,
            base,
        })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// The mechanism that holds the agent, for a report.
    pub fn sandbox(&self) -> &str {
        self.sandbox.describe()
    }

    pub fn process_group(&self) -> Option<u32> {
        self.sandbox.group().id()
    }
}

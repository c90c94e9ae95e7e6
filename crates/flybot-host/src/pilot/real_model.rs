//! Level 3's model (#198, issue 18): a real model behind an OpenAI-compatible
//! endpoint on this machine, for Bot A (through the host's own provider) and
//! for OpenCode (through its generated configuration). Only a loopback
//! `http://` endpoint is accepted, so no key is sent and the cost is zero
//! by construction. The model id is what the server's `/models` lists; the
//! model file's SHA-256 is taken from the file the person names
//! (`--model-file`), since an OpenAI-compatible server does not say which
//! file it serves.

use flybot_agent::model::config::{ModelConfig, ModelsConfig, ProviderConfig, ProviderRegistry};
use flybot_agent::model::mock::MockModel;
use flybot_interop::opencode::client::is_loopback;
use flybot_interop::opencode::config::{ModelEndpoint, ModelLimit};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The name Bot A's model has in the pilot's host.
pub const PILOT_MODEL: &str = "pilot-model";
/// The context window both Bots assume (what `llama_cpp.server --n_ctx`
/// is started with in the tests and the README).
pub const CONTEXT_WINDOW: u32 = 8192;
/// Each answer's token cap, for Bot A and for OpenCode, so a run on a CPU
/// stays within minutes.
pub const MAX_OUTPUT_TOKENS: u32 = 96;
/// How long the endpoint's `/models` may take to answer.
const MODELS_LIMIT: Duration = Duration::from_secs(10);

/// The model a level-3 run uses, as found before anything starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RealModel {
    /// `http://127.0.0.1:PORT/v1`, as given.
    pub base_url: String,
    /// The first id the server's `/models` lists: the model both Bots ask for.
    pub model_id: String,
    /// Every id `/models` listed.
    pub served_ids: Vec<String>,
    /// The model file named by `--model-file` and its SHA-256, if named.
    pub file: Option<(PathBuf, String)>,
}

/// Refuses any endpoint that is not `http://` on loopback, before anything
/// starts: a remote endpoint could cost money and would need a key.
pub fn refuse_remote(url: &str) -> Result<(), String> {
    let endpoint = ModelEndpoint {
        base_url: url.trim_end_matches('/').to_owned(),
        model: String::new(),
        limit: None,
    };
    if !is_loopback(&endpoint.base_url) {
        return Err(format!(
            "--model-endpoint {url} is not an http:// address on this machine (127.0.0.1, localhost or [::1]); level 3 runs only on a local model so it costs nothing, and nothing was started"
        ));
    }
    endpoint.loopback_port().map(|_| ())
}

/// Checks the endpoint, asks it which model it serves, and digests the
/// model file when one is named.
pub async fn resolve(url: &str, model_file: Option<&Path>) -> Result<RealModel, String> {
    refuse_remote(url)?;
    let base_url = url.trim_end_matches('/').to_owned();
    let served_ids = served_ids(&base_url).await?;
    let model_id = served_ids.first().cloned().ok_or_else(|| {
        format!("{base_url}/models lists no model; start the server with a model loaded")
    })?;
    let file = match model_file {
        Some(path) => Some((path.to_owned(), file_sha256(path)?)),
        None => None,
    };
    Ok(RealModel {
        base_url,
        model_id,
        served_ids,
        file,
    })
}

/// The ids `GET {base}/models` lists.
async fn served_ids(base_url: &str) -> Result<Vec<String>, String> {
    let unreachable = |e: &dyn std::fmt::Display| {
        format!(
            "the model endpoint {base_url} did not answer GET /models ({e}); is the server running?"
        )
    };
    // The client Bot A's provider uses (it installs the TLS provider).
    let http = flybot_agent::model::openai::http_client().map_err(|e| unreachable(&e))?;
    let answer = http
        .get(format!("{base_url}/models"))
        .timeout(MODELS_LIMIT)
        .send()
        .await
        .map_err(|e| unreachable(&e))?;
    let listed: Value = answer.json().await.map_err(|e| unreachable(&e))?;
    Ok(listed["data"]
        .as_array()
        .map(|models| {
            models
                .iter()
                .filter_map(|m| m["id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default())
}

/// Lower-case SHA-256 hex of a file, read in pieces (a model is large).
pub fn file_sha256(path: &Path) -> Result<String, String> {
    let unreadable = |e: std::io::Error| format!("--model-file {}: {e}", path.display());
    let mut file = std::fs::File::open(path).map_err(unreadable)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let read = file.read(&mut buffer).map_err(unreadable)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(flybot_core::hex::lower_hex(&hasher.finalize()))
}

impl RealModel {
    /// Bot A's registry: the mock (unused) and `pilot-model` on the endpoint.
    pub fn registry(&self) -> Result<ProviderRegistry, String> {
        let mut config = ModelsConfig::default();
        config.providers.insert(
            "pilot".into(),
            ProviderConfig {
                base_url: self.base_url.clone(),
                api_key_env: None,
                api_key_secret: None,
            },
        );
        config.models.insert(
            PILOT_MODEL.into(),
            ModelConfig {
                provider: "pilot".into(),
                model: self.model_id.clone(),
                context_window: CONTEXT_WINDOW,
                thinking: Vec::new(),
                thinking_switch: false,
                max_output_tokens: Some(MAX_OUTPUT_TOKENS),
                image_input: false,
            },
        );
        ProviderRegistry::from_config(&config, MockModel::offline()).map_err(|e| e.0)
    }

    /// OpenCode's model: the same endpoint and id.
    pub fn endpoint(&self) -> ModelEndpoint {
        ModelEndpoint {
            base_url: self.base_url.clone(),
            model: self.model_id.clone(),
            limit: Some(ModelLimit {
                context: CONTEXT_WINDOW,
                output: MAX_OUTPUT_TOKENS,
            }),
        }
    }

    /// The report's `model` record: the id, the endpoint, the file and its
    /// digest (or why there is none), and the caps both Bots ran with.
    pub fn report(&self) -> Value {
        let (file, sha256, digest_source) = match &self.file {
            Some((path, digest)) => (
                json!(path),
                json!(digest),
                "--model-file, digested by flybot",
            ),
            None => (
                Value::Null,
                Value::Null,
                "unknown: no --model-file was given, and an OpenAI-compatible server does not say which file it serves",
            ),
        };
        json!({"id": self.model_id, "servedIds": self.served_ids, "endpoint": self.base_url,
            "file": file, "fileSha256": sha256, "digestSource": digest_source,
            "contextWindow": CONTEXT_WINDOW, "maxOutputTokens": MAX_OUTPUT_TOKENS,
            "cost": "zero by construction: a loopback endpoint, no key"})
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn level3_only_a_loopback_endpoint_is_accepted() {
        for local in [
            "http://127.0.0.1:8080/v1",
            "http://localhost:9/v1/",
            "http://[::1]:7/v1",
        ] {
            assert_eq!(refuse_remote(local), Ok(()), "{local}");
        }
        for remote in [
            "https://api.openai.com/v1",
            "http://10.0.0.1:8080/v1",
            "http://127.0.0.1.example.com/v1",
            "https://127.0.0.1:8080/v1",
            "ftp://127.0.0.1/v1",
        ] {
            let refused = refuse_remote(remote).unwrap_err();
            assert!(refused.contains("nothing was started"), "{refused}");
        }
    }

    #[test]
    fn level3_the_model_file_digest_is_the_files_sha256() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.gguf");
        std::fs::write(&path, b"abc").unwrap();
        assert_eq!(
            file_sha256(&path).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(file_sha256(&dir.path().join("none")).is_err());
    }
}

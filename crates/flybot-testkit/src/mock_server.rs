//! The mock model served over real HTTP on loopback, for tests of the
//! provider client, `test-model` and a real OpenCode. The server runs on its
//! own thread and runtime, so a test on a paused clock does not pause it.

use crate::Kit;
use flybot_agent::model::config::{ModelConfig, ModelsConfig, ProviderConfig, ProviderRegistry};
use flybot_agent::model::mock::{MockModel, Scenario};
use flybot_host::mock_model_app;
use std::sync::Arc;

/// A running `mock_model_app`; stops when dropped.
pub struct MockServer {
    pub base_url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl MockServer {
    /// Serves `scenario` (JSON; empty for the offline answer).
    pub fn start(scenario: &str) -> MockServer {
        let mock = if scenario.is_empty() {
            MockModel::offline()
        } else {
            MockModel::with_scenario(Scenario::from_json(scenario).unwrap())
        };
        let app = mock_model_app(Arc::new(mock));
        let (address_tx, address_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                address_tx.send(listener.local_addr().unwrap()).unwrap();
                axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.await;
                    })
                    .await
                    .unwrap();
            });
        });
        let address = address_rx.recv().unwrap();
        MockServer {
            base_url: format!("http://{address}/v1"),
            stop: Some(stop),
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A config with one provider at `base_url` and the model `remote` on it.
pub fn models_config(base_url: &str, api_key_env: Option<&str>) -> ModelsConfig {
    let mut config = ModelsConfig::default();
    config.providers.insert(
        "local".into(),
        ProviderConfig {
            base_url: base_url.into(),
            api_key_env: api_key_env.map(str::to_owned),
        },
    );
    config.models.insert(
        "remote".into(),
        ModelConfig {
            provider: "local".into(),
            model: "mock".into(),
            context_window: 32_000,
            thinking: vec!["low".into(), "high".into()],
            thinking_switch: false,
            max_output_tokens: Some(1024),
        },
    );
    config
}

/// A host whose registry is `config`, with the offline mock beside it.
pub async fn kit_on(config: &ModelsConfig) -> Kit {
    let models = ProviderRegistry::from_config(config, MockModel::offline()).unwrap();
    Kit::with_config(|host| host.models = Arc::new(models)).await
}

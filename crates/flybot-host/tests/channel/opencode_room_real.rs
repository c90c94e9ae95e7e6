//! The pilot's collaboration in a running host on the real pinned
//! `opencode serve` (#198, evidence level 2), driven by the mock model over
//! loopback: the steps of `opencode_room`, and a seat dropped mid-card
//! that picks up its one session.

use crate::opencode_room::{
    card, check_the_collaboration, follow_the_pilot, journal_text, set_up, walk_the_pilot,
};
use flybot_agent::model::config::{ModelConfig, ModelsConfig, ProviderConfig, ProviderRegistry};
use flybot_agent::model::mock::{MockModel, Scenario};
use flybot_host::rooms::opencode::launcher::OpenCodeRuntime;
use flybot_interop::opencode::locate::README_PATH;
use flybot_interop::pilot::script;
use flybot_testkit::Kit;
use flybot_testkit::mock_server::MockServer;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The pinned OpenCode the README's setup installed, if any.
pub(crate) fn installed_opencode() -> Option<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let binary = repo.join(README_PATH);
    binary.exists().then_some(binary)
}

/// A host with Bot A on the mock and the model `coder` on a loopback
/// provider serving Bot B's scenario, running the real OpenCode `binary`.
async fn real_host(binary: PathBuf) -> (Kit, MockServer) {
    real_host_on(binary, &flybot_host::pilot::real::opencode_scenario()).await
}

/// `real_host`, the model `coder` serving `coder_scenario`.
pub(crate) async fn real_host_on(binary: PathBuf, coder_scenario: &str) -> (Kit, MockServer) {
    let coder_mock = MockServer::start(coder_scenario);
    let mut models = ModelsConfig::default();
    models.providers.insert(
        "coder-mock".into(),
        ProviderConfig {
            base_url: coder_mock.base_url.clone(),
            api_key_env: None,
            api_key_secret: None,
        },
    );
    models.models.insert(
        "coder".into(),
        ModelConfig {
            provider: "coder-mock".into(),
            model: "mock".into(),
            context_window: 128_000,
            thinking: Vec::new(),
            thinking_switch: false,
            max_output_tokens: None,
            image_input: false,
        },
    );
    let kit = Kit::with_config(|config| {
        config.models = Arc::new(
            ProviderRegistry::from_config(
                &models,
                MockModel::with_scenario(Scenario::from_json(&script::bot_a_scenario()).unwrap()),
            )
            .unwrap(),
        );
        config.opencode = OpenCodeRuntime::Pinned(binary);
    })
    .await
    // A real OpenCode round on a busy machine: the old polls allowed 120 s.
    .patient(Duration::from_secs(120));
    (kit, coder_mock)
}

#[tokio::test(flavor = "multi_thread")]
async fn level2_a_running_host_walks_the_pilot_on_the_real_pinned_opencode() {
    let Some(binary) = installed_opencode() else {
        assert!(
            std::env::var_os("FLYBOT_REQUIRE_OPENCODE").is_none(),
            "FLYBOT_REQUIRE_OPENCODE is set and {README_PATH} is missing: run ./scripts/test"
        );
        eprintln!("skipped: the pinned OpenCode is not installed ({README_PATH})");
        return;
    };
    let (kit, _coder_mock) = real_host(binary).await;
    let p = set_up(&kit, "coder").await;
    let lines = follow_the_pilot(&kit, &p).await;
    check_the_collaboration(&kit, &p, &lines);
    assert_eq!(card(&kit, &p.task).await["status"], "result-ready");
    let seat = kit
        .host
        .externals()
        .opencode()
        .seat(&p.room.id, &p.coder, &p.task)
        .unwrap();
    assert_eq!(
        seat.egress_attempts(),
        Vec::<String>::new(),
        "the real OpenCode made no outbound call"
    );
    // The real server's messageID of each prompt is recorded with its submit.
    let ids = crate::opencode_room::submitted_message_ids(&kit, &p);
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(ids.iter().all(|id| id.starts_with("msg_")), "{ids:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn level2_a_restarted_seat_on_the_real_opencode_picks_up_its_session() {
    let Some(binary) = installed_opencode() else {
        assert!(
            std::env::var_os("FLYBOT_REQUIRE_OPENCODE").is_none(),
            "FLYBOT_REQUIRE_OPENCODE is set and {README_PATH} is missing: run ./scripts/test"
        );
        eprintln!("skipped: the pinned OpenCode is not installed ({README_PATH})");
        return;
    };
    let (kit, _coder_mock) = real_host(binary).await;
    let p = set_up(&kit, "coder").await;
    let lines = walk_the_pilot(&kit, &p, true).await;
    check_the_collaboration(&kit, &p, &lines);
    // One task, one runtime session: the second process took up the first
    // one's session from its own data folder, nothing created it again.
    let journal = journal_text(&kit, &p);
    let created = journal
        .lines()
        .filter(|l| l.contains("\"create-session\""))
        .count();
    assert_eq!(created, 1, "{journal}");
}

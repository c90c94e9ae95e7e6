//! Evidence level 3 (#198, issue 18): the pilot with Bot A and the real
//! pinned `opencode serve` both on a real model, llama.cpp's server with
//! SmolLM2-135M on loopback. A model this small rarely finishes the task,
//! so the test asserts the mechanics and the report's fields (the model and
//! its file's digest, the versions, the command, each turn's raw status as
//! the runtimes reported it, an outcome), never the model's words.

use flybot_host::pilot::real_model::{MAX_OUTPUT_TOKENS, resolve};
use flybot_host::pilot::{PilotConfig, PilotRuntime, run_pilot};
use flybot_interop::opencode::PINNED_VERSION;
use flybot_interop::opencode::locate::README_PATH;
use flybot_testkit::llama_server::{LLAMA_MODEL, start_llama};
use serde_json::{Value, json};

/// The end kinds a Bot B turn can report (`TurnEnd`).
const BOT_B_ENDS: [&str; 6] = [
    "text",
    "refused",
    "stopped",
    "failed",
    "blocked",
    "uncertain",
];

#[tokio::test(flavor = "multi_thread")]
async fn level3_the_pilot_runs_bot_a_and_the_real_opencode_on_a_real_local_model() {
    let Some(binary) = crate::opencode_room_real::installed_opencode() else {
        assert!(
            std::env::var_os("FLYBOT_REQUIRE_OPENCODE").is_none(),
            "FLYBOT_REQUIRE_OPENCODE is set and {README_PATH} is missing: run ./scripts/test"
        );
        return;
    };
    let Some(server) = start_llama().await else {
        return;
    };
    let model = resolve(&server.base_url, Some(&server.model_file))
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let command: Vec<String> = [
        "flybot",
        "pilot",
        "--runtime",
        "opencode",
        "--model-endpoint",
    ]
    .into_iter()
    .map(str::to_owned)
    .chain([server.base_url.clone()])
    .collect();
    let config = PilotConfig {
        runtime: PilotRuntime::OpenCode {
            binary,
            found_by: "the README's install folder".to_owned(),
        },
        home: home.path().to_owned(),
        command: command.clone(),
        real_model: Some(model),
    };
    let run = run_pilot(config).await.unwrap();
    let report = serde_json::to_value(&run.report).unwrap();
    run.host.begin_stop();

    // Its own level, apart from 1 and 2; level 4 stays a person's.
    assert_eq!(report["evidenceLevel"], "real-model-collaboration");
    assert_eq!(report["evidenceLevelNumber"], 3);
    let skipped = report["skippedBoundaries"].to_string();
    assert!(skipped.contains("human acceptance (level 4)"), "{skipped}");
    assert!(!skipped.contains("(level 3)"), "{skipped}");
    assert!(!skipped.contains("(level 2)"), "{skipped}");
    // The model: the id the server lists, and the digest of its file.
    let file_digest = flybot_interop::sha256_hex(&std::fs::read(&server.model_file).unwrap());
    let model = &report["model"];
    assert_eq!(model["id"], LLAMA_MODEL, "{model}");
    assert_eq!(model["endpoint"], json!(server.base_url), "{model}");
    assert_eq!(model["fileSha256"], json!(file_digest), "{model}");
    assert_eq!(model["file"], json!(server.model_file), "{model}");
    assert_eq!(model["maxOutputTokens"], MAX_OUTPUT_TOKENS, "{model}");
    // The versions and the exact command.
    let versions = &report["versions"];
    assert_eq!(
        versions["runtime"]["opencode"], PINNED_VERSION,
        "{versions}"
    );
    assert_eq!(versions["flybot"], env!("CARGO_PKG_VERSION"), "{versions}");
    assert!(
        versions["botA"].as_str().unwrap().contains(LLAMA_MODEL),
        "{versions}"
    );
    assert_eq!(report["command"], json!(command));
    assert_eq!(report["schemaDigest"]["pinned"], true);
    // Bot A took its turn on the real model; the card was started first.
    let raw = &report["rawStatus"];
    assert!(!raw["botATurns"].as_array().unwrap().is_empty(), "{raw}");
    let statuses: Vec<&Value> = raw["task"].as_array().unwrap().iter().take(3).collect();
    assert_eq!(
        statuses,
        [
            &json!({"task": "open"}),
            &json!({"task-accept": "claimed"}),
            &json!({"task-start": "working"})
        ]
    );
    // Bot B's turns, each with a raw end, and OpenCode's own record of its
    // session: assistant messages on the real model.
    let ends = raw["botBTurns"].as_array().unwrap();
    assert!(!ends.is_empty(), "{raw}");
    for end in ends {
        assert!(BOT_B_ENDS.contains(&end["end"].as_str().unwrap()), "{end}");
    }
    let reported = &raw["opencodeTurns"];
    assert_eq!(reported["session"], raw["opencodeSession"], "{reported}");
    assert!(reported["status"]["type"].is_string(), "{reported}");
    let on_model = reported["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant" && m["modelID"] == LLAMA_MODEL)
        .count();
    assert!(on_model >= 1, "{reported}");
    // The child reached nothing but its model; the outcome is named.
    assert_eq!(raw["network"]["egressAttempts"], json!([]), "{raw}");
    assert_eq!(raw["network"]["resolvedLoopback"], true, "{raw}");
    assert!(!report["outcome"].as_str().unwrap().is_empty());
    assert!(
        report["isolation"]["child"]
            .as_str()
            .unwrap()
            .starts_with("Landlock ABI "),
        "{}",
        report["isolation"]
    );
}

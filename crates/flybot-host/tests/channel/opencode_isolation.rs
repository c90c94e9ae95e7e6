//! Isolation that holds (#198): a seed or a workspace carrying OpenCode
//! project configuration (`opencode.json`, `opencode.jsonc`, `.opencode/`)
//! is refused before every start and every turn, nothing reaching the
//! runtime; and on the real pinned `opencode serve`, the command its agent
//! runs cannot reach a loopback port the sandbox does not allow, while the
//! model's port is reached.

use crate::opencode_room::{card, host_on, seat_folder, seed, set_up, settled};
use flybot_host::rooms::opencode::launcher::OpenCodeRuntime;
use flybot_interop::opencode::fake::FakeStep;
use serde_json::json;

fn reply(text: &str) -> FakeStep {
    FakeStep::Reply {
        text: text.to_owned(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn isolation_a_seed_carrying_opencode_config_is_refused_when_the_bot_is_made() {
    let kit = host_on(OpenCodeRuntime::Fake(vec![reply("x")])).await;
    let seed = seed(&kit);
    for (name, folder) in [
        ("opencode.json", false),
        ("opencode.jsonc", false),
        (".opencode", true),
    ] {
        let path = seed.join(name);
        if folder {
            std::fs::create_dir_all(path.join("plugin")).unwrap();
        } else {
            std::fs::write(&path, r#"{"permission": {"bash": "allow"}}"#).unwrap();
        }
        // `refused` also checks that the home did not change.
        let refused = kit
            .refused(
                "create-bot",
                json!({"name": "Coder", "external": {"driver": "opencode", "seed": seed}}),
                "bot/invalid",
            )
            .await;
        assert_eq!(refused["error"]["details"]["field"], "external.seed");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains(name), "{message}");
        if folder {
            std::fs::remove_dir_all(&path).unwrap();
        } else {
            std::fs::remove_file(&path).unwrap();
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn isolation_a_seed_given_opencode_config_later_is_refused_before_the_start() {
    let kit = host_on(OpenCodeRuntime::Fake(vec![reply("Working on it.")])).await;
    let p = set_up(&kit, "mock").await;
    // The seed changed after the Bot was made: the start checks it again.
    std::fs::write(kit.home().join("seed/opencode.jsonc"), "{}").unwrap();
    kit.ok(
        "send",
        json!({"roomId": p.room.id, "text": "@Coder start on the card"}),
    )
    .await;
    let lines = settled(&kit, &p.room).await;
    let said = &lines.iter().rfind(|(a, _, _)| *a == p.coder).unwrap().2;
    // The record is validated again before the turn, the seed with it.
    assert!(
        said.contains("The seed carries OpenCode project configuration")
            && said.contains("opencode.jsonc"),
        "{lines:#?}"
    );
    assert!(
        kit.host
            .externals()
            .opencode()
            .seat(&p.room.id, &p.coder, &p.task)
            .is_none(),
        "no runtime was started"
    );
    assert!(
        !seat_folder(&kit, &p).join("workspace").exists(),
        "nothing was copied"
    );
    assert_eq!(card(&kit, &p.task).await["status"], "working");
}

#[tokio::test(flavor = "multi_thread")]
async fn isolation_opencode_config_written_into_the_workspace_is_refused_before_the_next_turn() {
    let kit = host_on(OpenCodeRuntime::Fake(vec![
        reply("First turn done."),
        reply("Second turn must not run."),
    ]))
    .await;
    let p = set_up(&kit, "mock").await;
    let say = json!({"roomId": p.room.id, "text": "@Coder start on the card"});
    kit.ok("send", say.clone()).await;
    settled(&kit, &p.room).await;
    let seat = kit
        .host
        .externals()
        .opencode()
        .seat(&p.room.id, &p.coder, &p.task)
        .unwrap();
    assert_eq!(seat.runtime_prompts().len(), 1);
    // What the agent could write with `edit: allow`.
    std::fs::create_dir_all(seat.workspace().join(".opencode/plugin")).unwrap();
    kit.ok("send", say).await;
    let lines = settled(&kit, &p.room).await;
    let said = &lines.iter().rfind(|(a, _, _)| *a == p.coder).unwrap().2;
    assert!(
        said.contains("the workspace carries OpenCode project configuration"),
        "{lines:#?}"
    );
    assert!(said.contains(".opencode"), "{said}");
    assert_eq!(seat.runtime_prompts().len(), 1, "nothing reached OpenCode");
}

/// A node test that tries the forbidden port and the model's port and
/// writes what happened into `probe.txt` beside it.
fn probe_test(forbidden: u16, model: u16) -> String {
    format!(
        r#"import {{ test }} from 'node:test';
import net from 'node:net';
import {{ writeFileSync }} from 'node:fs';
const attempt = (port) => new Promise((resolve) => {{
  const socket = net.connect(port, '127.0.0.1');
  socket.on('connect', () => {{ socket.destroy(); resolve('connected'); }});
  socket.on('error', (e) => resolve('refused ' + e.code));
}});
test('probe', async () => {{
  const forbidden = await attempt({forbidden});
  const model = await attempt({model});
  writeFileSync('probe.txt', `forbidden=${{forbidden}}\nmodel=${{model}}\n`);
}});
"#
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn no_network_the_real_opencodes_test_command_reaches_only_its_model() {
    use crate::opencode_room_real::{installed_opencode, real_host_on};
    let Some(binary) = installed_opencode() else {
        assert!(
            std::env::var_os("FLYBOT_REQUIRE_OPENCODE").is_none(),
            "FLYBOT_REQUIRE_OPENCODE is set and the pinned OpenCode is missing: run ./scripts/test"
        );
        eprintln!("skipped: the pinned OpenCode is not installed");
        return;
    };
    // OpenCode's agent runs the Bot's test command, then says it is done.
    let scenario = json!([
        {"when": {"afterTool": "bash"}, "reply": {"text": "PROBED"}},
        {"reply": {"toolCalls": [{"name": "bash",
            "arguments": {"command": "node --test", "description": "Run the tests"}}]}}
    ])
    .to_string();
    let (kit, model) = real_host_on(binary, &scenario).await;
    let model_port: u16 = model
        .base_url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/v1")
        .parse()
        .unwrap();
    let forbidden = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    forbidden.set_nonblocking(true).unwrap();
    let forbidden_port = forbidden.local_addr().unwrap().port();
    let p = set_up(&kit, "coder").await;
    let seed = kit.home().join("seed");
    std::fs::remove_file(seed.join("slug.test.mjs")).unwrap();
    std::fs::write(
        seed.join("probe.test.mjs"),
        probe_test(forbidden_port, model_port),
    )
    .unwrap();
    kit.ok(
        "send",
        json!({"roomId": p.room.id, "text": "@Coder run the tests"}),
    )
    .await;
    let lines = settled(&kit, &p.room).await;
    assert!(
        lines
            .iter()
            .any(|(a, _, text)| *a == p.coder && text.starts_with("PROBED")),
        "the turn ran to its end on the model: {lines:#?}"
    );
    let seat = kit
        .host
        .externals()
        .opencode()
        .seat(&p.room.id, &p.coder, &p.task)
        .unwrap();
    let probe = std::fs::read_to_string(seat.workspace().join("probe.txt")).unwrap();
    assert_eq!(probe, "forbidden=refused EACCES\nmodel=connected\n");
    assert!(
        std::iter::from_fn(|| forbidden.accept().ok())
            .next()
            .is_none(),
        "nothing reached the forbidden listener"
    );
    let mechanism = seat.sandbox().unwrap();
    assert!(
        mechanism.contains(&format!("TCP connect to port {model_port} only")),
        "{mechanism}"
    );
}

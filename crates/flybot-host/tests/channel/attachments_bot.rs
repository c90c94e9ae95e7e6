//! A Bot attaches a file of its own workspace to its answer (`attach_file`,
//! issue 32): the answer's line carries the id, its owner downloads it like
//! an upload (an `.html` only as a download with nosniff), another member
//! gets nothing (#50), and a path that leaves the workspace or names no
//! regular file within the limit is refused with one sentence while
//! nothing is stored.

use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::mock::MockModel;
use flybot_testkit::mock_server::models_config;
use flybot_testkit::sse_server::{End, Reply, ScriptedProvider};
use flybot_testkit::{Kit, within};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// A host whose model `remote` is the loopback `server`, one file at most
/// `per_file` bytes.
async fn kit_on(server: &ScriptedProvider, per_file: u64) -> Kit {
    let config = models_config(&server.base_url, None);
    let models = ProviderRegistry::from_config(&config, MockModel::offline()).unwrap();
    Kit::with_config(move |host| {
        host.models = Arc::new(models);
        host.attachments.limits.per_file = per_file;
    })
    .await
}

/// Waits until `server` has received `count` requests.
async fn requests(server: &ScriptedProvider, count: usize) -> Vec<Value> {
    within("the model's requests", async {
        loop {
            let seen = server.requests();
            if seen.len() >= count {
                return seen;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
}

/// A reply that calls `attach_file` on `path`.
fn attach_call(path: &str) -> Reply {
    let arguments = json!({ "path": path }).to_string();
    let call = json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function",
         "function": {"name": "attach_file", "arguments": arguments}}]},
        "finish_reason": "tool_calls"}]});
    Reply::stream(&[&call.to_string(), "[DONE]"], End::Close)
}

/// The answer the model was given for its last tool call.
fn tool_answer(request: &Value) -> String {
    let messages = request["messages"].as_array().unwrap();
    let answer = messages.iter().rev().find(|m| m["role"] == "tool");
    let answer = answer.unwrap_or_else(|| panic!("no tool answer in {request}"));
    answer["content"].as_str().unwrap_or_default().to_owned()
}

fn workspace(kit: &Kit, bot_id: &str) -> PathBuf {
    flybot_store::workspaces::bot_workspace(kit.home(), bot_id).unwrap()
}

fn png() -> Vec<u8> {
    let image = image::RgbImage::from_fn(40, 20, |x, _| image::Rgb([(x * 6) as u8, 10, 200]));
    let mut out = std::io::Cursor::new(Vec::new());
    image.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// The answers of the chat that carry attachments, once `turns` turns
/// are over.
async fn attached_answers(
    caller: &flybot_testkit::Caller<'_>,
    bot_id: &str,
    turns: usize,
) -> Vec<Value> {
    within("the answer with its files", async {
        loop {
            let chat = caller.ok("messages", json!({"botId": bot_id})).await;
            let lines = chat["messages"].as_array().unwrap().clone();
            let ended = lines.iter().filter(|l| l["kind"] == "turn-end").count();
            if ended >= turns {
                return lines
                    .into_iter()
                    .filter(|l| l["kind"] == "assistant" && l.get("attachments").is_some())
                    .collect();
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
}

#[tokio::test]
/// Rule #50.
async fn a_bot_attaches_a_workspace_picture_to_its_answer_and_only_its_owner_may_fetch_it() {
    let server = ScriptedProvider::start(Vec::new());
    let kit = kit_on(&server, 1024 * 1024).await;
    let ada = kit.owner("Ada").await;
    let bob = kit.as_member(&ada).invite("Bob").await;
    let (ada, bob) = (kit.as_member(&ada), kit.as_member(&bob));
    let bot = ada
        .bot_from(json!({"name": "Plotter", "model": "remote"}))
        .await;
    let folder = workspace(&kit, &bot.id);
    std::fs::create_dir_all(folder.join("out")).unwrap();
    std::fs::write(folder.join("out/chart.png"), png()).unwrap();
    server.push(attach_call("out/chart.png"));
    server.push(Reply::text("Here is the chart."));
    ada.ok("send", json!({"botId": bot.id, "text": "draw it"}))
        .await;
    let seen = requests(&server, 2).await;
    let told = tool_answer(&seen[1]);
    assert!(told.starts_with("Attached chart.png (image/png"), "{told}");
    let answers = attached_answers(&ada, &bot.id, 1).await;
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0]["text"], "Here is the chart.");
    let id = answers[0]["attachments"][0].as_str().unwrap().to_owned();
    let (status, headers, bytes) = ada.get_raw(&format!("/api/bot/attachment/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(bytes, png());
    assert_eq!(headers["content-type"], "image/png");
    let (status, headers, _) = ada
        .get_raw(&format!("/api/bot/attachment/{id}/thumbnail"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "image/png");
    // Another member of the team gets nothing of it.
    let (status, _, bytes) = bob.get_raw(&format!("/api/bot/attachment/{id}")).await;
    assert_eq!(status, 404);
    assert!(!bytes.windows(4).any(|w| w == b"\x89PNG"));
    let shown = bob.post("attachment-info", json!({"ids": [id]})).await;
    assert_eq!(shown.0, 404, "{}", shown.1);
}

#[tokio::test]
async fn a_bots_attached_html_is_served_only_as_a_download_with_nosniff() {
    let server = ScriptedProvider::start(Vec::new());
    let kit = kit_on(&server, 1024 * 1024).await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let bot = ada
        .bot_from(json!({"name": "Builder", "model": "remote"}))
        .await;
    let html = b"<!doctype html><html><script>fetch('/api/bot/state')</script></html>";
    std::fs::write(workspace(&kit, &bot.id).join("page.html"), html).unwrap();
    server.push(attach_call("page.html"));
    server.push(Reply::text("The page is attached."));
    ada.ok("send", json!({"botId": bot.id, "text": "build the page"}))
        .await;
    requests(&server, 2).await;
    let answers = attached_answers(&ada, &bot.id, 1).await;
    let id = answers[0]["attachments"][0].as_str().unwrap().to_owned();
    let (status, headers, bytes) = ada.get_raw(&format!("/api/bot/attachment/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(bytes, html);
    assert_eq!(headers["content-type"], "text/plain; charset=utf-8");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    let disposition = headers["content-disposition"].to_str().unwrap();
    assert!(disposition.starts_with("attachment;"), "{disposition}");
}

/// Every regular file under `dir`.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .flat_map(|e| {
            let path = e.path();
            if path.is_dir() {
                files_under(&path)
            } else {
                vec![path]
            }
        })
        .collect()
}

#[tokio::test]
async fn attach_file_refuses_a_path_out_of_the_workspace_or_to_no_regular_file_and_stores_nothing()
{
    let server = ScriptedProvider::start(Vec::new());
    let kit = kit_on(&server, 1024).await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let bot = ada
        .bot_from(json!({"name": "Sneak", "model": "remote"}))
        .await;
    let folder = workspace(&kit, &bot.id);
    let outside = kit.home().join("secret.txt");
    std::fs::write(&outside, b"the owner's token").unwrap();
    std::os::unix::fs::symlink(&outside, folder.join("link.txt")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", folder.join("zero")).unwrap();
    std::fs::create_dir(folder.join("folder")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(folder.join("pipe"))
        .status()
        .unwrap();
    assert!(fifo.success());
    std::fs::write(folder.join("big.bin"), vec![7u8; 2048]).unwrap();
    let absolute = outside.display().to_string();
    let cases = [
        ("../secret.txt", "climbs out with `..`"),
        ("notes/../../secret.txt", "climbs out with `..`"),
        (absolute.as_str(), "is an absolute path"),
        ("link.txt", "leads outside your workspace folder"),
        ("zero", "leads outside your workspace folder"),
        ("folder", "is not a regular file"),
        ("pipe", "is not a regular file"),
        ("big.bin", "is 2 KiB and the limit per file is 1 KiB"),
    ];
    for (turn, (path, expected)) in cases.into_iter().enumerate() {
        server.push(attach_call(path));
        server.push(Reply::text("Done."));
        ada.ok("send", json!({"botId": bot.id, "text": "attach it"}))
            .await;
        let seen = requests(&server, 2 * (turn + 1)).await;
        let told = tool_answer(&seen[2 * turn + 1]);
        assert!(told.contains(expected), "{path}: {told}");
        assert!(!told.contains("owner's token"), "{told}");
        attached_answers(&ada, &bot.id, turn + 1).await;
    }
    let stored = kit.host.store().read(|state| state.attachments.len());
    assert_eq!(stored, 0);
    assert!(files_under(&kit.home().join("attachments")).is_empty());
    let answers = attached_answers(&ada, &bot.id, cases.len()).await;
    assert!(answers.is_empty(), "{answers:?}");
}

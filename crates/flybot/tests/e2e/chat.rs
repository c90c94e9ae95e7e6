//! A person's line to a Bot over HTTP, answered by the offline mock model.

use crate::support::{live, read_until_all, serve};
use serde_json::json;
use std::time::{Duration, Instant};

#[test]
fn a_line_sent_with_curl_is_answered_by_the_mock_and_read_back() {
    let home = tempfile::tempdir().unwrap();
    let host = serve(home.path());
    let (_, view) = host.state();
    assert_eq!(
        view["model"]["offline"], true,
        "a fresh home runs on the mock: {}",
        view["model"]
    );
    let chief = view["bots"][0]["id"].as_str().unwrap().to_owned();
    let session = view["bots"][0]["sessionId"].as_str().unwrap().to_owned();
    let mut stream = live(&host);
    let (status, sent) = host.post(
        "send",
        &json!({"botId": chief, "text": "Hello, who are you?"}).to_string(),
        None,
    );
    assert_eq!(status, 200, "{sent}");

    // The settle window (#642) holds the line briefly; poll the transcript.
    let deadline = Instant::now() + Duration::from_secs(30);
    let answer = loop {
        let (_, read) = host.post("messages", &json!({"botId": chief}).to_string(), None);
        let lines = read["messages"].as_array().unwrap().clone();
        if let Some(line) = lines.iter().find(|l| l["kind"] == "assistant") {
            assert_eq!(lines[0]["kind"], "user");
            assert_eq!(lines[0]["text"], "Hello, who are you?");
            break line["text"].as_str().unwrap().to_owned();
        }
        assert!(Instant::now() < deadline, "no answer: {read}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        answer.contains("mock"),
        "the offline answer says it is the mock: {answer}"
    );
    // The live stream told a watching client that this chat's work moved.
    read_until_all(
        &mut stream,
        &["event: work", &format!("\"sessionId\":\"{session}\"")],
    );
    host.terminate();
}

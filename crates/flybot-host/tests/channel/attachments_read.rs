//! Attachments read as text (issue 32): a PDF attached to a line reaches
//! the model as its text (Debian's `pdftotext`, in the sandbox) inside the
//! same `untrusted-file` fence as a text file, against a loopback
//! OpenAI-compatible server; and a Bot reads an attachment of its own
//! conversation by id with the `read_attachment` tool, and nothing else.

use base64::Engine;
use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::mock::MockModel;
use flybot_testkit::mock_server::models_config;
use flybot_testkit::sse_server::{End, Reply, ScriptedProvider};
use flybot_testkit::{Kit, within};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A one-page PDF, written by hand, whose page says `words` in Helvetica.
pub fn pdf_saying(words: &str) -> Vec<u8> {
    let stream = format!("BT /F1 24 Tf 72 700 Td ({words}) Tj ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R \
         /Resources << /Font << /F1 5 0 R >> >> >>"
            .to_owned(),
        format!(
            "<< /Length {} >>\nstream\n{stream}\nendstream",
            stream.len()
        ),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_owned(),
    ];
    let mut out = String::from("%PDF-1.4\n");
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.push_str(&format!("{} 0 obj\n{object}\nendobj\n", i + 1));
    }
    let xref = out.len();
    out.push_str(&format!(
        "xref\n0 {}\n0000000000 65535 f \n",
        objects.len() + 1
    ));
    for offset in offsets {
        out.push_str(&format!("{offset:010} 00000 n \n"));
    }
    out.push_str(&format!(
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    ));
    out.into_bytes()
}

/// A host whose model `remote` is the loopback `server`.
async fn kit_on(server: &ScriptedProvider) -> Kit {
    let config = models_config(&server.base_url, None);
    let models = ProviderRegistry::from_config(&config, MockModel::offline()).unwrap();
    Kit::with_config(move |host| host.models = Arc::new(models)).await
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

fn last_user_text(request: &Value) -> String {
    let messages = request["messages"].as_array().unwrap();
    let last = messages.iter().rev().find(|m| m["role"] == "user").unwrap();
    last["content"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
/// Rule #98.
async fn a_pdf_on_a_line_reaches_the_model_as_its_text_inside_the_file_fence() {
    let pdf = pdf_saying("QUARTERLY LEDGER 7781");
    let extracted = std::process::Command::new("pdftotext").arg("-v").output();
    assert!(
        extracted.is_ok(),
        "poppler-utils (pdftotext) is installed by scripts/test"
    );
    let server = ScriptedProvider::start(vec![Reply::text("Read it.")]);
    let kit = kit_on(&server).await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let bot = ada
        .bot_from(json!({"name": "Clerk", "model": "remote"}))
        .await;
    let sent = ada
        .ok(
            "attachment-upload",
            json!({"name": "ledger.pdf", "data": b64(&pdf)}),
        )
        .await;
    assert_eq!(sent["kind"], "pdf");
    let body = json!({"botId": bot.id, "text": "summarise", "attachments": [sent["id"]]});
    ada.ok("send", body).await;
    let seen = requests(&server, 1).await;
    let text = last_user_text(&seen[0]);
    let fence = "<untrusted-file name=\"ledger.pdf\">\n";
    let start = text.find(fence).unwrap_or_else(|| panic!("{text}"));
    let end = text
        .find("</untrusted-file>")
        .unwrap_or_else(|| panic!("{text}"));
    assert!(text[start..end].contains("QUARTERLY LEDGER 7781"), "{text}");
    assert!(!text.contains("not readable as text here"), "{text}");
}

#[tokio::test]
async fn a_pdf_pdftotext_cannot_read_is_named_but_not_read_and_the_line_still_goes() {
    let server = ScriptedProvider::start(vec![Reply::text("Hmm.")]);
    let kit = kit_on(&server).await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let bot = ada
        .bot_from(json!({"name": "Clerk", "model": "remote"}))
        .await;
    let broken = b"%PDF-1.4\nthis is no PDF body at all\n".to_vec();
    let sent = ada
        .ok(
            "attachment-upload",
            json!({"name": "broken.pdf", "data": b64(&broken)}),
        )
        .await;
    assert_eq!(sent["kind"], "pdf");
    let body = json!({"botId": bot.id, "text": "and this?", "attachments": [sent["id"]]});
    ada.ok("send", body).await;
    let seen = requests(&server, 1).await;
    let text = last_user_text(&seen[0]);
    assert!(
        text.contains("[file: broken.pdf (application/pdf), not readable as text here]"),
        "{text}"
    );
    assert!(!text.contains("<untrusted-file"), "{text}");
}

/// A reply that calls `read_attachment` on `id`.
fn read_attachment_call(id: &str) -> Reply {
    let arguments = json!({ "id": id }).to_string();
    let call = json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function",
         "function": {"name": "read_attachment", "arguments": arguments}}]},
        "finish_reason": "tool_calls"}]});
    Reply::stream(&[&call.to_string(), "[DONE]"], End::Close)
}

/// The answer the model was given for its `read_attachment` call.
fn tool_answer(request: &Value) -> String {
    let messages = request["messages"].as_array().unwrap();
    let answer = messages.iter().rev().find(|m| m["role"] == "tool");
    let answer = answer.unwrap_or_else(|| panic!("no tool answer in {request}"));
    answer["content"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn a_bot_reads_a_file_of_its_own_conversation_with_read_attachment() {
    let server = ScriptedProvider::start(Vec::new());
    let kit = kit_on(&server).await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let bot = ada
        .bot_from(json!({"name": "Clerk", "model": "remote"}))
        .await;
    let notes = "The code word is PELICAN.\n";
    let sent = ada
        .ok(
            "attachment-upload",
            json!({"name": "notes.txt", "data": b64(notes.as_bytes())}),
        )
        .await;
    let id = sent["id"].as_str().unwrap();
    server.push(read_attachment_call(id));
    server.push(Reply::text("It says PELICAN."));
    let body = json!({"botId": bot.id, "text": "what does it say?", "attachments": [id]});
    ada.ok("send", body).await;
    let seen = requests(&server, 2).await;
    let answer = tool_answer(&seen[1]);
    assert!(
        answer.starts_with("<untrusted-file name=\"notes.txt\">\nThe code word is PELICAN."),
        "{answer}"
    );
}

#[tokio::test]
async fn read_attachment_refuses_another_members_file_exactly_like_an_unknown_id() {
    let server = ScriptedProvider::start(Vec::new());
    let kit = kit_on(&server).await;
    let ada = kit.owner("Ada").await;
    let bob = kit.as_member(&ada).invite("Bob").await;
    let (ada, bob) = (kit.as_member(&ada), kit.as_member(&bob));
    // Bob shares a file with his own Bot (the offline mock answers him).
    let his = bob.bot("Bob's").await;
    let secret = bob
        .ok(
            "attachment-upload",
            json!({"name": "salary.txt", "data": b64(b"Bob earns 123456.")}),
        )
        .await;
    let secret = secret["id"].as_str().unwrap();
    let body = json!({"botId": his.id, "text": "keep this", "attachments": [secret]});
    bob.ok("send", body).await;
    // Ada's Bot asks for Bob's file, then for an id never made.
    let bot = ada
        .bot_from(json!({"name": "Clerk", "model": "remote"}))
        .await;
    server.push(read_attachment_call(secret));
    server.push(Reply::text("Nothing there."));
    server.push(read_attachment_call("att-never-made"));
    server.push(Reply::text("Nothing there either."));
    ada.ok("send", json!({"botId": bot.id, "text": "read Bob's file"}))
        .await;
    let seen = requests(&server, 2).await;
    let stolen = tool_answer(&seen[1]);
    // The first turn ends before the next line: a line sent while it runs
    // would be a busy send, whose acknowledgment asks the model first.
    kit.idle(&bot.session).await;
    ada.ok("send", json!({"botId": bot.id, "text": "and this one"}))
        .await;
    let seen = requests(&server, 4).await;
    let unknown = tool_answer(&seen[3]);
    assert!(!stolen.contains("123456"), "{stolen}");
    assert!(!stolen.contains("salary"), "{stolen}");
    assert!(
        stolen.contains("There is no such attachment in this conversation"),
        "{stolen}"
    );
    assert_eq!(stolen, unknown);
}

#[tokio::test]
/// Rule #50.
async fn a_bot_reads_a_file_of_its_room_line_with_read_attachment_from_its_seat() {
    let server = ScriptedProvider::start(Vec::new());
    let kit = kit_on(&server).await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let bot = ada
        .bot_from(json!({"name": "Clerk", "model": "remote"}))
        .await;
    let room = ada.room("Desk", &[&bot]).await;
    let sent = ada
        .ok(
            "attachment-upload",
            json!({"name": "plan.md", "data": b64(b"Ship on FRIDAY.\n")}),
        )
        .await;
    let id = sent["id"].as_str().unwrap();
    server.push(read_attachment_call(id));
    server.push(Reply::text("Friday."));
    let body = json!({"roomId": room.id, "text": "@Clerk when do we ship?", "attachments": [id]});
    ada.ok("send", body).await;
    let seen = requests(&server, 2).await;
    let answer = tool_answer(&seen[1]);
    assert!(
        answer.starts_with("<untrusted-file name=\"plan.md\">\nShip on FRIDAY."),
        "{answer}"
    );
}

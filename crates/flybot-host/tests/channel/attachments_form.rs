//! `attachment-upload` as `multipart/form-data` (issue 32): the form's one
//! `file` is stored exactly like the JSON upload (sniffed, once), and a
//! form with no file, two files or another field is refused with one
//! sentence while nothing changes; a body past the limit is refused as it
//! streams in, never read whole.

use axum::body::{Body, Bytes, to_bytes};
use axum::http::Request;
use flybot_testkit::{Caller, Kit};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tower::ServiceExt;

const BOUNDARY: &str = "flybot-test-boundary-7f3a";

/// A multipart body of `parts`: (field, file name, bytes).
fn form(parts: &[(&str, Option<&str>, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (field, file, bytes) in parts {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        let disposition = match file {
            Some(file) => format!("form-data; name=\"{field}\"; filename=\"{file}\""),
            None => format!("form-data; name=\"{field}\""),
        };
        body.extend_from_slice(format!("Content-Disposition: {disposition}\r\n").as_bytes());
        body.extend_from_slice(b"Content-Type: application/octet-stream\r\n\r\n");
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// POSTs `body` as a form to `attachment-upload` with the caller's bearer
/// token; answers (status, body).
async fn post_form(caller: &Caller<'_>, body: Body) -> (u16, Value) {
    let bearer = format!("Bearer {}", caller.token().unwrap());
    post_form_with(caller, body, &[("authorization", &bearer)]).await
}

/// POSTs `body` as a form with `headers` (a page's, a cookie's).
async fn post_form_with(caller: &Caller<'_>, body: Body, headers: &[(&str, &str)]) -> (u16, Value) {
    let mut request = Request::post("/api/bot/attachment-upload").header(
        "content-type",
        format!("multipart/form-data; boundary={BOUNDARY}"),
    );
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request.body(body).unwrap();
    let response = caller.kit().router().oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
    (status, serde_json::from_slice(&bytes).unwrap())
}

fn png() -> Vec<u8> {
    let image = image::RgbImage::from_fn(30, 30, |x, y| image::Rgb([x as u8 * 8, y as u8 * 8, 90]));
    let mut out = std::io::Cursor::new(Vec::new());
    image.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

#[tokio::test]
async fn a_multipart_upload_is_stored_like_the_json_one_sniffed_and_once() {
    let kit = Kit::new().await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let picture = png();
    let body = form(&[("file", Some("screen.txt"), &picture)]);
    let (status, sent) = post_form(&ada, Body::from(body)).await;
    assert_eq!(status, 200, "{sent}");
    assert_eq!(sent["name"], "screen.txt");
    assert_eq!(
        sent["kind"], "image",
        "sniffed from the bytes, not the name"
    );
    assert_eq!(sent["size"], picture.len());
    let id = sent["id"].as_str().unwrap();
    let (status, _, bytes) = ada.get_raw(&format!("/api/bot/attachment/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(bytes, picture);
    let data = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &picture);
    ada.ok(
        "attachment-upload",
        serde_json::json!({"name": "again.png", "data": data}),
    )
    .await;
    let objects = walk(&kit.home().join("attachments/v1/objects"));
    assert_eq!(objects, 1, "the same bytes are one object");
}

fn walk(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .flatten()
            .map(|e| {
                if e.path().is_dir() {
                    walk(&e.path())
                } else {
                    1
                }
            })
            .sum()
    })
}

#[tokio::test]
async fn a_form_with_no_file_two_files_or_another_field_is_refused_and_nothing_changes() {
    let kit = Kit::new().await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let cases: [(Vec<u8>, &str); 4] = [
        (form(&[]), "The form has no file"),
        (
            form(&[
                ("file", Some("a.txt"), b"one"),
                ("file", Some("b.txt"), b"two"),
            ]),
            "The form carries two files",
        ),
        (
            form(&[("note", None, b"hi"), ("file", Some("a.txt"), b"one")]),
            "The form has a field note this upload does not take",
        ),
        (
            b"--not-a-form".to_vec(),
            "could not be read as multipart/form-data",
        ),
    ];
    for (body, expected) in cases {
        kit.host.store().snapshot_now().await.unwrap();
        let before = kit.fingerprint().await;
        let (status, answer) = post_form(&ada, Body::from(body)).await;
        assert_eq!(status, 400, "{answer}");
        assert_eq!(answer["error"]["code"], "bot/invalid");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(expected), "{message}");
        assert!(
            before == kit.fingerprint().await,
            "{expected}: the home changed"
        );
    }
    assert!(!kit.home().join("attachments").exists());
}

#[tokio::test]
async fn an_oversize_form_is_refused_as_it_streams_in_and_never_read_whole() {
    let kit = Kit::with_config(|host| host.attachments.limits.per_file = 1024).await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    // 64 MiB offered in 64 KiB chunks, each counted as the host pulls it.
    let pulled = Arc::new(AtomicUsize::new(0));
    let head = Bytes::from(format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n\r\n"
    ));
    let counter = pulled.clone();
    let chunks = (0..1024).map(move |_| {
        counter.fetch_add(64 * 1024, Ordering::SeqCst);
        Ok::<_, std::io::Error>(Bytes::from(vec![b'x'; 64 * 1024]))
    });
    let stream = futures_util::stream::iter(std::iter::once(Ok(head)).chain(chunks));
    let (status, answer) = post_form(&ada, Body::from_stream(stream)).await;
    assert_eq!(status, 413, "{answer}");
    assert_eq!(answer["error"]["code"], "bot/too-large");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("1 KiB"), "{message}");
    let read = pulled.load(Ordering::SeqCst);
    assert!(read <= 256 * 1024, "the host pulled {read} bytes of 64 MiB");
    // A file past the limit inside a body the edge lets through.
    let body = form(&[("file", Some("two.bin"), &[b'y'; 2048])]);
    let (status, answer) = post_form(&ada, Body::from(body)).await;
    assert_eq!(status, 413, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("the limit per file, 1 KiB"), "{message}");
    assert!(!kit.home().join("attachments").exists());
}

#[tokio::test]
async fn a_form_another_sites_page_posts_with_the_sign_in_cookie_is_refused_and_nothing_is_stored()
{
    let kit = Kit::new().await;
    let ada = kit.owner("Ada").await;
    let ada = kit.as_member(&ada);
    let cookie = format!("flybot_session={}", ada.token().unwrap());
    let attacks: [&[(&str, &str)]; 2] = [
        // A form a page of another site submits: no preflight, the cookie rides along.
        &[
            ("cookie", &cookie),
            ("origin", "http://evil.example"),
            ("sec-fetch-site", "cross-site"),
        ],
        // The cookie without the page's CSRF token.
        &[("cookie", &cookie)],
    ];
    for headers in attacks {
        let body = form(&[("file", Some("a.txt"), b"planted")]);
        let (status, answer) = post_form_with(&ada, Body::from(body), headers).await;
        assert_eq!(status, 403, "{answer}");
        assert_eq!(answer["error"]["code"], "bot/forbidden");
    }
    assert_eq!(kit.host.store().read(|s| s.attachments.len()), 0);
    assert!(!kit.home().join("attachments").exists());
}

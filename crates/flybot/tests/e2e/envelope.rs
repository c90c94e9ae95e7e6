//! `flybot envelope check|digest FILE` on the real binary: the vector
//! file's envelopes get their digests, refusals exit non-zero with their
//! code and one sentence (issue 6).

use crate::support::flybot;
use serde_json::Value;
use std::path::Path;

fn vectors() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../flybot-interop/tests/vectors/envelopes.json"
    );
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn run(args: &[&str], file: &Path) -> std::process::Output {
    flybot()
        .arg("envelope")
        .args(args)
        .arg(file)
        .output()
        .unwrap()
}

#[test]
fn envelope_check_and_digest_print_the_vector_digests() {
    let dir = tempfile::tempdir().unwrap();
    let v = vectors();
    for case in v["valid"].as_array().unwrap() {
        let file = dir.path().join("envelope.json");
        std::fs::write(&file, serde_json::to_vec_pretty(&case["envelope"]).unwrap()).unwrap();
        let sha = case["sha256"].as_str().unwrap();
        let check = run(&["check"], &file);
        assert!(check.status.success(), "{}", case["name"]);
        let stdout = String::from_utf8(check.stdout).unwrap();
        assert!(stdout.contains(sha), "{stdout}");
        let digest = run(&["digest"], &file);
        assert!(digest.status.success());
        assert_eq!(String::from_utf8(digest.stdout).unwrap().trim(), sha);
        let canonical = run(&["digest", "--canonical"], &file);
        assert_eq!(
            String::from_utf8(canonical.stdout)
                .unwrap()
                .trim_end_matches('\n'),
            case["canonical"].as_str().unwrap()
        );
    }
}

#[test]
fn envelope_digest_any_json_follows_rfc_8785() {
    let dir = tempfile::tempdir().unwrap();
    let v = vectors();
    for case in v["canonical"].as_array().unwrap() {
        let file = dir.path().join("value.json");
        std::fs::write(&file, case["input"].as_str().unwrap()).unwrap();
        let out = run(&["digest", "--any-json"], &file);
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8(out.stdout).unwrap().trim(),
            case["sha256"].as_str().unwrap(),
            "{}",
            case["name"]
        );
    }
}

#[test]
fn envelope_check_refuses_with_the_code_and_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.json");
    let mut envelope = vectors()["valid"][0]["envelope"].clone();
    envelope["approvedBy"] = "owner".into();
    std::fs::write(&file, serde_json::to_vec(&envelope).unwrap()).unwrap();
    for args in [&["check"][..], &["digest"][..]] {
        let out = run(args, &file);
        assert!(!out.status.success());
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8(out.stderr).unwrap();
        let line = stderr.trim();
        assert_eq!(line.lines().count(), 1, "{line}");
        assert!(line.contains("envelope/unknown-field"), "{line}");
        assert!(line.contains("\"approvedBy\""), "{line}");
    }
    // Too large is refused from the first 32 KiB + 1 bytes alone.
    std::fs::write(&file, vec![b' '; 40 * 1024]).unwrap();
    let out = run(&["check"], &file);
    assert!(!out.status.success());
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("envelope/too-large")
    );
}

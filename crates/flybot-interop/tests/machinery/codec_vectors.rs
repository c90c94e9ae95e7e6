//! The vector file is the codec's specification by example: every entry
//! is checked here, so a change of canonical form or refusal code is a
//! visible diff of that file.

use flybot_interop::envelope::{RefusalCode, check_bytes};
use flybot_interop::{canonical_json_bytes, sha256_hex};
use serde_json::Value;

fn vectors() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/envelopes.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn list<'a>(v: &'a Value, name: &str) -> &'a Vec<Value> {
    v[name].as_array().unwrap()
}

#[test]
fn canonical_vectors_match_rfc_8785_bytes_and_digests() {
    let v = vectors();
    assert!(list(&v, "canonical").len() >= 6);
    for case in list(&v, "canonical") {
        let name = case["name"].as_str().unwrap();
        let input = case["input"].as_str().unwrap();
        let expected = case["canonical"].as_str().unwrap();
        let got = canonical_json_bytes(input.as_bytes()).unwrap();
        assert_eq!(String::from_utf8(got.clone()).unwrap(), expected, "{name}");
        assert_eq!(sha256_hex(&got), case["sha256"].as_str().unwrap(), "{name}");
    }
}

#[test]
fn valid_vectors_check_with_their_canonical_bytes_and_digest() {
    let v = vectors();
    for case in list(&v, "valid") {
        let name = case["name"].as_str().unwrap();
        let bytes = serde_json::to_vec_pretty(&case["envelope"]).unwrap();
        let checked = check_bytes(&bytes).unwrap_or_else(|r| panic!("{name}: {r}"));
        assert_eq!(
            String::from_utf8(checked.canonical.clone()).unwrap(),
            case["canonical"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(checked.digest, case["sha256"].as_str().unwrap(), "{name}");
        // The canonical form is a fixed point and checks again.
        let again = check_bytes(&checked.canonical).unwrap();
        assert_eq!(again.digest, checked.digest, "{name}");
    }
}

#[test]
fn key_order_and_whitespace_do_not_change_the_digest() {
    let v = vectors();
    let case = &list(&v, "valid")[0];
    let compact = serde_json::to_vec(&case["envelope"]).unwrap();
    let mut reversed = serde_json::Map::new();
    let object = case["envelope"].as_object().unwrap();
    for (k, val) in object.iter().rev() {
        reversed.insert(k.clone(), val.clone());
    }
    let reversed = serde_json::to_vec_pretty(&Value::Object(reversed)).unwrap();
    assert_eq!(
        check_bytes(&compact).unwrap().digest,
        check_bytes(&reversed).unwrap().digest
    );
}

fn pad(envelope: &mut Value, spec: &Value) {
    let path: Vec<&str> = spec["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    let count = spec["count"].as_u64().unwrap() as usize;
    let unit = spec["char"].as_str().unwrap_or("x");
    let mut at = envelope;
    for part in &path {
        at = &mut at[*part];
    }
    *at = Value::String(unit.repeat(count));
}

#[test]
fn invalid_vectors_get_their_refusal_codes() {
    let v = vectors();
    assert!(list(&v, "invalid").len() >= 30);
    for case in list(&v, "invalid") {
        let name = case["name"].as_str().unwrap();
        let bytes = match case.get("raw") {
            Some(raw) => raw.as_str().unwrap().as_bytes().to_vec(),
            None => {
                let mut envelope = case["envelope"].clone();
                if let Some(spec) = case.get("pad") {
                    pad(&mut envelope, spec);
                }
                serde_json::to_vec(&envelope).unwrap()
            }
        };
        let expected = RefusalCode::parse(case["code"].as_str().unwrap())
            .unwrap_or_else(|| panic!("{name}: unknown code in the vector file"));
        let refusal = check_bytes(&bytes).expect_err(name);
        assert_eq!(refusal.code, expected, "{name}: {}", refusal.message);
        assert!(refusal.message.ends_with('.'), "{name}: one sentence");
    }
}

#[test]
fn every_refusal_code_has_a_vector() {
    let v = vectors();
    for code in <RefusalCode as strum::IntoEnumIterator>::iter() {
        let covered = list(&v, "invalid")
            .iter()
            .any(|c| c["code"].as_str() == Some(code.as_str()));
        let unreachable_from_vectors = code == RefusalCode::NotUtf8;
        assert!(
            covered || unreachable_from_vectors,
            "{code:?} has no vector"
        );
    }
    assert_eq!(
        check_bytes(&[0xff, 0xfe]).unwrap_err().code,
        RefusalCode::NotUtf8
    );
}

/// The wire words are derived once (strum) and serde writes the same words:
/// a refusal's code, an envelope's kind and an observation's tag.
#[test]
fn the_derived_wire_words_are_the_words_serde_writes() {
    use strum::IntoEnumIterator;
    for code in RefusalCode::iter() {
        assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
        assert_eq!(RefusalCode::parse(code.as_str()), Some(code));
    }
    assert_eq!(RefusalCode::TooLarge.as_str(), "envelope/too-large");
    for kind in flybot_interop::envelope::EnvelopeKind::iter() {
        assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        assert_eq!(
            flybot_interop::envelope::EnvelopeKind::parse(kind.as_str()),
            Some(kind)
        );
    }
    let seen = flybot_interop::projection::Observation::CancelRequested;
    assert_eq!(
        serde_json::to_value(&seen).unwrap()["observation"],
        flybot_interop::projection::observation_word(&seen)
    );
    assert_eq!(
        flybot_interop::projection::observation_word(&seen),
        "cancel-requested"
    );
}

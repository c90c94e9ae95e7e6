//! The one canonical serialization: RFC 8785 JSON Canonicalization Scheme
//! (sorted keys by UTF-16 code units, ECMAScript number form, minimal string
//! escapes, no whitespace). Concatenating strings is never a substitute.

use serde::Serialize;

/// Why a value has no canonical form.
#[derive(Debug, thiserror::Error)]
pub enum CanonicalError {
    #[error("the input is not JSON: {0}")]
    NotJson(String),
    #[error("the value has no RFC 8785 form: {0}")]
    Unrepresentable(String),
}

/// The RFC 8785 bytes of any serializable value.
pub fn canonical_bytes<T: Serialize>(value: &T) -> Result<Vec<u8>, CanonicalError> {
    serde_json_canonicalizer::to_vec(value)
        .map_err(|e| CanonicalError::Unrepresentable(e.to_string()))
}

/// The RFC 8785 bytes of a JSON text (parsed first; numbers are IEEE 754
/// doubles as I-JSON requires).
pub fn canonical_json_bytes(json: &[u8]) -> Result<Vec<u8>, CanonicalError> {
    let value: serde_json::Value =
        serde_json::from_slice(json).map_err(|e| CanonicalError::NotJson(e.to_string()))?;
    canonical_bytes(&value)
}

/// The largest integer a double holds exactly (2^53 - 1); larger counters
/// would change under canonicalization.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

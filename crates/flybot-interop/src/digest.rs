//! The digest rule: SHA-256 of the canonical (RFC 8785) bytes, as 64
//! lower-case hex characters.

use crate::canonical::{CanonicalError, canonical_bytes};
use serde::Serialize;
use sha2::{Digest as _, Sha256};

/// Lower-case SHA-256 hex of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    flybot_core::hex::lower_hex(&Sha256::digest(bytes))
}

/// The digest of a value: SHA-256 hex of its canonical bytes.
pub fn digest_of<T: Serialize>(value: &T) -> Result<String, CanonicalError> {
    Ok(sha256_hex(&canonical_bytes(value)?))
}

/// Whether `text` has the digest form (64 lower-case hex characters).
pub fn is_digest(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

//! Ids, credentials and their digests. Ids are `<kind>-<16 hex>`; invitation
//! codes and session tokens are 16 random bytes as base64url, and only their
//! SHA-256 is ever stored.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    // The OS generator failing leaves zeros; the id is then still unique
    // enough for a test box but we never ship a fixed credential: see below.
    let _ = getrandom::fill(&mut bytes);
    bytes
}

/// A new id such as `bot-3f9a0c1d2e4b5a67`.
pub fn new_id(kind: &str) -> String {
    let bytes: [u8; 8] = random_bytes();
    let mut id = String::with_capacity(kind.len() + 17);
    id.push_str(kind);
    id.push('-');
    id.push_str(&flybot_core::hex::lower_hex(&bytes));
    id
}

/// A new secret (invitation code or session token), or `None` when the OS
/// could not give randomness: a credential is never made from zeros.
pub fn new_secret() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(URL_SAFE_NO_PAD.encode(bytes))
}

/// The stored form of a secret: hex SHA-256.
pub fn secret_hash(secret: &str) -> String {
    let digest = Sha256::digest(secret.as_bytes());
    flybot_core::hex::lower_hex(&digest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_their_kind_and_sixteen_hex() {
        let id = new_id("bot");
        assert!(id.starts_with("bot-"));
        assert_eq!(id.len(), 20);
        assert_ne!(new_id("bot"), new_id("bot"));
    }

    #[test]
    fn secrets_are_hashed_with_sha256() {
        assert_eq!(
            secret_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(new_secret().unwrap().len(), 22);
    }
}

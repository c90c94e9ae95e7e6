//! The pinned OpenCode: its version and the digest of its OpenAPI document
//! (`GET /doc`), checked at start. A mismatch or a missing capability blocks
//! the affected operation visibly; there is no silent fallback.

use serde_json::Value;

/// The npm package `opencode-ai` version the driver is written against.
pub const PINNED_VERSION: &str = "1.18.33";

/// SHA-256 of the pinned version's `GET /doc` bytes.
pub const PINNED_DOC_SHA256: &str = include_str!("../../pinned/opencode-1.18.33-openapi.sha256");

/// What the driver needs of the server, each an operation of its API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Capability {
    /// `POST /session`.
    Session,
    /// `POST /session/{id}/prompt_async`.
    Prompt,
    /// `GET /event` (notifications only, never a record).
    Events,
    /// `GET /session/status`.
    Status,
    /// `GET /session/{id}/message`.
    History,
    /// `POST /session/{id}/abort`.
    Abort,
    /// `POST /permission/{id}/reply`.
    PermissionReply,
}

impl Capability {
    pub const ALL: [Capability; 7] = [
        Capability::Session,
        Capability::Prompt,
        Capability::Events,
        Capability::Status,
        Capability::History,
        Capability::Abort,
        Capability::PermissionReply,
    ];

    /// The method and path the OpenAPI document must list.
    pub fn operation(self) -> (&'static str, &'static str) {
        match self {
            Capability::Session => ("post", "/session"),
            Capability::Prompt => ("post", "/session/{sessionID}/prompt_async"),
            Capability::Events => ("get", "/event"),
            Capability::Status => ("get", "/session/status"),
            Capability::History => ("get", "/session/{sessionID}/message"),
            Capability::Abort => ("post", "/session/{sessionID}/abort"),
            Capability::PermissionReply => ("post", "/permission/{requestID}/reply"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Capability::Session => "session",
            Capability::Prompt => "prompt_async",
            Capability::Events => "event",
            Capability::Status => "status",
            Capability::History => "history",
            Capability::Abort => "abort",
            Capability::PermissionReply => "permission reply",
        }
    }
}

/// What the start-up check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocCheck {
    /// SHA-256 of the document's bytes as served.
    pub digest: String,
    /// The digest equals the one the runtime was started to serve (the
    /// pinned OpenCode's, or a test fake's own): the driver may go on.
    pub expected: bool,
    /// The digest is the pinned OpenCode's own document: only a report of
    /// this says `pinned: true`, so a fake never passes for the pin.
    pub pinned: bool,
    /// Capabilities the document does not list.
    pub missing: Vec<Capability>,
}

impl DocCheck {
    /// Whether `capability` may be used: the document is the pinned one and
    /// lists it.
    pub fn allows(&self, capability: Capability) -> bool {
        self.expected && !self.missing.contains(&capability)
    }

    /// Why `capability` is blocked, as a sentence, or `None`.
    pub fn blocked(&self, capability: Capability) -> Option<String> {
        if !self.expected {
            return Some(format!(
                "OpenCode's API document has digest {}, not the pinned one (opencode-ai {PINNED_VERSION}); {} is blocked.",
                self.digest,
                capability.name()
            ));
        }
        self.missing.contains(&capability).then(|| {
            format!(
                "OpenCode's API has no {} operation; it is blocked.",
                capability.name()
            )
        })
    }
}

/// Checks a served `GET /doc` body against the pinned digest.
pub fn check_doc(bytes: &[u8]) -> DocCheck {
    check_doc_against(bytes, PINNED_DOC_SHA256)
}

/// Checks a served `GET /doc` body against `expected` (the fake OpenCode
/// pins its own document, so its gaps are explicit, never the real one's).
pub fn check_doc_against(bytes: &[u8], expected: &str) -> DocCheck {
    let digest = crate::sha256_hex(bytes);
    let doc: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    let missing = Capability::ALL
        .into_iter()
        .filter(|c| {
            let (method, path) = c.operation();
            doc.pointer(&format!(
                "/paths/{}/{method}",
                path.replace('~', "~0").replace('/', "~1")
            ))
            .is_none()
        })
        .collect();
    DocCheck {
        expected: digest == expected.trim(),
        pinned: digest == PINNED_DOC_SHA256.trim(),
        digest,
        missing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_without_abort_misses_that_capability_only() {
        let doc = serde_json::json!({"paths": {
            "/session": {"post": {}},
            "/session/{sessionID}/prompt_async": {"post": {}},
            "/event": {"get": {}},
            "/session/status": {"get": {}},
            "/session/{sessionID}/message": {"get": {}},
            "/permission/{requestID}/reply": {"post": {}}
        }});
        let check = check_doc(&serde_json::to_vec(&doc).unwrap());
        assert_eq!(check.missing, vec![Capability::Abort]);
        assert!(!check.pinned && !check.expected);
        assert!(check.blocked(Capability::Abort).is_some());
        assert_eq!(PINNED_DOC_SHA256.trim().len(), 64);
    }
}

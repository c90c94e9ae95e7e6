//! Attachments (issue 32): a file or a picture a person shared on a line.
//! The bytes live once under the home, content-addressed by their SHA-256
//! (`attachments/v1/objects/<2 hex>/<sha256>`); the team state holds one
//! record per upload: its name, the type sniffed from the bytes, its size,
//! its owner, and the lines that carry it, which decide who may read it.

use crate::state::Extra;
use serde::{Deserialize, Serialize};

/// What an attachment holds, as its bytes say (never its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttachmentKind {
    /// A PNG, JPEG, GIF or WebP picture the host can decode.
    Image,
    /// UTF-8 text: plain text, Markdown, source code, CSV, JSON.
    Text,
    /// A PDF document.
    Pdf,
    /// Anything else: stored and downloadable, never shown to a model.
    Other,
}

/// Where a line carrying an attachment was said.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "in", rename_all = "camelCase")]
pub enum Posting {
    /// A room's line: readable by the members whose membership window
    /// covers `seq` (#50).
    #[serde(rename_all = "camelCase")]
    Room { room_id: String, seq: u64 },
    /// A Bot's own chat (its owner's Session).
    #[serde(rename_all = "camelCase")]
    Chat { session_id: String },
}

/// One upload, as `state.attachments[id]` holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    /// `att-<hex>`, random: two uploads of the same bytes are two records
    /// (each with its own owner) over one stored object.
    pub id: String,
    /// The object's name: 64 lower-case hex digits.
    pub sha256: String,
    /// The file name as uploaded, cleaned to one printable line.
    pub name: String,
    /// The media type sniffed from the bytes.
    pub mime: String,
    pub kind: AttachmentKind,
    pub size: u64,
    /// The member who uploaded it.
    pub owner_id: String,
    pub created_at: u64,
    /// The lines that carry it, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub postings: Vec<Posting>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// What an upload answers, and what a line's attachment looks like on the
/// page: everything but the owner's postings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentShown {
    pub id: String,
    pub name: String,
    pub mime: String,
    pub kind: AttachmentKind,
    pub size: u64,
}

impl From<&Attachment> for AttachmentShown {
    fn from(a: &Attachment) -> Self {
        AttachmentShown {
            id: a.id.clone(),
            name: a.name.clone(),
            mime: a.mime.clone(),
            kind: a.kind,
            size: a.size,
        }
    }
}

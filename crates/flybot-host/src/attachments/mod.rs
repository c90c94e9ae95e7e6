//! Attachments (issue 32): a person shares a file or a picture with any
//! Bot. The bytes are stored once under the home (`flybot_store::
//! attachments`), the record in team state; who may read one is the line's
//! rule (`flybot_core::attachments::may_read`, #50). A line hands a model
//! the attachment as it can take it: an image as a request part to a model
//! that sees images, as its reading and the one placeholder to one that
//! does not (#779), a text file or a PDF's text fenced (#98).

pub mod bot_attach;
pub mod bot_read;
pub mod document;
pub mod download;
mod extract;
pub mod line;
pub mod multipart;
pub mod picture;
pub mod reading;
pub mod room_postings;
pub mod sniff;
pub mod upload;

use flybot_core::attachments::Limits;

/// config.toml's attachment settings.
#[derive(Debug, Clone, PartialEq)]
pub struct AttachmentConfig {
    /// `[attachments] maxFileBytes` and `maxMemberBytes`.
    pub limits: Limits,
    /// `[attachments] imageMaxSide`: an image part is downscaled so its
    /// longer side is at most this many pixels.
    pub image_max_side: u32,
    /// `[attachments] textBudget`: the characters of one text file a line
    /// hands a model; the rest is cut with a note.
    pub text_budget: usize,
    /// `ocrModel` (#779): the model (or `tesseract`) asked first to read an
    /// image for a model that cannot see it.
    pub ocr_model: Option<String>,
    /// `textOnlyModels` (#779): models whose provider claims image input
    /// but rejects it.
    pub text_only_models: Vec<String>,
}

impl Default for AttachmentConfig {
    fn default() -> Self {
        AttachmentConfig {
            limits: Limits {
                per_file: 20 * 1024 * 1024,
                per_member: 500 * 1024 * 1024,
            },
            image_max_side: 1568,
            text_budget: 20_000,
            ocr_model: None,
            text_only_models: Vec::new(),
        }
    }
}

impl AttachmentConfig {
    /// The largest `attachment-upload` body: one file as base64 in JSON.
    pub fn upload_body_limit(&self) -> usize {
        let file = usize::try_from(self.limits.per_file).unwrap_or(usize::MAX / 2);
        file.saturating_mul(4) / 3 + 64 * 1024
    }
}

/// The route of `attachment-upload`: its body may be larger than 1 MiB.
pub const UPLOAD_ROUTE: &str = "/api/bot/attachment-upload";

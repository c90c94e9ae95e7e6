//! A line's attachments (issue 32): each id checked (only the sender's own
//! uploads may be attached; any other id is refused as unknown and nothing
//! is sent), then made into what the line's model can take. An image stays
//! an attachment for a model that sees images; for any other model, and in
//! a room's relay, it becomes the one placeholder and its reading (#779).
//! A text file, or a PDF's text (`pdftotext`), becomes fenced text within
//! the budget (#98). The blocks
//! follow the person's words after [`ATTACHED`], which the transcript
//! leaves out.

use super::reading::{Readers, read_image};
use crate::team::Team;
use flybot_core::access::Actor;
use flybot_core::attachments::images::image_as_text;
use flybot_core::attachments::text::fenced_file;
use flybot_protocol::ApiError;
use flybot_protocol::attachment::{Attachment, AttachmentKind, Posting};

/// At most this many attachments ride on one line.
pub const MAX_PER_LINE: usize = 10;

/// What separates a person's words from the attachments' text.
pub const ATTACHED: &str = "\n\n--- attached ---\n";

/// A line's attachments, checked.
pub struct Attached {
    pub records: Vec<Attachment>,
}

/// Checks that every id names an upload of the sender's own.
pub fn check(team: &Team, actor: &Actor, ids: &[String]) -> Result<Attached, ApiError> {
    if ids.len() > MAX_PER_LINE {
        return Err(ApiError::invalid(
            "attachments",
            format!(
                "A line carries at most {MAX_PER_LINE} attachments; send the rest in another line."
            ),
        ));
    }
    let records = team.read(|state| {
        let member = actor.member_id(state).unwrap_or_default();
        ids.iter()
            .map(|id| {
                state
                    .attachments
                    .get(id)
                    .filter(|a| a.owner_id == member)
                    .cloned()
                    .ok_or_else(|| ApiError::not_found("attachment", id))
            })
            .collect::<Result<Vec<_>, _>>()
    })?;
    Ok(Attached { records })
}

impl Attached {
    pub fn ids(&self) -> Vec<String> {
        self.records.iter().map(|a| a.id.clone()).collect()
    }

    /// `text` with the attachments a model cannot take as parts written
    /// after it; `sees_images` keeps images as parts.
    pub async fn text_for_model(
        &self,
        text: &str,
        readers: &Readers<'_>,
        sees_images: bool,
    ) -> String {
        let mut blocks: Vec<String> = Vec::new();
        for record in &self.records {
            let block = match record.kind {
                AttachmentKind::Image if sees_images => continue,
                AttachmentKind::Image => image_block(readers, record).await,
                _ => file_block(readers, record).await,
            };
            blocks.push(block);
        }
        if blocks.is_empty() {
            text.to_owned()
        } else {
            format!("{text}{ATTACHED}{}", blocks.join("\n\n"))
        }
    }

    /// Records where the line was said, for who may read each attachment.
    pub async fn post(&self, team: &Team, actor: &Actor, posting: Posting) -> Result<(), ApiError> {
        if self.records.is_empty() {
            return Ok(());
        }
        team.mutate(crate::actor::journal_actor(actor), |change| {
            for record in &self.records {
                change.post_attachment(&record.id, posting.clone());
            }
            Ok(())
        })
        .await
    }
}

/// The image as text (#779): the placeholder, naming the object only when
/// it stats as a regular file, and the reading when one was made.
pub async fn image_block(readers: &Readers<'_>, record: &Attachment) -> String {
    let path = shown_object(readers.home, record);
    let reading = match flybot_store::attachments::read_object(readers.home, &record.sha256) {
        Ok(bytes) => read_image(readers, &record.sha256, &bytes).await,
        Err(_) => None,
    };
    image_as_text(&record.name, path.as_deref(), reading.as_deref())
}

/// The image's placeholder alone (#779), without reading it: what a line
/// already holds when the image reached its model as text.
pub fn image_placeholder_of(home: &std::path::Path, record: &Attachment) -> String {
    let path = shown_object(home, record);
    flybot_core::attachments::images::image_placeholder(&record.name, path.as_deref())
}

/// The object's path as a placeholder names it: only when it stats as a
/// regular file (#779).
fn shown_object(home: &std::path::Path, record: &Attachment) -> Option<String> {
    flybot_store::attachments::object_path(home, &record.sha256)
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()))
        .map(|p| p.display().to_string())
}

/// A file that is not an image as a model reads it: a text file or a PDF's
/// text fenced within the budget (#98); any other file, a PDF `pdftotext`
/// could not read, or a missing object, named but not read.
pub async fn file_block(readers: &Readers<'_>, record: &Attachment) -> String {
    let named = || {
        format!(
            "[file: {} ({}), not readable as text here]",
            record.name, record.mime
        )
    };
    let text = match record.kind {
        AttachmentKind::Text | AttachmentKind::Pdf => {
            match flybot_store::attachments::read_object(readers.home, &record.sha256) {
                Ok(bytes) if record.kind == AttachmentKind::Text => {
                    Some(String::from_utf8_lossy(&bytes).into_owned())
                }
                Ok(bytes) => super::document::pdf_text(&bytes).await,
                Err(_) => {
                    return format!("[file: {}, could not be read on this host]", record.name);
                }
            }
        }
        _ => None,
    };
    match text {
        Some(text) => fenced_file(&record.name, &text, readers.config.text_budget),
        None => named(),
    }
}

/// The person's words of a stored line, without the attachments' text.
pub fn shown_text(text: &str) -> &str {
    text.split_once(ATTACHED).map_or(text, |(words, _)| words)
}

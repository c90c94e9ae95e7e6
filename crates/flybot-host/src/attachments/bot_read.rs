//! `read_attachment` as the host answers it (issue 32): the attachment is
//! looked up and judged with the line's rule seen from the seat
//! (`flybot_core::attachments::session_may_read`); one the Session may not
//! read answers the same sentence as an id never made. A text file or a
//! PDF comes back fenced within the budget like on a line (#98); a picture
//! as its reading for a model that cannot see it (#779), else a short
//! description with its size.

use super::line::{file_block, image_block};
use super::reading::{Readers, served};
use crate::team::Team;
use flybot_core::attachments::images::sees_images;
use flybot_core::attachments::session_may_read;
use flybot_protocol::attachment::{Attachment, AttachmentKind};

/// The sentence for an id the Session cannot read, known or not: one
/// sentence for both, so a Bot learns nothing of another member's files.
pub const NOT_FOUND: &str =
    "There is no such attachment in this conversation; use an id a line of it names.";

/// The attachment `id` as text for the Bot `bot_id` in `session_id`.
pub async fn read_for_bot(
    team: &Team,
    readers: &Readers<'_>,
    session_id: &str,
    bot_id: &str,
    id: &str,
) -> Result<String, String> {
    let found = team.read(|state| {
        let record = state
            .attachments
            .get(id)
            .filter(|a| session_may_read(state, session_id, bot_id, a))?;
        let model = state.bots.get(bot_id).map(|b| b.model.clone())?;
        Some((record.clone(), model))
    });
    let Some((record, model)) = found else {
        return Err(NOT_FOUND.to_owned());
    };
    Ok(match record.kind {
        AttachmentKind::Image => {
            let sees = sees_images(
                &served(readers.models),
                &readers.config.text_only_models,
                &model,
            );
            if sees {
                described(readers, &record)
            } else {
                image_block(readers, &record).await
            }
        }
        _ => file_block(readers, &record).await,
    })
}

/// `[image: name, w x h]`: a picture for a model that saw it on the line.
fn described(readers: &Readers<'_>, record: &Attachment) -> String {
    let size = flybot_store::attachments::read_object(readers.home, &record.sha256)
        .ok()
        .and_then(|bytes| {
            image::ImageReader::new(std::io::Cursor::new(bytes))
                .with_guessed_format()
                .ok()?
                .into_dimensions()
                .ok()
        });
    match size {
        Some((w, h)) => format!("[image: {}, {w} x {h}]", record.name),
        None => format!("[image: {}]", record.name),
    }
}

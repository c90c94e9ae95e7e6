//! `attachment-upload {name, data}` (issue 32): the bytes (base64) are
//! sniffed, stored once under the home and recorded for the caller. A file
//! or a member past a limit is refused with one sentence naming it, and
//! then nothing is stored or written.

use super::AttachmentConfig;
use crate::actor::{acting_member, journal_actor};
use crate::team::Team;
use base64::Engine;
use flybot_core::access::Actor;
use flybot_core::attachments::{check_quota, clean_name};
use flybot_protocol::attachment::{Attachment, AttachmentShown};
use flybot_protocol::{ApiError, ErrorCode};
use serde::Deserialize;
use std::path::Path;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Upload {
    /// The file's name, as the person's computer calls it.
    pub name: String,
    /// The file's bytes, base64 (standard alphabet, padding optional).
    pub data: String,
}

/// Stores the upload and answers its record as the page shows it.
pub async fn upload(
    team: &Team,
    home: &Path,
    config: &AttachmentConfig,
    actor: &Actor,
    req: Upload,
) -> Result<AttachmentShown, ApiError> {
    let bytes = decode(&req.data)?;
    let size = bytes.len() as u64;
    let owner = team
        .read(|state| actor.member_id(state))
        .unwrap_or_default();
    // Refused before a byte is stored; checked again in the change below.
    team.read(|state| check_quota(state, &owner, size, config.limits))?;
    let (mime, kind) = super::sniff::sniff(&bytes);
    let sha = store_object(home, bytes).await?;
    let id = crate::ids::new_id("att");
    let name = clean_name(&req.name);
    let limits = config.limits;
    let record = team
        .mutate(journal_actor(actor), |change| {
            let owner = acting_member(change, actor);
            check_quota(change.state(), &owner, size, limits)?;
            let record = Attachment {
                id,
                sha256: sha,
                name,
                mime,
                kind,
                size,
                owner_id: owner,
                created_at: change.now_ms(),
                postings: Vec::new(),
                extra: Default::default(),
            };
            change.put_attachment(&record);
            Ok(record)
        })
        .await?;
    Ok(AttachmentShown::from(&record))
}

/// Writes `bytes` once under the home, off the async threads, and answers
/// their SHA-256; a disk that refuses is the host's fault, said as such.
pub(super) async fn store_object(home: &Path, bytes: Vec<u8>) -> Result<String, ApiError> {
    let folder = home.to_owned();
    tokio::task::spawn_blocking(move || flybot_store::attachments::put_object(&folder, &bytes))
        .await
        .map_err(|e| io_refusal(std::io::Error::other(e)))?
        .map_err(io_refusal)
}

fn decode(data: &str) -> Result<Vec<u8>, ApiError> {
    let engine = base64::engine::general_purpose::STANDARD_NO_PAD;
    let trimmed = data.trim().trim_end_matches('=');
    let bytes = engine.decode(trimmed).map_err(|_| {
        ApiError::invalid(
            "data",
            "The file's data is not base64; send its bytes base64-encoded.",
        )
    })?;
    if bytes.is_empty() {
        return Err(ApiError::invalid(
            "data",
            "The file is empty; choose a file with something in it.",
        ));
    }
    Ok(bytes)
}

fn io_refusal(e: std::io::Error) -> ApiError {
    tracing::error!("an attachment could not be stored: {e}");
    ApiError::new(
        ErrorCode::Unavailable,
        "The file could not be stored on this host; try again.",
    )
}

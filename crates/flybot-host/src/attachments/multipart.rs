//! `attachment-upload` as `multipart/form-data` (issue 32): the form's one
//! `file` part, read as a stream and refused the moment it passes the limit
//! per file, so an oversize body is never held whole. The file becomes the
//! same upload the JSON form makes (`{name, data}`), so both forms share
//! one endpoint, one access check and the same limits and sniffing.
//! A form with no file, two files or another field is refused with
//! `bot/invalid` naming what to send.

use super::AttachmentConfig;
use axum::body::Bytes;
use axum::extract::Request;
use axum::http::header::CONTENT_TYPE;
use base64::Engine;
use flybot_core::attachments::shown_size;
use flybot_protocol::{ApiError, ErrorCode};

/// The form's field that holds the file.
pub const FILE_FIELD: &str = "file";

/// The multipart boundary of `request`, when it is a form upload.
pub fn form_boundary(request: &Request) -> Option<String> {
    let content_type = request.headers().get(CONTENT_TYPE)?.to_str().ok()?;
    multer::parse_boundary(content_type).ok()
}

/// Reads the form's one file and answers it as the JSON upload body.
pub async fn form_as_upload(
    request: Request,
    boundary: String,
    config: &AttachmentConfig,
) -> Result<Bytes, ApiError> {
    let limit = config.limits.per_file;
    let stream = request.into_body().into_data_stream();
    let mut form = multer::Multipart::new(stream, boundary);
    let mut file: Option<(String, Vec<u8>)> = None;
    let unreadable = |e| unreadable(e, limit);
    while let Some(mut field) = form.next_field().await.map_err(unreadable)? {
        if field.name() != Some(FILE_FIELD) {
            let name: String = field
                .name()
                .unwrap_or("(unnamed)")
                .chars()
                .filter(|c| !c.is_control())
                .take(80)
                .collect();
            return Err(ApiError::invalid(
                &name,
                format!(
                    "The form has a field {name} this upload does not take; send only the file, as the field `{FILE_FIELD}`."
                ),
            ));
        }
        if file.is_some() {
            return Err(ApiError::invalid(
                FILE_FIELD,
                "The form carries two files; send one file per upload.",
            ));
        }
        let name = field.file_name().unwrap_or("file").to_owned();
        let mut bytes = Vec::new();
        while let Some(chunk) = field.chunk().await.map_err(unreadable)? {
            if (bytes.len() + chunk.len()) as u64 > limit {
                return Err(too_large(limit));
            }
            bytes.extend_from_slice(&chunk);
        }
        file = Some((name, bytes));
    }
    let Some((name, bytes)) = file else {
        return Err(ApiError::invalid(
            FILE_FIELD,
            format!("The form has no file; send the file as the field `{FILE_FIELD}`."),
        ));
    };
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let body = serde_json::json!({"name": name, "data": data});
    serde_json::to_vec(&body)
        .map(Bytes::from)
        .map_err(|_| ApiError::invalid(FILE_FIELD, "The file could not be read; try again."))
}

/// A form that broke off: past the body's limit (the edge stopped it), or
/// not a form at all.
fn unreadable(e: multer::Error, limit: u64) -> ApiError {
    match e {
        multer::Error::StreamReadFailed(_) => too_large(limit),
        _ => ApiError::invalid(
            FILE_FIELD,
            "The form could not be read as multipart/form-data; send one file as the field `file`.",
        ),
    }
}

fn too_large(limit: u64) -> ApiError {
    ApiError::new(
        ErrorCode::TooLarge,
        format!(
            "The file is larger than the limit per file, {}; send a smaller one.",
            shown_size(limit)
        ),
    )
    .with("limit", limit)
}

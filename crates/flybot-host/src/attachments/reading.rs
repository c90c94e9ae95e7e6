//! Reading an image for a model that cannot see it (#779): the OCR route
//! (`ocrModel`, then the served models that declare image input, the
//! default first; `textOnlyModels` never asked) is tried in order until one
//! answers, and the reading is kept per object in `<home>/ocr.json`, so a
//! later request repeats the same words. `ocrModel = "tesseract"` reads
//! with Debian's Tesseract, offline, in the sandbox (no network, its own
//! folder).

use super::AttachmentConfig;
use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::{ChatMessage, ModelRequest, Role, StreamEvent};
use flybot_core::attachments::images::{ServedModel, ocr_route};
use futures_util::StreamExt;
use std::path::Path;
use std::time::Duration;

/// The `ocrModel` that names the local engine rather than a model.
pub const TESSERACT: &str = "tesseract";
/// How long one reading may take.
const READING_TIMEOUT: Duration = Duration::from_secs(60);
/// What a model is asked.
const ASK: &str = "Transcribe all text visible in this image, exactly, line by line. If there is no text, describe the image in one sentence.";

/// Who reads: the home, the models, the settings.
pub struct Readers<'a> {
    pub home: &'a Path,
    pub models: &'a ProviderRegistry,
    pub default_model: &'a str,
    pub config: &'a AttachmentConfig,
}

impl<'a> Readers<'a> {
    /// The readers of a host, with its default model now (it changes
    /// live from Settings, issue 31).
    pub fn of(config: &'a crate::HostConfig, default_model: &'a str) -> Readers<'a> {
        Readers {
            home: &config.home,
            models: &config.models,
            default_model,
            config: &config.attachments,
        }
    }
}

/// The served models as the OCR route sees them.
pub fn served(models: &ProviderRegistry) -> Vec<ServedModel> {
    models
        .names()
        .into_iter()
        .filter_map(|name| models.route(&name).ok())
        .map(|route| ServedModel {
            name: route.name,
            image_input: route.image_input,
        })
        .collect()
}

/// The reading of the image `bytes` (object `sha`): the cached one, else
/// the first the route gives; `None` when no reader could read it.
pub async fn read_image(readers: &Readers<'_>, sha: &str, bytes: &[u8]) -> Option<String> {
    if let Some(cached) = flybot_store::attachments::cached_reading(readers.home, sha) {
        return Some(cached);
    }
    let config = readers.config;
    let route = ocr_route(
        config.ocr_model.as_deref(),
        &served(readers.models),
        readers.default_model,
        &config.text_only_models,
    );
    for reader in route {
        let reading = if reader == TESSERACT {
            tesseract(bytes).await
        } else {
            by_model(readers, &reader, bytes).await
        };
        let Some(reading) = reading
            .map(|r| r.trim().to_owned())
            .filter(|r| !r.is_empty())
        else {
            continue;
        };
        if let Err(e) = flybot_store::attachments::keep_reading(readers.home, sha, &reading) {
            tracing::warn!("an image's reading could not be kept in ocr.json: {e}");
        }
        return Some(reading);
    }
    None
}

/// One model's reading of the image.
async fn by_model(readers: &Readers<'_>, model: &str, bytes: &[u8]) -> Option<String> {
    let route = readers.models.route(model).ok()?;
    let url = super::picture::data_url(bytes, readers.config.image_max_side)?;
    let mut ask = ChatMessage::text(Role::User, ASK);
    ask.images = vec![url];
    let request = ModelRequest {
        model: route.name.clone(),
        messages: vec![ask],
        tools: Vec::new(),
        max_tokens: Some(2048),
        thinking: None,
    };
    let read = async {
        let mut stream = route.provider.stream(request);
        let mut text = String::new();
        while let Some(event) = stream.next().await {
            match event {
                Ok(StreamEvent::TextDelta(delta)) => text.push_str(&delta),
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!("{model} could not read an image: {e}");
                    return None;
                }
            }
        }
        Some(text)
    };
    tokio::time::timeout(READING_TIMEOUT, read)
        .await
        .ok()
        .flatten()
}

/// Tesseract's reading of the image, run in the sandbox in a folder of its
/// own that holds only the image; `None` when it is not installed or fails.
pub async fn tesseract(bytes: &[u8]) -> Option<String> {
    let tool = super::extract::Tool {
        program: "tesseract",
        args: &["image", "stdout"],
        file_name: "image",
        env: &[("OMP_THREAD_LIMIT", "1")],
    };
    super::extract::stdout_of(tool, bytes).await
}

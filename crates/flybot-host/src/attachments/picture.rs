//! Pictures the host makes from an image (issue 32): a thumbnail for the
//! page, and the downscaled data URL a model that sees images is sent.
//! Both are PNG or JPEG the host encodes itself, so nothing uploaded is
//! served back as it came.

use base64::Engine;
use image::{DynamicImage, ImageFormat};
use std::io::Cursor;
use std::path::PathBuf;

/// A thumbnail's longer side, in pixels.
pub const THUMBNAIL_SIDE: u32 = 256;

/// A PNG thumbnail of the image `bytes`; `None` when they do not decode.
pub fn thumbnail(bytes: &[u8]) -> Option<Vec<u8>> {
    let image = decode(bytes)?;
    let small = image.thumbnail(THUMBNAIL_SIDE, THUMBNAIL_SIDE);
    encode(&small, ImageFormat::Png)
}

/// The image as a model's request part: downscaled so its longer side is
/// at most `max_side`, as a JPEG data URL (a PNG one for an image with
/// transparency).
pub fn data_url(bytes: &[u8], max_side: u32) -> Option<String> {
    let image = decode(bytes)?;
    let image = if image.width().max(image.height()) > max_side {
        image.resize(max_side, max_side, image::imageops::FilterType::Triangle)
    } else {
        image
    };
    let (format, mime, image) = if image.color().has_alpha() {
        (ImageFormat::Png, "image/png", image)
    } else {
        (
            ImageFormat::Jpeg,
            "image/jpeg",
            DynamicImage::ImageRgb8(image.to_rgb8()),
        )
    };
    let encoded = encode(&image, format)?;
    let body = base64::engine::general_purpose::STANDARD.encode(encoded);
    Some(format!("data:{mime};base64,{body}"))
}

fn decode(bytes: &[u8]) -> Option<DynamicImage> {
    image::load_from_memory(bytes).ok()
}

fn encode(image: &DynamicImage, format: ImageFormat) -> Option<Vec<u8>> {
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, format).ok()?;
    Some(out.into_inner())
}

/// The home's images for a turn (`ImageParts`): request parts for a model
/// that sees images; for one that does not, each image a line holds as a
/// part becomes the #779 placeholder and its reading (`line::image_block`,
/// the cached reading when there is one). The line's attachments were
/// checked when it was sent; an id that is no image (or no longer there)
/// is left out.
pub struct HomeImages {
    pub team: crate::team::Team,
    pub home: PathBuf,
    pub max_side: u32,
    /// Whether the turn's model sees images (`imageInput`, not overridden
    /// by `textOnlyModels`).
    pub sees: bool,
    /// The readers of an image for a model that does not.
    pub models: std::sync::Arc<flybot_agent::model::config::ProviderRegistry>,
    pub default_model: String,
    pub config: super::AttachmentConfig,
}

impl HomeImages {
    fn image(&self, attachment_id: &str) -> Option<flybot_protocol::attachment::Attachment> {
        self.team.read(|state| {
            state
                .attachments
                .get(attachment_id)
                .filter(|a| a.kind == flybot_protocol::attachment::AttachmentKind::Image)
                .cloned()
        })
    }
}

impl flybot_agent::model::ImageParts for HomeImages {
    fn sees(&self) -> bool {
        self.sees
    }

    fn data_url(&self, attachment_id: &str) -> Option<String> {
        let record = self.image(attachment_id)?;
        let bytes = flybot_store::attachments::read_object(&self.home, &record.sha256).ok()?;
        data_url(&bytes, self.max_side)
    }

    fn as_text<'a>(
        &'a self,
        attachment_id: &'a str,
        said: &'a str,
    ) -> flybot_agent::tools::BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            let record = self.image(attachment_id)?;
            // A line first sent to a text-only model holds the image as
            // text already: no second reading is asked for, every turn.
            if said.contains(&super::line::image_placeholder_of(&self.home, &record)) {
                return None;
            }
            let readers = super::reading::Readers {
                home: &self.home,
                models: &self.models,
                default_model: &self.default_model,
                config: &self.config,
            };
            Some(super::line::image_block(&readers, &record).await)
        })
    }
}

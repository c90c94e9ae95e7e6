//! Images a text-only model cannot see (#779): which models are asked to
//! read one (`ocrRoute`), and the one placeholder both the Bot chat and the
//! group relay put where the image was.

/// A model as the OCR route sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedModel {
    pub name: String,
    /// The config declares image input (`imageInput = true`).
    pub image_input: bool,
}

/// Whether `model` sees images: it declares image input and
/// `textOnlyModels` does not override that claim (#779).
pub fn sees_images(models: &[ServedModel], text_only: &[String], model: &str) -> bool {
    !text_only.iter().any(|m| m == model) && models.iter().any(|m| m.name == model && m.image_input)
}

/// `ocrRoute` (#779): `config.ocrModel` first, then the served models that
/// declare image input, the default model first among them; a model named
/// in `textOnlyModels` is never asked (its provider claims image input but
/// rejects it). Each model once.
pub fn ocr_route(
    ocr_model: Option<&str>,
    models: &[ServedModel],
    default_model: &str,
    text_only: &[String],
) -> Vec<String> {
    let mut route: Vec<String> = Vec::new();
    let mut add = |name: &str| {
        if !text_only.iter().any(|m| m == name) && !route.iter().any(|m| m == name) {
            route.push(name.to_owned());
        }
    };
    if let Some(ocr) = ocr_model {
        add(ocr);
    }
    if sees_images(models, text_only, default_model) {
        add(default_model);
    }
    for model in models.iter().filter(|m| m.image_input) {
        add(&model.name);
    }
    route
}

/// `imagePlaceholder` (#779): the one text an image becomes where no model
/// can read it, in a Bot chat and in the group relay alike. It names the
/// file only when `path` is given, which the caller gives only for a path
/// that stats as a regular file.
pub fn image_placeholder(name: &str, path: Option<&str>) -> String {
    match path {
        Some(path) => format!("[image: {name}, not shown to this model; the file is at {path}]"),
        None => format!("[image: {name}, not shown to this model]"),
    }
}

/// The text an image becomes for a model that cannot see it: the
/// placeholder, and the reading when one was made.
pub fn image_as_text(name: &str, path: Option<&str>, reading: Option<&str>) -> String {
    let placeholder = image_placeholder(name, path);
    match reading.map(str::trim).filter(|r| !r.is_empty()) {
        Some(reading) => format!("{placeholder}\nText read from the image:\n{reading}"),
        None => placeholder,
    }
}

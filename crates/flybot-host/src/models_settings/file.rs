//! config.toml's `[providers]` and `[models]`, and its `defaultModel`,
//! written back after an edit from Settings (issue 31). Only those change: every other key,
//! every comment and the order of the file stay as the person wrote them,
//! and a provider or model table keeps the keys this build does not set.
//! The file is replaced atomically (written beside, synced, renamed), so a
//! crash leaves the old file or the new one, never half of one.

use flybot_agent::model::config::{ModelConfig, ModelsConfig, ProviderConfig};
use std::io;
use std::path::Path;
use toml_edit::{Array, DocumentMut, Item, Table, value};

/// The file at `path` as a document (an empty one when missing).
fn document(path: &Path) -> io::Result<DocumentMut> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    text.parse()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("{e}")))
}

/// Writes the top-level `defaultModel = "<model>"` into the file at `path`
/// (made when missing), every other line kept. `FLYBOT_DEFAULT_MODEL`, when
/// set, still overrides it at the next start.
pub fn write_default_model(path: &Path, model: &str) -> io::Result<()> {
    let mut doc = document(path)?;
    match doc.get_mut("defaultModel").and_then(Item::as_value_mut) {
        // The key's comment above it and the value's beside it stay.
        Some(existing) => {
            let decor = existing.decor().clone();
            *existing = model.into();
            *existing.decor_mut() = decor;
        }
        None => {
            doc.insert("defaultModel", value(model));
        }
    }
    flybot_store::atomic_write(path, doc.to_string().as_bytes())
}

/// Writes `declared` into the file at `path` (made when missing).
pub fn write_models(path: &Path, declared: &ModelsConfig) -> io::Result<()> {
    let mut doc = document(path)?;
    let providers = table(&mut doc, "providers")?;
    providers.retain(|name, _| declared.providers.contains_key(name));
    for (name, provider) in &declared.providers {
        provider_table(entry(providers, name)?, provider);
    }
    let models = table(&mut doc, "models")?;
    models.retain(|name, _| declared.models.contains_key(name));
    for (name, model) in &declared.models {
        model_table(entry(models, name)?, model);
    }
    // The store's one atomic write: beside, fsync, rename, sync the folder.
    flybot_store::atomic_write(path, doc.to_string().as_bytes())
}

/// The top-level table `name`, made implicit (no empty `[name]` header).
fn table<'d>(doc: &'d mut DocumentMut, name: &str) -> io::Result<&'d mut Table> {
    let item = doc.entry(name).or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    item.as_table_mut().ok_or_else(|| not_a_table(name))
}

fn entry<'t>(parent: &'t mut Table, name: &str) -> io::Result<&'t mut Table> {
    parent
        .entry(name)
        .or_insert_with(|| Item::Table(Table::new()))
        .as_table_mut()
        .ok_or_else(|| not_a_table(name))
}

fn not_a_table(name: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("config.toml's {name} is not a table"),
    )
}

fn set_or_remove(t: &mut Table, key: &str, item: Option<Item>) {
    match item {
        Some(item) => {
            t.insert(key, item);
        }
        None => {
            t.remove(key);
        }
    }
}

fn provider_table(t: &mut Table, p: &ProviderConfig) {
    t.insert("baseUrl", value(p.base_url.as_str()));
    set_or_remove(t, "apiKeyEnv", p.api_key_env.as_deref().map(value));
    set_or_remove(t, "apiKeySecret", p.api_key_secret.as_deref().map(value));
}

fn model_table(t: &mut Table, m: &ModelConfig) {
    t.insert("provider", value(m.provider.as_str()));
    t.insert("model", value(m.model.as_str()));
    t.insert("contextWindow", value(i64::from(m.context_window)));
    let thinking = (!m.thinking.is_empty()).then(|| value(m.thinking.iter().collect::<Array>()));
    set_or_remove(t, "thinking", thinking);
    set_or_remove(t, "thinkingSwitch", m.thinking_switch.then(|| value(true)));
    set_or_remove(
        t,
        "maxOutputTokens",
        m.max_output_tokens.map(|n| value(i64::from(n))),
    );
    set_or_remove(t, "imageInput", m.image_input.then(|| value(true)));
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn only_the_model_tables_change_and_comments_and_other_keys_stay_issue_31() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "# my host\ndefaultModel = \"old\"\ncheckRatio = 0.6 # tuned\n\n[providers.old]\nbaseUrl = \"http://old/v1\"\n\n[models.old]\nprovider = \"old\"\nmodel = \"o\"\ncontextWindow = 1000\n\n[signIn]\npublicNames = [\"a.lan\"]\n",
        )
        .unwrap();
        let mut declared = ModelsConfig::default();
        declared.providers.insert(
            "local".into(),
            ProviderConfig {
                base_url: "http://127.0.0.1:8000/v1".into(),
                api_key_env: None,
                api_key_secret: Some("MODEL_LOCAL_KEY".into()),
            },
        );
        declared.models.insert(
            "qwen".into(),
            ModelConfig {
                provider: "local".into(),
                model: "qwen3:8b".into(),
                context_window: 32_768,
                thinking: Vec::new(),
                thinking_switch: false,
                max_output_tokens: None,
                image_input: true,
            },
        );
        write_models(&path, &declared).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# my host\ndefaultModel = \"old\"\ncheckRatio = 0.6 # tuned\n"));
        assert!(text.contains("[signIn]\npublicNames = [\"a.lan\"]"));
        assert!(!text.contains("[providers.old]") && !text.contains("[models.old]"));
        let back: DocumentMut = text.parse().unwrap();
        assert_eq!(
            back["providers"]["local"]["apiKeySecret"].as_str(),
            Some("MODEL_LOCAL_KEY")
        );
        assert_eq!(
            back["models"]["qwen"]["contextWindow"].as_integer(),
            Some(32_768)
        );
        assert_eq!(back["models"]["qwen"]["imageInput"].as_bool(), Some(true));
        // A missing file is made.
        let fresh = dir.path().join("fresh.toml");
        write_models(&fresh, &declared).unwrap();
        assert!(
            std::fs::read_to_string(&fresh)
                .unwrap()
                .contains("[models.qwen]")
        );
    }

    #[test]
    fn the_default_model_is_written_in_place_and_the_rest_stays_issue_31() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "# my host\ndefaultModel = \"old\" # the first one\ncheckRatio = 0.6\n\n[models.old]\nprovider = \"p\"\n",
        )
        .unwrap();
        write_default_model(&path, "qwen").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("# my host\ndefaultModel = \"qwen\" # the first one\n"),
            "{text}"
        );
        assert!(text.contains("checkRatio = 0.6"));
        assert!(text.contains("[models.old]\nprovider = \"p\""));
        let fresh = dir.path().join("fresh.toml");
        write_default_model(&fresh, "mock").unwrap();
        assert_eq!(
            std::fs::read_to_string(&fresh).unwrap(),
            "defaultModel = \"mock\"\n"
        );
    }
}

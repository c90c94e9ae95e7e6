//! The home folder and `config.toml`: where the team lives and the few
//! settings a host starts with. Environment variables override the file.

use anyhow::Context;
use flybot_agent::model::config::{ModelConfig, ModelsConfig, ProviderConfig};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `<home>/config.toml`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Config {
    /// Keep the journal's history for `flybot replay` (#511). Off by default.
    #[serde(default)]
    pub state_journal: bool,
    /// `store = "postgres://…"` (issue 35): the team's journal in a
    /// PostgreSQL database instead of the home folder; `--store` wins.
    #[serde(default)]
    pub store: Option<String>,
    /// The model a new Bot gets; `mock` (offline) by default.
    #[serde(default)]
    pub default_model: Option<String>,
    /// `[providers.<name>]`: OpenAI-compatible endpoints (baseUrl, apiKeyEnv).
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderConfig>,
    /// `[models.<name>]`: the models a Bot can name (provider, model,
    /// contextWindow, thinking, maxOutputTokens); `mock` is always there.
    #[serde(default)]
    pub models: BTreeMap<String, ModelConfig>,
    /// The context steward's check line as a share of the usable window
    /// (0.45 by default, #796); the hard line stays at 0.95.
    #[serde(default)]
    pub check_ratio: Option<f64>,
    /// How long making room before a step may take (300 000 ms, #1285).
    #[serde(default)]
    pub compact_deadline_ms: Option<u64>,
    /// Automation tasks (#378): the scheduler runs unless this is `false`.
    #[serde(default)]
    pub automation_tasks: Option<bool>,
    /// `[notify.slack]` and `[notify.feishu]`: out-of-app delivery (#355).
    #[serde(default)]
    pub notify: NotifySection,
    /// `[modelFor]`: the model a host-side call runs on instead of the
    /// chat's own (`busy-ack`, #1665).
    #[serde(default)]
    pub model_for: BTreeMap<String, String>,
    /// `[feishu] api`: the Feishu origin a channel connector reaches
    /// (`https://open.feishu.cn` by default, #1266).
    #[serde(default)]
    pub feishu: Option<FeishuApiSection>,
    /// `[signIn]`: the names the host answers to beyond loopback and how
    /// long a sign-in lasts (issue 29).
    #[serde(default)]
    pub sign_in: SignInSection,
    /// `sandbox = "off"` runs agent processes without Landlock and seccomp
    /// (issue 30); on by default, and then nothing starts unguarded.
    #[serde(default)]
    pub sandbox: Option<flybot_sandbox::Mode>,
    /// `ocrModel` (#779): the model asked first to read an image for a
    /// model that cannot see it, or `"tesseract"` for the local engine.
    #[serde(default)]
    pub ocr_model: Option<String>,
    /// `textOnlyModels` (#779): models whose provider claims image input
    /// but rejects it.
    #[serde(default)]
    pub text_only_models: Vec<String>,
    /// `[attachments]`: upload limits and image parts (issue 32).
    #[serde(default)]
    pub attachments: AttachmentsSection,
}

/// `[attachments]`: `maxFileBytes` (20 MiB), `maxMemberBytes` (500 MiB),
/// `imageMaxSide` (1568 px), `textBudget` (20 000 characters).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AttachmentsSection {
    pub max_file_bytes: Option<u64>,
    pub max_member_bytes: Option<u64>,
    pub image_max_side: Option<u32>,
    pub text_budget: Option<usize>,
}

/// `[signIn]`: `publicNames`, `sessionIdleHours` (168), `sessionMaxDays` (30).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SignInSection {
    #[serde(default)]
    pub public_names: Vec<String>,
    #[serde(default)]
    pub session_idle_hours: Option<u64>,
    #[serde(default)]
    pub session_max_days: Option<u64>,
}

/// `[feishu]`: where Feishu's open API is.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeishuApiSection {
    pub api: String,
}

/// `[notify]`: where a scheduled run's answer or failure may go.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotifySection {
    #[serde(default)]
    pub slack: Option<SlackSection>,
    #[serde(default)]
    pub feishu: Option<FeishuSection>,
}

/// `[notify.slack]`: the variable holding the bot token (never the token),
/// the channel, and the API root (Slack's by default).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SlackSection {
    pub token_env: String,
    pub channel: String,
    #[serde(default)]
    pub api: Option<String>,
}

/// `[notify.feishu]`: the variable holding the custom bot's webhook URL
/// (the URL is the credential), and the origin it must be on.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FeishuSection {
    pub webhook_env: String,
    #[serde(default)]
    pub origin: Option<String>,
}

impl Config {
    /// The host's out-of-app delivery settings.
    pub fn notify_config(&self) -> flybot_host::notify::NotifyConfig {
        use flybot_host::notify::{FeishuConfig, NotifyConfig, SlackConfig, feishu, slack};
        NotifyConfig {
            slack: self.notify.slack.as_ref().map(|s| SlackConfig {
                token_env: s.token_env.clone(),
                channel: s.channel.clone(),
                api: s.api.clone().unwrap_or_else(|| slack::SLACK_API.to_owned()),
            }),
            feishu: self.notify.feishu.as_ref().map(|f| FeishuConfig {
                webhook_env: f.webhook_env.clone(),
                origin: f
                    .origin
                    .clone()
                    .unwrap_or_else(|| feishu::FEISHU_ORIGIN.to_owned()),
            }),
        }
    }

    /// The host's attachment settings (issue 32, #779).
    pub fn attachment_config(&self) -> flybot_host::attachments::AttachmentConfig {
        let mut out = flybot_host::attachments::AttachmentConfig::default();
        let section = &self.attachments;
        out.limits.per_file = section.max_file_bytes.unwrap_or(out.limits.per_file);
        out.limits.per_member = section.max_member_bytes.unwrap_or(out.limits.per_member);
        out.image_max_side = section.image_max_side.unwrap_or(out.image_max_side).max(64);
        out.text_budget = section.text_budget.unwrap_or(out.text_budget);
        out.ocr_model = self.ocr_model.clone();
        out.text_only_models = self.text_only_models.clone();
        out
    }

    /// The provider and model tables, for the registry.
    pub fn models_config(&self) -> ModelsConfig {
        ModelsConfig {
            providers: self.providers.clone(),
            models: self.models.clone(),
        }
    }
}

/// `--home`, else `$FLYBOT_HOME`, else `~/.flybot`.
pub fn home_dir(flag: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    if let Some(home) = flag {
        return Ok(home);
    }
    if let Some(home) = std::env::var_os("FLYBOT_HOME").filter(|h| !h.is_empty()) {
        return Ok(PathBuf::from(home));
    }
    let user_home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .context("no --home given and neither FLYBOT_HOME nor HOME is set")?;
    Ok(PathBuf::from(user_home).join(".flybot"))
}

/// Reads `config.toml` from the home; a missing file is the defaults.
pub fn load(home: &Path) -> anyhow::Result<Config> {
    let path = home.join("config.toml");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(error) => {
            return Err(error).with_context(|| format!("could not read {}", path.display()));
        }
    };
    let mut config: Config = toml::from_str(&text)
        .with_context(|| format!("{} is not a valid FlyBot config", path.display()))?;
    if let Ok(model) = std::env::var("FLYBOT_DEFAULT_MODEL")
        && !model.is_empty()
    {
        config.default_model = Some(model);
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn models_written_back_from_settings_are_read_on_the_next_start_issue_31() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join("config.toml");
        std::fs::write(
            &path,
            "checkRatio = 0.6\n[signIn]\npublicNames = [\"a.lan\"]\n",
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
            "local-chat".into(),
            ModelConfig {
                provider: "local".into(),
                model: "qwen3".into(),
                context_window: 32_000,
                thinking: vec!["low".into()],
                thinking_switch: false,
                max_output_tokens: Some(2048),
                image_input: true,
            },
        );
        flybot_host::models_settings::file::write_models(&path, &declared).unwrap();
        let config = load(home.path()).unwrap();
        assert_eq!(config.models_config(), declared);
        assert_eq!(config.check_ratio, Some(0.6));
        assert_eq!(config.sign_in.public_names, ["a.lan"]);
    }

    #[test]
    fn sandbox_off_30_is_read_and_anything_else_refused() {
        let off: Config = toml::from_str(r#"sandbox = "off""#).unwrap();
        assert_eq!(off.sandbox, Some(flybot_sandbox::Mode::Off));
        assert_eq!(Config::default().sandbox, None);
        assert!(toml::from_str::<Config>(r#"sandbox = "maybe""#).is_err());
    }

    #[test]
    fn providers_and_models_are_typed_and_a_pasted_key_is_refused() {
        let config: Config = toml::from_str(
            r#"
            defaultModel = "chat"
            [providers.deepseek]
            baseUrl = "https://api.deepseek.com/v1"
            apiKeyEnv = "DEEPSEEK_API_KEY"
            [models.chat]
            provider = "deepseek"
            model = "deepseek-chat"
            contextWindow = 65536
            thinking = ["low", "high"]
            "#,
        )
        .unwrap();
        let models = config.models_config();
        assert_eq!(models.models["chat"].context_window, 65_536);
        assert_eq!(
            models.providers["deepseek"].api_key_env.as_deref(),
            Some("DEEPSEEK_API_KEY")
        );
        // The key itself has no place in the file: only the variable's name.
        let pasted = toml::from_str::<Config>(
            "[providers.x]\nbaseUrl = \"http://h/v1\"\napiKey = \"sk-123\"\n",
        );
        assert!(pasted.is_err());
    }

    #[test]
    /// Rule #779.
    fn image_input_the_ocr_route_and_attachment_limits_are_read_from_the_file() {
        let config: Config = toml::from_str(
            r#"
            ocrModel = "tesseract"
            textOnlyModels = ["claims-eyes"]
            [attachments]
            maxFileBytes = 1048576
            imageMaxSide = 1024
            [providers.local]
            baseUrl = "http://127.0.0.1:8000/v1"
            [models.eyes]
            provider = "local"
            model = "qwen-vl"
            contextWindow = 32000
            imageInput = true
            "#,
        )
        .unwrap();
        assert!(config.models_config().models["eyes"].image_input);
        let attachments = config.attachment_config();
        assert_eq!(attachments.ocr_model.as_deref(), Some("tesseract"));
        assert_eq!(attachments.text_only_models, ["claims-eyes"]);
        assert_eq!(attachments.limits.per_file, 1_048_576);
        assert_eq!(attachments.image_max_side, 1024);
    }

    #[test]
    /// Rules #796, #1285.
    fn the_steward_s_check_ratio_and_compact_deadline_are_read_from_the_file() {
        let config: Config =
            toml::from_str("checkRatio = 0.6\ncompactDeadlineMs = 120000\n").unwrap();
        assert_eq!(config.check_ratio, Some(0.6));
        assert_eq!(config.compact_deadline_ms, Some(120_000));
        let unset = Config::default();
        assert_eq!((unset.check_ratio, unset.compact_deadline_ms), (None, None));
    }

    #[test]
    fn the_sign_in_section_names_public_names_and_session_lifetimes_29() {
        let config: Config = toml::from_str(
            "[signIn]\npublicNames = [\"flybot.lan\"]\nsessionIdleHours = 12\nsessionMaxDays = 2\n",
        )
        .unwrap();
        assert_eq!(config.sign_in.public_names, ["flybot.lan"]);
        assert_eq!(config.sign_in.session_idle_hours, Some(12));
        assert_eq!(config.sign_in.session_max_days, Some(2));
        assert!(toml::from_str::<Config>("[signIn]\nopen = true\n").is_err());
    }

    #[test]
    /// Rule #378.
    fn automation_tasks_is_on_unless_config_says_false_and_notify_names_variables() {
        let default: Config = toml::from_str("").unwrap();
        assert_eq!(default.automation_tasks, None);
        let off: Config = toml::from_str("automationTasks = false").unwrap();
        assert_eq!(off.automation_tasks, Some(false));
        let notify: Config = toml::from_str(
            "[notify.slack]\ntokenEnv = \"SLACK_BOT_TOKEN\"\nchannel = \"C1\"\n[notify.feishu]\nwebhookEnv = \"FEISHU_WEBHOOK\"\n",
        )
        .unwrap();
        let host = notify.notify_config();
        assert_eq!(host.slack.unwrap().api, "https://slack.com/api");
        assert_eq!(host.feishu.unwrap().origin, "https://open.feishu.cn");
        // A token pasted into the file is refused: only the variable's name.
        assert!(
            toml::from_str::<Config>("[notify.slack]\ntoken = \"xoxb\"\nchannel = \"C\"\n")
                .is_err()
        );
    }
}

//! `test-model {botId}` (#409): the owner checks that a Bot's model answers.
//! One real request on the Bot's route (see `connection_test`), one test at a
//! time per Bot, a fixed failure code, `NO_MODEL` without a request. The
//! provider's message is never returned or logged: it may echo a key.

use crate::team::Team;
use flybot_agent::model::ModelError;
use flybot_agent::model::connection_test::{TestVerdict, test_connection};
use flybot_core::access::Actor;
use flybot_core::roster::managed_bot_for;
use flybot_protocol::answers::{ModelTest, ModelTested};
use flybot_protocol::{ApiError, ErrorCode};
use serde::Deserialize;
use serde_json::Value;

/// `test-model {botId}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TestModel {
    pub bot_id: String,
    /// Accepted and ignored: the actor is the session header's (#48).
    #[serde(default)]
    #[allow(dead_code)]
    pub actor_id: Option<Value>,
}

/// → `{test: {ok: true, ref, ms}}`, `{test: {ok: true, ref, ms, unknown: true}}`
/// (the stream had no finish), or `{test: {ok: false, ref, code, ms}}`.
pub async fn test_model(
    team: &Team,
    models: &flybot_agent::model::config::ProviderRegistry,
    actor: &Actor,
    req: TestModel,
) -> Result<ModelTested, ApiError> {
    let (name, model) = team.store().read(|state| {
        let bot = managed_bot_for(state, actor, &req.bot_id, "test its model")?;
        Ok::<_, ApiError>((bot.name.clone(), bot.model.clone()))
    })?;
    let registry = models;
    let route = match registry.route(&model) {
        Ok(route) => route,
        Err(error) => return Ok(failed(&model, &error, 0)),
    };
    let Some(_slot) = registry.begin_test(&req.bot_id) else {
        return Err(ApiError::new(
            ErrorCode::Busy,
            format!("A model test for {name} is already running; wait for its answer."),
        )
        .with("botId", req.bot_id.as_str()));
    };
    let started = tokio::time::Instant::now();
    let verdict = test_connection(route).await;
    let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(match verdict {
        TestVerdict::Passed => passed(model, ms, None),
        TestVerdict::Unknown => passed(model, ms, Some(true)),
        TestVerdict::Failed(error) => failed(&model, &error, ms),
    })
}

fn passed(model: String, ms: u64, unknown: Option<bool>) -> ModelTested {
    ModelTested {
        test: ModelTest {
            ok: true,
            model_ref: model,
            code: None,
            ms,
            unknown,
        },
    }
}

fn failed(model: &str, error: &ModelError, ms: u64) -> ModelTested {
    ModelTested {
        test: ModelTest {
            ok: false,
            model_ref: model.to_owned(),
            code: Some(error.code()),
            ms,
            unknown: None,
        },
    }
}

//! `test-model {botId | model}` (#409): checks that a model answers. One
//! real request on the route (see `connection_test`), one test at a time per
//! Bot or model, a fixed failure code with the sentence for its class, and
//! the model's own short reply on a pass (issue 31). `{botId}` is the Bot's
//! owner's; `{model}` names a model from Settings and is the host's owner's.
//! The provider's message is never returned or logged: it may echo a key.

use crate::team::Team;
use flybot_agent::model::ModelError;
use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::connection_test::{TestVerdict, test_connection};
use flybot_core::access::{Actor, host_owner_id};
use flybot_core::fences::failure::test_failure_sentence;
use flybot_core::roster::managed_bot_for;
use flybot_protocol::answers::{ModelTest, ModelTested};
use flybot_protocol::{ApiError, ErrorCode};
use serde::Deserialize;
use serde_json::Value;

/// `test-model {botId}` or `test-model {model}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TestModel {
    #[serde(default)]
    pub bot_id: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    /// Accepted and ignored: the actor is the session header's (#48).
    #[serde(default)]
    #[allow(dead_code)]
    pub actor_id: Option<Value>,
}

/// Which model a test runs, what its slot is keyed on and what a second
/// click is told.
fn target(
    team: &Team,
    actor: &Actor,
    req: &TestModel,
) -> Result<(String, String, String), ApiError> {
    match (&req.bot_id, &req.model) {
        (Some(bot_id), None) => team.store().read(|state| {
            let bot = managed_bot_for(state, actor, bot_id, "test its model")?;
            Ok((bot.model.clone(), bot_id.clone(), bot.name.clone()))
        }),
        (None, Some(model)) => {
            let owner = team.read(|state| match actor {
                Actor::SingleOwner => true,
                Actor::Member { member_id, .. } => {
                    host_owner_id(state).as_deref() == Some(member_id)
                }
            });
            if !owner {
                return Err(ApiError::forbidden(
                    "Only the host's owner tests a model by name; test it through one of your Bots.",
                ));
            }
            Ok((model.clone(), format!("model:{model}"), model.clone()))
        }
        _ => Err(ApiError::invalid(
            "botId",
            "Name a Bot (botId) or a model (model), one of the two.",
        )),
    }
}

/// → `{test: {ok: true, ref, ms, reply}}` (`mock: true` on the built-in
/// mock, `unknown: true` when the stream had no finish), or `{test: {ok:
/// false, ref, code, sentence, ms}}`.
pub async fn test_model(
    team: &Team,
    registry: &ProviderRegistry,
    actor: &Actor,
    req: TestModel,
) -> Result<ModelTested, ApiError> {
    let (model, slot_key, name) = target(team, actor, &req)?;
    let route = match registry.route(&model) {
        Ok(route) => route,
        Err(error) => return Ok(failed(&model, &error, 0)),
    };
    let Some(_slot) = registry.begin_test(&slot_key) else {
        let refusal = ApiError::new(
            ErrorCode::Busy,
            format!("A model test for {name} is already running; wait for its answer."),
        );
        return Err(match &req.bot_id {
            Some(bot_id) => refusal.with("botId", bot_id.as_str()),
            None => refusal.with("model", model.as_str()),
        });
    };
    let started = tokio::time::Instant::now();
    let verdict = test_connection(&route).await;
    let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(match verdict {
        TestVerdict::Passed(reply) => passed(model, ms, None, reply, route.offline),
        TestVerdict::Unknown => passed(model, ms, Some(true), String::new(), route.offline),
        TestVerdict::Failed(error) => failed(&model, &error, ms),
    })
}

fn passed(model: String, ms: u64, unknown: Option<bool>, reply: String, mock: bool) -> ModelTested {
    let reply: String = reply.split_whitespace().collect::<Vec<_>>().join(" ");
    let reply: String = reply.chars().take(120).collect();
    ModelTested {
        test: ModelTest {
            ok: true,
            model_ref: model,
            code: None,
            ms,
            unknown,
            reply: (!reply.is_empty()).then_some(reply),
            sentence: None,
            mock,
        },
    }
}

fn failed(model: &str, error: &ModelError, ms: u64) -> ModelTested {
    let code = error.code();
    ModelTested {
        test: ModelTest {
            ok: false,
            model_ref: model.to_owned(),
            sentence: Some(test_failure_sentence(&code)),
            code: Some(code),
            ms,
            unknown: None,
            reply: None,
            mock: false,
        },
    }
}

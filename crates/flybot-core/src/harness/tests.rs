//! The harness rules, one table each (#903, #874 Step 1).

use super::*;
use flybot_protocol::ErrorCode;
use serde_json::json;

#[test]
/// Rule #903.
fn the_default_harness_names_the_running_modules_and_declares_no_budget() {
    let config = resolve_harness("default").unwrap();
    assert_eq!(config.id, HarnessId::Default);
    assert_eq!(config.modules.prompt, "flybot-agent::prompt");
    assert_eq!(config.modules.step_retry, "flybot-agent::turn");
    assert_eq!(
        config.verifiers.offline,
        vec!["ci", "core/dev/eval", "rsi-baseline"]
    );
    assert_eq!(config.exceptions, vec![TREE_EXCEPTION]);
    assert_eq!(config.budget, None);
    assert!(!config.applied);
}

#[test]
/// Rule #903.
fn resolve_harness_refuses_an_unknown_id() {
    for id in ["turbo", "", "Lite", "harness:lite"] {
        let refusal = resolve_harness(id).unwrap_err();
        assert_eq!(refusal.code, ErrorCode::Invalid, "{id}");
        assert!(refusal.message.contains("lite, medium or heavy"), "{id}");
    }
}

#[test]
/// Rule #874.
fn tiers_keep_the_default_modules_and_are_never_applied() {
    let default = harness(HarnessId::Default);
    for id in [HarnessId::Lite, HarnessId::Medium, HarnessId::Heavy] {
        let tier = resolve_harness(id.as_str()).unwrap();
        assert_eq!(tier.modules, default.modules, "{id:?}");
        assert_eq!(tier.verifiers, default.verifiers, "{id:?}");
        assert!(!tier.applied, "{id:?}");
        assert!(tier.budget.is_some(), "{id:?}");
    }
}

#[test]
/// Rule #874.
fn tier_budgets_rise_from_lite_to_heavy() {
    let b = |id| harness(id).budget.unwrap();
    let (lite, medium, heavy) = (
        b(HarnessId::Lite),
        b(HarnessId::Medium),
        b(HarnessId::Heavy),
    );
    let numbers = |x: &HarnessBudget| {
        [
            x.prompt.max_chars,
            x.tools.max_calls,
            x.model.max_tokens,
            x.step_retry.max_steps,
        ]
    };
    for i in 0..4 {
        assert!(numbers(&lite)[i] < numbers(&medium)[i], "field {i}");
        assert!(numbers(&medium)[i] < numbers(&heavy)[i], "field {i}");
    }
    assert!(lite.step_retry.max_retries < medium.step_retry.max_retries);
    assert!(medium.step_retry.max_retries < heavy.step_retry.max_retries);
    // Heavy allows the full set the host registers.
    assert_eq!(heavy.tools.allow, None);
    let lite_allow = lite.tools.allow.unwrap();
    let medium_allow = medium.tools.allow.unwrap();
    assert!(lite_allow.iter().all(|t| medium_allow.contains(t)));
    assert!(lite_allow.len() < medium_allow.len());
}

#[test]
/// Rule #874.
fn a_tier_serializes_with_the_spec_spellings() {
    let value = serde_json::to_value(harness(HarnessId::Lite)).unwrap();
    assert_eq!(value["id"], "lite");
    assert_eq!(value["applied"], false);
    assert_eq!(value["budget"]["prompt"]["maxChars"], 8000);
    assert_eq!(value["budget"]["tools"]["maxCalls"], 4);
    assert_eq!(value["budget"]["model"]["maxTokens"], 1024);
    assert_eq!(value["budget"]["stepRetry"]["maxSteps"], 4);
    assert_eq!(value["budget"]["stepRetry"]["maxRetries"], 0);
    let heavy = serde_json::to_value(harness(HarnessId::Heavy)).unwrap();
    assert_eq!(heavy["budget"]["tools"]["allow"], serde_json::Value::Null);
}

#[test]
/// Rule #874.
fn route_harness_reads_exactly_one_tier_label() {
    let ok = |labels: &[&str]| route_harness(labels).unwrap();
    let refused = |labels: &[&str]| route_harness(labels).unwrap_err();
    assert_eq!(ok(&[]), HarnessId::Default);
    assert_eq!(ok(&["risk:T2", "bug"]), HarnessId::Default);
    assert_eq!(ok(&["harness:lite"]), HarnessId::Lite);
    assert_eq!(ok(&["risk:T1", "harness:medium"]), HarnessId::Medium);
    assert_eq!(ok(&["harness:heavy"]), HarnessId::Heavy);
    assert_eq!(
        refused(&["harness:lite", "harness:heavy"]).code,
        ErrorCode::Invalid
    );
    assert_eq!(
        refused(&["harness:lite", "harness:lite"]).code,
        ErrorCode::Invalid
    );
    assert_eq!(refused(&["harness:turbo"]).code, ErrorCode::Invalid);
    assert_eq!(refused(&["harness:default"]).code, ErrorCode::Invalid);
    assert!(refused(&["harness:turbo"]).message.contains("harness:lite"));
}

#[test]
/// Rule #874.
fn a_usage_note_takes_an_id_or_labels() {
    let id = |s: &str| harness_choice(&IdOrLabels::Id(s.into()));
    let labels = |l: &[&str]| {
        harness_choice(&IdOrLabels::Labels(
            l.iter().map(|s| s.to_string()).collect(),
        ))
    };
    assert_eq!(id("heavy").unwrap(), HarnessId::Heavy);
    assert_eq!(id("default").unwrap(), HarnessId::Default);
    assert!(id("turbo").is_err());
    assert_eq!(labels(&["harness:lite"]).unwrap(), HarnessId::Lite);
    assert_eq!(labels(&["risk:T3"]).unwrap(), HarnessId::Default);
    assert!(labels(&["harness:x"]).is_err());
}

/// `harness_pro` on a tier's JSON edited by `edit`.
fn check_pro(edit: impl FnOnce(&mut serde_json::Value)) -> Result<(), Vec<String>> {
    let mut config = serde_json::to_value(harness(HarnessId::Medium)).unwrap();
    edit(&mut config);
    harness_pro(&config).map_err(|problems| problems.into_iter().map(|p| p.field).collect())
}

#[test]
/// Rule #874.
fn harness_pro_passes_every_shipped_harness() {
    for id in HarnessId::ALL {
        let config = serde_json::to_value(harness(id)).unwrap();
        assert_eq!(harness_pro(&config), Ok(()), "{id:?}");
    }
    // A budget edit alone still passes: `maxTokens` counts, it is no token.
    assert_eq!(
        check_pro(|c| c["budget"]["model"]["maxTokens"] = json!(2048)),
        Ok(())
    );
}

#[test]
/// Rule #874.
fn harness_pro_refuses_a_moved_module_a_changed_verifier_list_or_a_credential() {
    assert_eq!(
        check_pro(|c| c["modules"]["prompt"] = json!("./other.js")),
        Err(vec!["modules.prompt".into()])
    );
    assert_eq!(
        check_pro(|c| {
            c["modules"].as_object_mut().unwrap().remove("stepRetry");
        }),
        Err(vec!["modules.stepRetry".into()])
    );
    assert_eq!(
        check_pro(|c| c["verifiers"]["offline"] = json!(["ci", "core/dev/eval"])),
        Err(vec!["verifiers.offline".into()])
    );
    assert_eq!(
        check_pro(|c| c["verifiers"]["offline"] =
            json!(["ci", "core/dev/eval", "rsi-baseline", "in-process"])),
        Err(vec!["verifiers.offline".into()])
    );
    assert_eq!(
        check_pro(|c| c["model"] = json!({"apiKey": "sk-x"})),
        Err(vec!["model.apiKey".into()])
    );
    assert_eq!(
        check_pro(|c| c["auth"] = json!([{"token": "t"}])),
        Err(vec!["auth[0].token".into()])
    );
}

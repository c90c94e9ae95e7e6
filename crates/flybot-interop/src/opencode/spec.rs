//! The `external` record of a Bot spoken for by the pinned OpenCode
//! (#198): `{driver: "opencode", seed?, testCommand?}`. Each card the Bot
//! works gets its own `opencode serve`, its own session and an empty
//! disposable workspace, filled from `seed` when one is named. The test
//! command is the one shell command OpenCode's policy allows, so it is a
//! plain argv with no shell syntax and no pattern characters that could
//! widen that permission.

use crate::subprocess::SpecRefusal;
use serde_json::{Map, Value};
use std::path::PathBuf;

/// The longest test command, in arguments and characters per argument.
const MAX_TEST_ARGS: usize = 16;
const MAX_TEST_ARG_CHARS: usize = 200;

/// How an OpenCode Bot works a card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenCodeSpec {
    /// A folder copied into each new workspace (the project), if any.
    pub seed: Option<PathBuf>,
    /// The one command OpenCode may run, and the one a verifier runs.
    pub test_command: Vec<String>,
}

fn refuse(field: &str, message: impl Into<String>) -> SpecRefusal {
    SpecRefusal {
        field: field.to_owned(),
        message: message.into(),
    }
}

fn seed_of(value: Option<&Value>) -> Result<Option<PathBuf>, SpecRefusal> {
    let field = "external.seed";
    let path = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) if !s.contains('\0') => PathBuf::from(s),
        Some(_) => return Err(refuse(field, "seed must be a folder path.")),
    };
    if !path.is_absolute() {
        return Err(refuse(field, "seed must be an absolute folder path."));
    }
    if !path.is_dir() {
        return Err(refuse(
            field,
            format!("seed {} is not a folder on this machine.", path.display()),
        ));
    }
    super::project_config::refuse_project_config(&path, "seed")
        .map_err(|why| refuse(field, format!("{}.", why.replacen("the ", "The ", 1))))?;
    Ok(Some(path))
}

/// One argument of the test command: letters, digits and `._/=:@+-`.
fn plain_argument(arg: &str) -> bool {
    !arg.is_empty()
        && arg.len() <= MAX_TEST_ARG_CHARS
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._/=:@+-".contains(c))
}

fn test_command_of(value: Option<&Value>) -> Result<Vec<String>, SpecRefusal> {
    let field = "external.testCommand";
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(crate::pilot::fixture::TEST_COMMAND
            .iter()
            .map(|s| (*s).to_owned())
            .collect());
    };
    let Some(items) = value.as_array() else {
        return Err(refuse(
            field,
            "The test command must be a list of arguments, such as [\"node\", \"--test\"].",
        ));
    };
    if items.is_empty() || items.len() > MAX_TEST_ARGS {
        return Err(refuse(
            field,
            format!("The test command needs between 1 and {MAX_TEST_ARGS} arguments."),
        ));
    }
    items
        .iter()
        .map(|item| match item.as_str() {
            Some(arg) if plain_argument(arg) => Ok(arg.to_owned()),
            _ => Err(refuse(
                field,
                "Each argument is plain text: letters, digits and . _ / = : @ + - only, so the permission it grants cannot widen.",
            )),
        })
        .collect()
}

fn check_keys(map: &Map<String, Value>) -> Result<(), SpecRefusal> {
    match map
        .keys()
        .find(|k| !matches!(k.as_str(), "driver" | "seed" | "testCommand"))
    {
        Some(key) => Err(refuse(
            &format!("external.{key}"),
            format!("An opencode record has no field {key}; it takes seed and testCommand."),
        )),
        None => Ok(()),
    }
}

/// Validates `{driver: "opencode", seed?, testCommand?}`.
pub fn parse_opencode(value: &Value) -> Result<OpenCodeSpec, SpecRefusal> {
    let Some(map) = value.as_object() else {
        return Err(refuse("external", "external must be an object."));
    };
    if map.get("driver").and_then(Value::as_str) != Some("opencode") {
        return Err(refuse(
            "external.driver",
            "The driver must be \"opencode\".",
        ));
    }
    check_keys(map)?;
    Ok(OpenCodeSpec {
        seed: seed_of(map.get("seed"))?,
        test_command: test_command_of(map.get("testCommand"))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field_of(value: Value) -> String {
        match parse_opencode(&value) {
            Ok(spec) => panic!("accepted {spec:?}"),
            Err(refusal) => refusal.field,
        }
    }

    #[test]
    fn the_defaults_are_no_seed_and_the_fixture_test_command() {
        let spec = parse_opencode(&json!({"driver": "opencode"})).unwrap();
        assert_eq!(spec.seed, None);
        assert_eq!(spec.test_command, vec!["node", "--test"]);
        let dir = tempfile::tempdir().unwrap();
        let spec = parse_opencode(&json!({"driver": "opencode",
            "seed": dir.path(), "testCommand": ["cargo", "test", "--offline"]}))
        .unwrap();
        assert_eq!(spec.seed.as_deref(), Some(dir.path()));
        assert_eq!(spec.test_command, vec!["cargo", "test", "--offline"]);
    }

    #[test]
    fn a_widening_test_command_a_missing_seed_and_unknown_fields_are_refused() {
        for command in [
            json!("node --test"),
            json!([]),
            json!(["*"]),
            json!(["node", "--test", "&&", "curl"]),
            json!(["node", "--test;rm"]),
            json!(["node", "$(id)"]),
            json!(["node", "a b"]),
            json!(["node", 1]),
        ] {
            assert_eq!(
                field_of(json!({"driver": "opencode", "testCommand": command})),
                "external.testCommand",
                "{command}"
            );
        }
        assert_eq!(
            field_of(json!({"driver": "opencode", "seed": "relative/project"})),
            "external.seed"
        );
        assert_eq!(
            field_of(json!({"driver": "opencode", "seed": "/no/such/folder/flybot-seed"})),
            "external.seed"
        );
        assert_eq!(
            field_of(json!({"driver": "opencode", "command": ["opencode"]})),
            "external.command"
        );
    }
}

//! A Bot's `external` record (#198): `{driver: "subprocess", command:
//! [argv...], cwd?, env?}`, validated on write. A shell or an interpreter as
//! `command[0]` is refused: the room must run one known program, not a
//! script a line of text could have written.

use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// Programs refused as `command[0]`, compared on the basename.
const REFUSED_PROGRAMS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "fish",
    "ksh",
    "mksh",
    "csh",
    "tcsh",
    "ash",
    "busybox",
    "pwsh",
    "powershell",
    "cmd",
    "env",
    "sudo",
    "doas",
    "xargs",
    "nohup",
    "setsid",
    "timeout",
    "python",
    "python2",
    "python3",
    "pypy",
    "pypy3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "perl",
    "ruby",
    "php",
    "lua",
    "tclsh",
    "osascript",
    "awk",
    "gawk",
];

/// The longest argv, entries and characters, a record may carry.
const MAX_ARGS: usize = 64;
const MAX_ARG_CHARS: usize = 4096;

/// How an external Bot is run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubprocessSpec {
    /// The program and its arguments; never through a shell.
    pub command: Vec<String>,
    /// The working folder; the Bot's own folder when absent.
    pub cwd: Option<String>,
    /// Extra environment entries (the host's own are never passed).
    pub env: BTreeMap<String, String>,
}

/// Why a record was refused: the field and a sentence a person can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecRefusal {
    pub field: String,
    pub message: String,
}

fn refuse(field: &str, message: impl Into<String>) -> SpecRefusal {
    SpecRefusal {
        field: field.to_owned(),
        message: message.into(),
    }
}

/// Whether `program` names a shell or an interpreter (by its basename, with
/// a version suffix such as `python3.12` or `.exe` stripped).
pub fn is_refused_program(program: &str) -> bool {
    let base = Path::new(program)
        .file_name()
        .and_then(|b| b.to_str())
        .unwrap_or(program)
        .to_ascii_lowercase();
    let base = base.strip_suffix(".exe").unwrap_or(&base);
    let stem = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    REFUSED_PROGRAMS.contains(&base) || REFUSED_PROGRAMS.contains(&stem)
}

fn command_of(value: Option<&Value>) -> Result<Vec<String>, SpecRefusal> {
    let field = "external.command";
    let items = match value {
        Some(Value::Array(items)) => items,
        Some(Value::String(_)) => {
            return Err(refuse(
                field,
                "The command must be a list of arguments, not one string; a shell is never used.",
            ));
        }
        Some(_) | None => return Err(refuse(field, "The command must be a list of arguments.")),
    };
    if items.is_empty() || items.len() > MAX_ARGS {
        return Err(refuse(
            field,
            format!("The command needs between 1 and {MAX_ARGS} arguments."),
        ));
    }
    let mut argv = Vec::with_capacity(items.len());
    for item in items {
        match item.as_str() {
            Some(s) if !s.is_empty() && s.len() <= MAX_ARG_CHARS && !s.contains('\0') => {
                argv.push(s.to_owned())
            }
            _ => return Err(refuse(field, "Every argument must be a non-empty string.")),
        }
    }
    if is_refused_program(&argv[0]) {
        return Err(refuse(
            "external.command[0]",
            format!(
                "{} is a shell or an interpreter; name the agent's own program instead.",
                argv[0]
            ),
        ));
    }
    Ok(argv)
}

fn env_of(value: Option<&Value>) -> Result<BTreeMap<String, String>, SpecRefusal> {
    let mut env = BTreeMap::new();
    let Some(value) = value else { return Ok(env) };
    let Some(map) = value.as_object() else {
        return Err(refuse("external.env", "env must be an object of strings."));
    };
    for (key, value) in map {
        let ok_key = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        match value.as_str() {
            Some(v) if ok_key && !v.contains('\0') => {
                env.insert(key.clone(), v.to_owned());
            }
            _ => {
                return Err(refuse(
                    &format!("external.env.{key}"),
                    "env names are letters, digits and _, and values are strings.",
                ));
            }
        }
    }
    Ok(env)
}

/// Validates an `external` value as written by a person.
pub fn parse_external(value: &Value) -> Result<SubprocessSpec, SpecRefusal> {
    let Some(map) = value.as_object() else {
        return Err(refuse("external", "external must be an object."));
    };
    check_keys(map)?;
    match map.get("driver").and_then(Value::as_str) {
        Some("subprocess") => {}
        _ => {
            return Err(refuse(
                "external.driver",
                "The only driver is \"subprocess\".",
            ));
        }
    }
    let command = command_of(map.get("command"))?;
    let cwd = match map.get("cwd") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.is_empty() && !s.contains('\0') => Some(s.clone()),
        Some(_) => return Err(refuse("external.cwd", "cwd must be a folder path.")),
    };
    let env = env_of(map.get("env"))?;
    Ok(SubprocessSpec { command, cwd, env })
}

fn check_keys(map: &Map<String, Value>) -> Result<(), SpecRefusal> {
    for key in map.keys() {
        if !matches!(key.as_str(), "driver" | "command" | "cwd" | "env") {
            return Err(refuse(
                &format!("external.{key}"),
                format!("external has no field {key}."),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field_of(value: Value) -> String {
        match parse_external(&value) {
            Ok(spec) => panic!("accepted {spec:?}"),
            Err(refusal) => refusal.field,
        }
    }

    #[test]
    fn a_program_with_arguments_is_accepted() {
        let spec = parse_external(&json!({
            "driver": "subprocess",
            "command": ["/opt/agent/bin/agent", "--stdio"],
            "env": {"AGENT_MODE": "room"}
        }))
        .unwrap();
        assert_eq!(spec.command, vec!["/opt/agent/bin/agent", "--stdio"]);
        assert_eq!(spec.env.get("AGENT_MODE").map(String::as_str), Some("room"));
    }

    #[test]
    fn a_string_command_another_driver_and_shells_are_refused() {
        assert_eq!(
            field_of(json!({"driver": "subprocess", "command": "agent --stdio"})),
            "external.command"
        );
        assert_eq!(
            field_of(json!({"driver": "docker", "command": ["agent"]})),
            "external.driver"
        );
        for program in [
            "sh",
            "/bin/bash",
            "zsh",
            "/usr/bin/env",
            "python3",
            "python3.12",
            "node",
            "perl",
            "ruby",
            "pwsh",
            "cmd.exe",
            "fish",
            "dash",
        ] {
            assert_eq!(
                field_of(json!({"driver": "subprocess", "command": [program, "-c", "x"]})),
                "external.command[0]",
                "{program}"
            );
        }
        assert_eq!(
            field_of(json!({"driver": "subprocess", "command": []})),
            "external.command"
        );
        assert_eq!(
            field_of(json!({"driver": "subprocess", "command": ["a"], "shell": true})),
            "external.shell"
        );
    }
}

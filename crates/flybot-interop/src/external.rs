//! A Bot's `external` record (#198, #216), by its driver: a supervised
//! subprocess speaking the line protocol, or the pinned OpenCode server.
//! Validated on write; a record that no longer validates is refused at
//! its turn, never run.

use crate::opencode::spec::{OpenCodeSpec, parse_opencode};
use crate::subprocess::{SpecRefusal, SubprocessSpec, parse_external as parse_subprocess};
use serde_json::Value;

/// How an external Bot is run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExternalSpec {
    Subprocess(SubprocessSpec),
    OpenCode(OpenCodeSpec),
}

/// Validates an `external` value as a person wrote it.
pub fn parse_external(value: &Value) -> Result<ExternalSpec, SpecRefusal> {
    let driver = value
        .as_object()
        .and_then(|map| map.get("driver"))
        .and_then(Value::as_str);
    match driver {
        Some("opencode") => parse_opencode(value).map(ExternalSpec::OpenCode),
        Some("subprocess") | None => parse_subprocess(value).map(ExternalSpec::Subprocess),
        Some(_) => Err(SpecRefusal {
            field: "external.driver".to_owned(),
            message: "The driver is \"subprocess\" or \"opencode\".".to_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_driver_picks_the_record_and_an_unknown_one_is_refused() {
        assert!(matches!(
            parse_external(&json!({"driver": "subprocess", "command": ["/opt/agent"]})),
            Ok(ExternalSpec::Subprocess(_))
        ));
        assert!(matches!(
            parse_external(&json!({"driver": "opencode"})),
            Ok(ExternalSpec::OpenCode(_))
        ));
        let refused = parse_external(&json!({"driver": "docker"})).unwrap_err();
        assert_eq!(refused.field, "external.driver");
        assert!(refused.message.contains("opencode"), "{}", refused.message);
        assert_eq!(
            parse_external(&json!("opencode")).unwrap_err().field,
            "external"
        );
    }
}

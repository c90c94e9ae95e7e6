//! How one `set-prefs` key lands on the stored preferences (#469). Most keys
//! are stored as sent and removed by `null`. The notification keys keep only
//! what differs from the default, which is on: `notifications: false` is
//! kept and `true` / `null` clear the key; `notify: {approval | finished |
//! failed: boolean}` merges into the stored `notify`, keeping only the
//! `false` ones, and the key goes away once nothing is off.

use flybot_protocol::ApiError;
use serde_json::{Map, Value};

/// The switch for every notification.
pub const NOTIFICATIONS: &str = "notifications";
/// Per-kind notification switches.
pub const NOTIFY: &str = "notify";
/// The kinds `notify` names.
pub const NOTIFY_KINDS: [&str; 3] = ["approval", "finished", "failed"];

/// The stored value of `key` after `incoming` is set over `current`; `None`
/// removes the key. A value the key cannot take is refused.
pub fn next_pref(
    key: &str,
    current: Option<&Value>,
    incoming: &Value,
) -> Result<Option<Value>, ApiError> {
    match key {
        NOTIFICATIONS => match incoming {
            Value::Bool(false) => Ok(Some(Value::Bool(false))),
            Value::Bool(true) | Value::Null => Ok(None),
            _ => Err(ApiError::invalid(
                "prefs.notifications",
                "notifications is true, false or null.",
            )),
        },
        NOTIFY => next_notify(current, incoming),
        _ if incoming.is_null() => Ok(None),
        _ => Ok(Some(incoming.clone())),
    }
}

fn next_notify(current: Option<&Value>, incoming: &Value) -> Result<Option<Value>, ApiError> {
    let bad = || {
        ApiError::invalid(
            "prefs.notify",
            "notify names approval, finished or failed, each true or false.",
        )
    };
    let changes = match incoming {
        Value::Null => return Ok(None),
        Value::Object(changes) => changes,
        _ => return Err(bad()),
    };
    let mut off: Map<String, Value> = current
        .and_then(Value::as_object)
        .map(|stored| {
            stored
                .iter()
                .filter(|(k, v)| NOTIFY_KINDS.contains(&k.as_str()) && **v == Value::Bool(false))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default();
    for (kind, value) in changes {
        if !NOTIFY_KINDS.contains(&kind.as_str()) {
            return Err(bad());
        }
        match value {
            Value::Bool(false) => {
                off.insert(kind.clone(), Value::Bool(false));
            }
            Value::Bool(true) | Value::Null => {
                off.remove(kind);
            }
            _ => return Err(bad()),
        }
    }
    Ok((!off.is_empty()).then_some(Value::Object(off)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(key: &str, current: Option<Value>, incoming: Value, want: Result<Option<Value>, ()>) {
        let got = next_pref(key, current.as_ref(), &incoming).map_err(|_| ());
        assert_eq!(got, want, "{key} {current:?} <- {incoming}");
    }

    #[test]
    /// Rule #469.
    fn notification_prefs_keep_only_what_is_off() {
        check(NOTIFICATIONS, None, json!(false), Ok(Some(json!(false))));
        check(NOTIFICATIONS, Some(json!(false)), json!(true), Ok(None));
        check(NOTIFICATIONS, Some(json!(false)), json!(null), Ok(None));
        check(NOTIFICATIONS, None, json!("off"), Err(()));
        check(
            NOTIFY,
            None,
            json!({"failed": false}),
            Ok(Some(json!({"failed": false}))),
        );
        check(
            NOTIFY,
            Some(json!({"failed": false})),
            json!({"approval": false, "finished": true}),
            Ok(Some(json!({"failed": false, "approval": false}))),
        );
        check(
            NOTIFY,
            Some(json!({"failed": false})),
            json!({"failed": true}),
            Ok(None),
        );
        check(
            NOTIFY,
            Some(json!({"failed": false})),
            json!(null),
            Ok(None),
        );
        check(NOTIFY, None, json!({"approval": true}), Ok(None));
        // A stored true (written before #469) is dropped on the next merge.
        check(
            NOTIFY,
            Some(json!({"finished": true})),
            json!({"failed": false}),
            Ok(Some(json!({"failed": false}))),
        );
        check(NOTIFY, None, json!({"sound": false}), Err(()));
        check(NOTIFY, None, json!({"failed": "no"}), Err(()));
        check(NOTIFY, None, json!([false]), Err(()));
        check("theme", Some(json!("dark")), json!(null), Ok(None));
        check("theme", None, json!("dark"), Ok(Some(json!("dark"))));
    }
}

//! A Bot's record as `state.json`, the journal and the channel hold it. The
//! typed fields that used to live in `extra` (`role`, `external`,
//! `recordDecisions`, `retired`, `madeByMember`) are read out of the record's other keys and
//! written back among them in key order, exactly where a `BTreeMap` put
//! them, so a Bot's bytes do not change and an old home loads unchanged.

use crate::state::{Bot, Extra};
use crate::{HarnessId, ThinkingLevel};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::collections::BTreeMap;

const ROLE: &str = "role";
const EXTERNAL: &str = "external";
const RECORD_DECISIONS: &str = "recordDecisions";
const RETIRED: &str = "retired";
const THINKING: &str = "thinking";
const HARNESS: &str = "harness";
const MADE_BY_MEMBER: &str = "madeByMember";

/// The record as read: the fixed fields, and every other key.
#[derive(Deserialize)]
#[serde(rename = "Bot", rename_all = "camelCase")]
struct BotRecord {
    id: String,
    name: String,
    owner_id: String,
    #[serde(default)]
    model: String,
    #[serde(default)]
    instructions: String,
    session_id: String,
    created_at: u64,
    updated_at: u64,
    #[serde(default)]
    created_by: Option<String>,
    #[serde(default)]
    run: bool,
    #[serde(default)]
    hidden: bool,
    #[serde(flatten)]
    extra: Extra,
}

/// The record as written: the fixed fields, then the typed keys and
/// `extra`'s in one key order.
#[derive(Serialize)]
#[serde(rename = "Bot", rename_all = "camelCase")]
struct BotRecordRef<'a> {
    id: &'a str,
    name: &'a str,
    owner_id: &'a str,
    model: &'a str,
    instructions: &'a str,
    session_id: &'a str,
    created_at: u64,
    updated_at: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    created_by: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    run: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    hidden: bool,
    #[serde(flatten)]
    keyed: BTreeMap<&'a str, Keyed<'a>>,
}

/// One value among the keyed ones: `extra`'s own or a typed field's.
#[derive(Serialize)]
#[serde(untagged)]
enum Keyed<'a> {
    Value(&'a Value),
    Text(&'a str),
    Flag(bool),
}

impl Serialize for Bot {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut keyed: BTreeMap<&str, Keyed<'_>> = self
            .extra
            .iter()
            .map(|(key, value)| (key.as_str(), Keyed::Value(value)))
            .collect();
        // A typed field wins over a value of another shape left in `extra`.
        if let Some(role) = &self.role {
            keyed.insert(ROLE, Keyed::Text(role));
        }
        if let Some(external) = &self.external {
            keyed.insert(EXTERNAL, Keyed::Value(external));
        }
        if let Some(on) = self.record_decisions {
            keyed.insert(RECORD_DECISIONS, Keyed::Flag(on));
        }
        if let Some(retired) = self.retired {
            keyed.insert(RETIRED, Keyed::Flag(retired));
        }
        if let Some(level) = self.thinking {
            keyed.insert(THINKING, Keyed::Text(level.as_str()));
        }
        if let Some(tier) = self.harness {
            keyed.insert(HARNESS, Keyed::Text(tier.as_str()));
        }
        if let Some(member) = &self.made_by_member {
            keyed.insert(MADE_BY_MEMBER, Keyed::Text(member));
        }
        BotRecordRef {
            id: &self.id,
            name: &self.name,
            owner_id: &self.owner_id,
            model: &self.model,
            instructions: &self.instructions,
            session_id: &self.session_id,
            created_at: self.created_at,
            updated_at: self.updated_at,
            created_by: self.created_by.as_deref(),
            run: self.run,
            hidden: self.hidden,
            keyed,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Bot {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let record = BotRecord::deserialize(deserializer)?;
        let mut extra = record.extra;
        Ok(Bot {
            id: record.id,
            name: record.name,
            owner_id: record.owner_id,
            model: record.model,
            instructions: record.instructions,
            session_id: record.session_id,
            created_at: record.created_at,
            updated_at: record.updated_at,
            created_by: record.created_by,
            run: record.run,
            hidden: record.hidden,
            role: take(&mut extra, ROLE, |value| match value {
                Value::String(role) => Ok(role),
                other => Err(other),
            }),
            external: take(&mut extra, EXTERNAL, |value| match value {
                Value::Null => Err(Value::Null),
                record => Ok(record),
            }),
            record_decisions: take(&mut extra, RECORD_DECISIONS, flag),
            retired: take(&mut extra, RETIRED, flag),
            thinking: take(&mut extra, THINKING, |value| match value {
                Value::String(text) => ThinkingLevel::parse(&text).ok_or(Value::String(text)),
                other => Err(other),
            }),
            harness: take(&mut extra, HARNESS, |value| match value {
                Value::String(text) => HarnessId::parse(&text).ok_or(Value::String(text)),
                other => Err(other),
            }),
            made_by_member: take(&mut extra, MADE_BY_MEMBER, |value| match value {
                Value::String(member) => Ok(member),
                other => Err(other),
            }),
            extra,
        })
    }
}

/// Moves `key` out of `extra` when `read` takes its value; a value of
/// another shape goes back into `extra`, kept as written.
fn take<T>(
    extra: &mut Extra,
    key: &str,
    read: impl FnOnce(Value) -> Result<T, Value>,
) -> Option<T> {
    let value = extra.remove(key)?;
    match read(value) {
        Ok(typed) => Some(typed),
        Err(value) => {
            extra.insert(key.to_owned(), value);
            None
        }
    }
}

fn flag(value: Value) -> Result<bool, Value> {
    match value {
        Value::Bool(on) => Ok(on),
        other => Err(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `json` as a Bot and writes it back: the bytes must not move.
    fn check(json: &str) -> Bot {
        let bot: Bot = serde_json::from_str(json).unwrap();
        assert_eq!(serde_json::to_string(&bot).unwrap(), json);
        let value: Value = serde_json::from_str(json).unwrap();
        assert_eq!(serde_json::to_value(&bot).unwrap(), value);
        bot
    }

    const HEAD: &str = r#""id":"bot-1","name":"Ada","ownerId":"member-1","model":"mock","instructions":"","sessionId":"session-1","createdAt":1,"updatedAt":2"#;

    #[test]
    fn a_bot_without_the_typed_keys_reads_and_writes_as_before() {
        let bot = check(&format!(r#"{{{HEAD}}}"#));
        assert_eq!(bot.role, None);
        assert!(bot.extra.is_empty());
        check(&format!(
            r#"{{{HEAD},"createdBy":"member-1","run":true,"hidden":true,"zeta":[1]}}"#
        ));
    }

    #[test]
    fn typed_keys_keep_their_place_among_the_others() {
        let bot = check(&format!(
            r#"{{{HEAD},"alpha":1,"external":{{"kind":"subprocess","command":["x"]}},"harness":"lite","mid":"m","recordDecisions":true,"retired":false,"role":"Dev","standingApprovals":[{{"kind":"run_command","label":"x","at":3,"ownerId":"member-1"}}],"thinking":"low","zeta":null}}"#
        ));
        assert_eq!(bot.role.as_deref(), Some("Dev"));
        assert!(bot.external.is_some());
        assert!(bot.records_decisions());
        assert_eq!(bot.retired, Some(false));
        assert_eq!(bot.thinking, Some(ThinkingLevel::Low));
        assert_eq!(bot.harness, Some(HarnessId::Lite));
        assert!(!bot.is_retired());
        assert_eq!(
            bot.extra.keys().collect::<Vec<_>>(),
            vec!["alpha", "mid", "standingApprovals", "zeta"]
        );
    }

    #[test]
    fn a_value_of_another_shape_stays_in_extra_and_reads_as_absent() {
        let bot = check(&format!(
            r#"{{{HEAD},"external":null,"harness":"turbo","recordDecisions":"yes","retired":1,"role":5,"thinking":"max"}}"#
        ));
        assert_eq!(
            (bot.role, bot.external, bot.record_decisions, bot.retired),
            (None, None, None, None)
        );
        assert_eq!((bot.thinking, bot.harness), (None, None));
        assert_eq!(bot.extra.len(), 6);
    }

    #[test]
    fn a_typed_field_set_in_code_wins_over_a_value_left_in_extra() {
        let mut bot = check(&format!(r#"{{{HEAD},"role":5}}"#));
        bot.role = Some("Dev".to_owned());
        assert_eq!(
            serde_json::to_string(&bot).unwrap(),
            format!(r#"{{{HEAD},"role":"Dev"}}"#)
        );
    }
}

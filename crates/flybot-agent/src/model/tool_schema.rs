//! A tool's parameter schema as a request carries it: shared, so building a
//! request clones a reference count rather than the JSON tree, and measured
//! once, so the context budget does not print every schema on every turn.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::sync::Arc;

/// A JSON schema and the length of its JSON text.
#[derive(Debug, Clone)]
pub struct ToolSchema {
    value: Arc<Value>,
    text_len: usize,
}

impl ToolSchema {
    pub fn new(value: Value) -> ToolSchema {
        let text_len = value.to_string().len();
        ToolSchema {
            value: Arc::new(value),
            text_len,
        }
    }

    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The length of the schema's compact JSON text, in bytes.
    pub fn text_len(&self) -> usize {
        self.text_len
    }
}

impl Default for ToolSchema {
    fn default() -> ToolSchema {
        ToolSchema::new(Value::Null)
    }
}

impl From<Value> for ToolSchema {
    fn from(value: Value) -> ToolSchema {
        ToolSchema::new(value)
    }
}

impl PartialEq for ToolSchema {
    fn eq(&self, other: &ToolSchema) -> bool {
        self.value == other.value
    }
}

impl Serialize for ToolSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolSchema {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ToolSchema, D::Error> {
        Value::deserialize(deserializer).map(ToolSchema::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_schema_serializes_as_its_json_and_knows_its_text_length() {
        let schema = ToolSchema::new(json!({"type": "object", "required": []}));
        let text = serde_json::to_string(&schema).unwrap_or_default();
        assert_eq!(text, r#"{"type":"object","required":[]}"#);
        assert_eq!(schema.text_len(), text.len());
        let back: ToolSchema = serde_json::from_str(&text).unwrap_or_default();
        assert_eq!(back, schema);
    }
}

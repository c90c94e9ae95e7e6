//! The tool-schema rule: the schema handed to the model has `properties: {}`
//! and `required: []` on every object node. A strict OpenAI-compatible
//! gateway reads an absent member as null and rejects the whole request, so
//! one argument-less tool would break every turn. Argument parsing keeps
//! using the typed struct; only the schema the model sees is completed.

use schemars::JsonSchema;
use serde_json::{Map, Value};

/// The completed JSON schema of `A`, without the `$schema` and `title`
/// members a model has no use for.
pub fn schema_of<A: JsonSchema>() -> Value {
    let mut schema = schemars::SchemaGenerator::default()
        .into_root_schema_for::<A>()
        .to_value();
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
    }
    complete_schema(&mut schema);
    schema
}

/// Fills `properties: {}` and `required: []` on every object node, walking
/// properties, items, prefixItems, additionalProperties, oneOf/anyOf/allOf,
/// not, and the definitions (`$defs`, `definitions`).
pub fn complete_schema(schema: &mut Value) {
    let Some(node) = schema.as_object_mut() else {
        return;
    };
    if is_object_node(node) {
        node.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        node.entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
    }
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        if let Some(Value::Object(children)) = node.get_mut(key) {
            children.values_mut().for_each(complete_schema);
        }
    }
    for key in ["items", "additionalProperties", "not", "if", "then", "else"] {
        match node.get_mut(key) {
            Some(Value::Array(list)) => list.iter_mut().for_each(complete_schema),
            Some(child @ Value::Object(_)) => complete_schema(child),
            _ => {}
        }
    }
    for key in ["oneOf", "anyOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(list)) = node.get_mut(key) {
            list.iter_mut().for_each(complete_schema);
        }
    }
}

/// An object node: `type` is `"object"` or a list naming it.
fn is_object_node(node: &Map<String, Value>) -> bool {
    match node.get("type") {
        Some(Value::String(kind)) => kind == "object",
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k == "object"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    /// No arguments at all.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct NoArgs {}

    /// A nested argument struct.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Outer {
        /// The inner object.
        inner: Inner,
        /// A list of empty things.
        list: Vec<Empty>,
        /// One of two shapes.
        choice: Option<Choice>,
    }
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        /// A free-form map.
        extra: std::collections::BTreeMap<String, Empty>,
    }
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Empty {}
    #[derive(Deserialize, JsonSchema)]
    #[serde(tag = "kind", rename_all = "lowercase")]
    #[allow(dead_code)]
    enum Choice {
        Nothing,
        Some { value: Empty },
    }

    fn every_object_complete(value: &Value, path: &str, bad: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if is_object_node(map)
                    && !(map.get("properties").is_some_and(Value::is_object)
                        && map.get("required").is_some_and(Value::is_array))
                {
                    bad.push(path.to_owned());
                }
                for (k, v) in map {
                    every_object_complete(v, &format!("{path}/{k}"), bad);
                }
            }
            Value::Array(list) => {
                for (i, v) in list.iter().enumerate() {
                    every_object_complete(v, &format!("{path}/{i}"), bad);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn an_argument_less_tool_has_properties_and_required() {
        let schema = schema_of::<NoArgs>();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"], json!({}));
        assert_eq!(schema["required"], json!([]));
    }

    #[test]
    fn nested_objects_are_completed_everywhere() {
        let schema = schema_of::<Outer>();
        let mut bad = Vec::new();
        every_object_complete(&schema, "", &mut bad);
        assert!(bad.is_empty(), "incomplete object nodes at {bad:?}");
        // The doc comments are the descriptions.
        assert_eq!(
            schema["properties"]["inner"]["description"],
            "The inner object."
        );
        assert!(schema.get("$defs").is_some());
    }

    #[test]
    fn completion_walks_every_combinator_and_keeps_what_is_there() {
        let mut schema = json!({
            "type": "object",
            "properties": {"a": {"type": "object", "required": ["x"], "properties": {"x": {"type": "string"}}}},
            "$defs": {"D": {"type": ["object", "null"]}},
            "anyOf": [{"type": "object"}],
            "oneOf": [{"allOf": [{"type": "object"}]}],
            "items": {"type": "object"},
            "definitions": {"E": {"type": "object", "properties": {"deep": {"items": [{"type": "object"}]}}}}
        });
        complete_schema(&mut schema);
        let mut bad = Vec::new();
        every_object_complete(&schema, "", &mut bad);
        assert!(bad.is_empty(), "incomplete object nodes at {bad:?}");
        assert_eq!(schema["properties"]["a"]["required"], json!(["x"]));
        assert_eq!(schema["$defs"]["D"]["properties"], json!({}));
    }
}

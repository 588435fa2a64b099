//! Builders for argument schemas in the dialect docker-agent sends (Go's `jsonschema`
//! generator): closed objects, sorted keys, optional arrays typed `["null", "array"]`.

use serde_json::{Value, json};

/// A closed object schema.
pub(crate) fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "additionalProperties": false,
        "properties": properties,
        "required": required,
        "type": "object",
    })
}

pub(crate) fn string(description: &str) -> Value {
    json!({"description": description, "type": "string"})
}

/// An array of strings that may also be `null`.
pub(crate) fn string_array(description: &str) -> Value {
    json!({"description": description, "items": {"type": "string"}, "type": ["null", "array"]})
}

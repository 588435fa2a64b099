//! The agent-file schema as data: a table of fields per object, from which the JSON Schema
//! (`tether schema`, editor completion) and the field tables of docs/agent-files.md are
//! generated. The tables are not written here: each is [`Describe::FIELDS`] of a `Raw*` struct,
//! whose `described!` declaration gives every field once (serde name, Rust type, doc comment),
//! so what the loader accepts, the schema and the docs cannot drift apart.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use serde_saphyr::Spanned;
use tether_protocol::HookEvent;

use crate::model::KNOWN_PROVIDERS;
use crate::raw::{
    RawAgent, RawAgentFile, RawAgentRouting, RawApiConfig, RawBackoff, RawBudget, RawCache,
    RawCapabilities, RawCost, RawEvaluator, RawEvaluatorPolicy, RawFallback, RawHookDef,
    RawLifecycle, RawMatcherEntry, RawMcpDef, RawModel, RawOutputCapabilities, RawPermissions,
    RawPostEdit, RawProvider, RawRemote, RawRoutingPolicy, RawRoutingRule, RawRuntime, RawScript,
    RawStructuredOutput, RawToolset, RawWebhookConfig,
};

/// The shape of a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    String,
    Integer,
    Number,
    Boolean,
    /// A string, number or boolean.
    Scalar,
    StringList,
    ScalarList,
    /// A map of strings (or scalars) to strings.
    StringMap,
    /// Any JSON/YAML value.
    Any,
    /// One of these strings.
    Enum(&'static [&'static str]),
    /// A definition of the schema, by name.
    Ref(&'static str),
    /// A list of a definition.
    RefList(&'static str),
    /// A map from names to a definition.
    RefMap(&'static str),
    /// One of these shapes (`defer`: a boolean or a list of names).
    OneOf(&'static [Self]),
}

impl FieldType {
    /// A list of `item`s: of strings, scalars or a definition; of anything else, any value.
    pub(crate) const fn list_of(item: Self) -> Self {
        match item {
            Self::String => Self::StringList,
            Self::Scalar => Self::ScalarList,
            Self::Ref(name) => Self::RefList(name),
            _ => Self::Any,
        }
    }

    /// A map from names to `value`s: strings (or scalars) or a definition; else any value.
    pub(crate) const fn map_of(value: Self) -> Self {
        match value {
            Self::String | Self::Scalar => Self::StringMap,
            Self::Ref(name) => Self::RefMap(name),
            _ => Self::Any,
        }
    }
}

/// One documented field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub ty: FieldType,
    pub doc: &'static str,
    /// The JSON Schema requires it (validation reports its absence with its own message).
    pub required: bool,
}

impl Field {
    /// A row from a `described!` field; `doc` is its doc comment's lines joined.
    pub(crate) const fn new(
        name: &'static str,
        ty: FieldType,
        doc: &'static str,
        required: bool,
    ) -> Self {
        Self {
            name,
            ty,
            doc: doc.trim_ascii(),
            required,
        }
    }
}

/// The schema shape of a Rust type a raw field is read into; a `described!` struct is a
/// reference to its definition.
pub(crate) trait Shape {
    const SHAPE: FieldType;
}

/// A `described!` struct's fields, in declaration order (serde's order too).
pub(crate) trait Describe {
    const FIELDS: &'static [Field];
}

impl Shape for String {
    const SHAPE: FieldType = FieldType::String;
}

impl Shape for i64 {
    const SHAPE: FieldType = FieldType::Integer;
}

impl Shape for f64 {
    const SHAPE: FieldType = FieldType::Number;
}

impl Shape for bool {
    const SHAPE: FieldType = FieldType::Boolean;
}

impl Shape for Value {
    const SHAPE: FieldType = FieldType::Any;
}

impl Shape for Map<String, Value> {
    const SHAPE: FieldType = FieldType::Any;
}

/// Absent is allowed everywhere: every raw field is optional to serde.
impl<T: Shape> Shape for Option<T> {
    const SHAPE: FieldType = T::SHAPE;
}

/// A span is not part of what is written.
impl<T: Shape> Shape for Spanned<T> {
    const SHAPE: FieldType = T::SHAPE;
}

impl<T: Shape> Shape for Vec<T> {
    const SHAPE: FieldType = FieldType::list_of(T::SHAPE);
}

impl<V: Shape> Shape for BTreeMap<String, V> {
    const SHAPE: FieldType = FieldType::map_of(V::SHAPE);
}

pub const FILE_FIELDS: &[Field] = RawAgentFile::FIELDS;
pub const CACHE_FIELDS: &[Field] = RawCache::FIELDS;
pub const RUNTIME_FIELDS: &[Field] = RawRuntime::FIELDS;
pub const BUDGET_FIELDS: &[Field] = RawBudget::FIELDS;
pub const EVALUATOR_FIELDS: &[Field] = RawEvaluator::FIELDS;
pub const EVALUATOR_POLICY_FIELDS: &[Field] = RawEvaluatorPolicy::FIELDS;
pub const ROUTING_POLICY_FIELDS: &[Field] = RawRoutingPolicy::FIELDS;
pub const AGENT_FIELDS: &[Field] = RawAgent::FIELDS;
pub const SCRIPT_FIELDS: &[Field] = RawScript::FIELDS;
pub const TOOLSET_FIELDS: &[Field] = RawToolset::FIELDS;
pub const API_CONFIG_FIELDS: &[Field] = RawApiConfig::FIELDS;
pub const POST_EDIT_FIELDS: &[Field] = RawPostEdit::FIELDS;
pub const WEBHOOK_CONFIG_FIELDS: &[Field] = RawWebhookConfig::FIELDS;
pub const MCP_SERVER_FIELDS: &[Field] = RawMcpDef::FIELDS;
pub const MCP_REMOTE_FIELDS: &[Field] = RawRemote::FIELDS;
pub const MCP_LIFECYCLE_FIELDS: &[Field] = RawLifecycle::FIELDS;
pub const MCP_BACKOFF_FIELDS: &[Field] = RawBackoff::FIELDS;
pub const MODEL_FIELDS: &[Field] = RawModel::FIELDS;
pub const PROVIDER_FIELDS: &[Field] = RawProvider::FIELDS;
pub const ROUTING_RULE_FIELDS: &[Field] = RawRoutingRule::FIELDS;
pub const AGENT_ROUTING_FIELDS: &[Field] = RawAgentRouting::FIELDS;
pub const COST_FIELDS: &[Field] = RawCost::FIELDS;
pub const FALLBACK_FIELDS: &[Field] = RawFallback::FIELDS;
pub const STRUCTURED_OUTPUT_FIELDS: &[Field] = RawStructuredOutput::FIELDS;
pub const PERMISSIONS_FIELDS: &[Field] = RawPermissions::FIELDS;
pub const MATCHER_FIELDS: &[Field] = RawMatcherEntry::FIELDS;
pub const HOOK_FIELDS: &[Field] = RawHookDef::FIELDS;

/// The JSON Schema of a shape. Lists and maps may be `null` (an empty YAML key) except as a
/// branch of `oneOf`.
fn shape_schema(ty: FieldType, nullable: bool) -> Value {
    let container = |kind: &str| {
        if nullable {
            json!([kind, "null"])
        } else {
            json!(kind)
        }
    };
    let scalar = || json!({"type": ["string", "number", "boolean"]});
    let reference = |name: &str| json!({"$ref": format!("#/$defs/{name}")});
    let list = |items: Value| json!({"type": container("array"), "items": items});
    let map = |values: Value| json!({"type": container("object"), "additionalProperties": values});
    match ty {
        FieldType::String => json!({"type": "string"}),
        FieldType::Integer => json!({"type": "integer"}),
        FieldType::Number => json!({"type": "number"}),
        FieldType::Boolean => json!({"type": "boolean"}),
        FieldType::Scalar => scalar(),
        FieldType::StringList => list(json!({"type": "string"})),
        FieldType::ScalarList => list(scalar()),
        FieldType::StringMap => map(scalar()),
        FieldType::Any => json!({}),
        FieldType::Enum(values) => json!({"type": "string", "enum": values}),
        FieldType::Ref(name) => reference(name),
        FieldType::RefList(name) => list(reference(name)),
        FieldType::RefMap(name) => map(reference(name)),
        FieldType::OneOf(shapes) => {
            let branches: Vec<Value> = shapes.iter().map(|s| shape_schema(*s, false)).collect();
            json!({"oneOf": branches})
        }
    }
}

fn field_schema(field: &Field) -> Value {
    let mut v = shape_schema(field.ty, true);
    if let Value::Object(m) = &mut v {
        m.insert(
            "description".to_owned(),
            Value::String(field.doc.to_owned()),
        );
    }
    v
}

fn object(fields: &[Field]) -> Value {
    let props: Map<String, Value> = fields
        .iter()
        .map(|f| (f.name.to_owned(), field_schema(f)))
        .collect();
    let required: Vec<&str> = fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.name)
        .collect();
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// A definition: its name (from the struct's `Shape`) and its object schema.
fn def<T: Describe + Shape>() -> (String, Value) {
    let name = match T::SHAPE {
        FieldType::Ref(name) => name,
        _ => "",
    };
    (name.to_owned(), object(T::FIELDS))
}

/// The JSON Schema (draft 2020-12) of agent files.
pub fn agent_file_schema() -> Value {
    let events: Map<String, Value> = HookEvent::ALL
        .into_iter()
        .map(|e| {
            let item = if e.uses_matcher() {
                "matcher_entry"
            } else {
                "hook"
            };
            let schema = json!({
                "type": ["array", "null"],
                "items": {"$ref": format!("#/$defs/{item}")},
                "description": e.description(),
            });
            (e.wire_name().to_owned(), schema)
        })
        .collect();
    let mut defs: Map<String, Value> = [
        def::<RawAgent>(),
        def::<RawToolset>(),
        def::<RawModel>(),
        def::<RawPermissions>(),
        def::<RawProvider>(),
        def::<RawRoutingRule>(),
        def::<RawFallback>(),
        def::<RawCost>(),
        def::<RawCapabilities>(),
        def::<RawOutputCapabilities>(),
        def::<RawBudget>(),
        def::<RawRuntime>(),
        def::<RawCache>(),
        def::<RawAgentRouting>(),
        def::<RawStructuredOutput>(),
        def::<RawMcpDef>(),
        def::<RawScript>(),
        def::<RawApiConfig>(),
        def::<RawPostEdit>(),
        def::<RawWebhookConfig>(),
        def::<RawRemote>(),
        def::<RawLifecycle>(),
        def::<RawBackoff>(),
        def::<RawMatcherEntry>(),
        def::<RawHookDef>(),
        def::<RawEvaluator>(),
        def::<RawEvaluatorPolicy>(),
        def::<RawRoutingPolicy>(),
    ]
    .into_iter()
    .collect();
    defs.insert(
        "hooks".to_owned(),
        json!({"type": ["object", "null"], "properties": events, "additionalProperties": false}),
    );
    // What a toolset of a type needs besides `type`: an MCP server says where it is (a
    // command, a remote URL or a `ref`).
    defs["toolset"]["allOf"] = json!([
        {
            "if": {"properties": {"type": {"const": "mcp"}}, "required": ["type"]},
            "then": {"anyOf": [{"required": ["command"]}, {"required": ["remote"]}, {"required": ["ref"]}]},
        },
        {
            "if": {"properties": {"type": {"const": "api"}}, "required": ["type"]},
            "then": {"required": ["api_config"]},
        },
        {
            "if": {"properties": {"type": {"const": "openapi"}}, "required": ["type"]},
            "then": {"required": ["url"]},
        },
        {
            "if": {"properties": {"type": {"const": "model_picker"}}, "required": ["type"]},
            "then": {"required": ["models"]},
        },
        {
            "if": {"properties": {"type": {"const": "webhook"}}, "required": ["type"]},
            "then": {"required": ["webhook_config"]},
        },
        {
            "if": {"properties": {"type": {"const": "open_url"}}, "required": ["type"]},
            "then": {"required": ["url"]},
        },
    ]);
    defs["model"]["properties"]["provider"]["examples"] = json!(KNOWN_PROVIDERS.as_slice());
    let mut root = object(FILE_FIELDS);
    root["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    root["$id"] = json!("https://tether.dev/schema/agent-file.json");
    root["title"] = json!("Tether agent file");
    root["description"] = json!(
        "An agent file (docker-agent's format): agents, models, permissions and lifecycle hooks."
    );
    root["$defs"] = Value::Object(defs);
    root
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load_str;

    /// The keys the strict loader accepts where `yaml` has an unknown key `zzz`.
    fn accepted_keys(yaml: &str) -> Vec<String> {
        let err = load_str(yaml, "a.yaml", std::path::Path::new("."))
            .unwrap_err()
            .to_string();
        let list = err
            .split("expected one of ")
            .nth(1)
            .unwrap_or_else(|| panic!("{err}"))
            .lines()
            .next()
            .unwrap();
        let mut keys: Vec<String> = list.split(", ").map(|k| k.trim().to_owned()).collect();
        keys.sort();
        keys
    }

    fn names(fields: &[Field]) -> Vec<String> {
        let mut n: Vec<String> = fields.iter().map(|f| f.name.to_owned()).collect();
        n.sort();
        n
    }

    #[test]
    fn every_table_matches_what_the_loader_accepts() {
        let cases: [(&str, &[Field]); 25] = [
            (
                "agents:\n  root:\n    routing: {zzz: 1}\n",
                AGENT_ROUTING_FIELDS,
            ),
            (
                "evaluators:\n  e:\n    zzz: 1\nagents:\n  root: {}\n",
                EVALUATOR_FIELDS,
            ),
            (
                "agents:\n  root:\n    hooks:\n      pre_tool_use:\n        - hooks:\n            - type: evaluator\n              evaluator_policy: {zzz: 1}\n",
                EVALUATOR_POLICY_FIELDS,
            ),
            (
                "agents:\n  root:\n    hooks:\n      stop:\n        - type: evaluator\n          routing_policy: {zzz: 1}\n",
                ROUTING_POLICY_FIELDS,
            ),
            (
                "providers:\n  p:\n    zzz: 1\nagents:\n  root: {}\n",
                PROVIDER_FIELDS,
            ),
            (
                "models:\n  m:\n    routing:\n      - zzz: 1\nagents:\n  root: {}\n",
                ROUTING_RULE_FIELDS,
            ),
            (
                "agents:\n  root:\n    fallback: {zzz: 1}\n",
                FALLBACK_FIELDS,
            ),
            ("budget: {zzz: 1}\nagents:\n  root: {}\n", BUDGET_FIELDS),
            ("runtime: {zzz: 1}\nagents:\n  root: {}\n", RUNTIME_FIELDS),
            ("agents:\n  root:\n    cache: {zzz: 1}\n", CACHE_FIELDS),
            (
                "models:\n  m:\n    provider: openai\n    model: gpt-4o\n    cost: {zzz: 1}\nagents:\n  root: {}\n",
                COST_FIELDS,
            ),
            (
                "agents:\n  root:\n    structured_output: {zzz: 1}\n",
                STRUCTURED_OUTPUT_FIELDS,
            ),
            (
                "agents:\n  root:\n    toolsets:\n      - type: api\n        api_config: {zzz: 1}\n",
                API_CONFIG_FIELDS,
            ),
            (
                "agents:\n  root:\n    toolsets:\n      - type: filesystem\n        post_edit: [{zzz: 1}]\n",
                POST_EDIT_FIELDS,
            ),
            ("zzz: 1\nagents:\n  root: {}\n", FILE_FIELDS),
            ("agents:\n  root:\n    zzz: 1\n", AGENT_FIELDS),
            (
                "agents:\n  root:\n    toolsets:\n      - zzz: 1\n",
                TOOLSET_FIELDS,
            ),
            (
                "models:\n  m:\n    zzz: 1\nagents:\n  root: {}\n",
                MODEL_FIELDS,
            ),
            (
                "permissions:\n  zzz: []\nagents:\n  root: {}\n",
                PERMISSIONS_FIELDS,
            ),
            (
                "agents:\n  root:\n    hooks:\n      pre_tool_use:\n        - zzz: 1\n",
                MATCHER_FIELDS,
            ),
            (
                "agents:\n  root:\n    hooks:\n      stop:\n        - zzz: 1\n",
                HOOK_FIELDS,
            ),
            (
                "mcps:\n  m:\n    zzz: 1\nagents:\n  root: {}\n",
                MCP_SERVER_FIELDS,
            ),
            (
                "agents:\n  root:\n    toolsets:\n      - type: mcp\n        remote: {zzz: 1}\n",
                MCP_REMOTE_FIELDS,
            ),
            (
                "agents:\n  root:\n    toolsets:\n      - type: mcp\n        lifecycle: {zzz: 1}\n",
                MCP_LIFECYCLE_FIELDS,
            ),
            (
                "agents:\n  root:\n    toolsets:\n      - type: mcp\n        lifecycle: {backoff: {zzz: 1}}\n",
                MCP_BACKOFF_FIELDS,
            ),
        ];
        for (yaml, fields) in cases {
            assert_eq!(accepted_keys(yaml), names(fields), "{yaml}");
        }
    }

    #[test]
    fn the_schema_lists_every_event() {
        let schema = agent_file_schema();
        let events = schema["$defs"]["hooks"]["properties"].as_object().unwrap();
        assert_eq!(events.len(), 32);
        assert_eq!(
            events["pre_tool_use"]["items"]["$ref"],
            "#/$defs/matcher_entry"
        );
        assert_eq!(events["stop"]["items"]["$ref"], "#/$defs/hook");
    }

    /// Every field row, with the object it belongs to.
    fn all_fields() -> Vec<(&'static str, &'static Field)> {
        let tables: [(&str, &[Field]); 27] = [
            ("file", FILE_FIELDS),
            ("cache", CACHE_FIELDS),
            ("runtime", RUNTIME_FIELDS),
            ("budget", BUDGET_FIELDS),
            ("evaluator", EVALUATOR_FIELDS),
            ("evaluator_policy", EVALUATOR_POLICY_FIELDS),
            ("routing_policy", ROUTING_POLICY_FIELDS),
            ("agent", AGENT_FIELDS),
            ("script", SCRIPT_FIELDS),
            ("toolset", TOOLSET_FIELDS),
            ("api_config", API_CONFIG_FIELDS),
            ("post_edit", POST_EDIT_FIELDS),
            ("webhook_config", WEBHOOK_CONFIG_FIELDS),
            ("mcp_server", MCP_SERVER_FIELDS),
            ("mcp_remote", MCP_REMOTE_FIELDS),
            ("mcp_lifecycle", MCP_LIFECYCLE_FIELDS),
            ("mcp_backoff", MCP_BACKOFF_FIELDS),
            ("model", MODEL_FIELDS),
            ("provider", PROVIDER_FIELDS),
            ("routing_rule", ROUTING_RULE_FIELDS),
            ("agent_routing", AGENT_ROUTING_FIELDS),
            ("cost", COST_FIELDS),
            ("fallback", FALLBACK_FIELDS),
            ("structured_output", STRUCTURED_OUTPUT_FIELDS),
            ("permissions", PERMISSIONS_FIELDS),
            ("matcher_entry", MATCHER_FIELDS),
            ("hook", HOOK_FIELDS),
        ];
        tables
            .into_iter()
            .flat_map(|(object, fields)| fields.iter().map(move |f| (object, f)))
            .collect()
    }

    #[test]
    fn every_field_has_a_one_line_doc_comment() {
        for (object, f) in all_fields() {
            assert!(
                f.doc.ends_with('.') && !f.doc.contains('\n') && f.doc.trim() == f.doc,
                "{object}.{}: {:?}",
                f.name,
                f.doc
            );
        }
    }

    #[test]
    fn doc_comment_lines_join_with_one_space() {
        let f = TOOLSET_FIELDS.iter().find(|f| f.name == "defer").unwrap();
        assert_eq!(
            f.doc,
            "`true` or a list of tool names: kept out of the model's list until `add_tool` activates them (`search_tool` finds them)."
        );
    }

    #[test]
    fn shapes_follow_the_rust_types() {
        use crate::raw::{OrderedMap, RawDefer, Scalar};
        assert_eq!(
            <Option<Spanned<Vec<Spanned<String>>>>>::SHAPE,
            FieldType::StringList
        );
        assert_eq!(<Option<Vec<Scalar>>>::SHAPE, FieldType::ScalarList);
        assert_eq!(
            <Option<Vec<Spanned<RawToolset>>>>::SHAPE,
            FieldType::RefList("toolset")
        );
        assert_eq!(
            <Option<Spanned<OrderedMap<Spanned<RawAgent>>>>>::SHAPE,
            FieldType::RefMap("agent")
        );
        assert_eq!(
            <Option<OrderedMap<Spanned<Scalar>>>>::SHAPE,
            FieldType::StringMap
        );
        assert_eq!(<Option<BTreeMap<String, Value>>>::SHAPE, FieldType::Any);
        assert_eq!(<Option<OrderedMap<Spanned<Value>>>>::SHAPE, FieldType::Any);
        assert_eq!(
            <Option<Spanned<RawDefer>>>::SHAPE,
            FieldType::OneOf(&[FieldType::Boolean, FieldType::StringList])
        );
    }

    #[test]
    fn renames_overrides_and_requirements_come_from_the_declaration() {
        let hook_type = HOOK_FIELDS[0];
        assert_eq!(hook_type.name, "type");
        assert!(hook_type.required);
        assert_eq!(
            hook_type.ty,
            FieldType::Enum(&crate::hooks::HookKind::TYPE_NAMES)
        );
        let run_async = HOOK_FIELDS.iter().find(|f| f.name == "async").unwrap();
        assert_eq!(
            (run_async.ty, run_async.required),
            (FieldType::Boolean, false)
        );
        let schema = agent_file_schema();
        assert_eq!(schema["required"], json!(["agents"]));
        assert_eq!(
            schema["$defs"]["api_config"]["required"],
            json!(["name", "endpoint", "method"])
        );
        assert_eq!(
            schema["$defs"]["toolset"]["properties"]["type"]["enum"],
            json!(crate::ToolsetKind::NAMES)
        );
    }

    /// Every `$ref` in `node`.
    fn refs(node: &Value, out: &mut Vec<String>) {
        match node {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    out.push(r.trim_start_matches("#/$defs/").to_owned());
                }
                m.values().for_each(|v| refs(v, out));
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }

    #[test]
    fn every_reference_has_a_definition_and_every_definition_is_used() {
        let schema = agent_file_schema();
        let mut used = Vec::new();
        refs(&schema, &mut used);
        used.sort();
        used.dedup();
        let mut defined: Vec<String> = schema["$defs"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        // serde_json may keep insertion order (a dependency enables `preserve_order`).
        defined.sort();
        assert_eq!(used, defined);
    }
}

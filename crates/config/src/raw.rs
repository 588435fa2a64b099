//! The agent file exactly as written: strict serde structs (`deny_unknown_fields`), with spans
//! on every value a later validation error may need to point at. Nothing here is interpreted;
//! `validate` turns these into the public types.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::LazyLock;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_saphyr::Spanned;
use tether_protocol::HookEvent;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawAgentFile {
    pub(crate) version: Option<Scalar>,
    pub(crate) agents: Option<Spanned<OrderedMap<Spanned<RawAgent>>>>,
    pub(crate) models: Option<OrderedMap<Spanned<RawModel>>>,
    pub(crate) permissions: Option<RawPermissions>,
    pub(crate) metadata: Option<BTreeMap<String, serde_json::Value>>,
    /// Reusable MCP servers, referenced from toolsets by `ref: NAME`.
    pub(crate) mcps: Option<OrderedMap<Spanned<RawMcpDef>>>,
    /// Endpoints and defaults that models name as their `provider`.
    pub(crate) providers: Option<OrderedMap<Spanned<RawProvider>>>,
    /// Toolsets defined once, added to agents by `use_toolsets`.
    pub(crate) toolsets: Option<OrderedMap<Spanned<RawToolset>>>,
    /// Command groups defined once, added to agents by `use_commands`.
    pub(crate) commands: Option<OrderedMap<Spanned<serde_json::Value>>>,
    /// Read only to say that RAG is not supported yet.
    pub(crate) rag: Option<Spanned<serde_json::Value>>,
    /// Named classifiers that `type: evaluator` hooks call.
    pub(crate) evaluators: Option<OrderedMap<Spanned<RawEvaluator>>>,
    /// The run's ceilings, whichever agent spends.
    pub(crate) budget: Option<Spanned<RawBudget>>,
    /// Named ceilings agents opt into with `budgets`.
    pub(crate) budgets: Option<OrderedMap<Spanned<RawBudget>>>,
    /// Skill groups agents add with `use_skills`.
    pub(crate) skills: Option<OrderedMap<Spanned<serde_json::Value>>>,
    /// Defaults for running the file.
    pub(crate) runtime: Option<Spanned<RawRuntime>>,
}

/// An agent's `cache:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawCache {
    pub(crate) enabled: Option<bool>,
    pub(crate) case_sensitive: Option<bool>,
    pub(crate) trim_spaces: Option<bool>,
    pub(crate) path: Option<String>,
}

/// `runtime:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRuntime {
    pub(crate) safety: Option<Spanned<String>>,
    pub(crate) sandbox: Option<Spanned<bool>>,
    pub(crate) network_allowlist: Option<Spanned<Vec<String>>>,
}

/// `budget` / `budgets.NAME`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawBudget {
    pub(crate) max_cost: Option<f64>,
    pub(crate) max_tokens: Option<i64>,
    pub(crate) max_time: Option<String>,
}

/// An `evaluators:` entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEvaluator {
    #[serde(rename = "type")]
    pub(crate) kind: Option<Spanned<String>>,
    pub(crate) provider: Option<Spanned<String>>,
    pub(crate) model: Option<Spanned<String>>,
    pub(crate) instructions: Option<Spanned<String>>,
    pub(crate) choices: Option<Spanned<OrderedMap<Spanned<String>>>>,
    pub(crate) levels: Option<Spanned<Vec<String>>>,
    pub(crate) timeout: Option<Spanned<Scalar>>,
    pub(crate) cost: Option<Spanned<serde_json::Value>>,
    pub(crate) base_url: Option<Spanned<String>>,
    pub(crate) endpoint: Option<Spanned<String>>,
    pub(crate) token_key: Option<Spanned<String>>,
    pub(crate) bypass_models_gateway: Option<Spanned<bool>>,
}

/// `evaluator_policy:` of a `type: evaluator` hook.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEvaluatorPolicy {
    pub(crate) decisions: Option<Spanned<OrderedMap<Spanned<String>>>>,
    pub(crate) min_probability: Option<Spanned<f64>>,
    pub(crate) fallback: Option<Spanned<String>>,
}

/// `routing_policy:` of a `type: evaluator` hook.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRoutingPolicy {
    pub(crate) routes: Option<Spanned<OrderedMap<Spanned<String>>>>,
    pub(crate) min_probability: Option<Spanned<f64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawAgent {
    pub(crate) model: Option<Spanned<String>>,
    pub(crate) description: Option<String>,
    pub(crate) instruction: Option<String>,
    pub(crate) instruction_file: Option<Spanned<String>>,
    pub(crate) toolsets: Option<Vec<Spanned<RawToolset>>>,
    pub(crate) sub_agents: Option<Vec<Spanned<String>>>,
    pub(crate) handoffs: Option<Vec<Spanned<String>>>,
    pub(crate) force_handoff: Option<Spanned<String>>,
    pub(crate) max_iterations: Option<Spanned<i64>>,
    pub(crate) max_consecutive_tool_calls: Option<Spanned<i64>>,
    pub(crate) num_history_items: Option<Spanned<i64>>,
    pub(crate) add_date: Option<bool>,
    pub(crate) add_environment_info: Option<bool>,
    pub(crate) add_prompt_files: Option<Vec<String>>,
    pub(crate) redact_secrets: Option<bool>,
    pub(crate) commands: Option<Spanned<serde_json::Value>>,
    pub(crate) welcome_message: Option<String>,
    pub(crate) readonly: Option<bool>,
    pub(crate) use_toolsets: Option<Vec<Spanned<String>>>,
    pub(crate) use_commands: Option<Vec<Spanned<String>>>,
    pub(crate) max_tool_result_tokens: Option<Spanned<i64>>,
    pub(crate) max_old_tool_call_tokens: Option<Spanned<i64>>,
    pub(crate) budgets: Option<Vec<Spanned<String>>>,
    pub(crate) add_prompt_files_depth: Option<Spanned<i64>>,
    pub(crate) add_description_parameter: Option<bool>,
    pub(crate) code_mode_tools: Option<bool>,
    pub(crate) session_compaction: Option<bool>,
    pub(crate) compaction_model: Option<Spanned<String>>,
    pub(crate) compaction_threshold: Option<Spanned<f64>>,
    pub(crate) safety: Option<Spanned<String>>,
    pub(crate) routing: Option<Spanned<RawAgentRouting>>,
    pub(crate) fallback: Option<Spanned<RawFallback>>,
    pub(crate) structured_output: Option<Spanned<RawStructuredOutput>>,
    pub(crate) skills: Option<Spanned<serde_json::Value>>,
    pub(crate) use_skills: Option<Vec<Spanned<String>>>,
    pub(crate) cache: Option<Spanned<RawCache>>,
    /// Read only to say that RAG is not supported yet.
    pub(crate) rag: Option<Spanned<serde_json::Value>>,
    pub(crate) hooks: Option<RawHooks>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawToolset {
    #[serde(rename = "type")]
    pub(crate) kind: Option<Spanned<String>>,
    pub(crate) tools: Option<Vec<Spanned<String>>>,
    pub(crate) safer: Option<Spanned<bool>>,
    pub(crate) instruction: Option<String>,
    pub(crate) env: Option<BTreeMap<String, Scalar>>,
    // Every toolset type.
    pub(crate) name: Option<Spanned<String>>,
    pub(crate) defer: Option<Spanned<RawDefer>>,
    pub(crate) readonly: Option<Spanned<bool>>,
    pub(crate) toon: Option<Spanned<String>>,
    pub(crate) model: Option<Spanned<String>>,
    // `type: mcp`.
    #[serde(rename = "ref")]
    pub(crate) reference: Option<Spanned<String>>,
    pub(crate) command: Option<Spanned<String>>,
    pub(crate) args: Option<Spanned<Vec<Scalar>>>,
    pub(crate) remote: Option<Spanned<RawRemote>>,
    pub(crate) config: Option<Spanned<serde_json::Value>>,
    pub(crate) version: Option<Spanned<Scalar>>,
    pub(crate) working_dir: Option<Spanned<String>>,
    pub(crate) lifecycle: Option<Spanned<RawLifecycle>>,
    pub(crate) allow_private_ips: Option<Spanned<bool>>,
    // `type: memory`.
    pub(crate) path: Option<Spanned<String>>,
    // `type: fetch`.
    pub(crate) timeout: Option<Spanned<i64>>,
    pub(crate) allowed_domains: Option<Spanned<Vec<Spanned<String>>>>,
    pub(crate) blocked_domains: Option<Spanned<Vec<Spanned<String>>>>,
    pub(crate) escape_html: Option<Spanned<bool>>,
    // `type: script`.
    pub(crate) shell: Option<Spanned<OrderedMap<Spanned<RawScript>>>>,
    // `type: api`.
    pub(crate) api_config: Option<Spanned<RawApiConfig>>,
    // `type: openapi`.
    pub(crate) url: Option<Spanned<String>>,
    pub(crate) headers: Option<Spanned<OrderedMap<Spanned<Scalar>>>>,
    pub(crate) max_output_bytes: Option<Spanned<i64>>,
    // `type: todo`.
    pub(crate) shared: Option<Spanned<bool>>,
    // `type: filesystem`.
    pub(crate) post_edit: Option<Spanned<Vec<Spanned<RawPostEdit>>>>,
    pub(crate) ignore_vcs: Option<Spanned<bool>>,
    pub(crate) allow_list: Option<Spanned<Vec<Spanned<String>>>>,
    pub(crate) deny_list: Option<Spanned<Vec<Spanned<String>>>>,
    // `type: model_picker`.
    pub(crate) models: Option<Spanned<Vec<Spanned<String>>>>,
}

/// `api_config:` of a `type: api` toolset.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawApiConfig {
    pub(crate) name: Option<Spanned<String>>,
    pub(crate) instruction: Option<String>,
    pub(crate) endpoint: Option<Spanned<String>>,
    pub(crate) method: Option<Spanned<String>>,
    pub(crate) headers: Option<OrderedMap<Spanned<Scalar>>>,
    pub(crate) args: Option<OrderedMap<serde_json::Value>>,
    pub(crate) required: Option<Vec<Spanned<String>>>,
    pub(crate) output_schema: Option<Spanned<serde_json::Value>>,
}

/// A `post_edit:` entry of a `type: filesystem` toolset.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPostEdit {
    pub(crate) path: Option<Spanned<String>>,
    pub(crate) cmd: Option<String>,
}

/// One named command of a `type: script` toolset.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawScript {
    pub(crate) cmd: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) args: Option<OrderedMap<serde_json::Value>>,
    pub(crate) required: Option<Vec<String>>,
    pub(crate) env: Option<BTreeMap<String, Scalar>>,
    pub(crate) working_dir: Option<String>,
}

/// A `mcps:` entry: an MCP server defined once (docker-agent's `MCPToolset`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawMcpDef {
    pub(crate) command: Option<Spanned<String>>,
    pub(crate) args: Option<Spanned<Vec<Scalar>>>,
    #[serde(rename = "ref")]
    pub(crate) reference: Option<Spanned<String>>,
    pub(crate) remote: Option<Spanned<RawRemote>>,
    pub(crate) config: Option<Spanned<serde_json::Value>>,
    pub(crate) version: Option<Spanned<Scalar>>,
    pub(crate) env: Option<BTreeMap<String, Scalar>>,
    pub(crate) tools: Option<Vec<Spanned<String>>>,
    pub(crate) instruction: Option<String>,
    pub(crate) name: Option<Spanned<String>>,
    pub(crate) defer: Option<Spanned<RawDefer>>,
    pub(crate) working_dir: Option<Spanned<String>>,
    pub(crate) lifecycle: Option<Spanned<RawLifecycle>>,
}

/// `remote:` of an MCP toolset.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRemote {
    pub(crate) url: Option<Spanned<String>>,
    pub(crate) transport_type: Option<Spanned<String>>,
    pub(crate) headers: Option<OrderedMap<Spanned<Scalar>>>,
    pub(crate) oauth: Option<Spanned<serde_json::Value>>,
}

/// `lifecycle:` of an MCP toolset.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawLifecycle {
    pub(crate) profile: Option<Spanned<String>>,
    pub(crate) required: Option<bool>,
    pub(crate) startup_timeout: Option<Spanned<Scalar>>,
    pub(crate) call_timeout: Option<Spanned<Scalar>>,
    pub(crate) restart: Option<Spanned<String>>,
    pub(crate) max_restarts: Option<Spanned<i64>>,
    pub(crate) backoff: Option<RawBackoff>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawBackoff {
    pub(crate) initial: Option<Spanned<Scalar>>,
    pub(crate) max: Option<Spanned<Scalar>>,
    pub(crate) multiplier: Option<Spanned<f64>>,
    pub(crate) jitter: Option<Spanned<f64>>,
}

/// `defer: true` (every tool) or a list of tool names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RawDefer {
    All(bool),
    Tools(Vec<String>),
}

impl<'de> Deserialize<'de> for RawDefer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct DeferVisitor;
        impl<'de> Visitor<'de> for DeferVisitor {
            type Value = RawDefer;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("true, false or a list of tool names")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<RawDefer, E> {
                Ok(RawDefer::All(v))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<RawDefer, A::Error> {
                let mut tools = Vec::new();
                while let Some(name) = seq.next_element::<String>()? {
                    tools.push(name);
                }
                Ok(RawDefer::Tools(tools))
            }
        }
        d.deserialize_any(DeferVisitor)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawModel {
    pub(crate) provider: Option<Spanned<String>>,
    pub(crate) model: Option<Spanned<String>>,
    pub(crate) description: Option<String>,
    pub(crate) base_url: Option<String>,
    pub(crate) token_key: Option<String>,
    pub(crate) max_tokens: Option<Spanned<i64>>,
    pub(crate) temperature: Option<f64>,
    pub(crate) top_p: Option<f64>,
    pub(crate) frequency_penalty: Option<f64>,
    pub(crate) presence_penalty: Option<f64>,
    pub(crate) parallel_tool_calls: Option<bool>,
    pub(crate) track_usage: Option<bool>,
    pub(crate) thinking_budget: Option<Spanned<serde_json::Value>>,
    pub(crate) routing: Option<Vec<Spanned<RawRoutingRule>>>,
    pub(crate) first_available: Option<Vec<Spanned<String>>>,
    pub(crate) provider_opts: Option<serde_json::Map<String, serde_json::Value>>,
    pub(crate) cost: Option<Spanned<RawCost>>,
    pub(crate) compaction_model: Option<Spanned<String>>,
    pub(crate) compaction_threshold: Option<Spanned<f64>>,
}

/// `cost`: USD per million tokens.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawCost {
    pub(crate) input: Option<f64>,
    pub(crate) output: Option<f64>,
    pub(crate) cache_read: Option<f64>,
    pub(crate) cache_write: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRoutingRule {
    pub(crate) model: Option<Spanned<String>>,
    pub(crate) examples: Option<Vec<String>>,
}

/// A `providers:` entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawProvider {
    pub(crate) provider: Option<Spanned<String>>,
    pub(crate) api_type: Option<Spanned<String>>,
    pub(crate) base_url: Option<String>,
    pub(crate) token_key: Option<String>,
    pub(crate) unload_api: Option<String>,
    pub(crate) compaction_model: Option<Spanned<String>>,
    pub(crate) max_tokens: Option<Spanned<i64>>,
    pub(crate) temperature: Option<f64>,
    pub(crate) top_p: Option<f64>,
    pub(crate) frequency_penalty: Option<f64>,
    pub(crate) presence_penalty: Option<f64>,
    pub(crate) parallel_tool_calls: Option<bool>,
    pub(crate) track_usage: Option<bool>,
    pub(crate) thinking_budget: Option<Spanned<serde_json::Value>>,
    pub(crate) provider_opts: Option<serde_json::Map<String, serde_json::Value>>,
}

/// `routing:` of an agent: where its before_agent_run / after_agent_complete hooks may send
/// the run.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawAgentRouting {
    pub(crate) allowed_agents: Option<Vec<Spanned<String>>>,
    pub(crate) default_agent: Option<Spanned<String>>,
}

/// `fallback:` of an agent.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawFallback {
    pub(crate) models: Option<Vec<Spanned<String>>>,
    pub(crate) retries: Option<Spanned<i64>>,
    pub(crate) cooldown: Option<Spanned<Scalar>>,
}

/// `structured_output:` of an agent.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawStructuredOutput {
    pub(crate) name: Option<Spanned<String>>,
    pub(crate) description: Option<String>,
    pub(crate) schema: Option<Spanned<serde_json::Value>>,
    pub(crate) strict: Option<bool>,
    pub(crate) mode: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawPermissions {
    pub(crate) allow: Option<Vec<Spanned<String>>>,
    pub(crate) ask: Option<Vec<Spanned<String>>>,
    pub(crate) deny: Option<Vec<Spanned<String>>>,
}

/// `hooks:` — a map from event name to that event's list, whose shape depends on the event.
#[derive(Debug, Default)]
pub(crate) struct RawHooks(pub(crate) Vec<(HookEvent, RawEventHooks)>);

#[derive(Debug)]
pub(crate) enum RawEventHooks {
    Matched(Vec<Spanned<RawMatcherEntry>>),
    Flat(Vec<Spanned<RawHookDef>>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawMatcherEntry {
    pub(crate) matcher: Option<Spanned<String>>,
    pub(crate) hooks: Option<Vec<Spanned<RawHookDef>>>,
    pub(crate) preempt_yolo: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawHookDef {
    #[serde(rename = "type")]
    pub(crate) kind: Option<Spanned<String>>,
    pub(crate) command: Option<Spanned<String>>,
    pub(crate) args: Option<Vec<Scalar>>,
    pub(crate) timeout: Option<i64>,
    pub(crate) name: Option<String>,
    pub(crate) working_dir: Option<String>,
    pub(crate) env: Option<BTreeMap<String, Scalar>>,
    pub(crate) on_error: Option<Spanned<String>>,
    pub(crate) model: Option<Spanned<String>>,
    pub(crate) prompt: Option<Spanned<String>>,
    pub(crate) schema: Option<Spanned<String>>,
    pub(crate) url: Option<Spanned<String>>,
    pub(crate) headers: Option<OrderedMap<Spanned<String>>>,
    pub(crate) allowed_env: Option<Vec<Spanned<String>>>,
    #[serde(rename = "async")]
    pub(crate) run_async: Option<Spanned<bool>>,
    pub(crate) dialect: Option<Spanned<String>>,
    /// `type: mcp`: the agent's MCP toolset the hook calls, and the tool.
    pub(crate) server: Option<Spanned<String>>,
    pub(crate) tool: Option<Spanned<String>>,
    /// `type: mcp`: the tool's arguments; string values may hold `${path}` references to
    /// the hook Input. Absent: the whole Input.
    pub(crate) input: Option<Spanned<serde_json::Value>>,
    pub(crate) strict_output: Option<Spanned<bool>>,
    /// `type: model`: the literal system message.
    pub(crate) system_prompt: Option<Spanned<String>>,
    /// `type: evaluator`: the `evaluators:` entry and what its answer means.
    pub(crate) evaluator: Option<Spanned<String>>,
    pub(crate) evaluator_policy: Option<Spanned<RawEvaluatorPolicy>>,
    pub(crate) routing_policy: Option<Spanned<RawRoutingPolicy>>,
}

static EVENT_NAMES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| HookEvent::ALL.iter().map(|e| e.wire_name()).collect());

impl<'de> Deserialize<'de> for RawHooks {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct HooksVisitor;
        impl<'de> Visitor<'de> for HooksVisitor {
            type Value = RawHooks;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map from hook event names to lists of hooks")
            }
            fn visit_unit<E: de::Error>(self) -> Result<RawHooks, E> {
                Ok(RawHooks::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawHooks, A::Error> {
                let mut out = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    let Some(event) = HookEvent::from_wire_name(&key) else {
                        return Err(de::Error::unknown_field(&key, EVENT_NAMES.as_slice()));
                    };
                    let hooks = if event.uses_matcher() {
                        RawEventHooks::Matched(
                            map.next_value::<Option<Vec<_>>>()?.unwrap_or_default(),
                        )
                    } else {
                        RawEventHooks::Flat(map.next_value::<Option<Vec<_>>>()?.unwrap_or_default())
                    };
                    out.push((event, hooks));
                }
                Ok(RawHooks(out))
            }
        }
        d.deserialize_map(HooksVisitor)
    }
}

/// A map that keeps the order keys were written in (`agents:` order picks the default agent).
#[derive(Debug, Clone)]
pub(crate) struct OrderedMap<V>(pub(crate) Vec<(String, V)>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MapVisitor<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for MapVisitor<V> {
            type Value = OrderedMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_unit<E: de::Error>(self) -> Result<OrderedMap<V>, E> {
                Ok(OrderedMap(Vec::new()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedMap<V>, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, V>()? {
                    out.push((k, v));
                }
                Ok(OrderedMap(out))
            }
        }
        d.deserialize_map(MapVisitor(PhantomData))
    }
}

/// A scalar written as a string, number or boolean (`version: 2`, `PROFILE: dev`, `args: [50]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Scalar(pub(crate) String);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ScalarVisitor;
        impl Visitor<'_> for ScalarVisitor {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string, number or boolean")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Scalar, E> {
                Ok(Scalar(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
        }
        d.deserialize_any(ScalarVisitor)
    }
}

//! Hooks (`hooks:` of an agent, the user config and drop-ins) and the evaluators their
//! `type: evaluator` hooks call.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::LazyLock;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_saphyr::Spanned;
use tether_protocol::HookEvent;

use super::{OrderedMap, Scalar};
use crate::hooks::{Dialect, HookKind, OnError};
use crate::schema::{FieldType, FieldType as T, Shape};

/// `hooks:` — a map from event name to that event's list, whose shape depends on the event.
#[derive(Debug, Default)]
pub(crate) struct RawHooks(pub(crate) Vec<(HookEvent, RawEventHooks)>);

#[derive(Debug)]
pub(crate) enum RawEventHooks {
    Matched(Vec<Spanned<RawMatcherEntry>>),
    Flat(Vec<Spanned<RawHookDef>>),
}

described! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "matcher_entry")]
    pub(crate) struct RawMatcherEntry {
        /// A regex over the tool name, anchored (`^(?:…)$`); absent, `""` or `*` match every tool.
        pub(crate) matcher: Option<Spanned<String>>,
        /// The hooks to run (at least one).
        #[schema(required)]
        pub(crate) hooks: Option<Vec<Spanned<RawHookDef>>>,
        /// `pre_tool_use` only: run before `--yolo` and permission rules; any failure or block is a
        /// deny.
        pub(crate) preempt_yolo: Option<bool>,
    }
}

described! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "hook")]
    pub(crate) struct RawHookDef {
        /// What runs (required).
        #[serde(rename = "type")]
        #[schema(required, ty = T::Enum(&HookKind::TYPE_NAMES))]
        pub(crate) kind: Option<Spanned<String>>,
        /// `command`: shell text run with `$SHELL -c`; `builtin`: the builtin's name.
        pub(crate) command: Option<Spanned<String>>,
        /// Builtin parameters (part of the de-duplication key for every type).
        pub(crate) args: Option<Vec<Scalar>>,
        /// Seconds (default 60; 0 or less means the default).
        pub(crate) timeout: Option<i64>,
        /// A display name for logs and notices.
        pub(crate) name: Option<String>,
        /// Where the hook runs; relative paths join the working directory.
        pub(crate) working_dir: Option<String>,
        /// Variables added to the hook's environment.
        pub(crate) env: Option<BTreeMap<String, Scalar>>,
        /// What a failing hook does on events that do not fail closed (default warn).
        #[schema(ty = T::Enum(&OnError::NAMES))]
        pub(crate) on_error: Option<Spanned<String>>,
        /// `model`: `provider/model` or a `models:` name.
        pub(crate) model: Option<Spanned<String>>,
        /// `model`: a Go text/template over the hook Input.
        pub(crate) prompt: Option<Spanned<String>>,
        /// `model`: the reply shape (`pre_tool_use_decision`; absent = free text as context);
        /// `policy`: a Cedar schema file the policies are validated against at load.
        pub(crate) schema: Option<Spanned<String>>,
        /// `policy`: a file of Cedar policies, relative to the agent file.
        pub(crate) policy: Option<Spanned<String>>,
        /// `policy`: Cedar policies written inline, instead of `policy`.
        pub(crate) policy_text: Option<Spanned<String>>,
        /// `http`: the URL the Input is POSTed to (http or https).
        pub(crate) url: Option<Spanned<String>>,
        /// `http`: request headers; `${VAR}` only for variables in `allowed_env`.
        pub(crate) headers: Option<OrderedMap<Spanned<String>>>,
        /// `http`: variables `headers` may expand.
        pub(crate) allowed_env: Option<Vec<Spanned<String>>>,
        /// Start and do not wait (observational events only).
        #[serde(rename = "async")]
        pub(crate) run_async: Option<Spanned<bool>>,
        /// `command` / `http`: `claude` gives the hook Claude Code's event and tool names and input
        /// keys (`tool_input.command`, `file_path`), maps its `updatedInput` back and reads its
        /// verdicts as Claude Code does, so Claude Code hook scripts run unchanged.
        #[schema(ty = T::Enum(&Dialect::NAMES))]
        pub(crate) dialect: Option<Spanned<String>>,
        /// `mcp`: the agent's MCP server to call (a toolset's `name` or `ref` name).
        pub(crate) server: Option<Spanned<String>>,
        /// `mcp`: the tool to call.
        pub(crate) tool: Option<Spanned<String>>,
        /// `mcp`: the tool's arguments, `${path}` strings filled from the Input; absent = the whole
        /// Input.
        pub(crate) input: Option<Spanned<serde_json::Value>>,
        /// stdout must be empty or one JSON Output object with only the keys the event reads;
        /// anything else is a hook failure (`on_error` applies; fail-closed events deny).
        pub(crate) strict_output: Option<Spanned<bool>>,
        /// `model`: the literal system message, replacing the default one (not a template).
        pub(crate) system_prompt: Option<Spanned<String>>,
        /// `evaluator`: the `evaluators:` entry to call.
        pub(crate) evaluator: Option<Spanned<String>>,
        /// `evaluator` on pre_tool_use (guarding events): the choice's decision.
        pub(crate) evaluator_policy: Option<Spanned<RawEvaluatorPolicy>>,
        /// `evaluator` on before_agent_run / after_agent_complete: the choice's agent.
        pub(crate) routing_policy: Option<Spanned<RawRoutingPolicy>>,
        /// `command`: start the command once per session and write each event's Input to its
        /// stdin as one line of JSON; it answers each with one line of Output JSON.
        pub(crate) persistent: Option<Spanned<bool>>,
        /// `command`: run in a sandbox: `true` (the default profile), `best_effort` (what the
        /// kernel offers), `false`, or a map extending the default profile (`write`,
        /// `deny_read`, `network`, `best_effort`, `cpu_seconds`, `address_space_mb`,
        /// `open_files`, `processes`); absent = the user's `settings.hooks_sandbox`.
        #[schema(ty = T::OneOf(&[T::Boolean, T::Enum(&["best_effort"]), T::Any]))]
        pub(crate) sandbox: Option<Spanned<serde_json::Value>>,
    }
}

described! {
    /// An `evaluators:` entry.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "evaluator")]
    pub(crate) struct RawEvaluator {
        /// `choice` (required); `boolean` and `score` are not supported yet (a load error).
        #[serde(rename = "type")]
        #[schema(required, ty = T::Enum(&["choice", "boolean", "score"]))]
        pub(crate) kind: Option<Spanned<String>>,
        /// A provider Tether knows or a `providers:` entry: the classifier is `PROVIDER/MODEL`.
        /// `typesafe` is not supported yet.
        pub(crate) provider: Option<Spanned<String>>,
        /// The classifier: a `models:` name or `provider/model`; with `provider`, the provider's
        /// model id.
        #[schema(required)]
        pub(crate) model: Option<Spanned<String>>,
        /// The question or rubric the evaluator answers (required).
        #[schema(required)]
        pub(crate) instructions: Option<Spanned<String>>,
        /// `type: choice`: 2 to 255 outcome keys, each with a description.
        pub(crate) choices: Option<Spanned<OrderedMap<Spanned<String>>>>,
        /// `type: score` only: not supported yet (a load error).
        pub(crate) levels: Option<Spanned<Vec<String>>>,
        /// Bounds one classifier call: a duration (`3s`) or seconds (default 10s; 0 = default).
        pub(crate) timeout: Option<Spanned<Scalar>>,
        /// Evaluator pricing: not supported yet (a load error).
        pub(crate) cost: Option<Spanned<serde_json::Value>>,
        /// The classifier's API endpoint (its chat API), instead of its provider's.
        pub(crate) base_url: Option<Spanned<String>>,
        /// A vendor classification URL: not supported yet (a load error); use `base_url`.
        pub(crate) endpoint: Option<Spanned<String>>,
        /// The variable holding the classifier's API key.
        pub(crate) token_key: Option<Spanned<String>>,
        /// Not supported yet (a load error): Tether has no models gateway.
        pub(crate) bypass_models_gateway: Option<Spanned<bool>>,
    }
}

described! {
    /// `evaluator_policy:` of a `type: evaluator` hook.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "evaluator_policy")]
    pub(crate) struct RawEvaluatorPolicy {
        /// Choice keys mapped to `allow`, `ask` or `deny`.
        #[schema(required)]
        pub(crate) decisions: Option<Spanned<OrderedMap<Spanned<String>>>>,
        /// Above 0, at most 1: below it (or for an unmapped choice) `fallback` applies.
        #[schema(required)]
        pub(crate) min_probability: Option<Spanned<f64>>,
        /// The decision when the evaluator is unsure or its choice has no decision.
        #[schema(required, ty = T::Enum(&["ask", "deny"]))]
        pub(crate) fallback: Option<Spanned<String>>,
    }
}

described! {
    /// `routing_policy:` of a `type: evaluator` hook.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "routing_policy")]
    pub(crate) struct RawRoutingPolicy {
        /// Every choice of the evaluator mapped to an agent of the file.
        #[schema(required)]
        pub(crate) routes: Option<Spanned<OrderedMap<Spanned<String>>>>,
        /// Above 0, at most 1: below it, on a tie or when the evaluator fails, the agent's
        /// `routing.default_agent` is used.
        #[schema(required)]
        pub(crate) min_probability: Option<Spanned<f64>>,
    }
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

/// Its definition lists the events (`crate::schema`).
impl Shape for RawHooks {
    const SHAPE: FieldType = FieldType::Ref("hooks");
}

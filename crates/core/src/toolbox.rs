//! An agent's tools: its built-in toolsets', its MCP servers' (listed when the servers start
//! and again when they say their tools changed) and the runtime's own, with each toolset's
//! options applied: `tools` (an allow-list), `readonly` (only read-only tools), `defer`
//! (hidden until `add_tool`), `toon` and `model`. With `code_mode_tools` the model sees them
//! (but `todo` tools) as one `run_tools_with_javascript` tool (crate::code_mode).
//!
//! The model-visible list is a snapshot rebuilt only when a server's tool generation or the
//! set of activated tools changes, so a model call without changes costs one lock and a clone
//! of the definitions.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use regex::Regex;
use serde_json::{Map, Value, json};
use tether_config::Defer;
use tether_mcp::McpServer;
use tether_tools::{A2aToolset, OpenApiToolset, Tool, ToolDefinition, ToolResult};

pub(crate) const SEARCH_TOOL: &str = "search_tool";
pub(crate) const ADD_TOOL: &str = "add_tool";

const DEFERRED_INSTRUCTION: &str = "## Deferred Tools\n\nUse search_tool to discover additional tools by keyword (e.g., \"remote\", \"read\", \"write\"). Use add_tool to activate a discovered tool.";

/// Where a toolset's tools come from.
#[derive(Debug)]
pub(crate) enum Source {
    Builtin(Vec<Arc<dyn Tool>>),
    Mcp(Arc<McpServer>),
    /// `type: openapi`: no tools until its document was read.
    OpenApi(Arc<OpenApiToolset>),
    /// Every `type: lsp` toolset of the agent, in the slot of the first.
    Lsp(Arc<tether_lsp::LspToolset>),
    /// `type: a2a`: no tools until the remote agent's card was read.
    A2a(Arc<A2aToolset>),
    /// `type: mcp_catalog`: its meta-tools and the servers enabled through them.
    Catalog(Arc<tether_mcp::CatalogToolset>),
}

/// The source of a `type: openapi` toolset of agent `agent`; `instruct` takes its
/// system-prompt text.
pub(crate) fn openapi_source(
    agent: &str,
    toolset: &tether_config::Toolset,
    instruct: &mut impl FnMut(&str),
) -> Result<Source, crate::error::SetupError> {
    let doc = OpenApiToolset::new(toolset).ok_or_else(|| {
        crate::error::SetupError::Config(format!(
            "agent `{agent}`: an `openapi` toolset without `url`"
        ))
    })?;
    instruct(&doc.instruction());
    Ok(Source::OpenApi(Arc::new(doc)))
}

/// The source of a `type: a2a` toolset of agent `agent`.
pub(crate) fn a2a_source(
    agent: &str,
    toolset: &tether_config::Toolset,
) -> Result<Source, crate::error::SetupError> {
    A2aToolset::new(toolset)
        .map(|t| Source::A2a(Arc::new(t)))
        .ok_or_else(|| {
            crate::error::SetupError::Config(format!(
                "agent `{agent}`: an `a2a` toolset without `url`"
            ))
        })
}

/// The source of a `type: mcp_catalog` toolset.
pub(crate) fn catalog_source(
    toolset: &tether_config::Toolset,
    mcp: &tether_mcp::McpContext,
    instruct: &mut impl FnMut(&str),
) -> Source {
    instruct(tether_mcp::CATALOG_INSTRUCTION);
    Source::Catalog(tether_mcp::CatalogToolset::new(toolset, mcp.clone()))
}

/// One `toolsets:` entry.
#[derive(Debug)]
pub(crate) struct Slot {
    pub(crate) source: Source,
    /// The toolset's `name` (MCP tools are `NAME_tool`).
    pub(crate) prefix: Option<String>,
    pub(crate) allow: Option<Vec<String>>,
    pub(crate) readonly: bool,
    pub(crate) defer: Defer,
    pub(crate) toon: Vec<Regex>,
    /// Index into [`crate::AgentRuntime::tool_models`].
    pub(crate) model: Option<usize>,
    /// The toolset's `instruction` as written (MCP: shown once the server runs, with its own
    /// instructions for `{ORIGINAL_INSTRUCTIONS}`).
    pub(crate) instruction: Option<String>,
}

impl Slot {
    /// The names a tool may be written as in `tools:` and `defer:`: its model-visible name
    /// and, for a named MCP toolset, its name on the server.
    fn written_as<'a>(&self, model_name: &'a str) -> [&'a str; 2] {
        let raw = self
            .prefix
            .as_deref()
            .and_then(|p| model_name.strip_prefix(p))
            .and_then(|r| r.strip_prefix('_'))
            .unwrap_or(model_name);
        [model_name, raw]
    }

    fn keeps(&self, def: &ToolDefinition) -> bool {
        let names = self.written_as(&def.name);
        (!self.readonly || def.read_only)
            && self
                .allow
                .as_ref()
                .is_none_or(|allow| allow.iter().any(|a| names.contains(&a.as_str())))
    }

    fn defers(&self, name: &str) -> bool {
        self.written_as(name).iter().any(|n| self.defer.covers(n))
    }

    pub(crate) fn server(&self) -> Option<&Arc<McpServer>> {
        match &self.source {
            Source::Mcp(s) => Some(s),
            Source::Builtin(_)
            | Source::OpenApi(_)
            | Source::Lsp(_)
            | Source::A2a(_)
            | Source::Catalog(_) => None,
        }
    }

    pub(crate) fn openapi(&self) -> Option<&Arc<OpenApiToolset>> {
        match &self.source {
            Source::OpenApi(d) => Some(d),
            Source::Builtin(_)
            | Source::Mcp(_)
            | Source::Lsp(_)
            | Source::A2a(_)
            | Source::Catalog(_) => None,
        }
    }

    pub(crate) fn lsp(&self) -> Option<&Arc<tether_lsp::LspToolset>> {
        match &self.source {
            Source::Lsp(set) => Some(set),
            Source::Builtin(_)
            | Source::Mcp(_)
            | Source::OpenApi(_)
            | Source::A2a(_)
            | Source::Catalog(_) => None,
        }
    }

    pub(crate) fn catalog(&self) -> Option<&Arc<tether_mcp::CatalogToolset>> {
        match &self.source {
            Source::Catalog(c) => Some(c),
            Source::Builtin(_)
            | Source::Mcp(_)
            | Source::OpenApi(_)
            | Source::Lsp(_)
            | Source::A2a(_) => None,
        }
    }

    pub(crate) fn a2a(&self) -> Option<&Arc<A2aToolset>> {
        match &self.source {
            Source::A2a(t) => Some(t),
            Source::Builtin(_)
            | Source::Mcp(_)
            | Source::OpenApi(_)
            | Source::Lsp(_)
            | Source::Catalog(_) => None,
        }
    }
}

/// One tool of the agent.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) tool: Arc<dyn Tool>,
    pub(crate) slot: usize,
}

/// The tools at one moment.
#[derive(Debug, Default)]
pub(crate) struct View {
    /// Each MCP slot's tool generation, then the number of activated tools.
    stamp: Vec<u64>,
    /// Callable tools (deferred ones only once activated), first of a name wins.
    pub(crate) tools: Vec<Entry>,
    /// Deferred tools not yet activated.
    deferred: Vec<Entry>,
    pub(crate) definitions: Vec<tether_providers::ToolDefinition>,
    /// The running MCP servers' instructions, for the system prompt.
    pub(crate) instructions: Vec<String>,
    /// Tools hidden because an earlier tool has their name.
    pub(crate) shadowed: Vec<String>,
    /// `run_tools_with_javascript`, describing the tools its scripts call (code mode only).
    pub(crate) code_mode: Option<ToolDefinition>,
}

impl View {
    /// The tools of slot `index` (callable and deferred), with whether each is deferred.
    pub(crate) fn entries(&self, index: usize) -> impl Iterator<Item = (&Entry, bool)> {
        self.tools
            .iter()
            .map(|e| (e, false))
            .chain(self.deferred.iter().map(|e| (e, true)))
            .filter(move |(e, _)| e.slot == index)
    }
}

/// The agent's tools; see the module doc.
#[derive(Debug)]
pub(crate) struct Toolbox {
    pub(crate) slots: Vec<Slot>,
    /// `transfer_task`, `handoff`, `search_tool` and `add_tool`, run by the runtime.
    pub(crate) runtime_tools: Vec<ToolDefinition>,
    view: RwLock<Arc<View>>,
    activated: Mutex<BTreeSet<String>>,
    /// `add_description_parameter`: every tool takes an optional `description` of why it is
    /// called (seen by hooks, removed before the tool runs).
    pub(crate) describe_calls: bool,
    /// `code_mode_tools`: scripts call the tools; the model calls `run_tools_with_javascript`.
    code_mode: bool,
}

/// The argument `add_description_parameter` adds.
pub(crate) const WHY: &str = "description";

/// `parameters` with an optional `description` string, unless the tool has its own.
fn with_why(mut parameters: Value) -> Value {
    if let Some(props) = parameters
        .as_object_mut()
        .map(|o| o.entry("properties").or_insert_with(|| json!({})))
        .and_then(Value::as_object_mut)
        && !props.contains_key(WHY)
    {
        props.insert(
            WHY.to_owned(),
            json!({"type": "string", "description": "Why you are calling this tool, in one sentence."}),
        );
    }
    parameters
}

impl Toolbox {
    /// Arguments every tool takes besides its own: `add_description_parameter`'s
    /// `description`.
    pub(crate) fn extra_arguments(&self) -> &'static [&'static str] {
        if self.describe_calls { &[WHY] } else { &[] }
    }
}

/// Whether `d`'s own schema has a `description` argument (then it is the tool's, not ours).
pub(crate) fn owns_why(d: &ToolDefinition) -> bool {
    d.parameters
        .get("properties")
        .and_then(|p| p.get(WHY))
        .is_some()
}

fn definition(d: &ToolDefinition) -> tether_providers::ToolDefinition {
    tether_providers::ToolDefinition {
        name: d.name.clone(),
        description: d.description.clone(),
        parameters: d.parameters.clone(),
    }
}

/// `text` with `{ORIGINAL_INSTRUCTIONS}` replaced by `original`; `None` when both are empty.
pub(crate) fn instruction(written: Option<&str>, original: Option<&str>) -> Option<String> {
    match written {
        Some(w) if w.contains("{ORIGINAL_INSTRUCTIONS}") => {
            Some(w.replace("{ORIGINAL_INSTRUCTIONS}", original.unwrap_or("")))
        }
        Some(w) => Some(w.to_owned()),
        None => original.map(str::to_owned),
    }
    .filter(|s| !s.trim().is_empty())
}

impl Toolbox {
    pub(crate) fn new(slots: Vec<Slot>, mut runtime_tools: Vec<ToolDefinition>) -> Self {
        if slots.iter().any(|s| s.defer != Defer::None) {
            runtime_tools.push(search_tool_definition());
            runtime_tools.push(add_tool_definition());
        }
        let toolbox = Self {
            slots,
            runtime_tools,
            view: RwLock::new(Arc::new(View::default())),
            activated: Mutex::new(BTreeSet::new()),
            describe_calls: false,
            code_mode: false,
        };
        let view = toolbox.build(toolbox.stamp());
        *toolbox.view.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(view);
        toolbox
    }

    /// Turns `add_description_parameter` on.
    pub(crate) fn describing_calls(mut self) -> Self {
        self.describe_calls = true;
        let view = self.build(self.stamp());
        *self.view.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(view);
        self
    }

    /// Turns `code_mode_tools` on.
    pub(crate) fn code_mode(mut self) -> Self {
        self.code_mode = true;
        let view = self.build(self.stamp());
        *self.view.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(view);
        self
    }

    /// The tools a code-mode script calls: every callable tool but the `todo` ones, then the
    /// runtime's (`transfer_task`, `search_tool`, …), as docker-agent wraps them.
    pub(crate) fn scripted<'v>(
        &'v self,
        view: &'v View,
    ) -> impl Iterator<Item = &'v ToolDefinition> {
        view.tools
            .iter()
            .map(|e| e.tool.definition())
            .chain(self.runtime_tools.iter())
            .filter(|d| d.category != tether_codemode::DIRECT_CATEGORY)
    }

    /// The system-prompt text for deferred tools, when there are any.
    pub(crate) fn deferred_instruction(&self) -> Option<&'static str> {
        self.runtime_tools
            .iter()
            .any(|d| d.name == SEARCH_TOOL)
            .then_some(DEFERRED_INSTRUCTION)
    }

    pub(crate) fn servers(&self) -> impl Iterator<Item = &Arc<McpServer>> {
        self.slots.iter().filter_map(Slot::server)
    }

    pub(crate) fn openapis(&self) -> impl Iterator<Item = &Arc<OpenApiToolset>> {
        self.slots.iter().filter_map(Slot::openapi)
    }

    pub(crate) fn lsps(&self) -> impl Iterator<Item = &Arc<tether_lsp::LspToolset>> {
        self.slots.iter().filter_map(Slot::lsp)
    }

    pub(crate) fn a2as(&self) -> impl Iterator<Item = &Arc<A2aToolset>> {
        self.slots.iter().filter_map(Slot::a2a)
    }

    pub(crate) fn catalogs(&self) -> impl Iterator<Item = &Arc<tether_mcp::CatalogToolset>> {
        self.slots.iter().filter_map(Slot::catalog)
    }

    pub(crate) fn view(&self) -> Arc<View> {
        Arc::clone(&self.view.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn stamp(&self) -> Vec<u64> {
        let activated = self
            .activated
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len() as u64;
        self.servers()
            .map(|s| s.generation())
            .chain(self.openapis().map(|d| u64::from(d.loaded())))
            .chain(self.lsps().map(|l| l.generation()))
            .chain(self.a2as().map(|t| u64::from(t.loaded())))
            .chain(self.catalogs().map(|c| c.generation()))
            .chain([activated])
            .collect()
    }

    /// Rebuilds the view if a server's tools or the activated set changed.
    pub(crate) fn refresh_view(&self) -> Arc<View> {
        let stamp = self.stamp();
        let current = self.view();
        if current.stamp == stamp {
            return current;
        }
        let view = Arc::new(self.build(stamp));
        *self.view.write().unwrap_or_else(PoisonError::into_inner) = Arc::clone(&view);
        view
    }

    fn build(&self, stamp: Vec<u64>) -> View {
        let activated = self
            .activated
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let mut view = View {
            stamp,
            ..View::default()
        };
        let mut seen: BTreeSet<String> =
            self.runtime_tools.iter().map(|d| d.name.clone()).collect();
        for (index, slot) in self.slots.iter().enumerate() {
            let tools: Vec<Arc<dyn Tool>> = match &slot.source {
                Source::Builtin(tools) => tools.clone(),
                Source::OpenApi(doc) => doc.tools(),
                Source::Lsp(set) => set.tools(),
                Source::Catalog(catalog) => catalog.tools(),
                Source::A2a(remote) => {
                    if let Some(text) = remote.instruction().and_then(|card| {
                        instruction(slot.instruction.as_deref(), Some(card.as_str()))
                    }) {
                        view.instructions.push(text);
                    }
                    remote.tools()
                }
                Source::Mcp(server) => {
                    let original = server.instructions();
                    if server.generation() > 0
                        && let Some(text) =
                            instruction(slot.instruction.as_deref(), original.as_deref())
                    {
                        view.instructions.push(text);
                    }
                    server.tools().to_vec()
                }
            };
            for tool in tools {
                let def = tool.definition();
                if !slot.keeps(def) {
                    continue;
                }
                let name = def.name.clone();
                if !seen.insert(name.clone()) {
                    view.shadowed.push(name);
                    continue;
                }
                let deferred = slot.defers(&name) && !activated.contains(&name);
                let entry = Entry { tool, slot: index };
                if deferred {
                    view.deferred.push(entry);
                } else {
                    view.tools.push(entry);
                }
            }
        }
        if self.code_mode {
            view.code_mode = Some(crate::runtime_tools::code_mode_definition(
                self.scripted(&view),
            ));
        }
        let direct: Vec<&ToolDefinition> = match &view.code_mode {
            Some(def) => std::iter::once(def)
                .chain(
                    view.tools
                        .iter()
                        .map(|e| e.tool.definition())
                        .filter(|d| d.category == tether_codemode::DIRECT_CATEGORY),
                )
                .collect(),
            None => view
                .tools
                .iter()
                .map(|e| e.tool.definition())
                .chain(self.runtime_tools.iter())
                .collect(),
        };
        view.definitions = direct
            .into_iter()
            .map(definition)
            .map(|mut d| {
                if self.describe_calls {
                    d.parameters = with_why(d.parameters);
                }
                d
            })
            .collect();
        view
    }

    /// `search_tool`: deferred tools whose name or description holds `query`.
    pub(crate) fn search(&self, args: &Map<String, Value>) -> ToolResult {
        let query = args.get("query").and_then(Value::as_str).unwrap_or("");
        let needle = query.to_lowercase();
        let view = self.refresh_view();
        let found: Vec<Value> = view
            .deferred
            .iter()
            .map(|e| e.tool.definition())
            .filter(|d| {
                d.name.to_lowercase().contains(&needle)
                    || d.description.to_lowercase().contains(&needle)
            })
            .map(|d| json!({"name": d.name, "description": d.description}))
            .collect();
        if found.is_empty() {
            return ToolResult::error(format!("No deferred tools found matching '{query}'"));
        }
        ToolResult::ok(format!(
            "Found {} deferred tool(s):\n{}",
            found.len(),
            Value::Array(found)
        ))
    }

    /// `add_tool`: makes a deferred tool callable from the next model call on.
    pub(crate) fn add(&self, args: &Map<String, Value>) -> ToolResult {
        let name = args.get("name").and_then(Value::as_str).unwrap_or("");
        let view = self.refresh_view();
        if view.tools.iter().any(|e| e.tool.definition().name == name) {
            return ToolResult::ok(format!("Tool '{name}' is already active"));
        }
        let Some(entry) = view
            .deferred
            .iter()
            .find(|e| e.tool.definition().name == name)
        else {
            return ToolResult::error(format!("Tool '{name}' not found."));
        };
        self.activated
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.to_owned());
        ToolResult::ok(format!(
            "Tool '{name}' has been activated and is now available for use.\n\nDescription: {}",
            entry.tool.definition().description
        ))
    }
}

fn search_tool_definition() -> ToolDefinition {
    ToolDefinition {
        name: SEARCH_TOOL.to_owned(),
        description: "Search for available deferred tools by name or description. Use this to discover tools that can be activated.".to_owned(),
        parameters: json!({
            "type": "object",
            "properties": {"query": {"type": "string", "description": "Search query to find tools by name or description (case-insensitive)"}},
            "required": ["query"],
            "additionalProperties": false
        }),
        read_only: true,
        category: "deferred",
    }
}

fn add_tool_definition() -> ToolDefinition {
    ToolDefinition {
        name: ADD_TOOL.to_owned(),
        description: "Activate a deferred tool by name, making it available for use. Use search_tool first to find available tools.".to_owned(),
        parameters: json!({
            "type": "object",
            "properties": {"name": {"type": "string", "description": "The name of the tool to activate"}},
            "required": ["name"],
            "additionalProperties": false
        }),
        read_only: true,
        category: "deferred",
    }
}

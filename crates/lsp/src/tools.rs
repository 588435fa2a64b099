//! docker-agent's `lsp_*` tools over every `type: lsp` toolset of an agent: one set of tools,
//! each call routed to the server whose `file_types` take its `file`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use tether_tools::{Tool, ToolContext, ToolDefinition, ToolResult};

use crate::ops;
use crate::server::LspServer;

/// The tools, in docker-agent's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Workspace,
    Hover,
    Definition,
    References,
    DocumentSymbols,
    WorkspaceSymbols,
    Diagnostics,
    Rename,
    CodeActions,
    Format,
    CallHierarchy,
    TypeHierarchy,
    Implementations,
    SignatureHelp,
    InlayHints,
}

impl Kind {
    pub(crate) const ALL: [Self; 15] = [
        Self::Workspace,
        Self::Hover,
        Self::Definition,
        Self::References,
        Self::DocumentSymbols,
        Self::WorkspaceSymbols,
        Self::Diagnostics,
        Self::Rename,
        Self::CodeActions,
        Self::Format,
        Self::CallHierarchy,
        Self::TypeHierarchy,
        Self::Implementations,
        Self::SignatureHelp,
        Self::InlayHints,
    ];

    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::Workspace => "lsp_workspace",
            Self::Hover => "lsp_hover",
            Self::Definition => "lsp_definition",
            Self::References => "lsp_references",
            Self::DocumentSymbols => "lsp_document_symbols",
            Self::WorkspaceSymbols => "lsp_workspace_symbols",
            Self::Diagnostics => "lsp_diagnostics",
            Self::Rename => "lsp_rename",
            Self::CodeActions => "lsp_code_actions",
            Self::Format => "lsp_format",
            Self::CallHierarchy => "lsp_call_hierarchy",
            Self::TypeHierarchy => "lsp_type_hierarchy",
            Self::Implementations => "lsp_implementations",
            Self::SignatureHelp => "lsp_signature_help",
            Self::InlayHints => "lsp_inlay_hints",
        }
    }

    /// The server capability the tool needs and the method a server may register for it
    /// instead; `None` for the tools every server has.
    pub(crate) const fn capability(self) -> Option<(&'static str, &'static str)> {
        Some(match self {
            Self::Workspace | Self::Diagnostics => return None,
            Self::Hover => ("hoverProvider", "textDocument/hover"),
            Self::Definition => ("definitionProvider", "textDocument/definition"),
            Self::References => ("referencesProvider", "textDocument/references"),
            Self::DocumentSymbols => ("documentSymbolProvider", "textDocument/documentSymbol"),
            Self::WorkspaceSymbols => ("workspaceSymbolProvider", "workspace/symbol"),
            Self::Rename => ("renameProvider", "textDocument/rename"),
            Self::CodeActions => ("codeActionProvider", "textDocument/codeAction"),
            Self::Format => ("documentFormattingProvider", "textDocument/formatting"),
            Self::CallHierarchy => ("callHierarchyProvider", "textDocument/prepareCallHierarchy"),
            Self::TypeHierarchy => ("typeHierarchyProvider", "textDocument/prepareTypeHierarchy"),
            Self::Implementations => ("implementationProvider", "textDocument/implementation"),
            Self::SignatureHelp => ("signatureHelpProvider", "textDocument/signatureHelp"),
            Self::InlayHints => ("inlayHintProvider", "textDocument/inlayHint"),
        })
    }

    const fn read_only(self) -> bool {
        !matches!(self, Self::Rename | Self::Format)
    }

    const fn description(self) -> &'static str {
        match self {
            Self::Workspace => {
                "Get workspace info and LSP server capabilities. Use at session start to discover available features. Takes no arguments."
            }
            Self::Hover => {
                "Get type signature, documentation, and hover info for a symbol at a given position."
            }
            Self::Definition => {
                "Find the definition location of a symbol. Returns file path and line number."
            }
            Self::References => {
                "Find all references to a symbol across the codebase. IMPORTANT: You MUST use this before modifying any symbol definition. Set include_declaration to false to exclude the definition itself."
            }
            Self::DocumentSymbols => {
                "List all symbols (functions, types, methods, variables, etc.) defined in a file as a hierarchical list."
            }
            Self::WorkspaceSymbols => {
                "Search for symbols across the workspace using fuzzy matching. Primary tool for locating symbols."
            }
            Self::Diagnostics => {
                "Get compiler errors, warnings, and hints for a file. IMPORTANT: You MUST call this after every code modification on edited files. Use lsp_code_actions for suggested fixes."
            }
            Self::Rename => {
                "Rename a symbol across the entire workspace. WRITE operation - modifies files on disk. Run lsp_diagnostics on modified files afterward."
            }
            Self::CodeActions => {
                "Get available code actions (quick fixes, refactorings) for a line or range. Use after lsp_diagnostics reports errors."
            }
            Self::Format => {
                "Format a file according to language standards. WRITE operation - modifies the file on disk. Only format after lsp_diagnostics reports no errors."
            }
            Self::CallHierarchy => {
                "Analyze the call hierarchy of a function or method. Direction: 'incoming' (who calls this) or 'outgoing' (what this calls)."
            }
            Self::TypeHierarchy => {
                "Analyze the type hierarchy. Direction: 'supertypes' (parent types) or 'subtypes' (child types)."
            }
            Self::Implementations => {
                "Find all concrete implementations of an interface or abstract method. IMPORTANT: You MUST use this before modifying interfaces to find all implementations needing updates."
            }
            Self::SignatureHelp => {
                "Get function signature and parameter information at a call site. Position the cursor inside a function call's parentheses."
            }
            Self::InlayHints => {
                "Get inlay hints (type annotations, parameter names) for a file or line range. Omit start_line/end_line to get hints for the entire file."
            }
        }
    }

    fn parameters(self) -> Value {
        let file = json!({"type": "string", "description": "Absolute path to the source file"});
        let line = json!({"type": "integer", "description": "Line number (1-based)"});
        let character =
            json!({"type": "integer", "description": "Character position on the line (1-based)"});
        let mut props = Map::new();
        let mut required: Vec<&str> = Vec::new();
        let mut add = |name: &'static str, schema: Value, req: bool| {
            props.insert(name.to_owned(), schema);
            if req {
                required.push(name);
            }
        };
        let position = matches!(
            self,
            Self::Hover
                | Self::Definition
                | Self::References
                | Self::Rename
                | Self::CallHierarchy
                | Self::TypeHierarchy
                | Self::Implementations
                | Self::SignatureHelp
        );
        if position {
            add("file", file.clone(), true);
            add("line", line, true);
            add("character", character, true);
        }
        match self {
            Self::Workspace => {}
            Self::DocumentSymbols | Self::Diagnostics | Self::Format => add("file", file, true),
            Self::WorkspaceSymbols => add(
                "query",
                json!({"type": "string", "description": "Search query to filter symbols (supports fuzzy matching)"}),
                true,
            ),
            Self::References => add(
                "include_declaration",
                json!({"type": "boolean", "description": "Include the declaration in results (default: true)"}),
                false,
            ),
            Self::Rename => add(
                "new_name",
                json!({"type": "string", "description": "The new name for the symbol"}),
                true,
            ),
            Self::CodeActions => {
                add("file", file, true);
                add(
                    "start_line",
                    json!({"type": "integer", "description": "Start line of the range (1-based)"}),
                    true,
                );
                add(
                    "end_line",
                    json!({"type": "integer", "description": "End line of the range (1-based, defaults to start_line)"}),
                    false,
                );
            }
            Self::CallHierarchy => add(
                "direction",
                json!({"type": "string", "enum": ["incoming", "outgoing"], "description": "Direction: 'incoming' (who calls this) or 'outgoing' (what this calls)"}),
                true,
            ),
            Self::TypeHierarchy => add(
                "direction",
                json!({"type": "string", "enum": ["supertypes", "subtypes"], "description": "Direction: 'supertypes' (parent types) or 'subtypes' (child types)"}),
                true,
            ),
            Self::InlayHints => {
                add("file", file, true);
                add(
                    "start_line",
                    json!({"type": "integer", "description": "Start line of range (1-based, default: 1)"}),
                    false,
                );
                add(
                    "end_line",
                    json!({"type": "integer", "description": "End line of range (1-based, default: end of file)"}),
                    false,
                );
            }
            Self::Hover | Self::Definition | Self::Implementations | Self::SignatureHelp => {}
        }
        json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
    }
}

/// docker-agent's system-prompt text for the LSP tools.
pub const LSP_INSTRUCTION: &str = "# LSP Code Intelligence Tools

Stateless code intelligence tools via Language Server Protocol. Just provide file path and position.

## Getting Started

Use lsp_workspace at the start of every session to learn about the workspace and available capabilities.

## Read Workflow

1. **Find symbols**: Use lsp_workspace_symbols for fuzzy search. Example: lsp_workspace_symbols({\"query\":\"server\"})
2. **Understand file structure**: Use lsp_document_symbols for a hierarchical symbol list
3. **Inspect symbols**: Use lsp_hover for type signatures and documentation
4. **Navigate**: Use lsp_definition to jump to definitions
5. **Understand dependencies**: Use lsp_call_hierarchy (outgoing) or lsp_type_hierarchy (supertypes)

## Edit Workflow

1. **Read first**: Follow the Read Workflow to understand relevant code
2. **Find references**: Before modifying any symbol definition, you MUST use lsp_references to find all usages. Example: lsp_references({\"file\":\"/path/to/file.go\", \"line\": 42, \"character\": 15})
3. **Check implementations**: Before modifying interfaces, use lsp_implementations to find all concrete implementations
4. **Make edits**: Apply all planned changes
5. **Check errors**: After every modification, you MUST call lsp_diagnostics on edited files. Use lsp_code_actions for suggested fixes. Ignore irrelevant hint/info diagnostics
6. **Format**: Once error-free, use lsp_format for consistent style

## Position Format

Line and character positions are 1-based.";

/// Every `type: lsp` toolset of one agent: its servers and the tools over them.
#[derive(Debug)]
pub struct LspToolset {
    servers: Arc<[Arc<LspServer>]>,
    tools: Vec<Arc<LspTool>>,
}

impl LspToolset {
    pub fn new(servers: Vec<Arc<LspServer>>) -> Self {
        let servers: Arc<[Arc<LspServer>]> = servers.into();
        let tools = Kind::ALL
            .iter()
            .map(|&kind| {
                Arc::new(LspTool {
                    kind,
                    servers: Arc::clone(&servers),
                    definition: ToolDefinition {
                        name: kind.name().to_owned(),
                        description: kind.description().to_owned(),
                        parameters: kind.parameters(),
                        read_only: kind.read_only(),
                        category: "lsp",
                    },
                })
            })
            .collect();
        Self { servers, tools }
    }

    pub fn servers(&self) -> &[Arc<LspServer>] {
        &self.servers
    }

    /// Starts every server not running (all at once); one error line per server that failed.
    pub async fn start(&self) -> Vec<String> {
        let results =
            futures::future::join_all(self.servers.iter().map(|s| s.ensure_started())).await;
        results.into_iter().filter_map(Result::err).collect()
    }

    /// Changes when a server started again (its capabilities, and so the tools, may change).
    pub fn generation(&self) -> u64 {
        self.servers.iter().map(|s| s.starts()).sum()
    }

    /// Stops every server.
    pub async fn stop(&self) {
        futures::future::join_all(self.servers.iter().map(|s| s.stop())).await;
    }

    /// The tools some server can answer: a tool whose capability no started server declares
    /// is hidden (a server that never started hides nothing: its calls say why it is down).
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools
            .iter()
            .filter(|t| self.servers.iter().any(|s| t.answers(s)))
            .map(|t| Arc::clone(t) as Arc<dyn Tool>)
            .collect()
    }
}

/// One `lsp_*` tool.
#[derive(Debug)]
pub struct LspTool {
    kind: Kind,
    servers: Arc<[Arc<LspServer>]>,
    definition: ToolDefinition,
}

impl Tool for LspTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let run = async {
                match self.kind {
                    Kind::Workspace | Kind::WorkspaceSymbols => {
                        let servers: Vec<Arc<LspServer>> = self
                            .servers
                            .iter()
                            .filter(|s| self.answers(s))
                            .cloned()
                            .collect();
                        Ok(ops::broadcast(&servers, self.kind, args).await)
                    }
                    kind => {
                        let file = file_arg(args, ctx.working_dir)?;
                        let server = self.route(&file)?;
                        ops::on_file(server, kind, &file, args).await
                    }
                }
            };
            tokio::select! {
                r = run => r.unwrap_or_else(ToolResult::error),
                () = ctx.cancel.cancelled() => ToolResult::error("cancelled"),
            }
        })
    }
}

impl LspTool {
    /// Whether `server`'s toolset keeps this tool and the server declares it (or never
    /// started: its calls say why).
    fn answers(&self, server: &LspServer) -> bool {
        server.keeps(&self.definition.name, self.definition.read_only)
            && match (self.kind.capability(), server.last_known()) {
                (Some((provider, method)), Some(r)) => r.offers(provider, method),
                _ => true,
            }
    }

    /// The first server that takes `file` and can answer this tool.
    fn route(&self, file: &Path) -> Result<&Arc<LspServer>, String> {
        let mut handling = self.servers.iter().filter(|s| s.handles(file)).peekable();
        if handling.peek().is_none() {
            return Err(format!(
                "no LSP server configured for file: {}",
                file.display()
            ));
        }
        let mut first = None;
        for s in handling {
            first.get_or_insert(s);
            if self.answers(s) {
                return Ok(s);
            }
        }
        Err(format!(
            "the language server `{}` for {} does not support {}",
            first
                .map(|s| s.config().command.as_str())
                .unwrap_or_default(),
            file.display(),
            self.kind.name()
        ))
    }
}

/// The `file` argument: a path (relative ones against the working directory) to an existing
/// regular file, made canonical so that it matches the paths the servers report.
fn file_arg(args: &Map<String, Value>, working_dir: &Path) -> Result<PathBuf, String> {
    let file = match args.get("file") {
        Some(Value::String(s)) if !s.trim().is_empty() => s,
        Some(Value::String(_)) | None => return Err("file argument is required".to_owned()),
        Some(_) => return Err("`file` must be a string".to_owned()),
    };
    if file.contains('\0') {
        return Err("`file` holds a NUL byte".to_owned());
    }
    let path = working_dir.join(file);
    let real = std::fs::canonicalize(&path).map_err(|e| format!("cannot open {file}: {e}"))?;
    if !real.is_file() {
        return Err(format!("{file} is not a regular file"));
    }
    Ok(real)
}

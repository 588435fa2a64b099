//! `type: lsp`: a language server whose answers become the agent's `lsp_*` tools.

/// One `type: lsp` toolset's server.
#[derive(Debug, Clone, PartialEq)]
pub struct LspServer {
    /// The program (looked up on `PATH` when it holds no `/`).
    pub command: String,
    pub args: Vec<String>,
    /// Set for the server on top of this process's environment.
    pub env: Vec<(String, String)>,
    /// The extensions it takes, lowercase with their dot (`.py`); empty: every file.
    pub file_types: Vec<String>,
    /// Where it runs, relative to the working directory (the workspace root it is given
    /// stays the working directory).
    pub working_dir: Option<String>,
    /// docker-agent's auto-install package: named in the error when `command` is missing.
    pub version: Option<String>,
}

//! `type: rag` toolsets (and agents' `rag:` entries): the source's search tool, its
//! embedding models resolved like any model reference of the file, its documents watched.

use std::sync::Arc;

use tether_config::{AgentFile, Toolset};
use tether_providers::{Env, build_embedder};
use tether_rag::{Rag, RagTool};
use tether_tools::Tool;

use crate::error::SetupError;
use crate::toolbox::Source;

/// The search tool of `toolset`'s source; its system-prompt text goes to `instruct`.
pub(crate) fn source(
    file: &AgentFile,
    toolset: &Toolset,
    env: &dyn Env,
    instruct: &mut dyn FnMut(&str),
) -> Result<Source, SetupError> {
    let Some(source) = &toolset.rag else {
        return Err(SetupError::Config(
            "a `rag` toolset without a source".to_owned(),
        ));
    };
    let embedder = |reference: &str| {
        let cfg = file
            .resolve_model(reference)
            .ok_or_else(|| format!("unknown model `{reference}`"))?;
        let spec = crate::models::spec_of(cfg, Some(file.dir.clone()));
        build_embedder(&spec, env).map_err(|e| e.to_string())
    };
    let rag = Rag::new(Arc::clone(source), &embedder)
        .map_err(|e| SetupError::Config(format!("RAG source `{}`: {e}", source.name)))?;
    rag.watch()
        .map_err(|e| SetupError::Config(format!("RAG source `{}`: {e}", source.name)))?;
    let tool = RagTool::new(Arc::new(rag));
    instruct(&tool.instruction());
    Ok(Source::Builtin(vec![Arc::new(tool) as Arc<dyn Tool>]))
}

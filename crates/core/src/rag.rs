//! `type: rag` toolsets (and agents' `rag:` entries): the source's search tool, its
//! embedding, summary and reranking models resolved like any model reference of the file,
//! its documents watched and indexed in the background from the start.

use std::sync::Arc;

use tether_config::{AgentFile, Toolset};
use tether_providers::{Env, ModelSpec, build_embedder, build_provider, build_reranker};
use tether_rag::{Models, Rag, RagTool};
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
    let spec = |reference: &str| -> Result<ModelSpec, String> {
        let cfg = file
            .resolve_model(reference)
            .ok_or_else(|| format!("unknown model `{reference}`"))?;
        Ok(crate::models::spec_of(cfg, Some(file.dir.clone())))
    };
    let embedder = |r: &str| build_embedder(&spec(r)?, env).map_err(|e| e.to_string());
    let chat = |r: &str| build_provider(&spec(r)?, env).map_err(|e| e.to_string());
    let reranker = |r: &str| build_reranker(&spec(r)?, env).map_err(|e| e.to_string());
    let models = Models {
        embedder: &embedder,
        chat: &chat,
        reranker: &reranker,
    };
    let rag = Rag::with_models(Arc::clone(source), models)
        .map_err(|e| SetupError::Config(format!("RAG source `{}`: {e}", source.name)))?;
    rag.watch()
        .map_err(|e| SetupError::Config(format!("RAG source `{}`: {e}", source.name)))?;
    rag.index_in_background();
    let tool = RagTool::new(Arc::new(rag));
    instruct(&tool.instruction());
    Ok(Source::Builtin(vec![Arc::new(tool) as Arc<dyn Tool>]))
}

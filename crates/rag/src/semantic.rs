//! The `semantic-embeddings` strategy's summaries: a chat model explains each chunk, and what
//! is embedded is that explanation under the chunk's file path (and its definitions, when
//! code-aware chunking found some), so queries in plain words meet code that never uses
//! them. The chunk itself is what a result returns; the text that was embedded is kept
//! beside it in the database. Prompt, placeholders, fallback and the 2,000-character cap
//! follow docker-agent.

use std::path::Path;
use std::sync::Arc;

use futures::StreamExt;
use tether_protocol::chat::Message;
use tether_providers::{ChatRequest, Provider, complete};

use crate::RagError;
use crate::chunk::Symbols;

/// docker-agent's default prompt.
pub(crate) const DEFAULT_PROMPT: &str =
    "You are summarizing source code for semantic search and RAG.

File path: ${path}
Chunk index: ${chunk_index}
${ast_context}

```
${content}
```

In 2-4 sentences, explain what this code does. Be specific about identifiers:
- Name the exact functions, types, and methods involved
- Mention key dependencies or libraries used (e.g., \"uses yaml.Strict()\", \"calls http.Get()\")
- Describe inputs, outputs, and notable behavior

Don't paraphrase - say \"Parse() unmarshals YAML into Config\" not \"parses data into a struct\".
Include error handling patterns and edge cases if present.";

/// The longest text embedded, in characters (embedding models' input limits).
const MAX_INPUT: usize = 2000;

/// Writes the summaries of one strategy.
#[derive(Debug)]
pub(crate) struct Summariser {
    pub(crate) model: Arc<dyn Provider>,
    pub(crate) prompt: String,
    pub(crate) ast_context: bool,
    /// Summaries requested at once.
    pub(crate) concurrency: usize,
}

/// One chunk to summarise.
pub(crate) struct Piece<'a> {
    pub(crate) index: usize,
    pub(crate) content: &'a str,
    pub(crate) symbols: &'a Symbols,
}

impl Summariser {
    /// The text to embed for each piece of `path`, in order.
    pub(crate) async fn inputs(
        &self,
        path: &Path,
        pieces: &[Piece<'_>],
    ) -> Result<Vec<String>, RagError> {
        let shown = path.to_string_lossy();
        // Collected first: a lazy `map` inside the stream trips `Send` inference.
        let calls: Vec<_> = pieces.iter().map(|p| self.input(&shown, path, p)).collect();
        let results: Vec<Result<String, RagError>> = futures::stream::iter(calls)
            .buffered(self.concurrency.max(1))
            .collect()
            .await;
        results.into_iter().collect()
    }

    async fn input(&self, shown: &str, path: &Path, piece: &Piece<'_>) -> Result<String, RagError> {
        let ast = if self.ast_context {
            piece.symbols.ast_context()
        } else {
            String::new()
        };
        let basename = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prompt = expand(
            &self.prompt,
            &[
                ("path", shown),
                ("basename", &basename),
                ("chunk_index", &piece.index.to_string()),
                ("content", piece.content),
                ("ast_context", &ast),
            ],
        );
        let req = ChatRequest {
            messages: vec![Message::user(prompt)],
            ..ChatRequest::default()
        };
        let resp = complete(self.model.as_ref(), &req)
            .await
            .map_err(|e| RagError::Model {
                model: self.model.id().to_owned(),
                message: e.to_string(),
            })?;
        let summary = resp.message.text();
        let summary = summary.trim();
        let text = if summary.is_empty() {
            // Nothing said: embed the chunk itself rather than nothing.
            piece.content.to_owned()
        } else {
            format!("File: {shown}\n{}\n{summary}", piece.symbols.header())
        };
        Ok(cap(text))
    }
}

/// `${name}` placeholders replaced by their values; any other `${…}` is left as written.
pub(crate) fn expand(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let known = after.find('}').and_then(|end| {
            let name = after[..end].trim();
            values
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (end, *v))
        });
        match known {
            Some((end, value)) => {
                out.push_str(value);
                rest = &after[end + 1..];
            }
            None => {
                out.push_str("${");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn cap(text: String) -> String {
    match text.char_indices().nth(MAX_INPUT) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn placeholders_expand_and_unknown_ones_stay() {
        let got = expand(
            "${basename}#${chunk_index}: ${content} ${env.HOME} ${",
            &[("basename", "a.go"), ("chunk_index", "2"), ("content", "x")],
        );
        assert_eq!(got, "a.go#2: x ${env.HOME} ${");
    }

    #[test]
    fn long_inputs_are_cut_between_characters() {
        let text = "é".repeat(MAX_INPUT + 5);
        let got = cap(text);
        assert_eq!(got.chars().count(), MAX_INPUT + 3);
        assert!(got.ends_with("..."));
    }
}

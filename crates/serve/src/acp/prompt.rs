//! A `session/prompt`'s content blocks as the text of one user message.

use serde_json::Value;

use super::rpc::RpcError;

/// The most of a linked local file that goes into a prompt.
const MAX_LINKED_FILE: u64 = 1024 * 1024;

/// Text as is, embedded text resources and readable `file://` links inlined with their URI;
/// images and audio are refused (we do not advertise them).
pub(crate) fn prompt_text(blocks: &[Value]) -> Result<String, RpcError> {
    let mut parts = Vec::new();
    for block in blocks {
        let field = |k: &str| block[k].as_str().unwrap_or_default();
        match field("type") {
            "text" => parts.push(field("text").to_owned()),
            "resource_link" => parts.push(link(field("name"), field("uri"))),
            "resource" => {
                let res = &block["resource"];
                let uri = res["uri"].as_str().unwrap_or_default();
                match res["text"].as_str() {
                    Some(text) => parts.push(format!(
                        "\n\n--- Resource: {uri} ---\n{text}\n--- End Resource ---\n"
                    )),
                    None => parts.push(format!(
                        "\n[Binary resource: {uri} ({})]\n",
                        res["mimeType"].as_str().unwrap_or("unknown type")
                    )),
                }
            }
            other @ ("image" | "audio") => {
                return Err(RpcError::params(format!(
                    "`{other}` content is not supported (see promptCapabilities)"
                )));
            }
            other => {
                return Err(RpcError::params(format!(
                    "unknown content block type `{other}`"
                )));
            }
        }
    }
    let text = parts.concat();
    if text.trim().is_empty() {
        return Err(RpcError::params("the prompt has no text"));
    }
    Ok(text)
}

/// A linked file: its text when it is a readable local file (the editor is on this machine),
/// else a reference the model can follow with its own tools.
fn link(name: &str, uri: &str) -> String {
    if let Some(path) = uri.strip_prefix("file://")
        && let Ok(meta) = std::fs::metadata(path)
        && meta.is_file()
        && meta.len() <= MAX_LINKED_FILE
        && let Ok(text) = std::fs::read_to_string(path)
    {
        return format!("\n\n--- File: {name} ({path}) ---\n{text}\n--- End File ---\n");
    }
    format!("\n[Referenced file: {name} (URI: {uri})]\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_become_one_message() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("notes.txt");
        std::fs::write(&file, "remember the milk").unwrap();
        let text = prompt_text(&[
            json!({"type": "text", "text": "Look:"}),
            json!({"type": "resource_link", "name": "notes.txt", "uri": format!("file://{}", file.display())}),
            json!({"type": "resource_link", "name": "gone", "uri": "file:///nope/gone"}),
            json!({"type": "resource", "resource": {"uri": "file:///a.rs", "text": "fn main() {}"}}),
        ])
        .unwrap();
        assert!(text.starts_with("Look:"), "{text}");
        assert!(text.contains("remember the milk"), "{text}");
        assert!(
            text.contains("[Referenced file: gone (URI: file:///nope/gone)]"),
            "{text}"
        );
        assert!(
            text.contains("--- Resource: file:///a.rs ---\nfn main() {}"),
            "{text}"
        );
    }

    #[test]
    fn images_unknown_blocks_and_empty_prompts_are_refused() {
        for blocks in [
            vec![json!({"type": "image", "data": "", "mimeType": "image/png"})],
            vec![json!({"type": "video"})],
            vec![json!({"type": "text", "text": "  "})],
            vec![],
        ] {
            assert!(prompt_text(&blocks).is_err(), "{blocks:?}");
        }
    }
}

//! A `tools/call` result as the model reads it, after docker-agent: text content joined as
//! sent, resource links as Markdown links, `isError` kept, `structuredContent` kept beside the
//! text (and standing in for it when the server sent no text).
//!
//! Images, audio and binary resources cannot travel in Tether's text tool results yet: each is
//! named in a bracketed line (type and size) so the model knows it was there.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use tether_tools::ToolResult;

/// What docker-agent sends when a tool produced nothing.
pub const NO_OUTPUT: &str = "no output";

pub(crate) fn render(result: CallToolResult) -> ToolResult {
    let mut text = String::new();
    for block in &result.content {
        match block {
            ContentBlock::Text(t) => text.push_str(&t.text),
            ContentBlock::Image(i) => {
                text.push_str(&media_line("image", &i.mime_type, i.data.len()));
            }
            ContentBlock::Audio(a) => {
                text.push_str(&media_line("audio", &a.mime_type, a.data.len()));
            }
            ContentBlock::ResourceLink(r) => {
                if r.name.is_empty() {
                    text.push_str(&r.uri);
                } else {
                    // Escaped so a `]` or `)` cannot break the link.
                    let name = r.name.replace(']', "\\]");
                    let uri = r.uri.replace(')', "%29");
                    text.push_str(&format!("[{name}]({uri})"));
                }
            }
            ContentBlock::Resource(e) => match &e.resource {
                ResourceContents::TextResourceContents { text: t, .. } => text.push_str(t),
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => {
                    let mime = mime_type.as_deref().unwrap_or("application/octet-stream");
                    text.push_str(&format!(
                        "[resource {uri} ({mime}, {} bytes, not shown)]",
                        blob.len() / 4 * 3
                    ));
                }
                // A content kind newer than this client: named, not dropped silently.
                _ => text.push_str("[resource of an unknown kind, not shown]"),
            },
            _ => text.push_str("[content of an unknown kind, not shown]"),
        }
    }
    let structured = result.structured_content;
    if text.is_empty()
        && let Some(s) = &structured
    {
        text = s.to_string();
    }
    if text.is_empty() {
        NO_OUTPUT.clone_into(&mut text);
    }
    ToolResult {
        content: text,
        is_error: result.is_error == Some(true),
        spool: None,
        structured,
    }
}

fn media_line(kind: &str, mime: &str, base64_len: usize) -> String {
    format!("[{kind} ({mime}, {} bytes, not shown)]", base64_len / 4 * 3)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(v: serde_json::Value) -> ToolResult {
        render(serde_json::from_value(v).unwrap())
    }

    #[test]
    fn text_blocks_join_as_sent_and_links_become_markdown() {
        let r = result(json!({"content": [
            {"type": "text", "text": "See: "},
            {"type": "resource_link", "name": "readme", "uri": "file:///README.md"},
            {"type": "text", "text": " and "},
            {"type": "resource_link", "name": "a]b", "uri": "file:///p(1).txt"},
        ]}));
        assert_eq!(
            r.content,
            "See: [readme](file:///README.md) and [a\\]b](file:///p(1%29.txt)"
        );
        assert!(!r.is_error);
    }

    #[test]
    fn media_and_blobs_are_named_text_resources_inlined() {
        let r = result(json!({"content": [
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "embedded text"}},
            {"type": "resource", "resource": {"uri": "file:///x.bin", "blob": "AAAAAAAA"}},
        ]}));
        assert_eq!(
            r.content,
            "[image (image/png, 9 bytes, not shown)][audio (audio/wav, 3 bytes, not shown)]embedded text[resource file:///x.bin (application/octet-stream, 6 bytes, not shown)]"
        );
    }

    #[test]
    fn errors_structured_content_and_empty_results() {
        let r = result(json!({"content": [{"type": "text", "text": "boom"}], "isError": true}));
        assert_eq!((r.content.as_str(), r.is_error), ("boom", true));
        let r = result(json!({"content": [], "structuredContent": {"sum": 3}}));
        assert_eq!(r.content, r#"{"sum":3}"#);
        assert_eq!(r.structured, Some(json!({"sum": 3})));
        let r = result(json!({"content": []}));
        assert_eq!(r.content, NO_OUTPUT);
    }
}

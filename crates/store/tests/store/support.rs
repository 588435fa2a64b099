//! Shared fixtures: stores on real files in temp dirs, sessions, and messages that use every
//! field of `Message`.

use std::path::{Path, PathBuf};

use serde_json::json;
use tempfile::TempDir;
use tether_protocol::chat::ImageUrl;
use tether_protocol::{ContentPart, FunctionCall, Message, ToolCall};
use tether_store::{NewSession, Store};

/// A store on a fresh file; keep the `TempDir` alive as long as the store.
pub(crate) fn temp_store() -> (TempDir, PathBuf, Store) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let store = Store::open(&path).unwrap();
    (dir, path, store)
}

pub(crate) fn new_session(id: &str, parent_id: Option<&str>) -> NewSession {
    NewSession {
        id: id.to_owned(),
        parent_id: parent_id.map(str::to_owned),
        agent: format!("agent-of-{id}"),
        working_dir: PathBuf::from(format!("/work/{id}")),
        first_prompt: Some(format!("first prompt of {id}")),
    }
}

/// A second connection to the file, for looking behind the store's back.
pub(crate) fn raw(path: &Path) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.busy_timeout(std::time::Duration::from_secs(5))
        .unwrap();
    conn
}

pub(crate) fn count_rows(path: &Path, table: &str) -> i64 {
    raw(path)
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

/// One message per shape the runtime stores, together covering every field.
pub(crate) fn every_kind_of_message() -> Vec<Message> {
    let mut with_parts = Message::user("");
    with_parts.multi_content = vec![
        ContentPart::Text {
            text: "what is in this picture?".into(),
        },
        ContentPart::ImageUrl {
            image_url: ImageUrl {
                url: "data:image/png;base64,iVBORw0KGgo=".into(),
            },
        },
    ];

    let mut thinking = Message::assistant("I will list the files, then read one.");
    thinking.reasoning_content = "The user wants a listing first.\nThen a read.".into();
    thinking.thinking_signature = "EqQBCkYIBxgCKkDsig==".into();
    thinking.name = "root".into();
    thinking.tool_calls = vec![
        ToolCall::new("call_1", "shell", r#"{"cmd":"ls -la"}"#),
        ToolCall::new("call_2", "read_file", r#"{"path":"src/ü/main.rs"}"#),
    ];
    thinking.provider_state = Some(json!({
        "type": "reasoning",
        "encrypted_content": "gAAAAB…",
        "summary": [{"type": "summary_text", "text": "listing"}],
        "n": 3,
        "ratio": 0.25,
        "none": null
    }));

    let mut legacy = Message::assistant("");
    legacy.function_call = Some(FunctionCall {
        name: "get_weather".into(),
        arguments: r#"{"city":"Paris"}"#.into(),
    });

    vec![
        Message::system("You are a careful agent.\n\tTabs, \"quotes\" and \\ survive."),
        with_parts,
        thinking,
        Message::tool_result("call_1", "shell", "total 0\ndrwxr-xr-x 2 me me 40 .", false),
        Message::tool_result("call_2", "read_file", "no such file: src/ü/main.rs", true),
        legacy,
        Message::assistant("Done. 🎉"),
    ]
}

/// A message of `len` bytes of content.
pub(crate) fn sized(len: usize, tag: usize) -> Message {
    let mut text = format!("#{tag} ");
    while text.len() < len {
        text.push_str("lorem ipsum dolor sit amet ");
    }
    text.truncate(len);
    Message::assistant(text)
}

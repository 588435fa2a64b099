//! Shared fixtures: a fresh database of either backend (a SQLite file in a temp dir, or a
//! database on a PostgreSQL server of the test's own), sessions, and messages that use every
//! field of `Message`.

use std::path::{Path, PathBuf};

use serde_json::json;
use tempfile::TempDir;
use tether_protocol::chat::ImageUrl;
use tether_protocol::{ContentPart, FunctionCall, Message, ToolCall};
use tether_store::{NewSession, Store, StoreOptions};

use crate::pg::{PgServer, PgServerExt};

/// Turns `fn name(db: &Db)` into two tests, `name::sqlite` and `name::postgres`, each on a
/// fresh database (the second skips where PostgreSQL is not installed; see `pg.rs`).
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn sqlite() {
                super::$name(&crate::support::Db::sqlite());
            }

            #[test]
            fn postgres() {
                if let Some(db) = crate::support::Db::postgres() {
                    super::$name(&db);
                }
            }
        }
    )*};
}
pub(crate) use on_both_backends;

/// A fresh, empty database that a test may open several stores on.
#[derive(Debug)]
pub(crate) enum Db {
    Sqlite { _dir: TempDir, path: PathBuf },
    Postgres { server: PgServer, url: PathBuf },
}

impl Db {
    pub(crate) fn sqlite() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions.db");
        Self::Sqlite { _dir: dir, path }
    }

    /// `None` where PostgreSQL is not installed (and `CI` is not set).
    pub(crate) fn postgres() -> Option<Self> {
        let server = PgServer::start()?;
        let url = server.create_database().into();
        Some(Self::Postgres { server, url })
    }

    /// What `Store::open` takes: the file's path or the database's URL.
    pub(crate) fn location(&self) -> &Path {
        match self {
            Self::Sqlite { path, .. } => path,
            Self::Postgres { url, .. } => url,
        }
    }

    pub(crate) fn open(&self) -> Store {
        Store::open(self.location()).unwrap()
    }

    pub(crate) fn open_with(&self, options: &StoreOptions) -> Store {
        Store::open_with(self.location(), options).unwrap()
    }

    /// Runs `sql` behind the store's back.
    pub(crate) fn exec(&self, sql: &str) {
        match self {
            Self::Sqlite { path, .. } => {
                raw(path).execute_batch(sql).unwrap();
            }
            Self::Postgres { url, .. } => {
                crate::pg::Raw::connect(url.to_str().unwrap()).batch(sql);
            }
        }
    }

    pub(crate) fn count_rows(&self, table: &str) -> i64 {
        match self {
            Self::Sqlite { path, .. } => count_rows(path, table),
            Self::Postgres { url, .. } => crate::pg::Raw::connect(url.to_str().unwrap())
                .count(&format!("SELECT count(*) FROM {table}")),
        }
    }

    /// The server of a PostgreSQL database.
    pub(crate) fn server(&self) -> Option<&PgServer> {
        match self {
            Self::Sqlite { .. } => None,
            Self::Postgres { server, .. } => Some(server),
        }
    }
}

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

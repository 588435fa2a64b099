//! One SQLite database per strategy, as docker-agent keeps them: the files indexed with the
//! hash of their content, and their chunks (with the chunk's embedding for vector
//! strategies). A file whose hash is unchanged is never chunked or embedded again.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

use crate::RagError;

/// A stored chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredChunk {
    pub path: String,
    pub index: usize,
    pub content: String,
    /// Little-endian `f32`s; empty for BM25.
    pub vector: Vec<f32>,
}

#[derive(Debug)]
pub struct Store {
    conn: Connection,
}

fn db_err(path: &Path) -> impl Fn(rusqlite::Error) -> RagError + '_ {
    move |e| RagError::Database {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

impl Store {
    /// Opens (creating) the database; `signature` names what produced its vectors (model and
    /// dimensions): a database built by another is emptied.
    pub fn open(path: &Path, signature: &str) -> Result<Self, RagError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| RagError::Database {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        }
        let err = db_err(path);
        let conn = Connection::open(path).map_err(&err)?;
        conn.execute_batch(
            "PRAGMA journal_mode=WAL;
             CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, hash TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS chunks (
               path TEXT NOT NULL, idx INTEGER NOT NULL, content TEXT NOT NULL,
               vector BLOB NOT NULL, embedding_input TEXT, PRIMARY KEY (path, idx));",
        )
        .map_err(&err)?;
        // Databases written before `embedding_input` existed gain the column.
        let has_input = conn
            .prepare("SELECT embedding_input FROM chunks LIMIT 0")
            .is_ok();
        if !has_input {
            conn.execute_batch("ALTER TABLE chunks ADD COLUMN embedding_input TEXT")
                .map_err(&err)?;
        }
        let stored: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = 'signature'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(&err)?;
        if stored.as_deref() != Some(signature) {
            conn.execute_batch("DELETE FROM files; DELETE FROM chunks;")
                .map_err(&err)?;
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('signature', ?1)",
                params![signature],
            )
            .map_err(&err)?;
        }
        Ok(Self { conn })
    }

    fn err(&self) -> impl Fn(rusqlite::Error) -> RagError + '_ {
        move |e| RagError::Database {
            path: self.conn.path().unwrap_or_default().into(),
            message: e.to_string(),
        }
    }

    /// Every indexed file with its content hash.
    pub fn files(&self) -> Result<Vec<(String, String)>, RagError> {
        let mut stmt = self
            .conn
            .prepare("SELECT path, hash FROM files ORDER BY path")
            .map_err(self.err())?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(self.err())?;
        rows.collect::<Result<_, _>>().map_err(self.err())
    }

    /// Replaces a file's chunks (one transaction): each chunk's text, its vector and the text
    /// that was embedded when that is not the chunk itself (semantic summaries).
    pub fn replace(
        &mut self,
        path: &str,
        hash: &str,
        chunks: &[(String, Vec<f32>, Option<String>)],
    ) -> Result<(), RagError> {
        let err = |e: rusqlite::Error| RagError::Database {
            path: path.into(),
            message: e.to_string(),
        };
        let tx = self.conn.transaction().map_err(err)?;
        tx.execute("DELETE FROM chunks WHERE path = ?1", params![path])
            .map_err(err)?;
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO chunks (path, idx, content, vector, embedding_input) \
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(err)?;
            for (i, (content, vector, input)) in chunks.iter().enumerate() {
                let blob: Vec<u8> = vector.iter().flat_map(|x| x.to_le_bytes()).collect();
                insert
                    .execute(params![
                        path,
                        i64::try_from(i).unwrap_or(i64::MAX),
                        content,
                        blob,
                        input
                    ])
                    .map_err(err)?;
            }
        }
        tx.execute(
            "INSERT OR REPLACE INTO files (path, hash) VALUES (?1, ?2)",
            params![path, hash],
        )
        .map_err(err)?;
        tx.commit().map_err(err)
    }

    /// Forgets a file that is gone.
    pub fn remove(&mut self, path: &str) -> Result<(), RagError> {
        self.conn
            .execute("DELETE FROM chunks WHERE path = ?1", params![path])
            .map_err(self.err())?;
        self.conn
            .execute("DELETE FROM files WHERE path = ?1", params![path])
            .map_err(self.err())?;
        Ok(())
    }

    /// The text embedded for a chunk, when it was not the chunk itself.
    pub fn embedding_input(&self, path: &str, index: usize) -> Result<Option<String>, RagError> {
        self.conn
            .query_row(
                "SELECT embedding_input FROM chunks WHERE path = ?1 AND idx = ?2",
                params![path, i64::try_from(index).unwrap_or(i64::MAX)],
                |r| r.get(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(self.err())
    }

    /// Every chunk, by file and position.
    pub fn chunks(&self) -> Result<Vec<StoredChunk>, RagError> {
        let mut stmt = self
            .conn
            .prepare("SELECT path, idx, content, vector FROM chunks ORDER BY path, idx")
            .map_err(self.err())?;
        let rows = stmt
            .query_map([], |r| {
                let blob: Vec<u8> = r.get(3)?;
                Ok(StoredChunk {
                    path: r.get(0)?,
                    index: usize::try_from(r.get::<_, i64>(1)?).unwrap_or(0),
                    content: r.get(2)?,
                    vector: decode(&blob),
                })
            })
            .map_err(self.err())?;
        rows.collect::<Result<_, _>>().map_err(self.err())
    }
}

/// Little-endian `f32`s back from a blob.
pub fn decode(blob: &[u8]) -> Vec<f32> {
    blob.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

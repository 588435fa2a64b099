//! Query latency over 100,000 chunks of real text (the Python standard library, then the
//! Rust crate sources in the cargo registry, cut into 500-character chunks):
//!
//! - `vectors/contiguous`: Tether's index (384-dimension vectors, normalised, one `Vec<f32>`,
//!   16-lane dot products, a top-k heap);
//! - `vectors/sqlite_every_row`: docker-agent's loop measured the same way in Rust: every row
//!   read from SQLite, its vector decoded, cosine computed, all results sorted. (docker-agent
//!   stores vectors as JSON arrays of float64, slower to decode than the `f32` blobs here, so
//!   this baseline flatters it);
//! - `bm25`: Tether's inverted index over the same chunks.
//!
//! Vectors are the fake embedding server's bags of words: their content does not change
//! the cost of a dot product.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use rusqlite::{Connection, params};
use tether_config::Chunking;
use tether_rag::{Bm25Index, VectorIndex, decode, text_chunks};
use tether_test_support::embeddings::bag_of_words;

const CHUNKS: usize = 100_000;
const DIMS: usize = 384;
const K: usize = 10;

fn files(root: &Path, ext: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, ext, out);
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| ext.contains(&e))
        {
            out.push(p);
        }
    }
}

fn corpus() -> Vec<String> {
    let mut paths = Vec::new();
    files(Path::new("/usr/lib/python3.11"), &["py"], &mut paths);
    if let Some(home) = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
    {
        files(&home.join("registry/src"), &["rs", "md"], &mut paths);
    }
    let cfg = Chunking {
        size: 500,
        overlap: 50,
        respect_word_boundaries: true,
        code_aware: false,
    };
    let mut chunks = Vec::with_capacity(CHUNKS);
    for p in paths {
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        chunks.extend(text_chunks(&text, &cfg));
        if chunks.len() >= CHUNKS {
            chunks.truncate(CHUNKS);
            return chunks;
        }
    }
    assert_eq!(chunks.len(), CHUNKS, "not enough text on this machine");
    chunks
}

/// docker-agent's search: read every row, decode, cosine, sort everything, keep `k`.
fn sqlite_every_row(conn: &Connection, query: &[f32], k: usize) -> Vec<(String, f32)> {
    let mut stmt = conn
        .prepare_cached("SELECT content, vector FROM chunks")
        .expect("prepare");
    let rows = stmt
        .query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?))
        })
        .expect("query");
    let mut scored: Vec<(String, f32)> = rows
        .flatten()
        .map(|(content, blob)| {
            let v = decode(&blob);
            let (mut dot, mut na, mut nb) = (0.0f32, 0.0f32, 0.0f32);
            for (a, b) in query.iter().zip(&v) {
                dot += a * b;
                na += a * a;
                nb += b * b;
            }
            (content, dot / (na.sqrt() * nb.sqrt()))
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    scored.truncate(k);
    scored
}

fn bench(c: &mut Criterion) {
    let chunks = corpus();
    let vectors: Vec<Vec<f32>> = chunks.iter().map(|t| bag_of_words(t, DIMS)).collect();
    let query_text = "read a file and parse the json object into a dictionary";
    let query = bag_of_words(query_text, DIMS);

    let mut index = VectorIndex::new(DIMS);
    let mut bm25 = Bm25Index::default();
    for (t, v) in chunks.iter().zip(&vectors) {
        index.push(v);
        bm25.push(t);
    }

    let dir = tempfile::tempdir().expect("tempdir");
    let conn = Connection::open(dir.path().join("vectors.db")).expect("open");
    conn.execute_batch(
        "CREATE TABLE chunks (id INTEGER PRIMARY KEY, content TEXT NOT NULL, vector BLOB NOT NULL);",
    )
    .expect("schema");
    conn.execute_batch("BEGIN").expect("begin");
    for (t, v) in chunks.iter().zip(&vectors) {
        let blob: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        conn.execute(
            "INSERT INTO chunks (content, vector) VALUES (?1, ?2)",
            params![t, blob],
        )
        .expect("insert");
    }
    conn.execute_batch("COMMIT").expect("commit");

    // Both answer the same best chunk.
    let ours = index.top_k(&query, K, 0.0);
    let theirs = sqlite_every_row(&conn, &query, K);
    assert_eq!(chunks[ours[0].0], theirs[0].0);

    let mut g = c.benchmark_group("rag_query_100k");
    g.sample_size(20);
    g.bench_function("vectors/contiguous", |b| {
        b.iter(|| black_box(index.top_k(black_box(&query), K, 0.0)));
    });
    g.bench_function("vectors/sqlite_every_row", |b| {
        b.iter(|| black_box(sqlite_every_row(&conn, black_box(&query), K)));
    });
    g.bench_function("bm25", |b| {
        b.iter(|| black_box(bm25.top_k(black_box(query_text), K, 1.5, 0.75, 0.0)));
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

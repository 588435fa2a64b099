//! Bounded memory for huge output.
//!
//! A tool command may print gigabytes; killing it (the hooks' `output_cap`) would lose the
//! work, and keeping it would exhaust memory. Past `keep_in_memory` bytes the whole stream,
//! from its first byte, goes to a file and only its tail stays in memory. Disk writes go
//! through tokio's blocking pool behind a large buffer so a slow disk never stalls a runtime
//! thread, and a failing disk degrades to "tail only" instead of failing the run.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use tokio::io::{AsyncWriteExt, BufWriter};

use crate::run::Output;

/// Buffer between the pipe reads and the file (few, large blocking-pool writes).
const WRITE_BUF: usize = 1024 * 1024;

/// Makes spool file names unique within this process (several runs may spool at once).
static NEXT_FILE: AtomicU64 = AtomicU64::new(0);

/// Where stdout goes once it is larger than `keep_in_memory`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spool {
    /// Created (mode 0700, or tightened to it) on first use; the file inside is mode 0600 and is
    /// never deleted by us: its path is returned in [`crate::ExecRecord::spooled`] and the caller owns it.
    pub dir: PathBuf,
    /// Bytes kept in memory: the whole output while it fits, then only its tail.
    pub keep_in_memory: usize,
}

/// What a spooled stream ended as.
#[derive(Debug, Default)]
pub(crate) struct SpoolOutcome {
    pub(crate) path: Option<PathBuf>,
    pub(crate) error: Option<String>,
}

/// The state of one spooled stream.
#[derive(Debug)]
pub(crate) struct Spooler {
    dir: PathBuf,
    keep: usize,
    /// Until spooling starts this holds every byte read; afterwards the last `keep` bytes
    /// (up to twice that between compactions, so trimming is amortised).
    tail: Vec<u8>,
    total: u64,
    file: Option<(PathBuf, BufWriter<tokio::fs::File>)>,
    error: Option<String>,
}

impl Spooler {
    pub(crate) fn new(spool: &Spool) -> Self {
        Self {
            dir: spool.dir.clone(),
            keep: spool.keep_in_memory,
            tail: Vec::new(),
            total: 0,
            file: None,
            error: None,
        }
    }

    /// Takes one chunk read from the stream.
    pub(crate) async fn push(&mut self, data: &[u8]) {
        self.total += data.len() as u64;
        if self.file.is_none() && self.error.is_none() && self.total > self.keep as u64 {
            self.start().await;
        }
        if let Some((_, writer)) = &mut self.file
            && let Err(e) = writer.write_all(data).await
        {
            self.fail(&e).await;
        }
        self.keep_tail(data);
    }

    /// Opens the file and writes what was read before this chunk (all still in `tail`).
    async fn start(&mut self) {
        match open_file(&self.dir) {
            Ok((path, file)) => {
                let mut writer =
                    BufWriter::with_capacity(WRITE_BUF, tokio::fs::File::from_std(file));
                let result = writer.write_all(&self.tail).await;
                self.file = Some((path, writer));
                if let Err(e) = result {
                    self.fail(&e).await;
                }
            }
            Err(e) => self.error = Some(e),
        }
    }

    /// Gives up on the file (disk full, …): it is deleted and only the tail remains.
    async fn fail(&mut self, e: &std::io::Error) {
        if let Some((path, writer)) = self.file.take() {
            drop(writer.into_inner().into_std().await);
            // Best effort: a half-written file is worse than none.
            let _ = std::fs::remove_file(&path);
            self.error = Some(format!("cannot write `{}`: {e}", path.display()));
        }
    }

    fn keep_tail(&mut self, data: &[u8]) {
        if self.keep == 0 {
            return;
        }
        if data.len() >= self.keep {
            self.tail.clear();
            self.tail.extend_from_slice(&data[data.len() - self.keep..]);
            return;
        }
        self.tail.extend_from_slice(data);
        if self.tail.len() > 2 * self.keep {
            let cut = self.tail.len() - self.keep;
            self.tail.drain(..cut);
        }
    }

    /// Flushes the file and moves the tail into `out`.
    pub(crate) async fn finish(mut self, out: &mut Output) -> SpoolOutcome {
        let mut outcome = SpoolOutcome::default();
        if let Some((path, mut writer)) = self.file.take() {
            match writer.flush().await {
                Ok(()) => outcome.path = Some(path),
                Err(e) => {
                    self.file = Some((path, writer));
                    self.fail(&e).await;
                }
            }
        }
        outcome.error = self.error.take();
        if self.tail.len() > self.keep {
            let cut = self.tail.len() - self.keep;
            self.tail.drain(..cut);
        }
        out.bytes = self.tail;
        out.total = self.total;
        outcome
    }
}

fn open_file(dir: &Path) -> Result<(PathBuf, std::fs::File), String> {
    // The directory is Tether's own, whoever created it: one others can read is tightened.
    crate::private::create_dir(dir, dir)
        .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    let mut last_error = String::new();
    for _ in 0..16 {
        let n = NEXT_FILE.fetch_add(1, Ordering::Relaxed);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path = dir.join(format!("output-{}-{n}-{nanos:09}.log", std::process::id()));
        match crate::private::open(
            &path,
            std::fs::OpenOptions::new().write(true).create_new(true),
        ) {
            Ok(file) => return Ok((path, file)),
            // Another process with a recycled pid left a file behind: try the next name.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                last_error = format!("cannot create `{}`: {e}", path.display());
            }
            Err(e) => return Err(format!("cannot create `{}`: {e}", path.display())),
        }
    }
    Err(last_error)
}

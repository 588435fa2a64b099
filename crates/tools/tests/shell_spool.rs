//! Bounded memory for huge output (issue 8): a command printing 1 GiB through the shell tool
//! completes, its spool file holds every byte, and this process's peak resident memory stays
//! far below 100 MB. Its own test binary, so nothing else shares the process's peak.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::io::Read;

use serde_json::json;
use tether_tools::{KEEP_IN_MEMORY, ShellTool};

use common::{call, sh};

const GIB: u64 = 1024 * 1024 * 1024;

/// Peak resident set size of this process so far, in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_printing_one_gib_completes_in_bounded_memory() {
    let before = peak_rss_kib();
    let started = std::time::Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let tool = ShellTool::new(sh(), &[]).with_spool_dir(dir.path().join("spool"));
    let got = call(
        &tool,
        json!({"cmd": format!("head -c {GIB} /dev/zero | tr '\\0' x"), "timeout": 600}),
        dir.path(),
    )
    .await;
    let after = peak_rss_kib();
    eprintln!(
        "1 GiB run: {:?}; peak RSS: {before} KiB before, {after} KiB after",
        started.elapsed()
    );

    let path = got.spool.clone().unwrap();
    assert!(!got.is_error, "{}", &got.content[got.content.len() - 300..]);
    let note = format!(
        "\n[output truncated: {GIB} bytes in total, only the last {KEEP_IN_MEMORY} are shown; the full output is in `{}`]",
        path.display()
    );
    assert_eq!(got.content.len(), KEEP_IN_MEMORY + note.len());
    assert!(got.content.ends_with(&note));
    assert!(got.content.bytes().take(KEEP_IN_MEMORY).all(|b| b == b'x'));

    // Every byte reached the file, read back in bounded chunks.
    let mut file = std::fs::File::open(&path).unwrap();
    let mut buf = vec![0u8; 1024 * 1024];
    let xs = vec![b'x'; buf.len()];
    let mut len = 0u64;
    loop {
        let n = file.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        // Slice equality is a memcmp, fast even in a debug build.
        assert!(buf[..n] == xs[..n], "a byte other than `x` near {len}");
        len += n as u64;
    }
    assert_eq!(len, GIB);
    assert!(
        after < 100 * 1024,
        "peak RSS {after} KiB is not well under 100 MB"
    );
}

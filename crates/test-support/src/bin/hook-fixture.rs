//! A scriptable hook for engine tests: logs what it received, then replies as told.
//!
//! ```text
//! hook-fixture [--log FILE] [--sleep-ms N] [--stdout TEXT] [--stderr TEXT] [--exit N]
//!              [--no-stdin] [--flood BYTES]
//! ```
//! With `--log`, one JSON line is appended per run: `pid`, `start_ns` and `end_ns` (Unix
//! nanoseconds, to check that hooks overlap), `stdin` (parsed JSON, or the raw text), `cwd`,
//! and the `TETHER_*` and `HOOK_*` environment variables.

#![allow(clippy::exit, reason = "a fixture exits with the status it is told to")]

use std::io::{Read, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[derive(Default)]
struct Args {
    log: Option<String>,
    sleep_ms: u64,
    stdout: String,
    stderr: String,
    exit: i32,
    read_stdin: bool,
    flood: usize,
}

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        read_stdin: true,
        ..Args::default()
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--log" => args.log = Some(value()?),
            "--sleep-ms" => args.sleep_ms = value()?.parse().map_err(|e| format!("{e}"))?,
            "--stdout" => args.stdout = value()?,
            "--stderr" => args.stderr = value()?,
            "--exit" => args.exit = value()?.parse().map_err(|e| format!("{e}"))?,
            "--flood" => args.flood = value()?.parse().map_err(|e| format!("{e}"))?,
            "--no-stdin" => args.read_stdin = false,
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(args)
}

fn main() {
    let start_ns = now_ns();
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "hook-fixture: {e}");
            std::process::exit(64);
        }
    };
    let mut stdin = String::new();
    if args.read_stdin {
        let _ = std::io::stdin().read_to_string(&mut stdin);
    }
    std::thread::sleep(Duration::from_millis(args.sleep_ms));
    if let Some(log) = &args.log {
        let env: serde_json::Map<String, serde_json::Value> = std::env::vars()
            .filter(|(k, _)| k.starts_with("TETHER_") || k.starts_with("HOOK_"))
            .map(|(k, v)| (k, serde_json::Value::String(v)))
            .collect();
        let record = serde_json::json!({
            "pid": std::process::id(),
            "start_ns": start_ns.to_string(),
            "end_ns": now_ns().to_string(),
            "stdin": serde_json::from_str::<serde_json::Value>(&stdin)
                .unwrap_or(serde_json::Value::String(stdin.clone())),
            "cwd": std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default(),
            "env": env,
        });
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = f.write_all(format!("{record}\n").as_bytes());
        }
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(args.stdout.as_bytes());
    if args.flood > 0 {
        let chunk = vec![b'x'; 64 * 1024];
        let mut left = args.flood;
        while left > 0 {
            let n = left.min(chunk.len());
            if out.write_all(&chunk[..n]).is_err() {
                break;
            }
            left -= n;
        }
    }
    let _ = out.flush();
    let _ = std::io::stderr().write_all(args.stderr.as_bytes());
    std::process::exit(args.exit);
}

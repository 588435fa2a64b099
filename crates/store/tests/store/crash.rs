//! "Recorded means durable": a process killed with SIGKILL right after a call returned has
//! that write on disk (or committed on the server). The test re-runs its own binary as the
//! writer and kills it.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use pretty_assertions::assert_eq;
use tether_protocol::Message;
use tether_store::Store;

use crate::support::{Db, new_session, sized};

const CHILD_ENV: &str = "TETHER_STORE_CRASH_CHILD_DB";
const RECORDED: usize = 25;
const MARKER: &str = "tether-store-recorded=";

fn history() -> Vec<Message> {
    (0..RECORDED).map(|i| sized(64 + i * 300, i)).collect()
}

/// The writer: records the history one commit at a time, says so, then waits to be killed.
fn run_child(path: PathBuf) -> ! {
    let store = Store::open(path).unwrap();
    store.create_session(&new_session("s1", None)).unwrap();
    for m in history() {
        store.append_message("s1", &m).unwrap();
    }
    let mut out = std::io::stdout();
    // On its own line: libtest may have printed `test NAME ... ` without a newline.
    writeln!(out, "\n{MARKER}{RECORDED}").unwrap();
    out.flush().unwrap();
    loop {
        std::thread::park();
    }
}

#[test]
fn a_killed_writer_keeps_every_message_it_recorded() {
    if let Some(path) = std::env::var_os(CHILD_ENV) {
        run_child(PathBuf::from(path));
    }
    kill_a_writer(
        &Db::sqlite(),
        "crash::a_killed_writer_keeps_every_message_it_recorded",
    );
}

#[test]
fn a_killed_writer_on_postgres_keeps_every_message_it_recorded() {
    if let Some(url) = std::env::var_os(CHILD_ENV) {
        run_child(PathBuf::from(url));
    }
    if let Some(db) = Db::postgres() {
        kill_a_writer(
            &db,
            "crash::a_killed_writer_on_postgres_keeps_every_message_it_recorded",
        );
    }
}

/// Runs test `test_name` of this binary as a writer to `db`, kills it once it has recorded
/// the history, and reads the history back.
fn kill_a_writer(db: &Db, test_name: &str) {
    let path = db.location();
    #[expect(
        clippy::disallowed_methods,
        reason = "the writer must be a separate process to be killed"
    )]
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([test_name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();

    let stdout = BufReader::new(child.stdout.take().unwrap());
    let said = stdout
        .lines()
        .map(Result::unwrap)
        .find_map(|line| line.strip_prefix(MARKER).map(str::to_owned));
    child.kill().unwrap();
    child.wait().unwrap();

    assert_eq!(said, Some(RECORDED.to_string()));
    let store = Store::open(path).unwrap();
    assert_eq!(store.load("s1").unwrap().unwrap().messages, history());
}

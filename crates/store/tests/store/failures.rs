//! Failed writes: the error says what happened and what to do, and nothing stored before is
//! lost or half-changed.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use pretty_assertions::assert_eq;
use tether_protocol::{Message, Usage};
use tether_store::{SessionUpdate, Store, StoreError, StoreOptions, UsageRecord};

use crate::support::{Db, count_rows, new_session, on_both_backends, raw, sized, temp_store};

on_both_backends!(
    a_replace_swaps_the_whole_history_and_restarts_the_sequence,
    a_read_only_store_refuses_every_write_with_a_hint,
    a_message_that_does_not_parse_names_its_session_and_seq,
    a_timestamp_that_does_not_parse_is_reported_as_corrupt,
    a_database_from_a_newer_tether_is_refused,
    a_database_without_the_schema_cannot_be_read_read_only,
);

/// Writes `history` to a new file at `path` and closes it, so the file holds every page.
fn seed(path: &Path, history: &[Message]) {
    let store = Store::open(path).unwrap();
    store.create_session(&new_session("s1", None)).unwrap();
    store.append_messages("s1", history).unwrap();
}

/// Reopens `path` capped at its current size: the next write that needs a new page fails.
fn open_full(path: &Path) -> Store {
    let options = StoreOptions {
        max_size_bytes: Some(fs::metadata(path).unwrap().len()),
        ..StoreOptions::default()
    };
    Store::open_with(path, &options).unwrap()
}

fn disk_full_message(path: &Path) -> String {
    format!(
        "cannot write to `{}`: the disk is full; free some space and retry",
        path.display()
    )
}

#[test]
fn a_full_disk_fails_writes_clearly_and_keeps_earlier_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let earlier: Vec<Message> = (0..20).map(|i| sized(300, i)).collect();
    seed(&path, &earlier);
    let store = open_full(&path);

    // Append 8 KiB messages until the cap is hit; the ones that fit must stay.
    let mut stored = earlier;
    let mut failure = None;
    for i in 0..100 {
        let m = sized(8192, 100 + i);
        match store.append_message("s1", &m) {
            Ok(_) => stored.push(m),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    let err = failure.unwrap();

    assert_eq!(err.to_string(), disk_full_message(&path));
    assert!(err.is_retryable());
    assert_eq!(store.load("s1").unwrap().unwrap().messages, stored);
    drop(store);
    let reopened = Store::open(&path).unwrap();
    assert_eq!(reopened.load("s1").unwrap().unwrap().messages, stored);
    assert_eq!(
        reopened
            .append_message("s1", &Message::user("space again"))
            .unwrap(),
        u64::try_from(stored.len()).unwrap()
    );
}

#[test]
fn a_batch_that_does_not_fit_stores_none_of_its_messages() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let earlier: Vec<Message> = (0..5).map(|i| sized(100, i)).collect();
    seed(&path, &earlier);
    let store = open_full(&path);
    // The small first message may fit in free space on a page; the big ones cannot.
    let batch = [sized(20, 50), sized(8192, 51), sized(8192, 52)];

    let err = store.append_messages("s1", &batch).unwrap_err();

    assert_eq!(err.to_string(), disk_full_message(&path));
    assert_eq!(store.load("s1").unwrap().unwrap().messages, earlier);
    assert_eq!(count_rows(&path, "messages"), 5);
}

#[test]
fn a_failed_replace_keeps_the_old_history() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let old: Vec<Message> = (0..30).map(|i| sized(200, i)).collect();
    seed(&path, &old);
    let store = open_full(&path);
    let bigger: Vec<Message> = (0..4).map(|i| sized(8192, i)).collect();

    let err = store.replace_messages("s1", &bigger).unwrap_err();

    assert_eq!(err.to_string(), disk_full_message(&path));
    assert_eq!(store.load("s1").unwrap().unwrap().messages, old);
}

fn a_replace_swaps_the_whole_history_and_restarts_the_sequence(db: &Db) {
    let store = db.open();
    store.create_session(&new_session("s1", None)).unwrap();
    let old: Vec<Message> = (0..10).map(|i| sized(50, i)).collect();
    store.append_messages("s1", &old).unwrap();
    let summary = vec![
        Message::user("Summary of the conversation so far: …"),
        old[9].clone(),
    ];

    store.replace_messages("s1", &summary).unwrap();
    let next = store.append_message("s1", &Message::user("go on")).unwrap();

    let mut expected = summary;
    expected.push(Message::user("go on"));
    assert_eq!(
        (next, store.load("s1").unwrap().unwrap().messages),
        (2, expected)
    );
}

fn every_write(store: &Store) -> Vec<Result<(), StoreError>> {
    let usage = UsageRecord {
        model_id: "m".into(),
        usage: Usage::default(),
        cost: None,
        at: jiff::Timestamp::UNIX_EPOCH,
    };
    vec![
        store.create_session(&new_session("s2", None)),
        store.append_message("s1", &Message::user("a")).map(|_| ()),
        store.append_messages("s1", &[Message::user("a")]),
        store.replace_messages("s1", &[]),
        store.update("s1", &SessionUpdate::default()),
        store.record_usage("s1", &usage),
        store.delete("s1").map(|_| ()),
    ]
}

fn read_only_message(path: &Path) -> String {
    if Store::is_postgres_url(path) {
        return format!(
            "cannot write to `{}`: the database is read-only: opened read-only, or a standby server",
            path.display()
        );
    }
    format!(
        "cannot write to `{}`: the database is read-only: check the permissions of `{}` and its directory",
        path.display(),
        path.display()
    )
}

fn a_read_only_store_refuses_every_write_with_a_hint(db: &Db) {
    let history = vec![Message::user("hi"), Message::assistant("hello")];
    let writer = db.open();
    writer.create_session(&new_session("s1", None)).unwrap();
    writer.append_messages("s1", &history).unwrap();
    drop(writer);
    let store = Store::open_read_only(db.location()).unwrap();

    let errors: Vec<String> = every_write(&store)
        .into_iter()
        .map(|r| r.unwrap_err().to_string())
        .collect();

    assert_eq!(errors, vec![read_only_message(db.location()); 7]);
    assert_eq!(store.load("s1").unwrap().unwrap().messages, history);
    assert_eq!(store.list().unwrap().len(), 1);
}

/// Whether this process is held to file permissions (not so as root).
fn permissions_apply(file: &Path) -> bool {
    fs::OpenOptions::new().write(true).open(file).is_err()
}

#[test]
fn a_file_and_directory_without_write_permission_refuse_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let history = vec![Message::user("hi")];
    seed(&path, &history);
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o555)).unwrap();
    let enforced = permissions_apply(&path);

    let opened = Store::open(&path).map(drop).map_err(|e| e.to_string());
    let read_only = Store::open_read_only(&path)
        .map_err(|e| e.to_string())
        .map(|store| {
            let append = store.append_message("s1", &Message::user("more"));
            (append.map_err(|e| e.to_string()), store.load("s1").unwrap())
        });
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();

    if enforced {
        // SQLite cannot create the WAL index next to the file: even reading is refused, with
        // SQLITE_READONLY_DIRECTORY, which the hint covers.
        let refused = Err(read_only_message(&path));
        assert_eq!((opened, read_only.map(drop)), (refused.clone(), refused));
    } else {
        // Root ignores the mode bits; a read-only connection to the same file still proves
        // the write path.
        let (append, loaded) = read_only.unwrap();
        assert_eq!(
            (opened, append, loaded.map(|s| s.messages)),
            (Ok(()), Err(read_only_message(&path)), Some(history.clone()))
        );
    }
    let reopened = Store::open(&path).unwrap();
    assert_eq!(reopened.load("s1").unwrap().unwrap().messages, history);
}

#[test]
fn a_lock_held_past_the_busy_timeout_is_reported_as_busy() {
    let (_dir, path, store) = temp_store();
    store.create_session(&new_session("s1", None)).unwrap();
    drop(store);
    let options = StoreOptions {
        busy_timeout: Duration::from_millis(50),
        ..StoreOptions::default()
    };
    let store = Store::open_with(&path, &options).unwrap();
    let blocker = raw(&path);
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();

    let err = store.append_message("s1", &Message::user("a")).unwrap_err();
    let readable = store.load("s1").unwrap().is_some();
    blocker.execute_batch("COMMIT").unwrap();
    let seq = store.append_message("s1", &Message::user("b")).unwrap();

    assert_eq!(
        err.to_string(),
        format!(
            "the session database `{}` is locked by another process; retry when it has finished",
            path.display()
        )
    );
    assert_eq!((err.is_retryable(), readable, seq), (true, true, 0));
}

fn a_message_that_does_not_parse_names_its_session_and_seq(db: &Db) {
    let store = db.open();
    store.create_session(&new_session("s1", None)).unwrap();
    store
        .append_messages("s1", &[Message::user("a"), Message::user("b")])
        .unwrap();
    db.exec("UPDATE messages SET json = '{not json' WHERE session_id = 's1' AND seq = 1");

    let err = store.load("s1").unwrap_err();

    let parse_error = serde_json::from_str::<Message>("{not json").unwrap_err();
    assert!(!err.is_retryable());
    assert_eq!(
        err.to_string(),
        format!("message 1 of session `s1` is corrupt: {parse_error}")
    );
}

fn a_timestamp_that_does_not_parse_is_reported_as_corrupt(db: &Db) {
    let store = db.open();
    store.create_session(&new_session("s1", None)).unwrap();
    db.exec("UPDATE sessions SET updated_at = 'yesterday'");

    let errors = [
        store.load("s1").unwrap_err().to_string(),
        store.list().unwrap_err().to_string(),
    ];

    let parse_error = "yesterday".parse::<jiff::Timestamp>().unwrap_err();
    let expected = format!(
        "session `s1` is corrupt: `updated_at` is not an RFC 3339 timestamp: {parse_error}"
    );
    assert_eq!(errors, [expected.clone(), expected]);
}

fn a_database_from_a_newer_tether_is_refused(db: &Db) {
    drop(db.open());
    db.exec("INSERT INTO schema_version (version, applied_at) VALUES (99, 'later')");
    let path = db.location();

    let errors = [
        Store::open(path).unwrap_err().to_string(),
        Store::open_read_only(path).unwrap_err().to_string(),
    ];

    let expected = format!(
        "the session database `{}` has schema version 99, newer than this tether supports (1): upgrade tether",
        path.display()
    );
    assert_eq!(errors, [expected.clone(), expected]);
}

fn a_database_without_the_schema_cannot_be_read_read_only(db: &Db) {
    db.exec("CREATE TABLE other (x INTEGER)");
    let path = db.location();

    let err = Store::open_read_only(path).unwrap_err();

    assert_eq!(
        err.to_string(),
        format!(
            "the session database `{}` has schema version 0 and needs migrating to 1: open it read-write once",
            path.display()
        )
    );
    assert_eq!(Store::open(path).unwrap().list().unwrap(), vec![]);
}

#[test]
fn a_file_that_is_not_a_database_is_reported_as_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    fs::write(
        &path,
        "these are not the pages you are looking for\n".repeat(100),
    )
    .unwrap();

    let err = Store::open(&path).unwrap_err();

    assert!(matches!(err, StoreError::CorruptDatabase { .. }));
    assert_eq!(
        err.to_string(),
        format!(
            "the session database `{}` is corrupt or not a database (file is not a database): move it aside to start afresh",
            path.display()
        )
    );
}

#[test]
fn a_directory_that_cannot_be_created_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    fs::write(&file, "").unwrap();
    let path = file.join("sub").join("sessions.db");

    let err = Store::open(&path).unwrap_err();

    let io_error = fs::create_dir_all(file.join("sub")).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "cannot create the directory `{}` for the session database: {io_error}",
            file.join("sub").display()
        )
    );
}

#[test]
fn opening_a_missing_file_read_only_fails_without_creating_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing").join("sessions.db");

    let err = Store::open_read_only(&path).unwrap_err();

    assert!(matches!(err, StoreError::Open { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with(&format!(
            "cannot open the session database `{}`: ",
            path.display()
        )),
        "{err}"
    );
    assert!(!dir.path().join("missing").exists());
}

#[test]
fn a_file_store_uses_write_ahead_logging() {
    let (_dir, path, _store) = temp_store();

    let mode: String = raw(&path)
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();

    assert_eq!(mode, "wal");
}

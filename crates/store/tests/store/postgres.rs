//! What only a shared PostgreSQL database has: replicas writing one session, replicas starting
//! at once, connections and servers that go away, URLs. (Everything else runs on both backends
//! in the other files.)

use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use pretty_assertions::assert_eq;
use tether_protocol::{Message, Usage};
use tether_store::{Store, StoreError, StoreOptions, UsageRecord};

use crate::pg::{CuttingProxy, PgServer, PgServerExt};
use crate::support::{Db, new_session};

fn message(writer: usize, i: usize) -> Message {
    Message::user(format!("writer {writer} message {i}"))
}

#[test]
fn a_session_created_through_one_replica_is_listed_loaded_and_continued_through_another() {
    let Some(db) = Db::postgres() else { return };
    let (a, b) = (db.open(), db.open());
    a.create_session(&new_session("s1", None)).unwrap();
    a.append_messages("s1", &[message(0, 0), message(0, 1)])
        .unwrap();

    let listed: Vec<String> = b.list().unwrap().into_iter().map(|s| s.id).collect();
    let from_b = b.append_message("s1", &message(1, 0)).unwrap();
    let from_a = a.append_message("s1", &message(0, 2)).unwrap();
    b.create_session(&new_session("child", Some("s1"))).unwrap();
    let usage = UsageRecord {
        model_id: "openai/gpt-4o".into(),
        usage: Usage {
            input_tokens: 7,
            ..Usage::default()
        },
        cost: Some(0.25),
        at: jiff::Timestamp::from_second(1_760_000_000).unwrap(),
    };
    b.record_usage("s1", &usage).unwrap();

    assert_eq!((listed, from_b, from_a), (vec!["s1".to_owned()], 2, 3));
    let loaded = a.load("s1").unwrap().unwrap();
    let expected = vec![message(0, 0), message(0, 1), message(1, 0), message(0, 2)];
    assert_eq!(
        (&loaded.messages, &loaded.sub_sessions),
        (&expected, &vec!["child".to_owned()])
    );
    assert_eq!(b.load("s1").unwrap(), Some(loaded));
    assert_eq!(a.usage("s1").unwrap(), vec![usage]);
    assert_eq!(a.latest().unwrap(), Some("s1".to_owned()));
    assert!(a.delete("s1").unwrap());
    assert_eq!(
        (b.load("s1").unwrap(), b.load("child").unwrap()),
        (None, None)
    );
}

#[test]
fn concurrent_appends_from_two_replicas_number_messages_without_gaps() {
    const REPLICAS: usize = 2;
    const THREADS: usize = 3;
    const PER_THREAD: usize = 30;
    let Some(db) = Db::postgres() else { return };
    let stores: Vec<Arc<Store>> = (0..REPLICAS).map(|_| Arc::new(db.open())).collect();
    stores[0].create_session(&new_session("s1", None)).unwrap();
    let start = Arc::new(Barrier::new(REPLICAS * THREADS));

    #[expect(
        clippy::needless_collect,
        reason = "every thread must be spawned before any is joined"
    )]
    let handles: Vec<_> = (0..REPLICAS * THREADS)
        .map(|writer| {
            let store = Arc::clone(&stores[writer % REPLICAS]);
            let start = Arc::clone(&start);
            thread::spawn(move || {
                start.wait();
                (0..PER_THREAD)
                    .map(|i| store.append_message("s1", &message(writer, i)).unwrap())
                    .collect::<Vec<u64>>()
            })
        })
        .collect();
    let mut seqs: Vec<u64> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();

    seqs.sort_unstable();
    let total = REPLICAS * THREADS * PER_THREAD;
    let gap_free: Vec<u64> = (0..).take(total).collect();
    assert_eq!(seqs, gap_free);
    let stored = db.count_rows("messages WHERE session_id = 's1'");
    assert_eq!(stored, i64::try_from(total).unwrap());
    let history = stores[1].load("s1").unwrap().unwrap().messages;
    for writer in 0..REPLICAS * THREADS {
        let prefix = format!("writer {writer} ");
        let own: Vec<Message> = history
            .iter()
            .filter(|m| m.content.starts_with(&prefix))
            .cloned()
            .collect();
        let expected: Vec<Message> = (0..PER_THREAD).map(|i| message(writer, i)).collect();
        assert_eq!(own, expected, "writer {writer}");
    }
}

#[test]
fn replicas_opening_a_fresh_database_at_once_migrate_it_once() {
    const REPLICAS: usize = 4;
    let Some(db) = Db::postgres() else { return };
    let start = Arc::new(Barrier::new(REPLICAS));

    let opened: Vec<Result<Store, StoreError>> = thread::scope(|scope| {
        #[expect(
            clippy::needless_collect,
            reason = "every thread must be spawned before any is joined"
        )]
        let handles: Vec<_> = (0..REPLICAS)
            .map(|_| {
                let start = Arc::clone(&start);
                let db = &db;
                scope.spawn(move || {
                    start.wait();
                    Store::open(db.location())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });

    let stores: Vec<Store> = opened.into_iter().map(Result::unwrap).collect();
    assert_eq!(db.count_rows("schema_version"), 1);
    stores[0].create_session(&new_session("s1", None)).unwrap();
    let seen: Vec<usize> = stores.iter().map(|s| s.list().unwrap().len()).collect();
    assert_eq!(seen, vec![1; REPLICAS]);
}

#[test]
fn two_replicas_creating_one_session_id_at_once_leave_one_session() {
    let Some(db) = Db::postgres() else { return };
    let stores = [db.open(), db.open()];
    let start = Barrier::new(2);

    let results: Vec<Result<(), String>> = thread::scope(|scope| {
        let handles: Vec<_> = stores
            .iter()
            .map(|store| {
                let start = &start;
                scope.spawn(move || {
                    start.wait();
                    store
                        .create_session(&new_session("s1", None))
                        .map_err(|e| e.to_string())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });

    let mut outcomes = results;
    outcomes.sort();
    assert_eq!(
        outcomes,
        vec![Ok(()), Err("session `s1` already exists".to_owned())]
    );
    assert_eq!(db.count_rows("sessions"), 1);
}

#[test]
fn a_terminated_connection_is_replaced_on_the_next_call() {
    let Some(db) = Db::postgres() else { return };
    let store = db.open();
    store.create_session(&new_session("s1", None)).unwrap();
    let server = db.server().unwrap();
    let admin = server.raw("postgres");
    let pids = "SELECT pid FROM pg_stat_activity WHERE application_name = 'tether'";
    let before: Vec<i32> = admin.query(pids).iter().map(|r| r.get(0)).collect();

    // In the select list, so only the rows the WHERE kept are terminated; waits for them to end.
    let terminated = admin.count(
        "SELECT count(*) FROM (SELECT pg_terminate_backend(pid, 5000) AS gone \
         FROM pg_stat_activity WHERE application_name = 'tether') t WHERE gone",
    );
    let seq = store.append_message("s1", &message(0, 0)).unwrap();
    let listed = store.list().unwrap().len();

    assert!(!before.is_empty() && terminated == i64::try_from(before.len()).unwrap());
    assert_eq!((seq, listed), (0, 1));
    let after: Vec<i32> = admin.query(pids).iter().map(|r| r.get(0)).collect();
    assert!(
        !after.is_empty() && after.iter().all(|pid| !before.contains(pid)),
        "before {before:?}, after {after:?}"
    );
    assert_eq!(
        store.load("s1").unwrap().unwrap().messages,
        vec![message(0, 0)]
    );
}

#[test]
fn a_server_outage_fails_calls_with_a_retryable_error_until_it_is_back() {
    let Some(db) = Db::postgres() else { return };
    let store = db.open();
    store.create_session(&new_session("s1", None)).unwrap();
    let server = db.server().unwrap();

    server.stop();
    let during = store.append_message("s1", &message(0, 0)).unwrap_err();
    let read = store.list().unwrap_err();
    server.restart();
    let after = store.append_message("s1", &message(0, 1)).unwrap();

    for err in [&during, &read] {
        assert!(
            matches!(
                err,
                StoreError::Connect { .. } | StoreError::ConnectionLost { .. }
            ),
            "{err:?}"
        );
        assert!(err.is_retryable(), "{err:?}");
        let url = db.location().display().to_string();
        assert!(err.to_string().contains(&format!("`{url}`")), "{err}");
    }
    assert_eq!(after, 0, "the failed append stored nothing");
    assert_eq!(
        store.load("s1").unwrap().unwrap().messages,
        vec![message(0, 1)]
    );
}

#[test]
fn a_lock_held_past_the_busy_timeout_is_reported_as_busy() {
    let Some(db) = Db::postgres() else { return };
    let options = StoreOptions {
        busy_timeout: Duration::from_millis(50),
        ..StoreOptions::default()
    };
    let store = db.open_with(&options);
    store.create_session(&new_session("s1", None)).unwrap();
    let blocker = crate::pg::Raw::connect(db.location().to_str().unwrap());
    blocker.batch("BEGIN; SELECT 1 FROM sessions WHERE id = 's1' FOR UPDATE");

    let err = store.append_message("s1", &message(0, 0)).unwrap_err();
    let readable = store.load("s1").unwrap().is_some();
    blocker.batch("COMMIT");
    let seq = store.append_message("s1", &message(0, 1)).unwrap();

    assert_eq!(
        err.to_string(),
        format!(
            "the session database `{}` is locked by another process; retry when it has finished",
            db.location().display()
        )
    );
    assert_eq!((err.is_retryable(), readable, seq), (true, true, 0));
}

#[test]
fn a_tls_url_is_refused_before_connecting() {
    let err = Store::open("postgres://tether:secret@127.0.0.1:1/db?sslmode=require").unwrap_err();

    assert!(matches!(err, StoreError::Url { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "cannot use the session database URL `postgres://tether@127.0.0.1:1/db?sslmode=require`: \
         `sslmode=require` is not supported yet: tether connects without TLS; use \
         `sslmode=disable` on a trusted network"
    );
}

#[test]
fn an_unknown_database_fails_to_open_with_the_server_s_reason_and_no_password() {
    let Some(server) = PgServer::start() else {
        return;
    };
    let url = server
        .url("missing")
        .replace("postgres@", "postgres:hunter2@");

    let err = Store::open(&url).unwrap_err();

    assert!(matches!(err, StoreError::Connect { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "cannot connect to the session database `{}`: FATAL: database \"missing\" does not exist",
            server.url("missing")
        )
    );
}

#[test]
fn the_path_of_a_postgres_store_is_its_url_without_the_password() {
    let Some(db) = Db::postgres() else { return };
    let url = db.location().to_str().unwrap();
    let with_password = url.replace("postgres@", "postgres:hunter2@");

    let store = Store::open(&with_password).unwrap();

    assert_eq!(store.path().to_str(), Some(url));
}

#[test]
fn the_schema_has_sqlite_s_tables() {
    let Some(db) = Db::postgres() else { return };
    drop(db.open());
    let raw = crate::pg::Raw::connect(db.location().to_str().unwrap());

    let tables: Vec<String> = raw
        .query(
            "SELECT table_name::text FROM information_schema.tables \
             WHERE table_schema = 'public' ORDER BY 1",
        )
        .iter()
        .map(|r| r.get(0))
        .collect();

    assert_eq!(tables, ["messages", "schema_version", "sessions", "usage"]);
}

/// A store on `db` through a proxy that can cut its connections.
fn behind_a_proxy(db: &Db) -> (CuttingProxy, Store) {
    let port = db.server().unwrap().port();
    let proxy = CuttingProxy::start(port);
    let url = proxy.url(db.location().to_str().unwrap(), port);
    let store = Store::open(url).unwrap();
    (proxy, store)
}

#[test]
fn a_connection_that_breaks_during_a_write_is_retried_on_a_new_one() {
    let Some(db) = Db::postgres() else { return };
    let (proxy, store) = behind_a_proxy(&db);
    store.create_session(&new_session("s1", None)).unwrap();

    // The write's first statement: the connection breaks before anything is committed.
    proxy.cut_when_client_sends(b"BEGIN ISOLATION LEVEL READ COMMITTED");
    let seq = store.append_message("s1", &message(0, 0)).unwrap();

    assert_eq!((proxy.cuts(), seq), (1, 0));
    assert_eq!(
        store.load("s1").unwrap().unwrap().messages,
        vec![message(0, 0)]
    );
}

#[test]
fn a_connection_that_breaks_while_committing_is_reported_as_unknown_not_retried() {
    let Some(db) = Db::postgres() else { return };
    let (proxy, store) = behind_a_proxy(&db);
    store.create_session(&new_session("s1", None)).unwrap();

    // A simple-protocol `COMMIT`: 'Q', its length (4 + 7), the text and its NUL.
    proxy.cut_when_client_sends(b"Q\0\0\0\x0bCOMMIT\0");
    let err = store.append_message("s1", &message(0, 0)).unwrap_err();
    let next = store.append_message("s1", &message(0, 1)).unwrap();

    assert_eq!(proxy.cuts(), 1);
    assert!(matches!(err, StoreError::CommitUnknown { .. }), "{err:?}");
    assert!(!err.is_retryable());
    assert!(
        err.to_string().starts_with(&format!(
            "lost the connection to the session database `{}` while committing, so the write may or may not be stored: ",
            store.path().display()
        )),
        "{err}"
    );
    // Here the server never saw the COMMIT: the first append was rolled back.
    assert_eq!(next, 0);
    assert_eq!(
        store.load("s1").unwrap().unwrap().messages,
        vec![message(0, 1)]
    );
}

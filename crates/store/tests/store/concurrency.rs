//! Several threads, and several stores on one database (as two `tether` processes or two
//! server replicas would have), writing and reading at once.

use std::sync::Arc;
use std::thread;

use pretty_assertions::assert_eq;
use tether_protocol::Message;
use tether_store::Store;

use crate::support::{Db, new_session, on_both_backends, sized};

on_both_backends!(
    concurrent_appends_from_several_threads_keep_every_message_in_order,
    two_stores_on_one_database_interleave_appends_without_losing_any,
    a_reader_sees_the_old_or_the_new_history_never_a_mix,
);

const THREADS: usize = 4;
const PER_THREAD: usize = 50;

fn tagged(thread: usize, i: usize) -> Message {
    Message::user(format!("thread {thread} message {i}"))
}

#[test]
fn store_can_be_shared_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Store>();
}

fn concurrent_appends_from_several_threads_keep_every_message_in_order(db: &Db) {
    let store = db.open();
    let store = Arc::new(store);
    store.create_session(&new_session("shared", None)).unwrap();

    #[expect(
        clippy::needless_collect,
        reason = "every thread must be spawned before any is joined"
    )]
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let store = Arc::clone(&store);
            thread::spawn(move || {
                store
                    .create_session(&new_session(&format!("own-{t}"), None))
                    .unwrap();
                (0..PER_THREAD)
                    .map(|i| {
                        store
                            .append_message(&format!("own-{t}"), &tagged(t, i))
                            .unwrap();
                        store.append_message("shared", &tagged(t, i)).unwrap()
                    })
                    .collect::<Vec<u64>>()
            })
        })
        .collect();
    let mut seqs: Vec<u64> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();

    seqs.sort_unstable();
    let all_seqs: Vec<u64> = (0..).take(THREADS * PER_THREAD).collect();
    assert_eq!(seqs, all_seqs);
    let shared = store.load("shared").unwrap().unwrap().messages;
    for t in 0..THREADS {
        let own = store.load(&format!("own-{t}")).unwrap().unwrap().messages;
        let expected: Vec<Message> = (0..PER_THREAD).map(|i| tagged(t, i)).collect();
        let from_shared: Vec<Message> = shared
            .iter()
            .filter(|m| m.content.starts_with(&format!("thread {t} ")))
            .cloned()
            .collect();
        assert_eq!((own, from_shared), (expected.clone(), expected));
    }
}

fn two_stores_on_one_database_interleave_appends_without_losing_any(db: &Db) {
    let first = db.open();
    first.create_session(&new_session("s1", None)).unwrap();
    let stores = [Arc::new(first), Arc::new(db.open())];

    let handles: Vec<_> = stores
        .iter()
        .enumerate()
        .map(|(t, store)| {
            let store = Arc::clone(store);
            thread::spawn(move || {
                for i in 0..PER_THREAD {
                    store.append_message("s1", &tagged(t, i)).unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }

    let messages = stores[1].load("s1").unwrap().unwrap().messages;
    let mut contents: Vec<String> = messages.into_iter().map(|m| m.content).collect();
    contents.sort();
    let mut expected: Vec<String> = (0..2)
        .flat_map(|t| (0..PER_THREAD).map(move |i| tagged(t, i).content))
        .collect();
    expected.sort();
    assert_eq!(contents, expected);
}

fn a_reader_sees_the_old_or_the_new_history_never_a_mix(db: &Db) {
    let writer = db.open();
    writer.create_session(&new_session("s1", None)).unwrap();
    let long: Vec<Message> = (0..40).map(|i| sized(500, i)).collect();
    let short: Vec<Message> = (0..3).map(|i| sized(100, 1000 + i)).collect();
    writer.append_messages("s1", &long).unwrap();
    let reader = db.open();

    let seen = thread::scope(|scope| {
        let reads = scope.spawn(|| {
            (0..200)
                .map(|_| reader.load("s1").unwrap().unwrap().messages)
                .collect::<Vec<_>>()
        });
        for round in 0..50 {
            let next = if round % 2 == 0 { &short } else { &long };
            writer.replace_messages("s1", next).unwrap();
        }
        reads.join().unwrap()
    });

    let mixed: Vec<usize> = seen
        .iter()
        .filter(|h| **h != long && **h != short)
        .map(Vec::len)
        .collect();
    assert_eq!(mixed, Vec::<usize>::new());
}

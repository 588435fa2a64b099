//! `list`, `latest`, `children` and `delete`: which sessions show up, in which order, and
//! what a delete takes with it.

use pretty_assertions::assert_eq;
use tether_protocol::{Message, Usage};
use tether_store::{SessionSummary, SessionUpdate, Store, StoreError, UsageRecord};

use crate::support::{Db, new_session, on_both_backends};

on_both_backends!(
    list_shows_top_level_sessions_most_recently_updated_first,
    every_kind_of_write_moves_a_session_to_the_top,
    an_empty_store_lists_nothing,
    children_are_the_direct_sub_sessions_oldest_first,
    children_and_usage_of_an_unknown_session_are_not_found,
    delete_cascades_to_sub_sessions_messages_and_usage,
    deleting_a_sub_session_keeps_its_parent,
    writes_to_an_unknown_session_are_not_found_and_store_nothing,
    create_session_rejects_a_duplicate_id_and_an_unknown_parent,
);

fn summary(store: &Store, id: &str) -> SessionSummary {
    let meta = store.load(id).unwrap().unwrap().meta;
    SessionSummary {
        id: meta.id,
        updated_at: meta.updated_at,
        agent: meta.agent,
        first_prompt: meta.first_prompt,
    }
}

fn list_shows_top_level_sessions_most_recently_updated_first(db: &Db) {
    let store = db.open();
    for id in ["a", "b", "c"] {
        store.create_session(&new_session(id, None)).unwrap();
    }
    store
        .create_session(&new_session("a-child", Some("a")))
        .unwrap();
    store
        .append_message("a-child", &Message::user("x"))
        .unwrap();
    store.append_message("b", &Message::user("y")).unwrap();

    let list = store.list().unwrap();

    let ids: Vec<&str> = list.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["b", "c", "a"]);
    assert_eq!(
        list,
        vec![
            summary(&store, "b"),
            summary(&store, "c"),
            summary(&store, "a")
        ]
    );
    assert_eq!(store.latest().unwrap(), Some("b".to_owned()));
}

fn every_kind_of_write_moves_a_session_to_the_top(db: &Db) {
    let store = db.open();
    for id in ["a", "b"] {
        store.create_session(&new_session(id, None)).unwrap();
    }
    let usage = UsageRecord {
        model_id: "m".into(),
        usage: Usage::default(),
        cost: None,
        at: jiff::Timestamp::UNIX_EPOCH,
    };
    let mut latest = Vec::new();
    store.append_message("a", &Message::user("1")).unwrap();
    latest.push(store.latest().unwrap());
    store.append_messages("b", &[Message::user("2")]).unwrap();
    latest.push(store.latest().unwrap());
    store.replace_messages("a", &[Message::user("3")]).unwrap();
    latest.push(store.latest().unwrap());
    store.record_usage("b", &usage).unwrap();
    latest.push(store.latest().unwrap());
    store.update("a", &SessionUpdate::default()).unwrap();
    latest.push(store.latest().unwrap());

    let expected: Vec<Option<String>> = ["a", "b", "a", "b", "a"]
        .iter()
        .map(|id| Some((*id).to_owned()))
        .collect();
    assert_eq!(latest, expected);
}

fn an_empty_store_lists_nothing(db: &Db) {
    let store = db.open();

    assert_eq!(
        (store.list().unwrap(), store.latest().unwrap()),
        (vec![], None)
    );
}

fn children_are_the_direct_sub_sessions_oldest_first(db: &Db) {
    let store = db.open();
    store.create_session(&new_session("root", None)).unwrap();
    store
        .create_session(&new_session("c1", Some("root")))
        .unwrap();
    store
        .create_session(&new_session("c2", Some("root")))
        .unwrap();
    store
        .create_session(&new_session("grandchild", Some("c1")))
        .unwrap();
    // Updating the older child must not reorder children (creation order is the transcript's).
    store.append_message("c1", &Message::user("later")).unwrap();

    let children = store.children("root").unwrap();

    assert_eq!(children, vec![summary(&store, "c1"), summary(&store, "c2")]);
    assert_eq!(
        store.load("root").unwrap().unwrap().sub_sessions,
        ["c1", "c2"]
    );
    assert_eq!(
        store.children("c1").unwrap(),
        vec![summary(&store, "grandchild")]
    );
}

fn children_and_usage_of_an_unknown_session_are_not_found(db: &Db) {
    let store = db.open();

    let errors = [
        store.children("nope").unwrap_err().to_string(),
        store.usage("nope").unwrap_err().to_string(),
    ];

    assert_eq!(
        errors,
        ["session `nope` not found", "session `nope` not found"]
    );
}

fn delete_cascades_to_sub_sessions_messages_and_usage(db: &Db) {
    let store = db.open();
    store.create_session(&new_session("root", None)).unwrap();
    store
        .create_session(&new_session("child", Some("root")))
        .unwrap();
    store
        .create_session(&new_session("grandchild", Some("child")))
        .unwrap();
    store.create_session(&new_session("other", None)).unwrap();
    let usage = UsageRecord {
        model_id: "m".into(),
        usage: Usage::default(),
        cost: Some(1.0),
        at: jiff::Timestamp::UNIX_EPOCH,
    };
    for id in ["root", "child", "grandchild", "other"] {
        store
            .append_messages(id, &[Message::user(id), Message::assistant(id)])
            .unwrap();
        store.record_usage(id, &usage).unwrap();
    }

    let deleted = store.delete("root").unwrap();

    assert!(deleted);
    let loaded: Vec<bool> = ["root", "child", "grandchild", "other"]
        .iter()
        .map(|id| store.load(id).unwrap().is_some())
        .collect();
    assert_eq!(loaded, [false, false, false, true]);
    let rows = [
        db.count_rows("sessions"),
        db.count_rows("messages"),
        db.count_rows("usage"),
    ];
    assert_eq!(rows, [1, 2, 1]);
    assert!(!store.delete("root").unwrap());
}

fn deleting_a_sub_session_keeps_its_parent(db: &Db) {
    let store = db.open();
    store.create_session(&new_session("root", None)).unwrap();
    store
        .create_session(&new_session("child", Some("root")))
        .unwrap();
    store.append_message("root", &Message::user("hi")).unwrap();

    assert!(store.delete("child").unwrap());

    let root = store.load("root").unwrap().unwrap();
    assert_eq!(
        (root.messages, root.sub_sessions),
        (vec![Message::user("hi")], vec![])
    );
}

fn writes_to_an_unknown_session_are_not_found_and_store_nothing(db: &Db) {
    let store = db.open();
    let usage = UsageRecord {
        model_id: "m".into(),
        usage: Usage::default(),
        cost: None,
        at: jiff::Timestamp::UNIX_EPOCH,
    };

    let errors: Vec<String> = [
        store
            .append_message("ghost", &Message::user("a"))
            .map(|_| ()),
        store.append_messages("ghost", &[Message::user("a")]),
        store.replace_messages("ghost", &[Message::user("a")]),
        store.update("ghost", &SessionUpdate::default()),
        store.record_usage("ghost", &usage),
    ]
    .into_iter()
    .map(|r| r.unwrap_err().to_string())
    .collect();

    assert_eq!(errors, vec!["session `ghost` not found"; 5]);
    assert_eq!([db.count_rows("messages"), db.count_rows("usage")], [0, 0]);
}

fn create_session_rejects_a_duplicate_id_and_an_unknown_parent(db: &Db) {
    let store = db.open();
    store.create_session(&new_session("s1", None)).unwrap();

    let duplicate = store.create_session(&new_session("s1", None)).unwrap_err();
    let orphan = store
        .create_session(&new_session("s2", Some("ghost")))
        .unwrap_err();

    assert!(matches!(duplicate, StoreError::AlreadyExists { .. }));
    assert_eq!(
        [duplicate.to_string(), orphan.to_string()],
        [
            "session `s1` already exists",
            "cannot create session `s2`: its parent session `ghost` not found"
        ]
    );
    assert_eq!(db.count_rows("sessions"), 1);
}

//! What goes in comes back out, field for field, also after the store is closed and reopened.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

use jiff::Timestamp;
use pretty_assertions::assert_eq;
use serde_json::json;
use tether_protocol::{Message, Usage};
use tether_store::{NewSession, SessionMeta, SessionUpdate, Store, StoredSession, UsageRecord};

use crate::support::{Db, every_kind_of_message, new_session, on_both_backends, sized};

on_both_backends!(
    every_message_field_survives_a_round_trip,
    batches_and_single_appends_keep_one_order,
    a_new_session_loads_with_its_creation_metadata,
    an_update_sets_every_field_it_carries_and_bumps_updated_at,
    an_update_clears_fields_set_to_none_and_leaves_absent_ones,
    usage_records_come_back_in_the_order_recorded,
    a_reopened_store_has_everything_written_before,
    a_working_dir_that_is_not_utf8_round_trips,
    an_unknown_session_loads_as_none,
);

fn every_message_field_survives_a_round_trip(db: &Db) {
    let store = db.open();
    store.create_session(&new_session("s1", None)).unwrap();
    let messages = every_kind_of_message();

    let seqs: Vec<u64> = messages
        .iter()
        .map(|m| store.append_message("s1", m).unwrap())
        .collect();

    let expected_seqs: Vec<u64> = (0..).take(messages.len()).collect();
    assert_eq!(seqs, expected_seqs);
    assert_eq!(store.load("s1").unwrap().unwrap().messages, messages);
}

fn batches_and_single_appends_keep_one_order(db: &Db) {
    let store = db.open();
    store.create_session(&new_session("s1", None)).unwrap();
    let all: Vec<Message> = (0..9).map(|i| sized(40, i)).collect();

    store.append_message("s1", &all[0]).unwrap();
    store.append_messages("s1", &all[1..5]).unwrap();
    let sixth = store.append_message("s1", &all[5]).unwrap();
    store.append_messages("s1", &[]).unwrap();
    store.append_messages("s1", &all[6..]).unwrap();

    assert_eq!(sixth, 5);
    assert_eq!(store.load("s1").unwrap().unwrap().messages, all);
}

fn a_new_session_loads_with_its_creation_metadata(db: &Db) {
    let store = db.open();
    let new = new_session("s1", None);
    let before = Timestamp::now();
    store.create_session(&new).unwrap();
    let after = Timestamp::now();

    let loaded = store.load("s1").unwrap().unwrap();

    let created = loaded.meta.created_at;
    assert!(
        before <= created && created <= after,
        "{before} <= {created} <= {after}"
    );
    let expected = StoredSession {
        meta: SessionMeta {
            id: new.id,
            parent_id: None,
            agent: new.agent,
            created_at: created,
            updated_at: created,
            first_prompt: new.first_prompt,
            session_context: None,
            summary: None,
            input_tokens: 0,
            output_tokens: 0,
            cost: 0.0,
            worktree_path: None,
            worktree_branch: None,
            working_dir: new.working_dir,
            extra: json!({}),
        },
        messages: Vec::new(),
        sub_sessions: Vec::new(),
    };
    assert_eq!(loaded, expected);
}

fn an_update_sets_every_field_it_carries_and_bumps_updated_at(db: &Db) {
    let store = db.open();
    store.create_session(&new_session("s1", None)).unwrap();
    let created = store.load("s1").unwrap().unwrap().meta;
    let update = SessionUpdate {
        agent: Some("reviewer".into()),
        session_context: Some(Some("repo uses pnpm".into())),
        summary: Some(Some("we fixed the build".into())),
        input_tokens: Some(12_345),
        output_tokens: Some(678),
        cost: Some(0.0421),
        first_prompt: Some(Some("fix the build".into())),
        worktree_path: Some(Some(PathBuf::from("/data/tether/worktrees/fix"))),
        worktree_branch: Some(Some("tether/fix".into())),
        extra: Some(json!({"model": "openai/gpt-4o", "tags": ["a", "b"]})),
    };

    store.update("s1", &update).unwrap();

    let meta = store.load("s1").unwrap().unwrap().meta;
    assert!(meta.updated_at > created.updated_at);
    let expected = SessionMeta {
        id: "s1".into(),
        parent_id: None,
        agent: "reviewer".into(),
        created_at: created.created_at,
        updated_at: meta.updated_at,
        first_prompt: Some("fix the build".into()),
        session_context: Some("repo uses pnpm".into()),
        summary: Some("we fixed the build".into()),
        input_tokens: 12_345,
        output_tokens: 678,
        cost: 0.0421,
        worktree_path: Some("/data/tether/worktrees/fix".into()),
        worktree_branch: Some("tether/fix".into()),
        working_dir: created.working_dir,
        extra: json!({"model": "openai/gpt-4o", "tags": ["a", "b"]}),
    };
    assert_eq!(meta, expected);
}

fn an_update_clears_fields_set_to_none_and_leaves_absent_ones(db: &Db) {
    let store = db.open();
    store.create_session(&new_session("s1", None)).unwrap();
    let set = SessionUpdate {
        session_context: Some(Some("ctx".into())),
        summary: Some(Some("sum".into())),
        worktree_path: Some(Some("/wt".into())),
        worktree_branch: Some(Some("br".into())),
        input_tokens: Some(5),
        ..SessionUpdate::default()
    };
    store.update("s1", &set).unwrap();
    let before = store.load("s1").unwrap().unwrap().meta;

    let clear = SessionUpdate {
        session_context: Some(None),
        worktree_path: Some(None),
        first_prompt: Some(None),
        ..SessionUpdate::default()
    };
    store.update("s1", &clear).unwrap();

    let after = store.load("s1").unwrap().unwrap().meta;
    let expected = SessionMeta {
        session_context: None,
        worktree_path: None,
        first_prompt: None,
        updated_at: after.updated_at,
        ..before
    };
    assert_eq!(after, expected);
}

fn usage_records_come_back_in_the_order_recorded(db: &Db) {
    let store = db.open();
    store.create_session(&new_session("s1", None)).unwrap();
    let records = vec![
        UsageRecord {
            model_id: "anthropic/claude-sonnet-4-5".into(),
            usage: Usage {
                input_tokens: 1200,
                output_tokens: 340,
                cached_input_tokens: 1000,
                cached_write_tokens: 200,
                reasoning_tokens: Some(128),
            },
            cost: Some(0.0123),
            at: Timestamp::from_nanosecond(1_760_000_000_123_456_789).unwrap(),
        },
        UsageRecord {
            model_id: "local/llama".into(),
            usage: Usage {
                input_tokens: 5,
                output_tokens: 6,
                ..Usage::default()
            },
            cost: None,
            at: Timestamp::from_second(1_760_000_060).unwrap(),
        },
    ];

    for r in &records {
        store.record_usage("s1", r).unwrap();
    }

    assert_eq!(store.usage("s1").unwrap(), records);
}

fn a_reopened_store_has_everything_written_before(db: &Db) {
    let messages = every_kind_of_message();
    let usage = UsageRecord {
        model_id: "openai/gpt-4o".into(),
        usage: Usage {
            input_tokens: 10,
            ..Usage::default()
        },
        cost: Some(0.5),
        at: Timestamp::from_second(1_760_000_000).unwrap(),
    };
    let written = {
        let store = db.open();
        store.create_session(&new_session("s1", None)).unwrap();
        store
            .create_session(&new_session("child", Some("s1")))
            .unwrap();
        store.append_messages("s1", &messages).unwrap();
        store.record_usage("s1", &usage).unwrap();
        let update = SessionUpdate {
            summary: Some(Some("summary".into())),
            ..SessionUpdate::default()
        };
        store.update("s1", &update).unwrap();
        store.load("s1").unwrap().unwrap()
    };

    let reopened = db.open();

    assert_eq!(reopened.load("s1").unwrap(), Some(written.clone()));
    assert_eq!(reopened.usage("s1").unwrap(), vec![usage]);
    assert_eq!(
        (written.messages, written.sub_sessions),
        (messages, vec!["child".to_owned()])
    );
}

fn a_working_dir_that_is_not_utf8_round_trips(db: &Db) {
    let store = db.open();
    let working_dir = PathBuf::from(OsString::from_vec(b"/work/caf\xe9".to_vec()));
    let new = NewSession {
        working_dir: working_dir.clone(),
        ..new_session("s1", None)
    };
    store.create_session(&new).unwrap();

    assert_eq!(
        store.load("s1").unwrap().unwrap().meta.working_dir,
        working_dir
    );
}

fn an_unknown_session_loads_as_none(db: &Db) {
    let store = db.open();
    store.create_session(&new_session("s1", None)).unwrap();

    assert_eq!(store.load("s2").unwrap(), None);
}

#[test]
fn a_file_in_directories_that_do_not_exist_yet_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested").join("deeper").join("sessions.db");
    let store = Store::open(&path).unwrap();
    store.create_session(&new_session("s1", None)).unwrap();

    let reopened = Store::open(&path).unwrap();

    assert_eq!(reopened.list().unwrap().len(), 1);
}

#[test]
fn an_in_memory_store_round_trips_too() {
    let store = Store::open_in_memory().unwrap();
    store.create_session(&new_session("s1", None)).unwrap();
    store
        .append_messages("s1", &every_kind_of_message())
        .unwrap();

    assert_eq!(
        store.load("s1").unwrap().unwrap().messages,
        every_kind_of_message()
    );
}

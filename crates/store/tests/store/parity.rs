//! The backends side by side: one script of calls, every result compared (with the clock's
//! timestamps masked, since the two runs happen at different times).

use jiff::Timestamp;
use pretty_assertions::assert_eq;
use serde_json::json;
use tether_protocol::{Message, Usage};
use tether_store::{SessionUpdate, Store, StoredSession, UsageRecord};

use crate::support::{Db, every_kind_of_message, new_session, sized};

#[test]
fn the_same_calls_give_the_same_results_on_both_backends() {
    let Some(postgres) = Db::postgres() else {
        return;
    };
    let sqlite = Db::sqlite();

    let on_sqlite = script(&sqlite.open());
    let on_postgres = script(&postgres.open());

    assert!(on_sqlite.len() > 40, "{on_sqlite:#?}");
    assert_eq!(on_postgres, on_sqlite);
}

/// Runs every kind of call, good and bad, and returns what each gave back.
fn script(store: &Store) -> Vec<String> {
    let mut out = Vec::new();
    let mut log = |call: &str, result: String| out.push(format!("{call} -> {result}"));
    let usage = |n: u64| UsageRecord {
        model_id: format!("model-{n}"),
        usage: Usage {
            input_tokens: n,
            output_tokens: n * 2,
            cached_input_tokens: n / 2,
            cached_write_tokens: 1,
            reasoning_tokens: n.is_multiple_of(2).then_some(n),
        },
        cost: (n > 1).then_some(0.001 * n as f64),
        at: Timestamp::from_second(1_760_000_000 + i64::try_from(n).unwrap()).unwrap(),
    };

    for (id, parent) in [
        ("root", None),
        ("child", Some("root")),
        ("grandchild", Some("child")),
        ("other", None),
        ("root", None),
        ("orphan", Some("ghost")),
    ] {
        log(
            &format!("create {id}"),
            format!("{:?}", store.create_session(&new_session(id, parent))),
        );
    }
    for (id, m) in [
        ("root", Message::user("one")),
        ("root", Message::assistant("two")),
        ("ghost", Message::user("lost")),
    ] {
        log(
            &format!("append {id}"),
            format!("{:?}", store.append_message(id, &m)),
        );
    }
    let batch: Vec<Message> = (0..5).map(|i| sized(100 * (i + 1), i)).collect();
    log(
        "append_messages child",
        format!("{:?}", store.append_messages("child", &batch)),
    );
    log(
        "append_messages other",
        format!(
            "{:?}",
            store.append_messages("other", &every_kind_of_message())
        ),
    );
    log(
        "append_messages other (none)",
        format!("{:?}", store.append_messages("other", &[])),
    );
    log(
        "replace root",
        format!(
            "{:?}",
            store.replace_messages("root", &[Message::user("summary")])
        ),
    );
    log(
        "append root after replace",
        format!(
            "{:?}",
            store.append_message("root", &Message::user("three"))
        ),
    );
    log(
        "replace ghost",
        format!("{:?}", store.replace_messages("ghost", &[])),
    );
    let update = SessionUpdate {
        agent: Some("reviewer".into()),
        session_context: Some(Some("ctx".into())),
        summary: Some(Some("sum".into())),
        input_tokens: Some(10),
        output_tokens: Some(20),
        cost: Some(0.5),
        first_prompt: Some(None),
        worktree_path: Some(Some("/wt/root".into())),
        worktree_branch: Some(Some("tether/root".into())),
        extra: Some(json!({"instruction": "be brief", "n": [1, 2.5, null]})),
    };
    log(
        "update root",
        format!("{:?}", store.update("root", &update)),
    );
    let clear = SessionUpdate {
        summary: Some(None),
        worktree_path: Some(None),
        ..SessionUpdate::default()
    };
    log("clear root", format!("{:?}", store.update("root", &clear)));
    log(
        "update ghost",
        format!("{:?}", store.update("ghost", &SessionUpdate::default())),
    );
    for (id, n) in [("root", 1), ("root", 2), ("child", 3), ("ghost", 4)] {
        log(
            &format!("record_usage {id}"),
            format!("{:?}", store.record_usage(id, &usage(n))),
        );
    }
    let reads = |log: &mut dyn FnMut(&str, String), when: &str| {
        for id in ["root", "child", "grandchild", "other", "ghost"] {
            log(
                &format!("{when} load {id}"),
                format!("{:?}", store.load(id).map(|s| s.map(masked))),
            );
            log(
                &format!("{when} children {id}"),
                format!("{:?}", store.children(id).map(ids)),
            );
            log(
                &format!("{when} usage {id}"),
                format!("{:?}", store.usage(id)),
            );
        }
        log(
            &format!("{when} list"),
            format!("{:?}", store.list().map(ids)),
        );
        log(&format!("{when} latest"), format!("{:?}", store.latest()));
    };
    reads(&mut log, "before delete");
    for id in ["child", "child", "ghost"] {
        log(&format!("delete {id}"), format!("{:?}", store.delete(id)));
    }
    reads(&mut log, "after delete");
    out
}

fn masked(mut s: StoredSession) -> StoredSession {
    s.meta.created_at = Timestamp::UNIX_EPOCH;
    s.meta.updated_at = Timestamp::UNIX_EPOCH;
    s
}

/// Summaries without their `updated_at`: ids, agents and first prompts in order.
fn ids(list: Vec<tether_store::SessionSummary>) -> Vec<(String, String, Option<String>)> {
    list.into_iter()
        .map(|s| (s.id, s.agent, s.first_prompt))
        .collect()
}

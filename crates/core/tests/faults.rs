//! Fault injection into the runtime: a provider that cuts its stream, answers 500s or stalls;
//! a run cancelled (as by SIGINT/SIGTERM) during a stream, a hook or a tool; a session store
//! that is full, read-only or fails midway. The fake LLM server and real SQLite files;
//! each case asserts what the run did and what was stored, and that afterwards this process
//! holds the descriptors it held before, no process below it and a bounded peak memory.
//!
//! Needs nextest's one process per test (the resource checks read this process's `/proc`).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod support;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::Value;
use support::{Recorder, ScriptedUser, build, fake_model, fixture};
use tempfile::TempDir;
use tether_core::{Runtime, RuntimeOptions, Session, SessionStore, StopReason};
use tether_protocol::{Message, Role, RuntimeEvent};
use tether_store::{Store, StoreOptions};
use tether_test_support::fake_llm::{FakeLlm, Turn};
use tether_test_support::resources::{self, FdChanges, Usage};
use tokio_util::sync::CancellationToken;

/// This process's resources before a case. One process is spawned first, so that what the
/// first spawn sets up for good (the runtime's child-reaping signal pipe) is in the baseline.
struct Baseline(Usage);

impl Baseline {
    async fn take(dir: &Path) -> Self {
        resources::adopt_orphans().unwrap();
        let record = tether_exec::run(tether_exec::ExecSpec::new("true", dir)).await;
        assert_eq!(record.exit_code, Some(0));
        Self(Usage::now())
    }

    /// Call once the runtime, the fake server and the stores are dropped: their sockets and
    /// files close as the async runtime gets to run, so descriptors are polled for a while.
    async fn check(&self, max_growth_mib: u64) {
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut changes = Usage::now().fd_changes(&self.0);
        while changes != FdChanges::default() && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
            changes = Usage::now().fd_changes(&self.0);
        }
        assert_eq!(
            changes,
            FdChanges::default(),
            "descriptors leaked or closed"
        );
        let left = resources::wait_for_no_descendants(Duration::from_secs(5));
        assert_eq!(left, [], "processes left behind");
        let grown = Usage::now()
            .peak_rss_kib
            .saturating_sub(self.0.peak_rss_kib)
            / 1024;
        assert!(
            grown < max_growth_mib,
            "peak memory grew by {grown} MiB (bound {max_growth_mib} MiB)"
        );
    }
}

/// A runtime on the fake server with explicit `provider_opts`, an `on_error` hook that logs
/// what it was told, and optionally a session store.
struct Rig {
    runtime: Runtime,
    events: Arc<Recorder>,
}

fn rig(
    fake: &FakeLlm,
    dir: &Path,
    provider_opts: &str,
    store: Option<Arc<dyn SessionStore>>,
) -> Rig {
    rig_with(fake, dir, provider_opts, store, "")
}

/// [`rig`] with the shell toolset and `more_hooks` (YAML under `hooks:`, indented 6 spaces).
fn rig_with(
    fake: &FakeLlm,
    dir: &Path,
    provider_opts: &str,
    store: Option<Arc<dyn SessionStore>>,
    more_hooks: &str,
) -> Rig {
    let on_error = format!("{} --log {}", fixture(), dir.join("on_error.log").display());
    let toolsets = if more_hooks.is_empty() {
        ""
    } else {
        "    toolsets: [{type: shell}]\n"
    };
    let yaml = format!(
        "{}agents:\n  root:\n    model: fake\n    instruction: You are a test agent.\n{toolsets}    hooks:\n      on_error:\n        - {{type: command, command: {}}}\n{more_hooks}",
        fake_model(fake, provider_opts),
        serde_json::to_string(&on_error).unwrap()
    );
    let events = Arc::new(Recorder::default());
    let mut opts = RuntimeOptions::new(dir);
    opts.store = store;
    let runtime = build(
        fake,
        dir,
        &yaml,
        opts,
        events.clone(),
        Arc::new(ScriptedUser::default()),
    );
    Rig { runtime, events }
}

impl Rig {
    /// A whole session of one prompt, saved to the store (if any) like `tether run` does.
    async fn session(&self, id: &str, prompt: &str) -> (Session, StopReason) {
        let cancel = CancellationToken::new();
        let mut session = Session::new(id, "root");
        self.runtime.save_session(&mut session, Some(prompt), false);
        self.runtime
            .start_session(&mut session, "startup", &cancel)
            .await;
        let out = self
            .runtime
            .run(&mut session, Some(prompt.to_owned()), &cancel)
            .await;
        self.runtime.end_session(&session, "other").await;
        (session, out.reason)
    }

    /// A session whose run is cancelled (what SIGINT and SIGTERM do in `tether run`) as soon
    /// as `ready` holds.
    async fn cancelled_session(
        &self,
        prompt: &str,
        mut ready: impl FnMut() -> bool,
    ) -> (Session, StopReason) {
        let cancel = CancellationToken::new();
        let mut session = Session::new("cancelled", "root");
        self.runtime
            .start_session(&mut session, "startup", &cancel)
            .await;
        let canceller = async {
            while !ready() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            cancel.cancel();
        };
        let (out, ()) = tokio::join!(
            self.runtime
                .run(&mut session, Some(prompt.to_owned()), &cancel),
            canceller
        );
        self.runtime.end_session(&session, "other").await;
        (session, out.reason)
    }

    fn errors(&self) -> Vec<(String, String)> {
        self.events
            .0
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                RuntimeEvent::Error { code, message } => Some((code.clone(), message.clone())),
                _ => None,
            })
            .collect()
    }

    fn streamed_text(&self) -> String {
        self.events
            .0
            .lock()
            .unwrap()
            .iter()
            .filter_map(|e| match e {
                RuntimeEvent::AgentTextDelta { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }
}

fn roles(messages: &[Message]) -> Vec<Role> {
    messages.iter().map(|m| m.role).collect()
}

/// What each `on_error` hook run was told.
fn on_error_messages(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("on_error.log"))
        .unwrap_or_default()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["stdin"]["notification_message"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

fn model_error(reason: &StopReason) -> &str {
    match reason {
        StopReason::Error { code, message } if code == "model_error" => message,
        other => panic!("not a model error: {other:?}"),
    }
}

#[tokio::test]
async fn a_stream_cut_mid_answer_fails_the_run_and_stores_no_partial_message() {
    let dir = TempDir::new().unwrap();
    let base = Baseline::take(dir.path()).await;
    {
        let fake = FakeLlm::start().await.unwrap();
        let store = Arc::new(Store::open(dir.path().join("sessions.db")).unwrap());
        // Retries are on, but text was already shown: a retry would show it twice.
        let rig = rig(
            &fake,
            dir.path(),
            "max_retries: 3, retry_backoff_ms: 10",
            Some(store.clone()),
        );
        fake.push(Turn::text("a long answer that never gets to its end").cut_after(3));
        let (session, reason) = rig.session("cut", "tell me").await;
        let message = model_error(&reason).to_owned();
        assert!(
            message
                .starts_with("model openai/gpt-4o: bad stream from `openai/gpt-4o`: stream cut: "),
            "{message}"
        );
        assert!(!rig.streamed_text().is_empty(), "some text was streamed");
        assert_eq!(fake.requests().len(), 1);
        assert_eq!(rig.errors(), [("model_error".to_owned(), message.clone())]);
        assert_eq!(on_error_messages(dir.path()), [message]);
        assert_eq!(roles(&session.messages), [Role::User]);
        let stored = store.load("cut").unwrap().unwrap();
        assert_eq!(stored.messages, session.messages);
    }
    base.check(64).await;
}

#[tokio::test]
async fn server_errors_are_retried_then_the_run_fails_cleanly() {
    let dir = TempDir::new().unwrap();
    let base = Baseline::take(dir.path()).await;
    {
        let fake = FakeLlm::start().await.unwrap();
        let rig = rig(
            &fake,
            dir.path(),
            "max_retries: 2, retry_backoff_ms: 10",
            None,
        );
        let overloaded = || {
            Turn::error(
                500,
                r#"{"error":{"message":"overloaded","type":"server_error"}}"#,
            )
        };
        fake.push(overloaded());
        fake.push(overloaded());
        fake.push(Turn::text("third time lucky"));
        let (session, reason) = rig.session("retry", "hello").await;
        assert_eq!(reason, StopReason::Normal);
        assert_eq!(fake.requests().len(), 3);
        assert_eq!(session.last_assistant_message(), "third time lucky");

        for _ in 0..3 {
            fake.push(overloaded());
        }
        let (session, reason) = rig.session("fail", "hello again").await;
        assert_eq!(
            model_error(&reason),
            "model openai/gpt-4o: `openai/gpt-4o` server error (HTTP 500): overloaded"
        );
        assert_eq!(fake.requests().len(), 6, "one try and two retries");
        assert_eq!(roles(&session.messages), [Role::User]);
        assert_eq!(fake.remaining_turns(), 0);
    }
    base.check(64).await;
}

#[tokio::test]
async fn a_stalled_provider_hits_the_idle_timeout_before_or_during_the_stream() {
    let dir = TempDir::new().unwrap();
    let base = Baseline::take(dir.path()).await;
    {
        let fake = FakeLlm::start().await.unwrap();
        let rig = rig(
            &fake,
            dir.path(),
            "max_retries: 0, idle_timeout_ms: 300",
            None,
        );
        let want = "model openai/gpt-4o: `openai/gpt-4o` did not answer within `300ms`";
        fake.push(Turn::stall());
        let (session, reason) = rig.session("silent", "anyone there?").await;
        assert_eq!(model_error(&reason), want);
        assert_eq!(roles(&session.messages), [Role::User]);

        fake.push(Turn::text("I was saying something when").stall_after(3));
        let (session, reason) = rig.session("paused", "go on").await;
        assert_eq!(model_error(&reason), want);
        assert_eq!(roles(&session.messages), [Role::User]);
        assert_eq!(fake.requests().len(), 2);
        assert_eq!(on_error_messages(dir.path()), [want, want]);
    }
    base.check(64).await;
}

/// A `pre_tool_use` command hook, for [`rig_with`].
fn pre_tool_use(command: &str) -> String {
    format!(
        "      pre_tool_use:\n        - hooks:\n            - {{type: command, command: {}}}\n",
        serde_json::to_string(command).unwrap()
    )
}

fn read_pid(path: &Path) -> Option<u32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

#[tokio::test]
async fn cancelling_during_a_stream_a_hook_or_a_tool_leaves_nothing_behind() {
    let dir = TempDir::new().unwrap();
    let base = Baseline::take(dir.path()).await;
    {
        // Mid-stream: part of the answer was shown, none of it is recorded.
        let fake = FakeLlm::start().await.unwrap();
        let rig = rig(&fake, dir.path(), "max_retries: 0", None);
        fake.push(Turn::text("I was just about to say").stall_after(3));
        let (session, reason) = rig
            .cancelled_session("talk", || fake.requests().len() == 1)
            .await;
        assert_eq!(reason, StopReason::Cancelled);
        assert_eq!(roles(&session.messages), [Role::User]);

        // In a slow pre_tool_use hook: it is killed and the tool never runs.
        let (hook_pid, ran) = (dir.path().join("hook.pid"), dir.path().join("ran"));
        let guard = format!("echo $$ > {}; sleep 30", hook_pid.display());
        let rig = rig_with(
            &fake,
            dir.path(),
            "max_retries: 0",
            None,
            &pre_tool_use(&guard),
        );
        fake.push(Turn::tool_call(
            "shell",
            serde_json::json!({"cmd": format!("touch {}", ran.display())}),
        ));
        let (_, reason) = rig
            .cancelled_session("go", || read_pid(&hook_pid).is_some())
            .await;
        assert_eq!(reason, StopReason::Cancelled);
        assert!(!ran.exists(), "the tool ran after its guard was cancelled");
        let hook = read_pid(&hook_pid).unwrap();
        assert_eq!(
            resources::wait_for_empty_group(hook, Duration::from_secs(5)),
            []
        );

        // In a tool with a background child: its whole group is killed.
        let tool_pid = dir.path().join("tool.pid");
        let allow = r#"echo '{"hook_specific_output":{"permission_decision":"allow"}}'"#;
        let rig = rig_with(
            &fake,
            dir.path(),
            "max_retries: 0",
            None,
            &pre_tool_use(allow),
        );
        fake.push(Turn::tool_call(
            "shell",
            serde_json::json!({"cmd": format!("echo $$ > {}; sleep 30 & sleep 30", tool_pid.display())}),
        ));
        let (session, reason) = rig
            .cancelled_session("go", || read_pid(&tool_pid).is_some())
            .await;
        assert_eq!(reason, StopReason::Cancelled);
        assert_eq!(
            roles(&session.messages),
            [Role::User, Role::Assistant, Role::Tool]
        );
        let tool = read_pid(&tool_pid).unwrap();
        assert_eq!(
            resources::wait_for_empty_group(tool, Duration::from_secs(5)),
            []
        );
    }
    base.check(64).await;
}

/// Stores session `first` through a runtime on an unlimited store; returns what was stored.
async fn store_a_session(dir: &Path, db: &Path) -> tether_store::StoredSession {
    let fake = FakeLlm::start().await.unwrap();
    let store = Arc::new(Store::open(db).unwrap());
    let rig = rig(&fake, dir, "max_retries: 0", Some(store.clone()));
    fake.push(Turn::text("first answer"));
    let (_, reason) = rig.session("first", "first prompt").await;
    assert_eq!(reason, StopReason::Normal);
    assert_eq!(rig.errors(), []);
    let stored = store.load("first").unwrap().unwrap();
    assert_eq!(roles(&stored.messages), [Role::User, Role::Assistant]);
    stored
}

/// Runs session `second` on `store`: the run goes on in memory and reports the failure once.
async fn run_on_a_failing_store(dir: &Path, store: Arc<Store>, want_error: &str) {
    let fake = FakeLlm::start().await.unwrap();
    let rig = rig(&fake, dir, "max_retries: 0", Some(store));
    fake.push(Turn::text("second answer"));
    // Far more than the free space of any page: the message needs new pages.
    let prompt = "p".repeat(256 * 1024);
    let (session, reason) = rig.session("second", &prompt).await;
    assert_eq!(reason, StopReason::Normal);
    assert_eq!(session.last_assistant_message(), "second answer");
    assert!(session.store_failed);
    assert_eq!(
        rig.errors(),
        [(
            "store_error".to_owned(),
            format!("the session could not be saved: {want_error}")
        )]
    );
}

#[tokio::test]
async fn a_full_session_database_is_reported_once_and_damages_nothing_stored() {
    let dir = TempDir::new().unwrap();
    let db = dir.path().join("sessions.db");
    let base = Baseline::take(dir.path()).await;
    {
        let first = store_a_session(dir.path(), &db).await;
        let size = std::fs::metadata(&db).unwrap().len();
        let full = StoreOptions {
            max_size_bytes: Some(size),
            ..StoreOptions::default()
        };
        let store = Arc::new(Store::open_with(&db, &full).unwrap());
        let want = format!(
            "cannot write to `{}`: the disk is full; free some space and retry",
            db.display()
        );
        run_on_a_failing_store(dir.path(), store, &want).await;

        let reopened = Store::open(&db).unwrap();
        assert_eq!(reopened.load("first").unwrap().unwrap(), first);
        // Creating the second session (its 256 KiB first prompt is kept for listings) already
        // failed, and nothing of it was written after that.
        assert_eq!(reopened.load("second").unwrap(), None);
    }
    base.check(96).await;
}

#[tokio::test]
async fn a_read_only_session_database_is_reported_once_and_damages_nothing_stored() {
    let dir = TempDir::new().unwrap();
    let db = dir.path().join("sessions.db");
    let base = Baseline::take(dir.path()).await;
    {
        let first = store_a_session(dir.path(), &db).await;
        let store = Arc::new(Store::open_read_only(&db).unwrap());
        let want = format!(
            "cannot write to `{}`: the database is read-only: check the permissions of `{}` and its directory",
            db.display(),
            db.display()
        );
        run_on_a_failing_store(dir.path(), store, &want).await;
        let reopened = Store::open(&db).unwrap();
        assert_eq!(reopened.load("first").unwrap().unwrap(), first);
        assert_eq!(reopened.load("second").unwrap(), None);
    }
    base.check(96).await;
}

/// The real store, except that appending a message of more than 64 KiB fails the way a full
/// disk does: a big row needs new pages, while small ones still fit in existing free space.
#[derive(Debug)]
struct NoRoomForBigMessages(Arc<Store>);

impl NoRoomForBigMessages {
    fn full(&self) -> String {
        format!(
            "cannot write to `{}`: the disk is full; free some space and retry",
            self.0.path().display()
        )
    }
}

impl SessionStore for NoRoomForBigMessages {
    fn create(&self, session: &Session, dir: &str, prompt: Option<&str>) -> Result<(), String> {
        SessionStore::create(self.0.as_ref(), session, dir, prompt)
    }

    fn append(&self, session_id: &str, message: &Message) -> Result<(), String> {
        if message.text().len() > 64 * 1024 {
            return Err(self.full());
        }
        SessionStore::append(self.0.as_ref(), session_id, message)
    }

    fn update(&self, session: &Session) -> Result<(), String> {
        SessionStore::update(self.0.as_ref(), session)
    }

    fn replace_messages(&self, session_id: &str, messages: &[Message]) -> Result<(), String> {
        SessionStore::replace_messages(self.0.as_ref(), session_id, messages)
    }

    fn record_usage(
        &self,
        session_id: &str,
        model_id: &str,
        usage: &tether_protocol::Usage,
        cost: Option<f64>,
    ) -> Result<(), String> {
        SessionStore::record_usage(self.0.as_ref(), session_id, model_id, usage, cost)
    }
}

#[tokio::test]
async fn after_a_failed_write_the_stored_session_stays_a_prefix_without_holes() {
    let dir = TempDir::new().unwrap();
    let base = Baseline::take(dir.path()).await;
    {
        let fake = FakeLlm::start().await.unwrap();
        let store = Arc::new(Store::open(dir.path().join("sessions.db")).unwrap());
        let failing = Arc::new(NoRoomForBigMessages(store.clone()));
        let rig = rig(&fake, dir.path(), "max_retries: 0", Some(failing.clone()));
        fake.push(Turn::text("one"));
        fake.push(Turn::text("two"));
        fake.push(Turn::text("three"));
        let cancel = CancellationToken::new();
        let mut session = Session::new("s", "root");
        rig.runtime.save_session(&mut session, Some("short"), false);
        for prompt in [
            "short".to_owned(),
            "p".repeat(100 * 1024),
            "short again".to_owned(),
        ] {
            let out = rig.runtime.run(&mut session, Some(prompt), &cancel).await;
            assert_eq!(out.reason, StopReason::Normal);
        }
        assert_eq!(session.last_assistant_message(), "three");
        assert_eq!(
            rig.errors(),
            [(
                "store_error".to_owned(),
                format!("the session could not be saved: {}", failing.full())
            )]
        );
        // Everything up to the failed write, nothing after it: a later answer stored without
        // the prompt it answers would be a transcript that never happened.
        let stored = store.load("s").unwrap().unwrap();
        assert_eq!(stored.messages, session.messages[..2]);
    }
    base.check(64).await;
}

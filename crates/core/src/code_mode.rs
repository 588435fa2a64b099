//! `code_mode_tools` (docs/agent-files.md, Code mode): `run_tools_with_javascript` runs the
//! model's script on a thread of its own (tether-codemode's QuickJS). Each tool call the
//! script makes comes back here over a channel and runs through [`Runtime::run_call`], the
//! path of a model's call: `tool_input_transform`, the approval ladder, the tool,
//! `tool_response_transform`, `post_tool_use`. The script's thread waits for the answer.
//!
//! Unlike a model's call, an inner call's result is not a message of the conversation (the
//! model did not make it: the script's result is the one answer), but its events are emitted
//! and its hooks see it with a `tool_use_id` of `OUTER_N`. Identical consecutive inner calls
//! trip a loop detector of their own, which stops the script rather than the run.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Map, Value};
use tether_codemode::{Function, Host, Reply, ScriptResult};
use tether_protocol::ToolCall;
use tether_tools::{ToolDefinition, ToolResult};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::agent::AgentRuntime;
use crate::calls::{CANCELED_BY_USER, Origin};
use crate::loop_detector::LoopDetector;
use crate::runtime::Runtime;
use crate::runtime_tools::function;
use crate::session::Session;

/// What a script came to, for the outer call.
#[derive(Debug)]
pub(crate) struct ScriptEnd {
    pub(crate) result: ToolResult,
    /// An inner call's `post_tool_use` asked to stop the run.
    pub(crate) post_blocked: Option<(String, String)>,
    /// The user cancelled an inner call's confirmation.
    pub(crate) cancelled: bool,
    /// An inner call's toolset routes the next turn to its `model:`.
    pub(crate) model: Option<usize>,
}

/// One call of the script, waiting for its answer.
struct Request {
    name: String,
    arguments: Map<String, Value>,
    reply: std::sync::mpsc::SyncSender<Reply>,
}

/// The script thread's side of the channel.
struct Channel(mpsc::UnboundedSender<Request>);

impl Host for Channel {
    fn call(&mut self, name: &str, arguments: &Map<String, Value>) -> Reply {
        let (reply, answer) = std::sync::mpsc::sync_channel(1);
        let request = Request {
            name: name.to_owned(),
            arguments: arguments.clone(),
            reply,
        };
        if self.0.send(request).is_err() {
            return Reply::Stop(ENDED.to_owned());
        }
        answer
            .recv()
            .unwrap_or_else(|_| Reply::Stop(ENDED.to_owned()))
    }
}

const ENDED: &str = "the script was stopped: the run ended";

/// Stops the script when the outer call's future is dropped mid-script.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl Runtime {
    /// Runs the script of one `run_tools_with_javascript` call; see the module doc.
    pub(crate) async fn run_script(
        &self,
        agent: &AgentRuntime,
        session: &mut Session,
        call: &ToolCall,
        args: &Map<String, Value>,
        cancel: &CancellationToken,
    ) -> ScriptEnd {
        let mut end = ScriptEnd {
            result: ToolResult::ok(String::new()),
            post_blocked: None,
            cancelled: false,
            model: None,
        };
        let Some(script) = args.get("script").and_then(Value::as_str) else {
            end.result = ToolResult::error("the `script` argument (a string) is required");
            return end;
        };
        let view = agent.toolbox.view();
        let defs: Vec<ToolDefinition> = agent.toolbox.scripted(&view).cloned().collect();
        let (requests, mut incoming) = mpsc::unbounded_channel();
        let (done, finished) = oneshot::channel::<ScriptResult>();
        let stop = Arc::new(AtomicBool::new(false));
        let _stop_on_drop = StopOnDrop(Arc::clone(&stop));
        let thread_stop = Arc::clone(&stop);
        let limits = self.script_limits;
        let script = script.to_owned();
        let spawned = std::thread::Builder::new()
            .name("tether-script".to_owned())
            .spawn(move || {
                let functions: Vec<Function<'_>> = defs.iter().map(function).collect();
                let result = tether_codemode::run(
                    &script,
                    &functions,
                    limits,
                    thread_stop,
                    Box::new(Channel(requests)),
                );
                let _ = done.send(result);
            });
        if let Err(e) = spawned {
            end.result = ToolResult::error(format!("the script could not start: {e}"));
            return end;
        }
        let mut detector = LoopDetector::new(agent.max_consecutive_tool_calls);
        let mut count = 0_usize;
        loop {
            let request = tokio::select! {
                r = incoming.recv() => r,
                () = cancel.cancelled(), if !stop.load(Ordering::Relaxed) => {
                    stop.store(true, Ordering::Relaxed);
                    continue;
                }
            };
            let Some(request) = request else { break };
            count += 1;
            let inner = ToolCall::new(
                format!("{}_{count}", call.id),
                request.name,
                Value::Object(request.arguments).to_string(),
            );
            let reply = if let Some(n) = detector.record(std::slice::from_ref(&inner)) {
                Reply::Stop(format!(
                    "the script was stopped: it made {n} consecutive identical calls to {}",
                    inner.function.name
                ))
            } else {
                self.script_call(agent, session, &inner, &mut end, cancel)
                    .await
            };
            // The script may have ended meanwhile (cancelled): nobody to answer then.
            let _ = request.reply.send(reply);
        }
        end.result = match finished.await {
            Ok(r) => ToolResult {
                content: r.to_json(),
                is_error: r.failed,
                ..ToolResult::default()
            },
            Err(_) => ToolResult::error("the script's thread ended without a result"),
        };
        end
    }

    /// One call of the script, through the model's path; its answer for the script.
    async fn script_call(
        &self,
        agent: &AgentRuntime,
        session: &mut Session,
        call: &ToolCall,
        end: &mut ScriptEnd,
        cancel: &CancellationToken,
    ) -> Reply {
        let inner = self
            .run_call(agent, session, call, Origin::Script, cancel)
            .await;
        if inner.model.is_some() {
            end.model = inner.model;
        }
        if let Some((reason, hook)) = inner.post_blocked {
            let reply = Reply::Stop(format!(
                "the script was stopped: a post_tool_use hook ended the run: {reason}"
            ));
            end.post_blocked = Some((reason, hook));
            return reply;
        }
        if inner.cancelled || cancel.is_cancelled() {
            end.cancelled |= inner.cancelled;
            return Reply::Stop(CANCELED_BY_USER.to_owned());
        }
        if inner.is_error {
            Reply::Failed(inner.content)
        } else {
            Reply::Output(inner.content)
        }
    }
}

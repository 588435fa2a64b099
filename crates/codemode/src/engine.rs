//! One script in a fresh QuickJS runtime: the tools as global functions, a `console`, the
//! limits. The interrupt handler (which QuickJS polls while it runs) is what stops a script:
//! on cancellation, past the time limit, or when the host said stop. QuickJS polls it every
//! few thousand instructions, so a script told to stop may run a little longer (in a `catch`,
//! say): from then on its calls are refused unrecorded and its console is mute, so nothing it
//! does after the stop is seen.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rquickjs::context::EvalOptions;
use rquickjs::function::{Opt, Rest};
use rquickjs::{Coerced, Context, Ctx, Exception, FromJs, Function, Object, Runtime, Value};
use serde_json::Map;

use crate::{Function as ToolFunction, Host, Limits, Reply, ScriptResult, ToolCallInfo};

/// Each console stream keeps at most this much.
const CONSOLE_CAP: usize = 1 << 20;
const TRUNCATED: &str = "[console output truncated]\n";

/// What the functions and the interrupt handler share.
struct State {
    host: RefCell<Box<dyn Host>>,
    calls: RefCell<Vec<ToolCallInfo>>,
    stdout: RefCell<String>,
    stderr: RefCell<String>,
    started: Instant,
    /// Time spent waiting for the host: not the script's own.
    in_tools: Cell<Duration>,
    /// Why the script must end, once it must.
    stopped: RefCell<Option<String>>,
    cancel: Arc<AtomicBool>,
    limits: Limits,
}

impl State {
    fn stop(&self, why: String) {
        self.stopped.borrow_mut().get_or_insert(why);
    }

    /// The interrupt check: true stops the script.
    fn must_stop(&self) -> bool {
        if self.stopped.borrow().is_some() {
            return true;
        }
        if self.cancel.load(Ordering::Relaxed) {
            self.stop("the script was cancelled".to_owned());
            return true;
        }
        let own = self.started.elapsed().saturating_sub(self.in_tools.get());
        if own > self.limits.time {
            self.stop(format!(
                "the script was stopped: it ran for more than {}s (time spent in tool calls does not count)",
                self.limits.time.as_secs_f64()
            ));
            return true;
        }
        false
    }

    fn print(&self, stream: &RefCell<String>, line: &str) {
        if self.stopped.borrow().is_some() {
            return;
        }
        let mut out = stream.borrow_mut();
        if out.ends_with(TRUNCATED) {
            return;
        }
        if out.len() + line.len() + 1 > CONSOLE_CAP {
            out.push_str(TRUNCATED);
            return;
        }
        out.push_str(line);
        out.push('\n');
    }
}

/// Runs `script` (the body of a function) with `functions` as globals that call `host`.
/// Blocks until the script ends; run it on a thread that may block. `cancel` stops it.
pub fn run(
    script: &str,
    functions: &[ToolFunction<'_>],
    limits: Limits,
    cancel: Arc<AtomicBool>,
    host: Box<dyn Host>,
) -> ScriptResult {
    let state = Rc::new(State {
        host: RefCell::new(host),
        calls: RefCell::new(Vec::new()),
        stdout: RefCell::new(String::new()),
        stderr: RefCell::new(String::new()),
        started: Instant::now(),
        in_tools: Cell::new(Duration::ZERO),
        stopped: RefCell::new(None),
        cancel,
        limits,
    });
    let outcome = evaluate(script, functions, &state);
    let stopped = state.stopped.borrow_mut().take();
    let mut result = ScriptResult {
        value: String::new(),
        stdout: state.stdout.take(),
        stderr: state.stderr.take(),
        tool_calls: Vec::new(),
        failed: false,
    };
    match (stopped, outcome) {
        (None, Ok(value)) => result.value = value,
        // A stop wins over the error it caused ("interrupted", or the thrown stop message).
        (Some(why), _) | (None, Err(why)) => {
            result.value = why;
            result.failed = true;
            result.tool_calls = state.calls.take();
        }
    }
    result
}

/// The script's value, or why it failed.
fn evaluate(
    script: &str,
    functions: &[ToolFunction<'_>],
    state: &Rc<State>,
) -> Result<String, String> {
    let runtime =
        Runtime::new().map_err(|e| format!("the JavaScript engine did not start: {e}"))?;
    runtime.set_memory_limit(state.limits.memory);
    let handler_state = Rc::clone(state);
    runtime.set_interrupt_handler(Some(Box::new(move || handler_state.must_stop())));
    let context =
        Context::full(&runtime).map_err(|e| format!("the JavaScript engine did not start: {e}"))?;
    context.with(|ctx| {
        let limit = state.limits.memory;
        install(&ctx, functions, state).map_err(|e| error_text(&ctx, e, limit))?;
        let mut options = EvalOptions::default();
        options.filename = Some("script.js".to_owned());
        // The body stays on the script's own lines, so error positions match what was written.
        let wrapped = format!("(() => {{{script}\n}})()");
        match ctx.eval_with_options::<Value<'_>, _>(wrapped, options) {
            Ok(v) if v.is_undefined() || v.is_null() => Ok(String::new()),
            Ok(v) => Ok(display(&ctx, &v)),
            Err(e) => Err(error_text(&ctx, e, limit)),
        }
    })
}

/// The globals: one function per tool, then `console`.
fn install<'js>(
    ctx: &Ctx<'js>,
    functions: &[ToolFunction<'_>],
    state: &Rc<State>,
) -> rquickjs::Result<()> {
    let globals = ctx.globals();
    for f in functions {
        let name = f.name.to_owned();
        let required: Vec<String> = f.required().into_iter().map(str::to_owned).collect();
        let state = Rc::clone(state);
        let func = Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, args: Opt<Value<'js>>| -> rquickjs::Result<String> {
                call(&ctx, &state, &name, &required, args.0)
            },
        )?;
        globals.set(f.name, func)?;
    }
    let console = Object::new(ctx.clone())?;
    for (method, to_stderr) in [
        ("log", false),
        ("info", false),
        ("debug", false),
        ("trace", false),
        ("warn", false),
        ("error", true),
    ] {
        let state = Rc::clone(state);
        let func = Function::new(ctx.clone(), move |ctx: Ctx<'js>, args: Rest<Value<'js>>| {
            let line: Vec<String> = args.0.iter().map(|v| display(&ctx, v)).collect();
            let stream = if to_stderr {
                &state.stderr
            } else {
                &state.stdout
            };
            state.print(stream, &line.join(" "));
        })?;
        console.set(method, func)?;
    }
    globals.set("console", console)
}

/// One tool call: the arguments as JSON (nulls the schema does not require dropped), the host's
/// answer as the return value or a thrown error.
fn call<'js>(
    ctx: &Ctx<'js>,
    state: &State,
    name: &str,
    required: &[String],
    args: Option<Value<'js>>,
) -> rquickjs::Result<String> {
    let mut arguments = match args {
        None => Map::new(),
        Some(v) if v.is_undefined() || v.is_null() => Map::new(),
        Some(v) => match to_json(ctx, &v) {
            Some(serde_json::Value::Object(m)) if v.is_object() && !v.is_array() => m,
            _ => {
                return Err(Exception::throw_type(
                    ctx,
                    &format!("{name}() takes one object of arguments"),
                ));
            }
        },
    };
    if let Some(why) = state.stopped.borrow().clone() {
        return Err(Exception::throw_message(ctx, &why));
    }
    arguments.retain(|k, v| !v.is_null() || required.iter().any(|r| r == k));
    let mut info = ToolCallInfo {
        name: name.to_owned(),
        arguments: serde_json::Value::Object(arguments.clone()),
        result: None,
        error: None,
    };
    let reply = if state.calls.borrow().len() >= state.limits.calls {
        Reply::Stop(format!(
            "the script was stopped: it made more than {} tool calls",
            state.limits.calls
        ))
    } else {
        let asked = Instant::now();
        let reply = state.host.borrow_mut().call(name, &arguments);
        state.in_tools.set(state.in_tools.get() + asked.elapsed());
        reply
    };
    let thrown = match reply {
        Reply::Output(out) => {
            info.result = Some(out.clone());
            state.calls.borrow_mut().push(info);
            return Ok(out);
        }
        Reply::Failed(why) => why,
        Reply::Stop(why) => {
            state.stop(why.clone());
            why
        }
    };
    info.error = Some(thrown.clone());
    state.calls.borrow_mut().push(info);
    Err(Exception::throw_message(ctx, &thrown))
}

/// `v` as JSON, when `JSON.stringify` gives any.
fn to_json<'js>(ctx: &Ctx<'js>, v: &Value<'js>) -> Option<serde_json::Value> {
    match ctx.json_stringify(v.clone()) {
        Ok(Some(s)) => serde_json::from_str(&s.to_string().ok()?).ok(),
        Ok(None) => None,
        Err(_) => {
            // A cycle or a throwing toJSON: clear the pending exception.
            ctx.catch();
            None
        }
    }
}

/// How `console` and the script's value show `v`: strings as they are, objects and arrays as
/// JSON, the rest as `String(v)`.
fn display<'js>(ctx: &Ctx<'js>, v: &Value<'js>) -> String {
    if let Some(s) = v.as_string() {
        return s.to_string().unwrap_or_default();
    }
    if v.is_symbol() {
        return "[symbol]".to_owned();
    }
    if v.is_object()
        && !v.is_function()
        && !v.is_error()
        && let Some(json) = to_json(ctx, v)
    {
        return json.to_string();
    }
    match Coerced::<String>::from_js(ctx, v.clone()) {
        Ok(s) => s.0,
        Err(_) => {
            ctx.catch();
            String::new()
        }
    }
}

/// The text of a failure: a thrown error as `Name: message` and its stack; running out of
/// memory names the limit.
fn error_text(ctx: &Ctx<'_>, e: rquickjs::Error, memory: usize) -> String {
    let limit = format!("the heap is limited to {} MiB", memory >> 20);
    if !matches!(e, rquickjs::Error::Exception) {
        return e.to_string();
    }
    let thrown = ctx.catch();
    // QuickJS throws null when it has no memory left even for the error object.
    if thrown.is_null() {
        return format!("InternalError: out of memory ({limit}), or the script threw null");
    }
    let Some(error) = thrown
        .as_object()
        .and_then(|o| Exception::from_object(o.clone()))
    else {
        return format!("Uncaught {}", display(ctx, &thrown));
    };
    let name: Option<Coerced<String>> = error.get("name").ok().flatten();
    let mut text = format!(
        "{}: {}",
        name.map_or_else(|| "Error".to_owned(), |n| n.0),
        error.message().unwrap_or_default()
    );
    if text == "InternalError: out of memory" {
        text = format!("{text} ({limit})");
    }
    if let Some(stack) = error.stack().filter(|s| !s.trim().is_empty()) {
        text.push('\n');
        text.push_str(stack.trim_end());
    }
    text
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;

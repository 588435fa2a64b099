use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};

use super::run;
use crate::{Function, Host, Limits, Reply, ScriptResult, ToolCallInfo};

/// A host that answers from a closure (the runtime's host lives in tether-core).
struct Answers<F>(F);

impl<F: FnMut(&str, &Map<String, Value>) -> Reply> Host for Answers<F> {
    fn call(&mut self, name: &str, arguments: &Map<String, Value>) -> Reply {
        (self.0)(name, arguments)
    }
}

fn schema() -> Value {
    json!({"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a"]})
}

fn run_with(
    script: &str,
    limits: Limits,
    host: impl FnMut(&str, &Map<String, Value>) -> Reply + 'static,
) -> ScriptResult {
    let schema = schema();
    let functions = [
        Function {
            name: "upper",
            description: "",
            parameters: &schema,
        },
        Function {
            name: "fails",
            description: "",
            parameters: &schema,
        },
    ];
    run(
        script,
        &functions,
        limits,
        Arc::new(AtomicBool::new(false)),
        Box::new(Answers(host)),
    )
}

/// `upper` returns its `a` in capitals; `fails` is refused.
fn tools(name: &str, args: &Map<String, Value>) -> Reply {
    match name {
        "upper" => Reply::Output(
            args.get("a")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_uppercase(),
        ),
        _ => Reply::Failed("refused by a hook".to_owned()),
    }
}

#[test]
fn a_script_combines_tool_results_and_prints() {
    let r = run_with(
        "const x = upper({a: 'one'});\nconsole.log('got', x, {n: 1});\nconsole.error('careful');\nreturn x + '+' + upper({a: 'two'});",
        Limits::default(),
        tools,
    );
    assert_eq!(
        r,
        ScriptResult {
            value: "ONE+TWO".to_owned(),
            stdout: "got ONE {\"n\":1}\n".to_owned(),
            stderr: "careful\n".to_owned(),
            tool_calls: Vec::new(),
            failed: false,
        }
    );
    assert_eq!(
        r.to_json(),
        r#"{"value":"ONE+TWO","stdout":"got ONE {\"n\":1}\n","stderr":"careful\n"}"#
    );
}

#[test]
fn a_refused_call_throws_an_error_the_script_can_catch() {
    let r = run_with(
        "try { fails({a: 1}); return 'ran'; } catch (e) { return e instanceof Error ? 'caught: ' + e.message : 'not an Error'; }",
        Limits::default(),
        tools,
    );
    assert_eq!(r.value, "caught: refused by a hook");
    assert!(!r.failed);
}

#[test]
fn an_uncaught_error_fails_the_script_and_lists_its_calls() {
    let r = run_with(
        "upper({a: 'x', b: null});\nfails({a: 2});\nreturn 'unreached';",
        Limits::default(),
        tools,
    );
    assert!(r.failed);
    assert!(
        r.value.starts_with("Error: refused by a hook\n"),
        "{}",
        r.value
    );
    assert!(r.value.contains("script.js:2"), "{}", r.value);
    assert_eq!(
        r.tool_calls,
        vec![
            ToolCallInfo {
                name: "upper".to_owned(),
                arguments: json!({"a": "x"}),
                result: Some("X".to_owned()),
                error: None,
            },
            ToolCallInfo {
                name: "fails".to_owned(),
                arguments: json!({"a": 2}),
                result: None,
                error: Some("refused by a hook".to_owned()),
            },
        ]
    );
    let json: Value = serde_json::from_str(&r.to_json()).unwrap();
    assert_eq!(json["tool_calls"][1]["error"], "refused by a hook");
}

#[test]
fn required_nulls_stay_and_other_nulls_go() {
    let r = run_with(
        "upper({a: null, b: null}); upper();",
        Limits::default(),
        |_, args| Reply::Output(Value::Object(args.clone()).to_string()),
    );
    assert!(!r.failed, "{}", r.value);
    let r = run_with(
        "return upper({a: null, b: null}) + upper()",
        Limits::default(),
        |_, args| Reply::Output(Value::Object(args.clone()).to_string()),
    );
    assert_eq!(r.value, r#"{"a":null}{}"#);
}

#[test]
fn arguments_must_be_one_object() {
    let r = run_with(
        "try { upper('a'); } catch (e) { return e.name + ': ' + e.message; }",
        Limits::default(),
        tools,
    );
    assert_eq!(r.value, "TypeError: upper() takes one object of arguments");
}

#[test]
fn values_other_than_strings_come_back_as_json_or_text() {
    let value = |script: &str| run_with(script, Limits::default(), tools).value;
    assert_eq!(value("return {a: [1, 'b']}"), r#"{"a":[1,"b"]}"#);
    assert_eq!(value("return 42"), "42");
    assert_eq!(value("return"), "");
    assert_eq!(value("return null"), "");
    assert_eq!(value("// a comment on the first line\nreturn 'ok'"), "ok");
}

#[test]
fn a_syntax_error_fails_the_script() {
    let r = run_with("return (", Limits::default(), tools);
    assert!(r.failed);
    assert!(r.value.starts_with("SyntaxError: "), "{}", r.value);
}

#[test]
fn an_endless_loop_stops_at_the_time_limit() {
    let limits = Limits {
        time: Duration::from_millis(200),
        ..Limits::default()
    };
    let started = Instant::now();
    let r = run_with(
        "console.log('start'); try { while (true) {} } catch (e) { return 'caught'; }",
        limits,
        tools,
    );
    assert!(r.failed);
    assert_eq!(
        r.value,
        "the script was stopped: it ran for more than 0.2s (time spent in tool calls does not count)"
    );
    assert_eq!(r.stdout, "start\n");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn time_in_tool_calls_does_not_count() {
    let limits = Limits {
        time: Duration::from_millis(150),
        ..Limits::default()
    };
    let r = run_with(
        "upper({a: 'a'}); return upper({a: 'b'});",
        limits,
        |n, a| {
            std::thread::sleep(Duration::from_millis(120));
            tools(n, a)
        },
    );
    assert_eq!((r.value.as_str(), r.failed), ("B", false));
}

#[test]
fn cancellation_stops_a_running_script() {
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&cancel);
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        flag.store(true, Ordering::Relaxed);
    });
    let r = run(
        "while (true) {}",
        &[],
        Limits::default(),
        cancel,
        Box::new(Answers(tools)),
    );
    setter.join().unwrap();
    assert_eq!(
        (r.value.as_str(), r.failed),
        ("the script was cancelled", true)
    );
}

#[test]
fn a_stop_cannot_be_caught_and_nothing_after_it_is_seen() {
    let mut asked = 0;
    let r = run_with(
        "console.log('start');\nfor (let i = 0; i < 5; i++) { try { upper({a: 'x'}); } catch (e) { console.log('caught', e.message); } }\nwhile (true) {}",
        Limits::default(),
        move |_, _| {
            asked += 1;
            assert_eq!(asked, 1, "no call reaches the host after a stop");
            Reply::Stop("a post_tool_use hook ended the run".to_owned())
        },
    );
    assert!(r.failed);
    assert_eq!(r.value, "a post_tool_use hook ended the run");
    assert_eq!(r.stdout, "start\n");
    assert_eq!(r.tool_calls.len(), 1);
}

#[test]
fn the_number_of_calls_is_capped() {
    let limits = Limits {
        calls: 3,
        ..Limits::default()
    };
    let r = run_with(
        "for (let i = 0; i < 10; i++) upper({a: 'x' + i});",
        limits,
        tools,
    );
    assert!(r.failed);
    assert_eq!(
        r.value,
        "the script was stopped: it made more than 3 tool calls"
    );
    // Three ran, the fourth was refused, the rest were never made.
    assert_eq!(r.tool_calls.len(), 4);
    assert_eq!(
        r.tool_calls[3].error.as_deref(),
        Some("the script was stopped: it made more than 3 tool calls")
    );
}

#[test]
fn memory_is_limited() {
    let limits = Limits {
        memory: 8 << 20,
        ..Limits::default()
    };
    let r = run_with(
        "const a = []; while (true) a.push('x'.repeat(1000) + a.length);",
        limits,
        tools,
    );
    assert!(r.failed);
    assert!(
        r.value
            .starts_with("InternalError: out of memory (the heap is limited to 8 MiB)"),
        "{}",
        r.value
    );
}

#[test]
fn deep_recursion_is_an_error_not_a_crash() {
    let r = run_with(
        "function f(n) { return f(n + 1) + 1; } try { f(0); } catch (e) { return e.name + ': ' + e.message; }",
        Limits::default(),
        tools,
    );
    assert!(!r.failed, "{}", r.value);
    assert!(r.value.contains("stack"), "{}", r.value);
}

#[test]
fn console_output_is_capped() {
    let r = run_with(
        "for (let i = 0; i < 3000; i++) console.log('x'.repeat(1000));",
        Limits::default(),
        tools,
    );
    assert!(!r.failed, "{}", r.value);
    assert!(r.stdout.ends_with(super::TRUNCATED));
    assert!(r.stdout.len() <= super::CONSOLE_CAP + super::TRUNCATED.len());
}

#[test]
fn running_out_of_memory_is_an_error_the_script_may_catch() {
    let limits = Limits {
        memory: 8 << 20,
        ..Limits::default()
    };
    let r = run_with(
        "try { const a = []; while (true) a.push('x'.repeat(1000) + a.length); } catch (e) { return 'caught'; }",
        limits,
        tools,
    );
    assert_eq!((r.value.as_str(), r.failed), ("caught", false));
}

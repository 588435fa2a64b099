//! Rendered prompts compared with what Go's `text/template` prints for the same template and
//! Input (expected strings written from Go's documented semantics), and the load-time check.

use pretty_assertions::assert_eq;
use serde_json::json;
use tether_protocol::{HookInput, Usage};

use super::*;
use crate::template_check::TemplateIssue;

fn shell_call() -> HookInput {
    let mut input = HookInput {
        session_id: "sess-1".into(),
        cwd: "/work".into(),
        hook_event_name: "pre_tool_use".into(),
        agent_name: "root".into(),
        iteration: 3,
        tool_name: "shell".into(),
        tool_use_id: "call_1".into(),
        ..HookInput::default()
    };
    input.tool_input = Some(
        json!({"cmd": "cat a<b && echo c>d", "timeout": 120, "ratio": 1.5, "tags": ["x", true, null]})
            .as_object()
            .cloned()
            .unwrap(),
    );
    input
}

fn render(template: &str, input: &HookInput) -> String {
    PromptTemplate::compile(template)
        .unwrap_or_else(|i| panic!("{template}: {i:?}"))
        .render(input)
        .unwrap_or_else(|e| panic!("{template}: {e}"))
}

#[test]
fn fields_pipes_and_printf_render_like_go() {
    let input = shell_call();
    let cases = [
        (
            "Tool: {{ .ToolName }} in {{ .Cwd }} ({{ .HookEventName }}, {{ .AgentName }})",
            "Tool: shell in /work (pre_tool_use, root)",
        ),
        ("{{ .ToolName | printf \"%q\" }}", "\"shell\""),
        ("{{ .ToolInput.cmd | len }}", "19"),
        ("{{ .ToolInput.timeout }} {{ .ToolInput.ratio }}", "120 1.5"),
        (
            "{{ printf \"%s#%d %v %5.2f|%-6s|\" .ToolName .Iteration .ToolError 3.14159 \"ab\" }}",
            "shell#3 false  3.14|ab    |",
        ),
        ("{{ index .ToolInput \"cmd\" }}", "cat a<b && echo c>d"),
        ("{{ .ToolInput.missing }}", "<no value>"),
        ("a  {{- .ToolName -}}  b", "ashellb"),
        ("{{/* a comment */}}x", "x"),
        (
            "{{ $n := .ToolName }}{{ $n }}{{ $.ToolUseID }}",
            "shellcall_1",
        ),
    ];
    let got: Vec<(String, String)> = cases
        .iter()
        .map(|(t, _)| ((*t).to_owned(), render(t, &input)))
        .collect();
    let want: Vec<(String, String)> = cases
        .iter()
        .map(|(t, w)| ((*t).to_owned(), (*w).to_owned()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn zero_values_print_as_go_prints_them() {
    assert_eq!(
        render(
            "[{{ .AgentName }}] {{ .Iteration }} {{ .ToolError }} {{ .ToolInput }} {{ .Messages }} {{ .Usage }} {{ .Cost }} {{ .ToolResponse }} {{ .SteeringMessages }}",
            &HookInput::default()
        ),
        // Go prints `<nil>` for the nil `Usage` and `Cost` pointers (see the module doc).
        "[] 0 false map[] [] <no value> <no value> <no value> []"
    );
}

#[test]
fn if_else_range_and_with_follow_go_semantics() {
    let mut input = shell_call();
    input.steering_messages = vec!["one".into(), "two".into()];
    let cases = [
        (
            "{{ if eq .ToolName \"shell\" }}S{{ else if .ToolError }}E{{ else }}O{{ end }}",
            "S",
        ),
        (
            "{{ if and .ToolError (eq .ToolName \"shell\") }}yes{{ else }}no{{ end }}",
            "no",
        ),
        (
            "{{ range $k, $v := .ToolInput }}{{ $k }}={{ $v }};{{ end }}",
            "cmd=cat a<b && echo c>d;ratio=1.5;tags=[x true <nil>];timeout=120;",
        ),
        (
            "{{ range $i, $m := .SteeringMessages }}{{ $i }}:{{ $m }} {{ end }}",
            "0:one 1:two ",
        ),
        ("{{ range .Messages }}x{{ else }}none{{ end }}", "none"),
        (
            "{{ with .ToolInput.cmd }}cmd={{ . }}{{ else }}-{{ end }}",
            "cmd=cat a<b && echo c>d",
        ),
        (
            "{{ range .SteeringMessages }}{{ if eq . \"two\" }}{{ break }}{{ end }}{{ . }}{{ end }}",
            "one",
        ),
        (
            "{{ define \"tool\" }}<{{ .ToolName }}>{{ end }}{{ template \"tool\" . }}",
            "<shell>",
        ),
    ];
    for (template, want) in cases {
        assert_eq!(render(template, &input), want, "{template}");
    }
}

#[test]
fn to_json_is_go_json_marshal() {
    let mut input = shell_call();
    input.usage = Some(Usage {
        input_tokens: 10,
        output_tokens: 5,
        ..Usage::default()
    });
    input.cost = Some(0.0);
    let cases = [
        (
            "{{ .ToolInput | toJSON }}",
            r#"{"cmd":"cat a\u003cb \u0026\u0026 echo c\u003ed","ratio":1.5,"tags":["x",true,null],"timeout":120}"#
                .to_owned(),
        ),
        ("{{ toJSON .ToolName }}", r#""shell""#.to_owned()),
        ("{{ toJSON .Iteration }}", "3".to_owned()),
        ("{{ toJSON .ToolInput.missing }}", "null".to_owned()),
        ("{{ toJSON .Cost }}", "0".to_owned()),
        (
            "{{ toJSON .Usage }}",
            serde_json::to_string(input.usage.as_ref().unwrap()).unwrap(),
        ),
        (
            "{{ toJSON . }}",
            r#"{"session_id":"sess-1","cwd":"/work","hook_event_name":"pre_tool_use","agent_name":"root","iteration":3,"tool_name":"shell","tool_use_id":"call_1","tool_input":{"cmd":"cat a\u003cb \u0026\u0026 echo c\u003ed","ratio":1.5,"tags":["x",true,null],"timeout":120},"usage":{"input_tokens":10,"output_tokens":5,"cached_input_tokens":0,"cached_write_tokens":0},"cost":0}"#
                .to_owned(),
        ),
    ];
    for (template, want) in cases {
        assert_eq!(render(template, &input), want, "{template}");
    }
}

#[test]
fn go_floats_and_strings_match_encoding_json() {
    let floats: Vec<String> = [100.0, 1.5, -0.25, 1e20, 1e21, 1.5e-7, 1e-6, 123_456_789.0]
        .into_iter()
        .map(|f| go_float(f).unwrap())
        .collect();
    assert_eq!(
        floats,
        [
            "100",
            "1.5",
            "-0.25",
            "100000000000000000000",
            "1e+21",
            "1.5e-7",
            "0.000001",
            "123456789"
        ]
    );
    assert_eq!(
        go_string("<a href=\"x\">&\u{2028}\n\u{1}</a>"),
        r#""\u003ca href=\"x\"\u003e\u0026\u2028\n\u0001\u003c/a\u003e""#
    );
}

#[test]
fn truncate_never_splits_a_character() {
    let input = HookInput {
        tool_response: Some("héllo wörld".into()),
        ..HookInput::default()
    };
    let cases = [
        ("{{ truncate 2 \"héllo\" }}", "h…"),
        ("{{ truncate 3 \"héllo\" }}", "hé…"),
        ("{{ truncate 6 \"héllo\" }}", "héllo"),
        ("{{ truncate 0 \"héllo\" }}", "héllo"),
        ("{{ truncate -1 \"héllo\" }}", "héllo"),
        ("{{ .ToolResponse | truncate 9 }}", "héllo w…"),
        ("{{ truncate 4 \"日本語\" }}", "日…"),
    ];
    for (template, want) in cases {
        assert_eq!(render(template, &input), want, "{template}");
    }
    let err = PromptTemplate::compile("{{ truncate \"5\" .ToolName }}")
        .unwrap()
        .render(&input)
        .unwrap_err();
    assert!(
        err.contains("truncate: wrong type for value; expected int; got string"),
        "{err}"
    );
}

fn issue(template: &str) -> (usize, usize, String) {
    match PromptTemplate::compile(template) {
        Ok(_) => panic!("accepted: {template}"),
        Err(TemplateIssue {
            line,
            column,
            message,
        }) => (line, column, message),
    }
}

#[test]
fn templates_go_rejects_are_rejected_at_load_with_their_position() {
    let cases: [(&str, (usize, usize, &str)); 13] = [
        (
            "a\n{{ if .ToolName }}yes",
            (2, 1, "unclosed {{if}}: add a matching {{end}}"),
        ),
        ("x {{ end }}", (1, 6, "unexpected {{end}}")),
        ("{{ else }}", (1, 4, "unexpected {{else}}")),
        (
            "{{ if .ToolError }}a{{ else }}b{{ else }}c{{ end }}",
            (1, 35, "unexpected {{else}} in {{if}}"),
        ),
        (
            "{{ range .Messages }}{{ else if .ToolError }}{{ end }}",
            (1, 25, "{{else if}} is only allowed inside {{if}}"),
        ),
        ("{{ break }}", (1, 4, "{{break}} outside {{range}}")),
        ("{{ $x }}", (1, 4, "undefined variable \"$x\"")),
        (
            "{{ define \"a\" }}{{ define \"b\" }}{{ end }}{{ end }}",
            (
                1,
                20,
                "{{define}} is only allowed at the top level of a template",
            ),
        ),
        (
            "{{ template \"nope\" . }}",
            (
                1,
                13,
                "template \"nope\" is not defined (define it with {{define \"nope\"}})",
            ),
        ),
        ("{{ \"open }}", (1, 4, "unterminated quoted string")),
        ("{{ .ToolName", (1, 1, "unclosed action")),
        ("{{ if }}x{{ end }}", (1, 4, "missing value for if")),
        (
            "{{/* note */ x }}",
            (1, 1, "comment ends before closing delimiter"),
        ),
    ];
    let got: Vec<_> = cases.iter().map(|(t, _)| (*t, issue(t))).collect();
    let want: Vec<_> = cases
        .iter()
        .map(|(t, (l, c, m))| (*t, (*l, *c, (*m).to_owned())))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn a_backslash_before_a_multibyte_character_in_a_string_is_an_issue_not_a_panic() {
    // Found by fuzzing (fuzz/fuzz_targets/prompt_template.rs): the lexer stepped two bytes
    // past the backslash and sliced inside the character. Go rejects the escape too.
    assert_eq!(
        issue("{{ printf \"caf\u{e9} \\\u{6c2}\" }}"),
        (1, 17, "invalid escape in quoted string".to_owned())
    );
}

#[test]
fn unknown_functions_and_fields_are_named() {
    let (line, column, message) = issue("line one\n  {{ .ToolInput | toYAML }}");
    assert_eq!((line, column), (2, 19));
    assert!(
        message.starts_with("function \"toYAML\" not defined (functions: toJSON, truncate, and,"),
        "{message}"
    );
    let (line, column, message) = issue("{{ .ToolNmae }}");
    assert_eq!((line, column), (1, 4));
    assert!(
        message.starts_with("the hook Input has no field \"ToolNmae\" (fields: SessionID,"),
        "{message}"
    );
    // Inside `with` and `range` dot is something else: any field may be asked for.
    assert!(PromptTemplate::compile("{{ with .ToolInput }}{{ .anything }}{{ end }}").is_ok());
    assert!(
        PromptTemplate::compile("{{ range .Messages }}{{ .Role }}{{ end }}{{ $.ToolName }}")
            .is_ok()
    );
}

#[test]
fn gotmpl_parse_errors_keep_their_position() {
    let (line, column, message) = issue("ok\n{{ .ToolName | }}");
    assert_eq!(
        (line, message.is_empty()),
        (2, false),
        "{column}: {message}"
    );
}

#[test]
fn the_load_time_field_list_names_exactly_the_fields_a_template_sees() {
    let input = HookInput {
        tool_response: Some("out".into()),
        ..HookInput::default()
    };
    let Value::Map(map) = input_value(&input) else {
        panic!("the Input is not a map");
    };
    let mut seen: Vec<&str> = map
        .keys()
        .map(AsRef::as_ref)
        .filter(|k| *k != STRUCT_JSON)
        .collect();
    let mut listed = INPUT_FIELDS.to_vec();
    seen.sort_unstable();
    listed.sort_unstable();
    assert_eq!(seen, listed);
}

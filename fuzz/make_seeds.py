#!/usr/bin/env python3
"""Regenerates fuzz/seeds/<target>/ from the repository: the examples, the recorded provider
cassettes, the script-model fixtures and literals taken from the crates' tests.

The seeds are committed so `scripts/fuzz.sh` needs nothing but cargo; run this again (it needs
PyYAML for the cassettes) when those sources change. Files are named by content hash, so
re-running is idempotent.
"""

import glob
import hashlib
import os
import re
import shutil

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = os.path.join(ROOT, "fuzz", "seeds")


def read(path):
    with open(os.path.join(ROOT, path), "rb") as f:
        return f.read()


def cassette_bodies(api):
    """Response bodies of the cassettes whose request URL ends with `api`."""
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "crates/test-support/cassettes/*.yaml"))):
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        for it in doc.get("interactions", []):
            if api in it["request"]["url"]:
                out.append(it["response"]["body"].encode())
    return out


def rust_yaml_literals():
    """Agent files written inline in the config crate's tests (plain "…" literals)."""
    out = []
    agent = "agents:\n  root:\n    model: openai/gpt-4o\n    hooks:\n"
    paths = sorted(glob.glob(os.path.join(ROOT, "crates/config/tests/*.rs")))
    paths += sorted(glob.glob(os.path.join(ROOT, "crates/config/src/*.rs")))
    for path in paths:
        with open(path, encoding="utf-8") as f:
            src = f.read()
        for lit in re.findall(r'"((?:[^"\\\n]|\\.){20,})"', src):
            text = lit.replace("\\n", "\n").replace('\\"', '"').replace("\\\\", "\\")
            if "agents:" in text or "models:" in text:
                out.append(text.encode())
            elif text.startswith("      ") and ":\n" in text:
                out.append((agent + text).encode())
    return out


def chunked(bodies):
    """Stream seeds: a leading byte picks the chunk size (0: whole body; 7: small chunks)."""
    return [bytes([n]) + b for b in bodies for n in (0, 7)]


HOOK_OUTPUTS = [
    b'{"decision":"block","reason":"no rm -rf"}',
    b'{"continue":false,"stop_reason":"budget exhausted"}',
    b'{"system_message":"a","suppress_output":true}',
    b'{"hook_specific_output":{"hook_event_name":"pre_tool_use","permission_decision":"deny",'
    b'"permission_decision_reason":"dangerous","updated_input":{"cmd":"ls -h"}}}',
    b'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow",'
    b'"permissionDecisionReason":"ok","updatedInput":{"cmd":"ls"}}}',
    b'{"hook_specific_output":{"additional_context":"the date is 2025-01-01"}}',
    b'{"hook_specific_output":{"metadata":{"risk":"high"},"summary":"two"}}',
    b'{"hook_specific_output":{"updated_messages":[{"role":"user","content":"hi"}]}}',
    b'{"hook_specific_output":{"updated_tool_response":"redacted"}}',
    b'{"hook_specific_output": "x"}',
    b'{"Decision":"approve","REASON":null} trailing',
    b"plain text context\n",
    b"\xff\xfe binary \x00 output",
]

PERMISSION_PATTERNS = [
    b"read_*\nread_file\n",
    b"shell:cmd=ls*\nshell\nls -la /tmp",
    b"shell:cmd=*sudo*\nshell\nsudo rm -rf /",
    b"shell:cmd=ls*:cwd=.\nshell\nls",
    b"mcp:server:tool\nmcp:server:tool\n",
    b"shell:cmd=[a-z]?[!x]\\*\nshell\nab\\*",
    b"shell:cmd=[^/]*/[\\]]\nshell\nx/]",
    b"*\nanything\n",
]

TEMPLATES = [
    b"Is `{{ .ToolName }}` with {{ .ToolInput | toJSON }} safe?",
    b"{{ .ToolInput.cmd | len }}",
    b"{{ .ToolInput.timeout }} {{ .ToolInput.ratio }} {{ .ToolInput.missing }}",
    b"{{/* a comment */}}x",
    b"{{ $n := .ToolName }}{{ $n }}{{ $.ToolUseID }}",
    b"{{ range $k, $v := .ToolInput }}{{ $k }}={{ $v }};{{ end }}",
    b"{{ range $i, $m := .SteeringMessages }}{{ $i }}:{{ $m }} {{ end }}",
    b"{{ range .Messages }}x{{ else }}none{{ end }}",
    b"{{ with .ToolInput.cmd }}cmd={{ . }}{{ else }}-{{ end }}",
    b'{{ range .Messages }}{{ if eq .Role "user" }}{{ .Content }}{{ break }}{{ end }}{{ end }}',
    b"{{ toJSON . }} {{ toJSON .Usage }} {{ toJSON .Cost }} {{ toJSON .Iteration }}",
    b"{{ .ToolResponse | truncate 9 }}",
    b'{{ define "t" }}[{{ . }}]{{ end }}{{ template "t" .ToolName }}{{ block "b" . }}x{{ end }}',
    b'{{ printf "%q %d %v" .ToolName .Iteration .ToolError }}{{ index .ToolInput "cmd" }}',
    b"{{ if and .ToolError (not .ToolName) }}a{{ else if .Prompt }}b{{ else }}c{{ end }}",
    b"{{- .ToolName -}} {{ slice .ToolName 1 2 }} {{ html .ToolResponse }} {{ js .Prompt }}",
    b"{{ if .ToolError }}a{{ else }}b{{ else }}c{{ end }}",
    b"{{ else }}",
]


def main():
    seeds = {
        "hook_output": HOOK_OUTPUTS,
        "agent_file": [read("examples/hooks.yaml")]
        + [read(p) for p in sorted(glob.glob(os.path.join(ROOT, "crates/test-support/cassettes/agents/*.yaml")))]
        + rust_yaml_literals(),
        "stream_openai_chat": chunked(cassette_bodies("/chat/completions")),
        "stream_openai_responses": chunked(cassette_bodies("/responses")),
        "stream_anthropic": chunked(cassette_bodies("/messages"))
        + [b"\x80" + b for b in cassette_bodies("/messages")],
        "stream_gemini": chunked(cassette_bodies("streamGenerateContent")),
        "script_model": [
            read(p) + b"\x00" + prompt
            for p in ("examples/demo.script.yaml", "crates/providers/tests/fixtures/seed004.script.yaml")
            for prompt in (b"Run: echo hello", b"List files in current dir", b"anything else")
        ],
        "permission_pattern": PERMISSION_PATTERNS,
        "prompt_template": TEMPLATES,
    }
    seeds["sse"] = seeds["stream_openai_chat"] + seeds["stream_anthropic"] + seeds["stream_gemini"]
    for target, items in seeds.items():
        d = os.path.join(SEEDS, target)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        for item in items:
            name = hashlib.sha1(item).hexdigest()[:16]
            with open(os.path.join(d, name), "wb") as f:
                f.write(item)
        print(f"{target}: {len(items)} seeds")


if __name__ == "__main__":
    main()

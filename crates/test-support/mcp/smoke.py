#!/usr/bin/env python3
"""Smoke test for the MCP servers Tether's tests use; documents what they do on the wire.

Run with the venv from scripts/mcp-test-deps:

    DIR=$(scripts/mcp-test-deps) && $DIR/venv/bin/python crates/test-support/mcp/smoke.py

Exercises, with the official `mcp` SDK's client (initialize handshake, i.e. the protocol
versions up to 2025-11-25):
  * test_server.py over stdio, legacy HTTP+SSE and streamable HTTP: every tool, progress,
    logging, elicitation, sampling, tools/list_changed, cancellation, --log, --name,
    --instructions, --require-bearer, --fail-start, --slow-start, crash;
  * examples/mcp/notes_server.py over stdio (plus raw JSON-RPC for version negotiation,
    ping and unknown methods);
  * the npm servers (server-everything stdio + streamableHttp, server-filesystem) when
    installed in $TETHER_MCP_DEPS (skip with --no-npm).
Prints one line per check and a closing `N passed, N failed`; exits 1 on any failure.
"""

import argparse
import base64
import json
import os
import re
import queue
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import warnings
import traceback
import urllib.error
import urllib.request
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
from mcp import ClientSession
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPDeprecationWarning

# logging/setLevel and ping are deprecated only for the 2026-07-28 protocol.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
TEST_SERVER = HERE / "test_server.py"
NOTES_SERVER = REPO / "examples" / "mcp" / "notes_server.py"
PY = sys.executable
SECRET = "token=ghp_0123456789abcdefghijABCDEFGHIJ012345"
EXPECTED_TOOLS = {
    "echo", "add", "read_note", "delete_note", "secret", "lines", "crash", "stall", "flood", "progress",
    "elicit", "sample", "fail", "image", "resource_link", "embedded", "log", "add_tool", "whoami", "env",
}

passed: list[str] = []
failed: list[str] = []


def check(label: str, cond: bool, detail: object = "") -> bool:
    if cond:
        passed.append(label)
        print(f"ok    {label}")
    else:
        failed.append(label)
        print(f"FAIL  {label}  {detail!r}"[:2000])
    return cond


def texts(result: types.CallToolResult) -> list[str]:
    return [c.text for c in result.content if isinstance(c, types.TextContent)]


def text(result: types.CallToolResult) -> str:
    return "\n".join(texts(result))


def read_log(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class Client:
    """Callbacks the smoke client installs: records notifications, scripted elicitation answers."""

    def __init__(self) -> None:
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.notifications: list[object] = []
        self.elicit_answers: list[types.ElicitResult] = []
        self.elicit_requests: list[types.ElicitRequestParams] = []
        self.sampling_reply: types.CreateMessageResult | types.ErrorData = types.ErrorData(
            code=types.INVALID_REQUEST, message="sampling declined by smoke client"
        )

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)

    async def on_message(self, message) -> None:
        self.notifications.append(message)

    async def on_elicit(self, context, params):
        self.elicit_requests.append(params)
        return self.elicit_answers.pop(0)

    async def on_sample(self, context, params):
        return self.sampling_reply

    def session(self, read, write) -> ClientSession:
        return ClientSession(
            read, write,
            read_timeout_seconds=30,
            sampling_callback=self.on_sample,
            elicitation_callback=self.on_elicit,
            logging_callback=self.on_log,
            message_handler=self.on_message,
            client_info=types.Implementation(name="tether-smoke", version="0"),
        )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@asynccontextmanager
async def http_server(args: list[str], stderr_path: Path, env: dict | None = None, cwd: str | None = None):
    """Start test_server.py on an HTTP transport; yield (process, base URL from LISTENING)."""
    with open(stderr_path, "wb") as err:
        proc = subprocess.Popen([PY, str(TEST_SERVER), *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err, env={**os.environ, **(env or {})}, cwd=cwd)
    try:
        url = None
        with anyio.fail_after(20):
            while url is None:
                m = re.search(r"^LISTENING (http://\S+)$", stderr_path.read_text(errors="replace"), re.M)
                if m:
                    url = m.group(1)
                elif proc.poll() is not None:
                    raise RuntimeError(f"server exited {proc.returncode}: {stderr_path.read_text()}")
                else:
                    await anyio.sleep(0.05)
        yield proc, url
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def exercise_test_server(label: str, session: ClientSession, client: Client, log: Path, *,
                               server_pid: int | None, http: bool, cwd: str) -> None:
    init = await session.initialize()
    check(f"{label}: protocolVersion {init.protocol_version}", init.protocol_version == "2025-11-25", init)
    check(f"{label}: serverInfo.name from --name", init.server_info.name == "smoke-server", init.server_info)
    check(f"{label}: instructions from --instructions", init.instructions == "use the tools", init.instructions)
    caps = init.capabilities
    check(f"{label}: capabilities tools.listChanged + logging",
          caps.tools is not None and caps.tools.list_changed is True and caps.logging is not None, caps)

    tools = {t.name: t for t in (await session.list_tools()).tools}
    check(f"{label}: tools/list has all tools", set(tools) == EXPECTED_TOOLS, sorted(tools))
    check(f"{label}: every tool has a description and object schema",
          all(t.description and t.input_schema.get("type") == "object" for t in tools.values()))
    ann = {n: t.annotations for n, t in tools.items()}
    check(f"{label}: annotations echo/read_note readOnlyHint",
          ann["echo"].read_only_hint is True and ann["read_note"].read_only_hint is True)
    check(f"{label}: annotations delete_note destructiveHint, not readOnly",
          ann["delete_note"].destructive_hint is True and ann["delete_note"].read_only_hint is False)
    check(f"{label}: schema add a,b integer required",
          tools["add"].input_schema["properties"]["a"]["type"] == "integer"
          and sorted(tools["add"].input_schema["required"]) == ["a", "b"], tools["add"].input_schema)
    check(f"{label}: flood schema enum", tools["flood"].input_schema["properties"]["stream"]["enum"] == ["stdout", "stderr"])

    async def call(name: str, args: dict | None = None, **kw) -> types.CallToolResult:
        return await session.call_tool(name, args or {}, **kw)

    r = await call("echo", {"text": "héllo wörld"})
    check(f"{label}: echo", text(r) == "héllo wörld" and not r.is_error, r)
    r = await call("add", {"a": 2, "b": 40})
    check(f"{label}: add text + structuredContent", text(r) == "42" and r.structured_content == {"sum": 42}, r)
    check(f"{label}: add outputSchema", tools["add"].output_schema is not None
          and tools["add"].output_schema["properties"]["sum"]["type"] == "integer", tools["add"].output_schema)
    r = await call("read_note", {"name": "groceries"})
    check(f"{label}: read_note", text(r) == "note groceries: hello", r)
    r = await call("delete_note", {"name": "groceries"})
    check(f"{label}: delete_note", text(r) == "deleted groceries", r)
    r = await call("secret")
    check(f"{label}: secret", text(r) == SECRET and len(SECRET.split("ghp_")[1]) == 36, r)
    r = await call("lines", {"n": 3})
    check(f"{label}: lines", text(r) == "line 1\nline 2\nline 3", r)
    r = await call("lines", {"n": 5000})
    check(f"{label}: lines 5000", text(r).count("\n") == 4999 and text(r).endswith("line 5000"))
    r = await call("fail")
    check(f"{label}: fail -> isError result", r.is_error is True and text(r) == "something went wrong", r)
    r = await call("image")
    img = [c for c in r.content if isinstance(c, types.ImageContent)]
    check(f"{label}: image", len(img) == 1 and img[0].mime_type == "image/png"
          and base64.b64decode(img[0].data).startswith(b"\x89PNG\r\n\x1a\n") and texts(r) == ["an image"], r)
    r = await call("resource_link")
    c = r.content[0]
    check(f"{label}: resource_link", isinstance(c, types.ResourceLink) and c.name == "readme"
          and str(c.uri) == "file:///README.md", r)
    r = await call("embedded")
    c = r.content[0]
    check(f"{label}: embedded", isinstance(c, types.EmbeddedResource) and str(c.resource.uri) == "file:///notes.txt"
          and c.resource.mime_type == "text/plain" and c.resource.text == "embedded text", r)
    r = await call("whoami")
    whoami = int(text(r)) if text(r).isdigit() else -1
    check(f"{label}: whoami", whoami > 0 and server_pid in (None, whoami), (text(r), server_pid))
    server_pid = whoami
    r = await call("env", {"name": "TETHER_SMOKE"})
    check(f"{label}: env set", text(r) == f"yes\ncwd={cwd}", text(r))
    r = await call("env", {"name": "TETHER_SMOKE_UNSET_VAR"})
    check(f"{label}: env unset", text(r).split("\n")[0] == "<unset>", text(r))
    r = await call("stall", {"seconds": 0.1})
    check(f"{label}: stall short", text(r) == "woke up", r)
    r = await call("flood", {"stream": "stderr", "mib": 1})
    check(f"{label}: flood stderr 1 MiB", text(r) == "flooded", r)
    if http:
        r = await call("flood", {"stream": "stdout", "mib": 1})
        check(f"{label}: flood stdout 1 MiB (stdout is not the protocol on HTTP)", text(r) == "flooded", r)

    progress: list[tuple] = []

    async def on_progress(p, total, message):
        progress.append((p, total, message))

    r = await call("progress", {"steps": 3}, progress_callback=on_progress)
    check(f"{label}: progress result", text(r) == "done", r)
    check(f"{label}: progress notifications", progress == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")], progress)

    await session.set_logging_level("debug")
    r = await call("log", {"level": "warning", "text": "disk almost full"})
    await anyio.sleep(0.1)
    check(f"{label}: log notification", text(r) == "logged" and [(m.level, m.data) for m in client.logs]
          == [("warning", "disk almost full")], client.logs)

    client.elicit_answers = [
        types.ElicitResult(action="accept", content={"name": "Ada", "confirm": True}),
        types.ElicitResult(action="decline"),
        types.ElicitResult(action="cancel"),
    ]
    r = await call("elicit", {"question": "Who are you?"})
    check(f"{label}: elicit accept", text(r) == 'accepted: {"confirm": true, "name": "Ada"}', r)
    req = client.elicit_requests[0]
    check(f"{label}: elicit request form", req.message == "Who are you?"
          and req.requested_schema["required"] == ["name"]
          and req.requested_schema["properties"]["confirm"]["type"] == "boolean", req)
    r = await call("elicit", {"question": "Again?"})
    check(f"{label}: elicit decline", text(r) == "declined", r)
    r = await call("elicit", {"question": "Once more?"})
    check(f"{label}: elicit cancel", text(r) == "cancelled", r)

    r = await call("sample")
    check(f"{label}: sample declined", text(r) == "sampling failed: sampling declined by smoke client", r)
    client.sampling_reply = types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="hello"), model="smoke-model")
    r = await call("sample")
    check(f"{label}: sample ok", text(r) == "sampling ok: hello", r)

    before = len(client.notifications)
    r = await call("add_tool")
    await anyio.sleep(0.2)
    got = [n for n in client.notifications[before:] if isinstance(n, types.ToolListChangedNotification)]
    check(f"{label}: add_tool -> notifications/tools/list_changed", text(r) == "added" and len(got) == 1,
          client.notifications[before:])
    names = {t.name for t in (await session.list_tools()).tools}
    check(f"{label}: late_tool listed", "late_tool" in names, names)
    r = await call("late_tool")
    check(f"{label}: late_tool", text(r) == "late", r)

    # Cancellation: abandon a long stall; the SDK client sends notifications/cancelled.
    t0 = time.monotonic()
    with anyio.move_on_after(0.5):
        await call("stall", {"seconds": 30})
    await anyio.sleep(0.3)
    cancelled = [e for e in read_log(log) if "cancelled" in e]
    check(f"{label}: stall cancelled -> {{\"cancelled\": id}} in --log", len(cancelled) == 1
          and isinstance(cancelled[0]["cancelled"], (int, str)), cancelled)
    r = await call("echo", {"text": "still alive"})
    check(f"{label}: server responsive after cancel", text(r) == "still alive" and time.monotonic() - t0 < 5, r)

    entries = [e for e in read_log(log) if "tool" in e]
    check(f"{label}: --log has one line per call, before the call",
          [e["tool"] for e in entries][:3] == ["echo", "add", "read_note"]
          and entries[1]["arguments"] == {"a": 2, "b": 40}
          and all(e["pid"] == server_pid for e in entries), entries[:3])
    if http:
        h = entries[0].get("headers", {})
        check(f"{label}: --log headers (authorization, x-*)", h.get("authorization") == "Bearer s3cret"
              and h.get("x-tether-test") == "smoke", h)
    else:
        check(f"{label}: --log no headers on stdio", all("headers" not in e for e in entries))


SERVER_ARGS = ["--name", "smoke-server", "--instructions", "use the tools"]


async def test_stdio(tmp: Path) -> None:
    log = tmp / "stdio.log"
    errlog = tmp / "stdio.err"
    client = Client()
    params = StdioServerParameters(command=PY, args=[str(TEST_SERVER), *SERVER_ARGS, "--log", str(log)],
                                   env={"TETHER_SMOKE": "yes"}, cwd=str(tmp))
    with open(errlog, "w") as err:
        async with stdio_client(params, errlog=err) as (read, write), client.session(read, write) as session:
            await exercise_test_server("stdio", session, client, log, server_pid=None, http=False, cwd=str(tmp))
    err_text = errlog.read_text(errors="replace")
    check("stdio: flood wrote 1 MiB of x to stderr", "x" * (1024 * 1024) in err_text, len(err_text))
    check("stdio: stderr otherwise quiet", err_text.replace("x" * (1024 * 1024), "").strip() == "", err_text[-500:])


class Raw:
    """A server process spoken to with hand-written JSON-RPC lines over stdio."""

    def __init__(self, cmd: list[str]):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(x) for x in self.proc.stdout] and None, daemon=True).start()

    def send(self, *msgs: dict) -> None:
        self.proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in msgs))
        self.proc.stdin.flush()

    def recv_line(self, timeout: float = 10) -> bytes | None:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return None

    def recv(self, timeout: float = 10) -> dict | None:
        line = self.recv_line(timeout)
        return json.loads(line) if line else None

    def close(self, timeout: float = 10) -> subprocess.CompletedProcess:
        """Close stdin (the server exits on EOF); return exit status and stderr."""
        self.proc.stdin.close()
        stderr = self.proc.stderr.read()
        self.proc.wait(timeout)
        return subprocess.CompletedProcess(self.proc.args, self.proc.returncode, b"", stderr.decode(errors="replace"))


def raw_stdio(cmd: list[str], lines: list[dict], timeout: float = 15) -> tuple[list[dict], subprocess.CompletedProcess]:
    """Send raw JSON-RPC lines; keep stdin open until every request is answered, then close it.

    (Closing stdin early is not the same: on EOF the SDK server drops requests in flight.)
    """
    raw = Raw(cmd)
    raw.send(*lines)
    want = {m["id"] for m in lines if "id" in m}
    replies: list[dict] = []
    deadline = time.monotonic() + timeout
    while want - {r.get("id") for r in replies}:
        reply = raw.recv(max(0.01, deadline - time.monotonic()))
        if reply is None:
            break
        replies.append(reply)
    done = raw.close(timeout)
    while (reply := raw.recv(0.2)) is not None:
        replies.append(reply)
    return replies, done


def init_msg(version: str, id_: int = 1) -> dict:
    return {"jsonrpc": "2.0", "id": id_, "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


async def test_stdio_raw(tmp: Path) -> None:
    for asked, expect in [("2024-11-05", "2024-11-05"), ("2025-03-26", "2025-03-26"), ("2025-06-18", "2025-06-18"),
                          ("2025-11-25", "2025-11-25"), ("1999-01-01", "2025-11-25")]:
        out, _ = raw_stdio([PY, str(TEST_SERVER)], [init_msg(asked)])
        got = out[0]["result"]["protocolVersion"]
        check(f"raw stdio: initialize {asked} -> {expect}", got == expect, got)
    out, _ = raw_stdio([PY, str(TEST_SERVER)], [init_msg("2025-06-18")])
    check("raw stdio: default serverInfo.name tether-test", out[0]["result"]["serverInfo"]["name"] == "tether-test", out)
    check("raw stdio: no instructions by default", "instructions" not in out[0]["result"], out)

    out, _ = raw_stdio([PY, str(TEST_SERVER)], [
        init_msg("2025-06-18"), INITIALIZED,
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "nope", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "add", "arguments": {"a": "x"}}},
        {"jsonrpc": "2.0", "id": 5, "method": "no/such/method"},
        {"jsonrpc": "2.0", "id": 6, "method": "ping"},
    ])
    by_id = {m.get("id"): m for m in out}
    check("raw stdio: add wire shape", by_id[2]["result"] == {
        "content": [{"type": "text", "text": "3"}], "structuredContent": {"sum": 3}, "isError": False}, by_id[2])
    check("raw stdio: unknown tool -> isError result", by_id[3]["result"]["isError"] is True, by_id[3])
    check("raw stdio: bad arguments -> isError result", by_id[4]["result"]["isError"] is True, by_id[4])
    check("raw stdio: unknown method -> -32601", by_id[5]["error"]["code"] == -32601, by_id[5])
    check("raw stdio: ping", by_id[6]["result"] == {}, by_id[6])

    # A client without sampling/elicitation capabilities still gets the server->client
    # requests; what it answers decides the tool's text.
    raw = Raw([PY, str(TEST_SERVER), "--log", str(tmp / "raw.log")])
    raw.send(init_msg("2025-06-18"), INITIALIZED)
    raw.recv()
    raw.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "sample", "arguments": {}}})
    req = raw.recv()
    check("raw stdio: sample sends sampling/createMessage", req.get("method") == "sampling/createMessage"
          and req["params"]["messages"][0]["role"] == "user" and "maxTokens" in req["params"], req)
    raw.send({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32601, "message": "sampling is disabled in tether"}})
    reply = raw.recv()
    check("raw stdio: sample reports the client's error text",
          reply["result"]["content"][0]["text"] == "sampling failed: sampling is disabled in tether", reply)
    raw.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "elicit", "arguments": {"question": "Name?"}}})
    req = raw.recv()
    check("raw stdio: elicit sends elicitation/create (form)", req.get("method") == "elicitation/create"
          and req["params"]["mode"] == "form" and req["params"]["message"] == "Name?"
          and req["params"]["requestedSchema"]["required"] == ["name"], req)
    raw.send({"jsonrpc": "2.0", "id": req["id"], "result": {"action": "accept", "content": {"name": "Bob", "confirm": False}}})
    reply = raw.recv()
    check("raw stdio: elicit accepted text", reply["result"]["content"][0]["text"] == 'accepted: {"confirm": false, "name": "Bob"}', reply)
    # progress notifications carry the caller's token
    raw.send({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
              "params": {"name": "progress", "arguments": {"steps": 2}, "_meta": {"progressToken": "tok"}}})
    got = [raw.recv() for _ in range(3)]
    check("raw stdio: progress wire shape", got[0] == {"jsonrpc": "2.0", "method": "notifications/progress", "params": {
        "progressToken": "tok", "progress": 1, "total": 2, "message": "step 1"}} and got[2]["id"] == 4, got)
    # cancellation: the cancelled request is never answered; the server logs it and goes on
    raw.send({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "stall", "arguments": {"seconds": 1.5}}})
    time.sleep(0.3)
    raw.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5, "reason": "user"}},
             {"jsonrpc": "2.0", "id": 6, "method": "ping"})
    first, late = raw.recv(), raw.recv(2.0)
    check("raw stdio: cancelled stall is never answered", first == {"jsonrpc": "2.0", "id": 6, "result": {}} and late is None,
          (first, late))
    check("raw stdio: --log records {\"cancelled\": 5}", {"cancelled": 5} in read_log(tmp / "raw.log"), read_log(tmp / "raw.log"))
    # log notification wire shape
    raw.send({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "log", "arguments": {"level": "error", "text": "boom"}}})
    got = [raw.recv(), raw.recv()]
    check("raw stdio: log wire shape", got[0] == {"jsonrpc": "2.0", "method": "notifications/message",
                                                  "params": {"level": "error", "data": "boom"}} and got[1]["id"] == 7, got)
    # add_tool: list_changed notification, then the answer
    raw.send({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "add_tool", "arguments": {}}})
    got = [raw.recv(), raw.recv()]
    check("raw stdio: add_tool wire shape", got[0] == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
          and got[1]["id"] == 8, got)
    # flood stdout: 1 MiB of x with no newline lands in the protocol pipe, glued to the next message
    raw.send({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "flood", "arguments": {"stream": "stdout", "mib": 1}}})
    line = raw.recv_line()
    check("raw stdio: flood stdout corrupts the pipe (1 MiB x + reply on one line)",
          line is not None and line.startswith(b"x" * (1024 * 1024)) and json.loads(line[1024 * 1024:])["id"] == 9,
          (len(line or b""), (line or b"")[-150:]))
    done = raw.close()
    check("raw stdio: exit 0 on stdin EOF, stderr quiet", done.returncode == 0 and done.stderr == "", done)

    # crash: the process exits 3 without answering
    raw = Raw([PY, str(TEST_SERVER)])
    raw.send(init_msg("2025-06-18"), INITIALIZED)
    init = raw.recv()
    raw.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "crash", "arguments": {}}})
    reply = raw.recv(5)
    raw.proc.wait(10)
    check("raw stdio: crash exits 3 without answering", init["id"] == 1 and reply is None and raw.proc.returncode == 3,
          (raw.proc.returncode, reply))

    # --fail-start / --slow-start
    t0 = time.monotonic()
    p = subprocess.run([PY, str(TEST_SERVER), "--fail-start", "config is broken"], capture_output=True, text=True,
                       timeout=15, stdin=subprocess.DEVNULL)
    check("raw stdio: --fail-start", p.returncode == 1 and p.stdout == ""
          and p.stderr == "config is broken\nfatal: cannot start\n" and time.monotonic() - t0 < 3, p)
    t0 = time.monotonic()
    out, _ = raw_stdio([PY, str(TEST_SERVER), "--slow-start", "1.5"], [init_msg("2025-06-18")])
    dt = time.monotonic() - t0
    check("raw stdio: --slow-start 1.5 delays the answer", 1.5 <= dt < 8 and out[0]["id"] == 1, dt)


async def test_http(tmp: Path, transport: str) -> None:
    label = transport
    log = tmp / f"{transport}.log"
    client = Client()
    args = ["--transport", transport, *SERVER_ARGS, "--log", str(log), "--require-bearer", "s3cret"]
    async with http_server(args, tmp / f"{transport}.err", env={"TETHER_SMOKE": "yes"}, cwd=str(tmp)) as (proc, url):
        check(f"{label}: LISTENING line", re.fullmatch(r"http://127\.0\.0\.1:\d+", url) is not None, url)
        path = "/mcp" if transport == "streamable-http" else "/sse"
        # --require-bearer: no header / wrong token -> 401
        for hdrs, what in [({}, "missing"), ({"Authorization": "Bearer wrong"}, "wrong")]:
            method = "POST" if transport == "streamable-http" else "GET"
            body = json.dumps(init_msg("2025-06-18")).encode() if method == "POST" else None
            req = urllib.request.Request(url + path, data=body, method=method, headers={
                "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **hdrs})
            try:
                status = urllib.request.urlopen(req, timeout=10).status
            except urllib.error.HTTPError as e:
                status = e.code
            check(f"{label}: --require-bearer {what} token -> 401", status == 401, status)
        headers = {"Authorization": "Bearer s3cret", "X-Tether-Test": "smoke"}
        if transport == "sse":
            transport_cm = sse_client(url + path, headers=headers)
        else:
            transport_cm = streamable_http_client(url + path, http_client=create_mcp_http_client(headers=headers))
        async with transport_cm as streams, client.session(streams[0], streams[1]) as session:
            await exercise_test_server(label, session, client, log, server_pid=proc.pid, http=True, cwd=str(tmp))
    err = (tmp / f"{transport}.err").read_text(errors="replace")
    check(f"{label}: exactly one LISTENING line on stderr", err.count("LISTENING ") == 1, err[:300])


async def test_json_response(tmp: Path) -> None:
    async with http_server(["--transport", "streamable-http", "--json-response"], tmp / "json.err") as (proc, url):
        async with streamable_http_client(url + "/mcp") as (read, write), Client().session(read, write) as session:
            await session.initialize()
            r = await session.call_tool("add", {"a": 1, "b": 1})
            check("streamable-http --json-response: add", text(r) == "2", r)


async def test_notes(tmp: Path) -> None:
    notes_dir = tmp / "notes"
    params = StdioServerParameters(command=sys.executable, args=[str(NOTES_SERVER), "--dir", str(notes_dir)])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        check("notes: initialize", init.server_info.name == "notes" and init.protocol_version == "2025-06-18", init)
        tools = {t.name: t for t in (await session.list_tools()).tools}
        check("notes: tools", set(tools) == {"list_notes", "read_note", "write_note", "delete_note"}, sorted(tools))
        check("notes: annotations", tools["list_notes"].annotations.read_only_hint is True
              and tools["read_note"].annotations.read_only_hint is True
              and tools["delete_note"].annotations.destructive_hint is True)
        r = await session.call_tool("list_notes", {})
        check("notes: empty list", text(r) == "(no notes)" and not notes_dir.exists(), r)
        r = await session.call_tool("write_note", {"name": "todo-1", "text": "buy milk\nand eggs"})
        check("notes: write", text(r) == "saved todo-1" and (notes_dir / "todo-1").read_text() == "buy milk\nand eggs", r)
        await session.call_tool("write_note", {"name": "a_b", "text": "x"})
        r = await session.call_tool("list_notes", {})
        check("notes: list", text(r) == "a_b\ntodo-1", r)
        r = await session.call_tool("read_note", {"name": "todo-1"})
        check("notes: read", text(r) == "buy milk\nand eggs" and not r.is_error, r)
        r = await session.call_tool("read_note", {"name": "missing"})
        check("notes: read unknown -> isError", r.is_error is True, r)
        for bad in ["../etc/passwd", "a b", "", "é", "x\n"]:
            r = await session.call_tool("write_note", {"name": bad, "text": "x"})
            check(f"notes: bad name {bad!r} -> isError", r.is_error is True, r)
        r = await session.call_tool("delete_note", {"name": "todo-1"})
        check("notes: delete", text(r) == "deleted todo-1" and not (notes_dir / "todo-1").exists(), r)
        await session.send_ping()
        check("notes: ping", True)
    for asked, expect in [("2024-11-05", "2024-11-05"), ("2025-03-26", "2025-03-26"), ("2025-06-18", "2025-06-18"),
                          ("2025-11-25", "2025-06-18")]:
        out, _ = raw_stdio([sys.executable, str(NOTES_SERVER), "--dir", str(notes_dir)], [init_msg(asked)])
        check(f"notes raw: initialize {asked} -> {expect}", out[0]["result"]["protocolVersion"] == expect
              and out[0]["result"]["capabilities"] == {"tools": {}}, out)
    out, p = raw_stdio([sys.executable, str(NOTES_SERVER), "--dir", str(notes_dir)], [
        init_msg("2025-06-18"), INITIALIZED, {"jsonrpc": "2.0", "method": "notifications/whatever"},
        {"jsonrpc": "2.0", "id": "x", "method": "resources/list"},
        {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "nope", "arguments": {}}}])
    check("notes raw: notifications get no reply; unknown method -32601",
          [m["id"] for m in out] == [1, "x", 7] and out[1]["error"]["code"] == -32601, out)
    check("notes raw: unknown tool -> isError", out[2]["result"]["isError"] is True, out[2])
    check("notes raw: stderr quiet, exit 0 on EOF", p.stderr == "" and p.returncode == 0, p)


async def test_npm(tmp: Path) -> None:
    deps = Path(os.environ.get("TETHER_MCP_DEPS", Path.home() / ".cache/tether-ci/mcp-deps"))
    bin_dir = deps / "node/node_modules/.bin"
    everything, filesystem = bin_dir / "mcp-server-everything", bin_dir / "mcp-server-filesystem"
    if not everything.exists() or not filesystem.exists() or shutil.which("node") is None:
        print(f"skip  npm servers (not installed under {deps}; run scripts/mcp-test-deps)")
        return
    with open(tmp / "everything.err", "w") as err:
        async with stdio_client(StdioServerParameters(command=str(everything), args=["stdio"]), errlog=err) as (r, w), \
                ClientSession(r, w) as session:
            init = await session.initialize()
            names = {t.name for t in (await session.list_tools()).tools}
            res = await session.call_tool("echo", {"message": "hi"})
            check("server-everything stdio: initialize + echo",
                  init.server_info.name and "echo" in names and "hi" in text(res), (init.server_info, text(res)))
    port = free_port()
    err_path = tmp / "everything-http.err"
    with open(err_path, "wb") as err:
        proc = subprocess.Popen([str(everything), "streamableHttp"], env={**os.environ, "PORT": str(port)},
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    try:
        with anyio.fail_after(20):
            while f"listening on port {port}" not in err_path.read_text():
                await anyio.sleep(0.05)
        check("server-everything streamableHttp: announces port on stderr", True)
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (r, w), ClientSession(r, w) as session:
            await session.initialize()
            res = await session.call_tool("get-sum", {"a": 2, "b": 3})
            check("server-everything streamableHttp: get-sum", "5" in text(res), text(res))
    finally:
        proc.terminate()
        proc.wait(5)
    allowed = tmp / "fs-root"
    allowed.mkdir()
    (allowed / "hello.txt").write_text("hello from fs")
    with open(tmp / "fs.err", "w") as err:
        async with stdio_client(StdioServerParameters(command=str(filesystem), args=[str(allowed)]), errlog=err) as (r, w), \
                ClientSession(r, w) as session:
            await session.initialize()
            res = await session.call_tool("read_text_file", {"path": str(allowed / "hello.txt")})
            check("server-filesystem: read_text_file inside allowed dir", text(res) == "hello from fs", res)
            res = await session.call_tool("read_text_file", {"path": "/etc/hostname"})
            check("server-filesystem: outside allowed dir -> isError", res.is_error is True, res)


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="tether-mcp-smoke-") as d:
        tmp = Path(d).resolve()
        steps = [("stdio", test_stdio), ("raw stdio", test_stdio_raw),
                 ("sse", lambda t: test_http(t, "sse")),
                 ("streamable-http", lambda t: test_http(t, "streamable-http")),
                 ("json-response", test_json_response), ("notes", test_notes)]
        if not args.no_npm:
            steps.append(("npm", test_npm))
        for name, step in steps:
            sub = tmp / name.replace(" ", "-")
            sub.mkdir()
            try:
                with anyio.fail_after(120):
                    await step(sub)
            except BaseException as exc:  # a crashed step is a failure, the others still run
                if isinstance(exc, KeyboardInterrupt):
                    raise
                check(f"{name}: completed without exception", False, "".join(traceback.format_exception(exc))[-3000:])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-npm", action="store_true", help="skip the npm servers")
    anyio.run(main, parser.parse_args())
    print(f"{len(passed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)

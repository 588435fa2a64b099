#!/usr/bin/env python3
"""A real MCP server for Tether's integration tests, built on the official `mcp` SDK.

Run it with the venv that `scripts/mcp-test-deps` installs:

    $DIR/venv/bin/python test_server.py [--transport stdio|sse|streamable-http] [options]

stdio (the default) speaks newline-delimited JSON-RPC on stdin/stdout. The HTTP transports
bind --host/--port (port 0, the default, picks a free port) and, once serving, print exactly
one line `LISTENING http://HOST:PORT` to stderr. Streamable HTTP serves `/mcp`; legacy
HTTP+SSE serves `GET /sse` (event stream) and `POST /messages/?session_id=...`.

Everything this script prints outside the protocol goes to stderr, except the `flood`
tool, which writes to the real stdout on purpose (on stdio the SDK points fd 1 at stderr
while serving and keeps the protocol on a private duplicate; `flood` writes to a duplicate
of the original fd 1 taken at startup, so its bytes do land in the client's stdout pipe). See smoke.py next to this file for every tool's
observable behaviour.

Options:
  --name NAME             serverInfo.name in the initialize result (default tether-test)
  --instructions TEXT     instructions in the initialize result
  --log FILE              append one JSON line per tool call, before it runs:
                          {"tool": NAME, "arguments": {...}, "pid": PID[, "headers": {...}]}
                          ("headers": every header of the HTTP request that carried the call,
                          names lowercased; HTTP transports only). A `notifications/cancelled`
                          from the client appends {"cancelled": REQUEST_ID}.
  --require-bearer TOKEN  HTTP transports: any request without `Authorization: Bearer TOKEN`
                          gets 401 (with `WWW-Authenticate: Bearer`)
  --json-response         streamable HTTP: answer POSTs with application/json instead of an
                          SSE stream (no progress/elicitation/log on the POST then)
  --fail-start MESSAGE    print MESSAGE and `fatal: cannot start` to stderr, exit 1
  --slow-start SECONDS    sleep before serving (applied before --fail-start)
"""

import argparse
import json
import os
import sys
import time

SECRET = "token=ghp_0123456789abcdefghijABCDEFGHIJ012345"  # fake GitHub token, 36 chars after ghp_
PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
MIB = 1024 * 1024


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="MCP test server for Tether's integration tests.")
    p.add_argument("--transport", choices=["stdio", "sse", "streamable-http"], default="stdio")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 picks a free port")
    p.add_argument("--name", default="tether-test")
    p.add_argument("--instructions", default=None)
    p.add_argument("--log", default=None, metavar="FILE")
    p.add_argument("--require-bearer", default=None, metavar="TOKEN")
    p.add_argument("--json-response", action="store_true")
    p.add_argument("--fail-start", default=None, metavar="MESSAGE")
    p.add_argument("--slow-start", type=float, default=0.0, metavar="SECONDS")
    return p.parse_args(argv)


class CallLog:
    """Appends JSON lines with one write(2) each, so concurrent servers can share a file."""

    def __init__(self, path: str | None):
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644) if path else None

    def write(self, entry: dict) -> None:
        if self.fd is not None:
            os.write(self.fd, (json.dumps(entry, default=str) + "\n").encode())


def build_server(args: argparse.Namespace, call_log: CallLog):
    import warnings
    from typing import Annotated, Literal

    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import NotificationOptions
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.shared.exceptions import MCPDeprecationWarning
    from pydantic import BaseModel, Field

    # Logging and sampling are deprecated in the 2026-07-28 protocol but still part of the
    # handshake-era protocols this server is tested with; keep stderr free of the warnings.
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

    mcp = MCPServer(args.name, instructions=args.instructions, version="1.0.0", log_level="WARNING")
    low = mcp._lowlevel_server

    # Advertise tools.listChanged (for add_tool) on every transport: the transports all call
    # create_initialization_options() without notification options.
    plain_init_options = low.create_initialization_options

    def init_options(notification_options=None, *rest, **kw):
        return plain_init_options(NotificationOptions(tools_changed=True), *rest, **kw)

    low.create_initialization_options = init_options

    # Advertise the logging capability: accept logging/setLevel (the level is not applied;
    # the `log` tool always sends what it is asked to).
    async def set_level(ctx, params: types.SetLevelRequestParams) -> types.EmptyResult:
        return types.EmptyResult()

    low.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)

    # Record every tool call before it runs, and every cancellation notification.
    async def record(ctx, call_next):
        params = ctx.params or {}
        if ctx.method == "tools/call" and ctx.request_id is not None:
            entry = {"tool": params.get("name"), "arguments": params.get("arguments") or {}, "pid": os.getpid()}
            headers = getattr(ctx.request, "headers", None)
            if headers is not None:
                entry["headers"] = {k.lower(): v for k, v in headers.items()}
            call_log.write(entry)
        elif ctx.method == "notifications/cancelled":
            call_log.write({"cancelled": params.get("requestId")})
        return await call_next(ctx)

    mcp.middleware.append(record)

    def tool(name: str, description: str, **hints):
        return mcp.tool(
            name=name,
            description=description,
            annotations=types.ToolAnnotations(**hints) if hints else None,
            structured_output=False,
        )

    def text_result(s: str, is_error: bool = False) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=s)], is_error=is_error)

    def rid(ctx: Context):
        return ctx.request_context.request_id

    @tool("echo", "Return the given text unchanged.", read_only_hint=True)
    def echo(text: Annotated[str, Field(description="Text to echo back.")]) -> str:
        return text

    class Sum(BaseModel):
        sum: int

    @mcp.tool(name="add", description="Add two integers; returns the sum as text and as structuredContent {sum}.")
    def add(
        a: Annotated[int, Field(description="First addend.")], b: Annotated[int, Field(description="Second addend.")]
    ) -> Annotated[types.CallToolResult, Sum]:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=str(a + b))], structured_content={"sum": a + b}
        )

    @tool("read_note", "Read a note by name.", read_only_hint=True)
    def read_note(name: Annotated[str, Field(description="Note name.")]) -> str:
        return f"note {name}: hello"

    @tool("delete_note", "Delete a note by name.", read_only_hint=False, destructive_hint=True)
    def delete_note(name: Annotated[str, Field(description="Note name.")]) -> str:
        return f"deleted {name}"

    @tool("secret", "Return a (fake) credential, to test secret redaction.")
    def secret() -> str:
        return SECRET

    @tool("lines", "Return n lines: 'line 1' ... 'line n'.", read_only_hint=True)
    def lines(n: Annotated[int, Field(description="Number of lines.", ge=0)]) -> str:
        return "\n".join(f"line {i}" for i in range(1, n + 1))

    @tool("crash", "Kill the server process (exit status 3) without answering.")
    def crash() -> str:
        os._exit(3)

    @tool("stall", "Sleep for the given number of seconds, then return 'woke up'. Cancellable.")
    async def stall(seconds: Annotated[float, Field(description="Seconds to sleep.", ge=0)]) -> str:
        # A notifications/cancelled for this request cancels this sleep (the SDK's dispatcher
        # interrupts the handler) and is recorded in --log by the `record` middleware.
        await anyio.sleep(seconds)
        return "woke up"

    @tool("flood", "Write mib MiB of 'x' (no newline) straight to stdout or stderr, then return 'flooded'.")
    def flood(
        stream: Annotated[Literal["stdout", "stderr"], Field(description="Which fd to flood.")],
        mib: Annotated[int, Field(description="How many MiB to write.", ge=0)],
    ) -> str:
        # On stdio the SDK serves the protocol from a private duplicate of fd 1 and points
        # fd 1 itself at stderr (so stray prints cannot corrupt the protocol). To really hit
        # the client's stdout pipe, write to the duplicate of the original fd 1 taken at start.
        fd = ORIGINAL_STDOUT if stream == "stdout" else 2
        chunk = b"x" * MIB
        for _ in range(mib):
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]
        return "flooded"

    @tool("progress", "Send `steps` progress notifications (50 ms apart), then return 'done'.")
    async def progress(steps: Annotated[int, Field(description="Number of progress notifications.", ge=0)], ctx: Context) -> str:
        for i in range(1, steps + 1):
            await ctx.report_progress(i, steps, f"step {i}")
            await anyio.sleep(0.05)
        return "done"

    elicit_schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "description": "Your name"},
            "confirm": {"type": "boolean", "title": "Confirm", "description": "Confirm the action"},
        },
        "required": ["name"],
    }

    @tool("elicit", "Ask the user a question through form elicitation (fields: name, confirm).")
    async def elicit(question: Annotated[str, Field(description="The question to ask.")], ctx: Context) -> types.CallToolResult:
        try:
            res = await ctx.session.elicit_form(question, elicit_schema, related_request_id=rid(ctx))
        except Exception as exc:
            return text_result(f"elicitation failed: {exc}", is_error=True)
        if res.action == "accept":
            return text_result("accepted: " + json.dumps(res.content or {}, sort_keys=True))
        return text_result("declined" if res.action == "decline" else "cancelled")

    @tool("sample", "Ask the client for an LLM completion (sampling/createMessage).")
    async def sample(ctx: Context) -> str:
        try:
            res = await ctx.session.create_message(
                messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text="Say hello."))],
                max_tokens=32,
                related_request_id=rid(ctx),
            )
        except Exception as exc:
            return f"sampling failed: {exc}"
        content = res.content
        return "sampling ok: " + (content.text if isinstance(content, types.TextContent) else content.model_dump_json())

    @tool("fail", "Return a tool error result (isError: true).")
    def fail() -> types.CallToolResult:
        return text_result("something went wrong", is_error=True)

    @tool("image", "Return a 1x1 PNG image and a text block.", read_only_hint=True)
    def image() -> types.CallToolResult:
        return types.CallToolResult(
            content=[
                types.ImageContent(type="image", data=PNG_1X1, mime_type="image/png"),
                types.TextContent(type="text", text="an image"),
            ]
        )

    @tool("resource_link", "Return a resource_link content block.", read_only_hint=True)
    def resource_link() -> types.CallToolResult:
        return types.CallToolResult(
            content=[types.ResourceLink(type="resource_link", name="readme", uri="file:///README.md")]
        )

    @tool("embedded", "Return an embedded text resource.", read_only_hint=True)
    def embedded() -> types.CallToolResult:
        return types.CallToolResult(
            content=[
                types.EmbeddedResource(
                    type="resource",
                    resource=types.TextResourceContents(
                        uri="file:///notes.txt", mime_type="text/plain", text="embedded text"
                    ),
                )
            ]
        )

    Level = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

    @tool("log", "Send a logging notification (notifications/message) at the given level.")
    async def log(
        level: Annotated[Level, Field(description="Log level.")],
        text: Annotated[str, Field(description="Log message.")],
        ctx: Context,
    ) -> str:
        await ctx.session.send_log_message(level, text, related_request_id=rid(ctx))
        return "logged"

    def late_tool() -> str:
        return "late"

    @tool("add_tool", "Register the tool 'late_tool' and send notifications/tools/list_changed.")
    async def add_tool(ctx: Context) -> str:
        if not any(t.name == "late_tool" for t in await mcp.list_tools()):
            mcp.add_tool(late_tool, name="late_tool", description="Added at runtime; returns 'late'.", structured_output=False)
        # Sent on the calling request's stream, so streamable-HTTP clients see it without
        # having opened the optional GET stream.
        await ctx.session.send_notification(types.ToolListChangedNotification(), related_request_id=rid(ctx))
        return "added"

    @tool("whoami", "Return the server's process id.", read_only_hint=True)
    def whoami() -> str:
        return str(os.getpid())

    @tool("env", "Return an environment variable's value (or <unset>) and, on a second line, cwd=.", read_only_hint=True)
    def env(name: Annotated[str, Field(description="Environment variable name.")]) -> str:
        return f"{os.environ.get(name, '<unset>')}\ncwd={os.getcwd()}"

    return mcp


class RequireBearer:
    """ASGI wrapper: 401 for any HTTP request without `Authorization: Bearer TOKEN`."""

    def __init__(self, app, token: str):
        self.app, self.token = app, token

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            auth = dict(scope.get("headers") or []).get(b"authorization", b"").decode("latin-1")
            scheme, _, cred = auth.partition(" ")
            if scheme.lower() != "bearer" or cred.strip() != self.token:
                body = json.dumps(
                    {"jsonrpc": "2.0", "id": None, "error": {"code": -32001, "message": "Unauthorized"}}
                ).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="tether-test"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


async def serve_http(mcp, args: argparse.Namespace) -> None:
    import socket

    import anyio
    import uvicorn

    if args.transport == "sse":
        app = mcp.sse_app(host=args.host)
    else:
        app = mcp.streamable_http_app(host=args.host, json_response=args.json_response)
    if args.require_bearer is not None:
        app = RequireBearer(app, args.require_bearer)

    # Bind ourselves so port 0 works and the real port is known.
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        print(f"fatal: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr, flush=True)
        sys.exit(1)
    sock.listen(128)
    sock.set_inheritable(True)
    port = sock.getsockname()[1]
    shown = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(args.host, f"[{args.host}]" if family == socket.AF_INET6 else args.host)

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)

    async def announce() -> None:
        while not server.started:
            await anyio.sleep(0.01)
        print(f"LISTENING http://{shown}:{port}", file=sys.stderr, flush=True)

    async with anyio.create_task_group() as tg:
        tg.start_soon(announce)
        await server.serve(sockets=[sock])
        tg.cancel_scope.cancel()


ORIGINAL_STDOUT = 1


def main() -> None:
    global ORIGINAL_STDOUT
    ORIGINAL_STDOUT = os.dup(1)  # before the SDK's stdio transport diverts fd 1 (see flood)
    args = parse_args()
    if args.slow_start > 0:
        time.sleep(args.slow_start)
    if args.fail_start is not None:
        print(args.fail_start, file=sys.stderr)
        print("fatal: cannot start", file=sys.stderr, flush=True)
        sys.exit(1)
    if args.require_bearer is not None and args.transport == "stdio":
        print("warning: --require-bearer has no effect on stdio", file=sys.stderr)

    call_log = CallLog(args.log)
    mcp = build_server(args, call_log)
    if args.transport == "stdio":
        mcp.run("stdio")
    else:
        import anyio

        anyio.run(serve_http, mcp, args)


if __name__ == "__main__":
    main()

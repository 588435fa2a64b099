"""An editor for `tether serve acp`, built on the official `agent-client-protocol` SDK.

Usage: client.py SPEC_JSON. SPEC: {"command", "args", "env", "cwd", "permission",
"steps": [...]}; the SDK starts the agent process itself. `permission` is the option the
user picks in every permission dialog (`allow_once`, `allow_always`, `reject_once`,
`reject_always`, or `cancelled`). Steps:
  {"op": "initialize"}
  {"op": "new", "as": NAME, "cwd": DIR?, "mcp_servers": [...]?}
  {"op": "load", "session_id": ID, "as": NAME}
  {"op": "prompt", "session": NAME, "text": TEXT}
  {"op": "prompt_cancel", "session": NAME, "text": TEXT}: cancels once a tool call is in progress
  {"op": "set_mode", "session": NAME, "mode": MODE}
  {"op": "prompt_raw", "session_id": ID, "text": TEXT}: to a session id as given
  {"op": "slow_and_fast", "slow": NAME, "slow_text": T, "fast": NAME, "fast_text": T}: the fast
    prompt runs to its end while the slow one's tool runs; then the slow one is cancelled
  {"op": "prompt_then_close"}: closes the connection once a tool call is in progress
Prints one JSON object: each step's result (or its error code and message), the updates each
session received, and the permission requests seen.
"""

import asyncio
import contextlib
import json
import sys

from acp import spawn_agent_process, text_block
from acp.exceptions import RequestError
from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse


def dump(model):
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


class Editor:
    def __init__(self, permission):
        self.permission = permission
        self.updates = {}
        self.permissions = []
        self.tool_started = {}

    def on_connect(self, conn):
        pass

    async def session_update(self, session_id, update, **kwargs):
        u = dump(update)
        self.updates.setdefault(session_id, []).append(u)
        if u.get("sessionUpdate") == "tool_call" and u.get("status") == "in_progress":
            ev = self.tool_started.setdefault(session_id, asyncio.Event())
            ev.set()

    async def request_permission(self, session_id, tool_call, options, **kwargs):
        self.permissions.append(
            {"session_id": session_id, "tool_call": dump(tool_call), "options": [dump(o) for o in options]}
        )
        if self.permission == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=self.permission))


async def run(spec):
    editor = Editor(spec.get("permission", "allow_once"))
    names = {}
    results = []
    left = None
    async with spawn_agent_process(
        editor,
        spec["command"],
        *spec["args"],
        env=spec["env"],
        cwd=spec["cwd"],
        transport_kwargs={"stderr": None},
    ) as (conn, process):
        for step in spec["steps"]:
            op = step["op"]
            try:
                if op == "initialize":
                    r = await conn.initialize(protocol_version=1)
                    results.append(dump(r))
                elif op == "new":
                    r = await conn.new_session(cwd=step.get("cwd", spec["cwd"]), mcp_servers=step.get("mcp_servers", []))
                    names[step["as"]] = r.session_id
                    results.append(dump(r))
                elif op == "load":
                    r = await conn.load_session(cwd=spec["cwd"], session_id=step["session_id"], mcp_servers=[])
                    names[step["as"]] = step["session_id"]
                    results.append(dump(r) if r is not None else {})
                elif op in ("prompt", "prompt_raw"):
                    sid = names[step["session"]] if op == "prompt" else step["session_id"]
                    r = await conn.prompt(session_id=sid, prompt=[text_block(step["text"])])
                    results.append(dump(r))
                elif op == "prompt_cancel":
                    sid = names[step["session"]]
                    started = editor.tool_started.setdefault(sid, asyncio.Event())
                    task = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block(step["text"])]))
                    await started.wait()
                    await conn.cancel(session_id=sid)
                    results.append(dump(await task))
                elif op == "set_mode":
                    r = await conn.set_session_mode(session_id=names[step["session"]], mode_id=step["mode"])
                    results.append(dump(r) if r is not None else {})
                elif op == "slow_and_fast":
                    slow, fast = names[step["slow"]], names[step["fast"]]
                    started = editor.tool_started.setdefault(slow, asyncio.Event())
                    task = asyncio.create_task(conn.prompt(session_id=slow, prompt=[text_block(step["slow_text"])]))
                    await started.wait()
                    r = await conn.prompt(session_id=fast, prompt=[text_block(step["fast_text"])])
                    results.append(dump(r))
                    await conn.cancel(session_id=slow)
                    results.append(dump(await task))
                elif op == "prompt_then_close":
                    sid = names[step["session"]]
                    started = editor.tool_started.setdefault(sid, asyncio.Event())
                    left = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block(step["text"])]))
                    await started.wait()
                    break
                else:
                    raise ValueError(f"unknown op {op}")
            except RequestError as e:
                results.append({"error": {"code": e.code, "message": str(e), "data": e.data}})
    if left is not None:
        left.cancel()
        with contextlib.suppress(BaseException):
            await left
    return {
        "results": results,
        "sessions": names,
        "updates": editor.updates,
        "permissions": editor.permissions,
        "exit_code": process.returncode,
    }


def main():
    spec = json.loads(sys.argv[1])
    print(json.dumps(asyncio.run(run(spec))))


if __name__ == "__main__":
    main()

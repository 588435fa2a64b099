"""An MCP client on the official `mcp` SDK, for the `tether serve mcp` tests.

Usage: client.py SPEC_JSON
  SPEC: {"stdio": {"command", "args", "env", "cwd"}} or {"http": URL, "token": T|null},
        and "calls": [[TOOL, MESSAGE], ...]; a call the server refuses gives {"error": …}.
  With "release": PATH, the calls run at once, and PATH is created once the last one
  answered (a first call that waits for PATH shows one slow call does not hold up another).
Prints one JSON object: {"tools": [...], "results": [...]} or {"error": {"type", "message"}},
with "statuses": the HTTP status of every response (the SDK does not report them).
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

STATUSES = []


async def record(response):
    STATUSES.append(response.status_code)


async def call_one(session, tool, message):
    # A message that is not a string is sent as is (to see the server refuse it).
    try:
        r = await session.call_tool(tool, {"message": message})
    except Exception as e:  # noqa: BLE001 - the test asserts on the error
        return {"error": describe(e)}
    return {
        "is_error": bool(r.is_error),
        "structured": r.structured_content,
        "text": [c.text for c in r.content if getattr(c, "type", "") == "text"],
    }


async def session_run(read, write, calls, release=None):
    async with ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]
        if release:
            async def last(tool, message):
                r = await call_one(session, tool, message)
                open(release, "w").close()
                return r

            *first, final = calls
            results = list(
                await asyncio.gather(*(call_one(session, t, m) for t, m in first), last(*final))
            )
        else:
            results = [await call_one(session, t, m) for t, m in calls]
        return {"tools": tools, "results": results}


async def main(spec):
    calls = spec.get("calls", [])
    if "stdio" in spec:
        s = spec["stdio"]
        params = StdioServerParameters(command=s["command"], args=s["args"], env=s["env"], cwd=s["cwd"])
        async with stdio_client(params) as (read, write):
            return await session_run(read, write, calls, spec.get("release"))
    headers = {"Authorization": f"Bearer {spec['token']}"} if spec.get("token") else None
    async with create_mcp_http_client(headers=headers) as http:
        http.event_hooks["response"].append(record)
        async with streamable_http_client(spec["http"], http_client=http) as streams:
            return await session_run(streams[0], streams[1], calls, spec.get("release"))


def describe(e):
    # Task groups wrap the HTTP error: report the innermost cause.
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return {"type": type(e).__name__, "message": str(e)}


if __name__ == "__main__":
    try:
        out = asyncio.run(main(json.loads(sys.argv[1])))
    except BaseException as e:  # noqa: BLE001 - the test asserts on the error
        out = {"error": describe(e)}
    out["statuses"] = STATUSES
    print(json.dumps(out))

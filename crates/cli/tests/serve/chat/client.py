"""An OpenAI-API client on the official `openai` SDK, for the `tether serve chat` tests.

Usage: client.py SPEC_JSON
  SPEC: {"base_url", "api_key", "calls": [CALL, ...]}
  CALL: {"kind": "models"} or {"kind": "complete"|"stream", "model", "messages",
         "conversation": ID|null} or {"kind": "raw", "body": TEXT | "size": N} (a POST with httpx, to see
         what the server answers a request the SDK would not send), or {"kind": "hangup",
         "model", "prompt"} (a streamed request dropped after its first line)
Prints a JSON list, one entry per call: the result, or {"error": {"type", "status", "message"}}.
"""

import json
import sys

import httpx
import openai


def call(client, c):
    if c["kind"] == "raw":
        r = httpx.post(
            str(client.base_url).rstrip("/") + "/chat/completions",
            content=c["body"] if "body" in c else "x" * c["size"],
            headers={"Authorization": f"Bearer {client.api_key}", "Content-Type": "application/json"},
        )
        try:
            parsed = r.json()
        except ValueError:
            parsed = None
        return {"status": r.status_code, "json": parsed}
    if c["kind"] == "hangup":
        body = {"model": c["model"], "stream": True, "messages": [{"role": "user", "content": c["prompt"]}]}
        url = str(client.base_url).rstrip("/") + "/chat/completions"
        with httpx.stream("POST", url, json=body, headers={"Authorization": f"Bearer {client.api_key}"}) as r:
            for line in r.iter_lines():
                if line:
                    return {"first": line}
        return {"first": None}
    if c["kind"] == "models":
        return {"models": [m.id for m in client.models.list()]}
    headers = {"X-Conversation-Id": c["conversation"]} if c.get("conversation") else None
    if c["kind"] == "complete":
        r = client.chat.completions.create(
            model=c["model"], messages=c["messages"], extra_headers=headers
        )
        return {
            "id": r.id,
            "object": r.object,
            "content": r.choices[0].message.content,
            "role": r.choices[0].message.role,
            "finish_reason": r.choices[0].finish_reason,
            "usage": r.usage.model_dump() if r.usage else None,
        }
    deltas, finish, objects, usage = [], [], set(), None
    stream = client.chat.completions.create(
        model=c["model"],
        messages=c["messages"],
        stream=True,
        extra_headers=headers,
        stream_options={"include_usage": True} if c.get("usage") else None,
    )
    for chunk in stream:
        objects.add(chunk.object)
        if chunk.usage:
            usage = chunk.usage.model_dump()
        for choice in chunk.choices:
            if choice.delta.content:
                deltas.append(choice.delta.content)
            if choice.finish_reason:
                finish.append(choice.finish_reason)
    return {
        "deltas": deltas,
        "content": "".join(deltas),
        "finish": finish,
        "objects": sorted(objects),
        "usage": usage,
    }


def main(spec):
    client = openai.OpenAI(base_url=spec["base_url"], api_key=spec["api_key"], max_retries=0)
    out = []
    for c in spec["calls"]:
        try:
            out.append(call(client, c))
        except openai.APIError as e:
            out.append(
                {
                    "error": {
                        "type": type(e).__name__,
                        "status": getattr(e, "status_code", None),
                        "message": e.message,
                        "code": getattr(e, "code", None),
                    }
                }
            )
    return out


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))

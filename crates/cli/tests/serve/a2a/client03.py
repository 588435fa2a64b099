"""Drives `tether serve a2a` with the official A2A 0.3 client (a2a-sdk 0.3.x).

Usage: client03.py URL TOKEN|- MODE [PROMPT...]
  MODE: card (resolve the card only), send (message/send, then tasks/get), stream
  (message/stream), cancel (message/send returning at once, then tasks/cancel, tasks/get).
Prints one JSON object: the card, each run's events as `[task, update]` pairs, and `error`
if a call raised.
"""

import asyncio
import json
import sys
import uuid

import httpx

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import Message, Part, Role, TaskIdParams, TaskQueryParams, TextPart


def dump(x):
    return None if x is None else x.model_dump(mode="json", exclude_none=True)


async def main() -> None:
    url, token, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    prompts = sys.argv[4:]
    headers = {} if token == "-" else {"Authorization": f"Bearer {token}"}
    out: dict = {"runs": []}
    async with httpx.AsyncClient(headers=headers, timeout=120) as http:
        try:
            card = await A2ACardResolver(http, url).get_agent_card()
            out["card"] = dump(card)
            if mode == "card":
                return
            config = ClientConfig(
                httpx_client=http,
                streaming=mode == "stream",
                polling=mode == "cancel",
            )
            client = ClientFactory(config).create(card)
            for prompt in prompts:
                message = Message(
                    role=Role.user,
                    message_id=str(uuid.uuid4()),
                    parts=[Part(root=TextPart(text=prompt))],
                )
                events = []
                task_id = None
                async for event in client.send_message(message):
                    if isinstance(event, tuple):
                        task, update = event
                        task_id = task.id
                        events.append([dump(task), dump(update)])
                    else:
                        events.append([None, dump(event)])
                out["runs"].append(events)
                if mode == "cancel" and task_id:
                    canceled = await client.cancel_task(TaskIdParams(id=task_id))
                    out["canceled"] = dump(canceled)
                if mode in ("send", "cancel") and task_id:
                    got = await client.get_task(TaskQueryParams(id=task_id))
                    out["got"] = dump(got)
            try:
                await client.get_task(TaskQueryParams(id="no-such-task"))
            except Exception as e:  # noqa: BLE001
                out["missing"] = f"{type(e).__name__}: {e}"
        except Exception as e:  # noqa: BLE001
            out["error"] = f"{type(e).__name__}: {e}"
        finally:
            print(json.dumps(out))


asyncio.run(main())

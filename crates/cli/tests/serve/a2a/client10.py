"""Drives `tether serve a2a` with the official A2A 1.0 client (a2a-sdk 1.x).

Usage: client10.py URL TOKEN|- MODE [PROMPT...]
  MODE: card (resolve the card only), send (SendMessage, then GetTask), stream
  (SendStreamingMessage), cancel (SendMessage returning at once, then CancelTask, GetTask).
Prints one JSON object: the card, each run's events (ProtoJSON), and `error` if a call raised.
"""

import asyncio
import json
import sys
import uuid

import httpx
from google.protobuf.json_format import MessageToDict

from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
)


async def main() -> None:
    url, token, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    prompts = sys.argv[4:]
    headers = {} if token == "-" else {"Authorization": f"Bearer {token}"}
    out: dict = {"runs": []}
    async with httpx.AsyncClient(headers=headers, timeout=120) as http:
        try:
            card = await A2ACardResolver(http, url).get_agent_card()
            out["card"] = MessageToDict(card)
            if mode == "card":
                return
            config = ClientConfig(
                httpx_client=http,
                streaming=mode == "stream",
                polling=mode == "cancel",
            )
            client = ClientFactory(config).create(card)
            for prompt in prompts:
                request = SendMessageRequest(
                    message=Message(
                        role=Role.ROLE_USER,
                        message_id=str(uuid.uuid4()),
                        parts=[Part(text=prompt)],
                    )
                )
                events = []
                async for event in client.send_message(request):
                    events.append(MessageToDict(event))
                out["runs"].append(events)
                task_id = events[-1].get("task", {}).get("id")
                if mode == "cancel" and task_id:
                    canceled = await client.cancel_task(CancelTaskRequest(id=task_id))
                    out["canceled"] = MessageToDict(canceled)
                if mode in ("send", "cancel") and task_id:
                    got = await client.get_task(GetTaskRequest(id=task_id))
                    out["got"] = MessageToDict(got)
            try:
                await client.get_task(GetTaskRequest(id="no-such-task"))
            except Exception as e:  # noqa: BLE001
                out["missing"] = f"{type(e).__name__}: {e}"
        except Exception as e:  # noqa: BLE001
            out["error"] = f"{type(e).__name__}: {e}"
        finally:
            print(json.dumps(out))


asyncio.run(main())

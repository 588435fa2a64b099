"""A remote agent served by the official A2A Python SDK (a2a-sdk 1.x, its JSON-RPC endpoint
with the 0.3 compatibility Tether's `type: a2a` client speaks), for the client's tests.

Usage: sdk_server.py stream|nostream
  Serves on 127.0.0.1 at a free port and prints `LISTENING http://127.0.0.1:PORT` on stdout
  once the socket is bound. Two skills, `echo` and `shout`; whichever skill is asked, the
  agent answers with a task whose artifact is `echo: TEXT` (in two chunks when streaming),
  after a `working` status. `stream` declares streaming in the card, `nostream` does not.
"""

import asyncio
import socket
import sys

import uvicorn
from starlette.applications import Starlette

from a2a.helpers.proto_helpers import get_message_text, new_task
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandlerV2
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Part,
    TaskState,
)


class Echo(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = get_message_text(context.message)
        if context.current_task is None:
            await event_queue.enqueue_event(
                new_task(context.task_id, context.context_id, TaskState.TASK_STATE_SUBMITTED, history=[context.message])
            )
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.start_work()
        answer = f"echo: {text}"
        half = len(answer) // 2
        await updater.add_artifact([Part(text=answer[:half])], artifact_id="answer", last_chunk=False)
        await updater.add_artifact([Part(text=answer[half:])], artifact_id="answer", append=True, last_chunk=True)
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


def main() -> None:
    streaming = sys.argv[1] == "stream"
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    card = AgentCard(
        name="SDK Echo",
        description="Echoes what it is told",
        version="1.0.0",
        supported_interfaces=[AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="0.3")],
        capabilities=AgentCapabilities(streaming=streaming),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[
            AgentSkill(id="echo", name="Echo", description="Says it back", tags=["echo"]),
            AgentSkill(id="shout", name="Shout", description="Says it back louder", tags=["echo"]),
        ],
    )
    handler = DefaultRequestHandlerV2(agent_executor=Echo(), task_store=InMemoryTaskStore(), agent_card=card)
    app = Starlette(
        routes=create_agent_card_routes(card) + create_jsonrpc_routes(handler, "/", enable_v0_3_compat=True)
    )
    print(f"LISTENING http://127.0.0.1:{port}", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    asyncio.run(server.serve(sockets=[sock]))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""notes: a tiny MCP server that keeps notes as text files, using only the standard library.

It speaks MCP over stdio by hand (newline-delimited JSON-RPC 2.0), so it runs anywhere
python3 does. Each note is the file DIR/NAME (DIR from --dir, default ./notes, created on
demand). Tools: list_notes, read_note, write_note, delete_note. Names may contain only
letters, digits, '-' and '_'.

    python3 notes_server.py --dir /tmp/my-notes
"""

import argparse
import json
import re
import sys
from pathlib import Path

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18")
NAME_RE = re.compile(r"[A-Za-z0-9_-]+")
NAME = {"type": "string", "description": "Note name: letters, digits, '-' and '_' only."}

TOOLS = [
    {"name": "list_notes", "description": "List the names of all notes, one per line.",
     "inputSchema": {"type": "object", "properties": {}}, "annotations": {"readOnlyHint": True}},
    {"name": "read_note", "description": "Return the text of a note.",
     "inputSchema": {"type": "object", "properties": {"name": NAME}, "required": ["name"]},
     "annotations": {"readOnlyHint": True}},
    {"name": "write_note", "description": "Create or replace a note.",
     "inputSchema": {"type": "object", "properties": {"name": NAME, "text": {"type": "string"}},
                     "required": ["name", "text"]}},
    {"name": "delete_note", "description": "Delete a note.",
     "inputSchema": {"type": "object", "properties": {"name": NAME}, "required": ["name"]},
     "annotations": {"destructiveHint": True}},
]


class ToolError(Exception):
    """Reported to the client as a tool result with isError: true."""


def note_path(notes: Path, args: dict) -> Path:
    name = args.get("name")
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise ToolError(f"invalid note name {name!r}: use letters, digits, '-' and '_'")
    return notes / name


def call_tool(notes: Path, name: str, args: dict) -> str:
    if name == "list_notes":
        names = sorted(p.name for p in notes.glob("*") if p.is_file()) if notes.is_dir() else []
        return "\n".join(names) or "(no notes)"
    if name == "read_note":
        path = note_path(notes, args)
        if not path.is_file():
            raise ToolError(f"no note named {path.name}")
        return path.read_text(encoding="utf-8")
    if name == "write_note":
        path = note_path(notes, args)
        if not isinstance(args.get("text"), str):
            raise ToolError("text must be a string")
        notes.mkdir(parents=True, exist_ok=True)
        path.write_text(args["text"], encoding="utf-8")
        return f"saved {path.name}"
    if name == "delete_note":
        path = note_path(notes, args)
        if not path.is_file():
            raise ToolError(f"no note named {path.name}")
        path.unlink()
        return f"deleted {path.name}"
    raise ToolError(f"unknown tool {name!r}")


def handle(notes: Path, method: str, params: dict):
    """Return the result for a request, or raise LookupError for an unknown method."""
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {"protocolVersion": asked if asked in VERSIONS else VERSIONS[-1],
                "capabilities": {"tools": {}}, "serverInfo": {"name": "notes", "version": "1.0.0"}}
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        try:
            args = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
            text, is_error = call_tool(notes, params.get("name"), args), False
        except (ToolError, OSError) as exc:
            text, is_error = str(exc), True
        return {"content": [{"type": "text", "text": text}], "isError": is_error}
    raise LookupError(method)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default="./notes", help="where notes are kept (default ./notes)")
    notes = Path(parser.parse_args().dir)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            reply = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
        else:
            if not isinstance(msg, dict) or "method" not in msg or "id" not in msg:
                continue  # notifications (e.g. notifications/initialized) and stray responses
            reply = {"jsonrpc": "2.0", "id": msg["id"]}
            params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
            try:
                reply["result"] = handle(notes, msg["method"], params)
            except LookupError:
                reply["error"] = {"code": -32601, "message": f"Method not found: {msg['method']}"}
            except Exception as exc:  # keep serving whatever one request did
                reply["error"] = {"code": -32603, "message": f"Internal error: {exc}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A language server that answers at once, for tests and the round-trip bench.

It speaks LSP's base protocol (Content-Length framing) on stdio with no dependencies, so the
time a request takes is the client's and the pipe's, not the server's. What it answers:

- `initialize`: hover, formatting and rename providers; `serverInfo` is `echo-lsp` with the
  version taken from `ECHO_LSP_TAG` (so tests can see the environment it was given).
- `textDocument/hover`: `echo URI:LINE:CHARACTER` (0-based, as received).
- `textDocument/formatting`: one edit inserting `# formatted` as the first line.
- `textDocument/rename`: the first character of the document, and of `b.py` beside it,
  replaced by the new name.
- `shutdown`: null; `exit` ends the process. Anything else: null.
"""

import json
import os
import sys


def read(stdin):
    length = None
    while True:
        line = stdin.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    return json.loads(stdin.read(length))


def write(stdout, message):
    body = json.dumps(message).encode()
    stdout.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stdout.flush()


def answer(method, params):
    if method == "initialize":
        return {
            "capabilities": {
                "textDocumentSync": 1,
                "hoverProvider": True,
                "documentFormattingProvider": True,
                "renameProvider": True,
            },
            "serverInfo": {"name": "echo-lsp", "version": os.environ.get("ECHO_LSP_TAG", "0")},
        }
    if method == "textDocument/hover":
        uri = params["textDocument"]["uri"]
        p = params["position"]
        return {"contents": {"kind": "plaintext", "value": f"echo {uri}:{p['line']}:{p['character']}"}}
    if method == "textDocument/formatting":
        start = {"line": 0, "character": 0}
        return [{"range": {"start": start, "end": start}, "newText": "# formatted\n"}]
    if method == "textDocument/rename":
        uri = params["textDocument"]["uri"]
        sibling = uri.rsplit("/", 1)[0] + "/b.py"
        edit = [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                 "newText": params["newName"]}]
        return {"changes": {uri: edit, sibling: edit}}
    return None


def main():
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        message = read(stdin)
        if message is None or message.get("method") == "exit":
            return
        if "id" in message and "method" in message:
            write(stdout, {"jsonrpc": "2.0", "id": message["id"],
                           "result": answer(message["method"], message.get("params") or {})})


if __name__ == "__main__":
    main()

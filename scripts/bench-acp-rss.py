#!/usr/bin/env python3
"""RSS per idle `tether serve acp` session: a release tether, 500 `session/new` after 5 to warm
up. Usage: bench-acp-rss.py TETHER_BIN. Prints one line for scripts/bench.sh:
rss mode=acp sessions=500 before_kib=… after_kib=… per_session_kib=…"""
import json, os, subprocess, sys, tempfile

SESSIONS = 500
tether = os.path.abspath(sys.argv[1])
with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "reply.script.yaml"), "w") as f:
        f.write("default:\n  text: The answer is 42.\n")
    with open(os.path.join(d, "agent.yaml"), "w") as f:
        f.write("agents:\n  root:\n    model: script/reply.script.yaml\n")
    env = {**os.environ, "TETHER_HOME": os.path.join(d, ".tether"), "XDG_CONFIG_HOME": os.path.join(d, ".config")}
    p = subprocess.Popen([tether, "serve", "acp", "agent.yaml"], cwd=d, env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    n = 0

    def call(method, params):
        global n
        n += 1
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n").encode())
        p.stdin.flush()
        while True:
            line = p.stdout.readline()
            if not line:
                sys.exit("the acp server exited")
            v = json.loads(line)
            if v.get("id") == n:
                if "error" in v:
                    sys.exit(f"{method}: {v['error']}")
                return

    def rss():
        with open(f"/proc/{p.pid}/status") as f:
            return next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))

    call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    new = {"cwd": d, "mcpServers": []}
    for _ in range(5):
        call("session/new", new)
    before = rss()
    for _ in range(SESSIONS):
        call("session/new", new)
    after = rss()
    p.kill()
    print(f"rss mode=acp sessions={SESSIONS} before_kib={before} after_kib={after} "
          f"per_session_kib={(after - before) / SESSIONS:.1f}")

#!/usr/bin/env python3
"""Hook cost per tool call end to end in `tether run` (release binary, offline script model).

Each run makes ten `think` calls in one model turn; the agent has no hooks, or one no-op hook
on both `pre_tool_use` and `post_tool_use`: a path to a `#!/bin/sh` script, the same script
through the shell (`exec ./noop.sh`, run with `$SHELL -c`), or a persistent
process (`sed -u`, answering `{}` to each line; its start and stop are in the figure).
Runs of every kind are interleaved, 40 of each; the figure is the median wall time of a run.
Added time per hook call = (median with hooks - median without) / 20 (ten calls, two events).
The runs are plain `tether run`s; `persistent_logged` is the persistent kind again with
`--hook-log` (one JSON line per hook run), whose log gives `persistent_steady`. The session
store and home live on a tmpfs when there is one (/dev/shm): the store's fsync at session
start and end costs every kind alike and only adds noise.
The floor, executing the script directly, is measured between the runs: posix_spawn of the
script with the Input on a pipe, waited for, 20 times in a row (the median of the per-call
mean over the rounds), so that it averages over the same 20 process starts a run does.

    scripts/bench-hooks-e2e.py TETHER_BINARY

Prints one line per kind: `KIND MEDIAN_RUN_MS ADDED_PER_HOOK_CALL_MS`, then `floor MS` and
`persistent_steady MS`: the median duration (from `--hook-log`) of a persistent hook's calls
once its process runs, that is every call of a run but the first.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = int(os.environ.get("RUNS", "40"))
CALLS = 10
PAYLOAD = json.dumps(
    {
        "session_id": "bench",
        "cwd": "/tmp",
        "hook_event_name": "pre_tool_use",
        "agent_name": "root",
        "tool_name": "think",
        "tool_use_id": "call_1",
        "tool_input": {"thought": "0"},
    }
).encode()


def agent(hook):
    hooks = ""
    if hook:
        hooks = (
            "    hooks:\n"
            f"      pre_tool_use:\n        - hooks: [{hook}]\n"
            f"      post_tool_use:\n        - hooks: [{hook}]\n"
        )
    return (
        "agents:\n  root:\n    model: script/model.yaml\n"
        "    toolsets: [{type: think}]\n" + hooks
    )


def spawn_script(script):
    """Executes the script with the Input on a pipe and waits for it: the floor of one call."""
    r, w = os.pipe()
    actions = [(os.POSIX_SPAWN_DUP2, r, 0), (os.POSIX_SPAWN_CLOSE, w)]
    pid = os.posix_spawn(script, [script], os.environ, file_actions=actions)
    os.close(r)
    try:
        os.write(w, PAYLOAD)
    except BrokenPipeError:
        pass
    os.close(w)
    os.waitpid(pid, 0)


def main():
    tether = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp()
    script = os.path.join(work, "noop.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\n")
    os.chmod(script, 0o755)
    calls = "".join(
        f"      - {{name: think, arguments: {{thought: t{i}}}}}\n" for i in range(CALLS)
    )
    with open(os.path.join(work, "model.yaml"), "w") as f:
        f.write(f"replies:\n  - tool_calls:\n{calls}  - text: done\n")
    kinds = {
        "none": None,
        "script": "{type: command, command: ./noop.sh}",
        "shell": "{type: command, command: 'exec ./noop.sh'}",
        "persistent": "{type: command, command: \"sed -u 's/.*/{}/'\", persistent: true}",
    }
    for kind, hook in kinds.items():
        with open(os.path.join(work, f"{kind}.yaml"), "w") as f:
            f.write(agent(hook))
    runs = dict((k, k) for k in kinds)
    runs["persistent_logged"] = "persistent"
    shm = "/dev/shm"
    state = tempfile.mkdtemp(dir=shm if os.access(shm, os.W_OK) else None)
    env = dict(os.environ, HOME=os.path.join(state, "home"), TETHER_HOME=os.path.join(state, "th"))
    times = {k: [] for k in runs}
    floors = []
    for i in range(RUNS + 2):
        # The floor in the same rhythm as the runs, so that the machine's load hits both
        # alike: 2 x CALLS executions in a row, like the hooks of one run.
        start = time.perf_counter()
        for _ in range(2 * CALLS):
            spawn_script(script)
        if i >= 2:
            floors.append((time.perf_counter() - start) * 1000 / (2 * CALLS))
        for kind, config in runs.items():
            log = ["--hook-log", os.path.join(work, f"{kind}.jsonl")]
            start = time.perf_counter()
            out = subprocess.run(
                [tether, "run", f"{config}.yaml", "--exec", "go"]
                + (log if kind.endswith("_logged") else []),
                cwd=work,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
            )
            took = time.perf_counter() - start
            if out.returncode != 0 or out.stdout.count(b"Thought recorded") != CALLS:
                sys.exit(f"{kind}: run failed: {out.stdout!r} {out.stderr!r}")
            if i >= 2:  # the first runs warm the page cache
                times[kind].append(took * 1000)
    base = statistics.median(times["none"])
    for kind in runs:
        m = statistics.median(times[kind])
        print(f"{kind} {m:.3f} {(m - base) / (2 * CALLS):.3f}")
    # A persistent process past its start: the hook log's durations of every call but each
    # run's first (which starts the process).
    steady = []
    with open(os.path.join(work, "persistent_logged.jsonl")) as f:
        session = None
        for line in f:
            run = json.loads(line)
            if run["event"] not in ("pre_tool_use", "post_tool_use"):
                continue
            if run["session_id"] != session:
                session = run["session_id"]
                continue
            steady.append(run["duration_ms"])
    print(f"persistent_steady {statistics.median(steady):.3f}")
    print(f"floor {statistics.median(floors):.3f}")
    shutil.rmtree(state, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

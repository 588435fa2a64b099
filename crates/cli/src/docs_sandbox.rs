//! The sandbox section of `docs/hooks.md`.

pub(crate) const SANDBOX: &str = "## Sandboxed command hooks

A command hook with `sandbox:` runs inside a sandbox the kernel enforces; `settings.hooks_sandbox: true | best_effort | false` in the user config gives it to every command hook that does not say (`sandbox: false` opts one out). Other hook types take no `sandbox:` (a load error).

```yaml
- type: command
  command: ./hooks/check.sh
  sandbox: true                      # the default profile
- type: command
  command: ./hooks/audit.sh
  sandbox: {write: [./logs], network: [\"*:443\"], processes: 32}
```

The default profile, and what a map adds to it:

| rule | default | map key |
|---|---|---|
| read | the whole filesystem except the user's secrets: `~/.ssh`, `~/.aws`, `~/.config/gcloud`, `~/.docker/config.json`, `~/.netrc`, `~/.gnupg` and `$TETHER_HOME/sessions.db` (with its `-wal`, `-shm`, `-journal`) | `deny_read: [PATHS]` denies more |
| write | only a private temporary directory (0700, one per hook, removed when the agent's hooks are dropped), given as `TMPDIR`; `/dev/null`, `/dev/zero`, `/dev/full`, `/dev/random`, `/dev/urandom`, `/dev/tty` | `write: [PATHS]` (created when missing) |
| network | none: `socket(2)` fails with `EACCES` (TCP, UDP, raw, netlink and unix sockets; `socketpair` works), `io_uring_setup` too | `network: true` (all), or `[\"*:PORT\", …]`: TCP connections to those ports only |
| privileges | `no_new_privs`: setuid programs and file capabilities give nothing | — |
| CPU | 60 s (`RLIMIT_CPU`) | `cpu_seconds` |
| address space | 16 GiB (`RLIMIT_AS`) | `address_space_mb` |
| open files | 1024 (`RLIMIT_NOFILE`) | `open_files` |
| processes | 256, through a pids cgroup of Tether's own (this holds for root); without a writable pids cgroup, `RLIMIT_NPROC` for an ordinary user (it counts all of the user's processes) | `processes` |
| signals | the hook can signal only its own processes (Landlock scope, ABI 6) | — |
| mode | every rule or no run | `best_effort: true` (or `sandbox: best_effort`): what the kernel offers |

Paths in `write` and `deny_read`: `~/` is the home directory (`HOME` of the hook's environment); relative paths join the hook's working directory.

How each rule is enforced, and what follows from it:

- **Files**: Landlock (ABI 3, Linux 6.2, or later), which binds root too. Landlock only grants, so \"readable except `~/.ssh`\" is read access on every entry around each denied path: the directories walked through (`/`, `/root`, …) can be entered but not listed, and an entry created in them after the rules were made (when the agent's hooks were loaded) is not readable. Symlinks are not followed; a bind mount of a denied directory at another path is another path and is readable.
- **Network**: a seccomp filter refuses `socket(2)` (with a port list, all but TCP over IPv4 and IPv6) and `io_uring_setup`; Landlock (ABI 4, Linux 6.7) allows TCP `connect` only to the listed ports and no `bind`. Landlock filters TCP by port, not by host: a host other than `*` is not supported yet (a load error). Name resolution over UDP does not work with a port list; connect to addresses. A system call of another architecture (32-bit x86 on x86_64) kills the hook.
- **Processes**: `RLIMIT_NPROC` does not bind uid 0, so Tether makes a pids cgroup (`pids.max`) below its own in the cgroup v1 `pids` hierarchy, or v2 where `pids` is delegated; as root with no writable pids cgroup, `sandbox: true` refuses to run (naming why) and `best_effort` runs without a process limit.
- **Order in the child**, between its start and exec: join the cgroup (in a cgroup v1 hierarchy the child is instead started by a thread of Tether's that joined the cgroup once, so it starts inside it: a migration into a cgroup waits for the kernel's RCU grace period, milliseconds per hook), lower the limits, set `no_new_privs`, install the seccomp filter, restrict itself with the Landlock ruleset prepared before the start. The child is started like `posix_spawn` starts one (`clone` sharing Tether's memory, no copy of its page tables), so only system calls on prepared data run there. The rules are prepared once per hook, at its first run.

`sandbox: true` on a kernel without the Landlock it needs is a load error: `hook sandbox: the hook sandbox needs Landlock ABI 3 (Linux 6.2); this kernel has no Landlock; use `sandbox: best_effort` …` (ABI 4 with a port list). A sandbox that cannot be set up at run time (no temporary directory, no pids cgroup as root) fails the hook: the event's failure rules apply (`pre_tool_use` denies). `best_effort` applies what the kernel has and says so in the Input.

The hook's Input carries `sandbox`: what it runs in, `+`-joined from `landlock`, `seccomp`, `no_new_privs`, `rlimits`, `pids` (or `nproc`), for example `\"sandbox\": \"landlock+seccomp+no_new_privs+rlimits+pids\"`. An unsandboxed hook's Input has no `sandbox`.

`tether hooks check` shows each sandboxed command hook's profile: `sandbox: default profile`, or what its map changes (`sandbox: write ./logs; network *:443`; `sandbox: best_effort`); `--json` gives the same text as `sandbox`.

";

//! The sandbox of command hooks.
//!
//! A hook runs with the whole filesystem readable except the user's secrets, writable only
//! in a private temporary directory (its `TMPDIR`) and the paths it lists, without network
//! (or with all of it, or TCP to listed ports), with no new privileges and with resource
//! limits. Everything is the kernel's: Landlock rules for files and TCP ports, a seccomp
//! filter for the sockets Landlock cannot see (UDP, raw, unix, netlink; `io_uring`, which
//! would bypass the filter), `setrlimit` for CPU, address space and open files, and a pids
//! cgroup for processes (`RLIMIT_NPROC` does not bind root).
//!
//! The rules are prepared once per sandbox (the walk around denied paths opens a few hundred
//! files) and applied in the child between its start and exec with raw system calls only. A
//! run's child is started sharing our memory, not forked (`launch.rs`); a long-lived service's
//! is forked by std (`pre_exec`), once per session.
//! `Enforce` fails a run whose sandbox the kernel cannot provide, naming what is missing;
//! `BestEffort` applies what the kernel offers and says so in [`Sandbox::describe`].

mod cgroup;
mod child;
mod launch;
mod rules;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use child::Applied;
pub(crate) use launch::Launch;

/// How strictly a sandbox is required.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SandboxMode {
    /// Every rule or no run.
    Enforce,
    /// What the kernel offers.
    BestEffort,
}

/// Network access of a sandboxed hook.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Network {
    /// No socket but `socketpair`: no TCP, UDP, raw, netlink or unix sockets.
    Off,
    /// Whatever this process may do.
    On,
    /// TCP connections to these ports only (Landlock filters TCP by port, not by host);
    /// no other socket.
    TcpPorts(Vec<u16>),
}

/// Resource limits (`0` leaves one unset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    pub cpu_seconds: u64,
    pub address_space_bytes: u64,
    pub open_files: u64,
    pub processes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            cpu_seconds: 60,
            address_space_bytes: 16 << 30,
            open_files: 1024,
            processes: 256,
        }
    }
}

/// What a sandbox allows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SandboxPolicy {
    pub mode: SandboxMode,
    /// Paths no file below may be read (absolute).
    pub deny_read: Vec<PathBuf>,
    /// Paths writable besides the private temporary directory (absolute; created when
    /// missing).
    pub write: Vec<PathBuf>,
    pub network: Network,
    pub limits: Limits,
}

/// The secrets of the default profile, below `home` (the user's home directory).
pub fn default_denied(home: &Path) -> Vec<PathBuf> {
    [
        ".ssh",
        ".aws",
        ".config/gcloud",
        ".docker/config.json",
        ".netrc",
        ".gnupg",
    ]
    .iter()
    .map(|p| home.join(p))
    .collect()
}

/// The oldest Landlock ABI an enforced sandbox accepts: 3 handles truncation (Linux 6.2);
/// TCP port rules need 4 (Linux 6.7).
const FS_ABI: i32 = 3;
const TCP_ABI: i32 = 4;

/// A test may pretend the kernel's Landlock is older than it is (`0`: none). It only ever
/// makes an enforced sandbox refuse to run: the rules applied are always the real kernel's.
pub const SIMULATED_ABI_VAR: &str = "TETHER_SANDBOX_SIMULATE_LANDLOCK_ABI";

/// Why a sandbox cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SandboxError(pub String);

/// A sandbox, prepared on first use and shared by every run of its hook.
#[derive(Debug)]
pub struct Sandbox {
    policy: SandboxPolicy,
    prepared: OnceLock<Result<Arc<Prepared>, SandboxError>>,
}

/// The rules ready for the child, and the private temporary directory.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub(crate) applied: Applied,
    pub(crate) tmpdir: PathBuf,
    summary: String,
    cgroup: Option<cgroup::Cgroup>,
}

/// Spawns `cmd`, inside `sandboxed` when given.
pub(crate) fn spawn(
    mut cmd: tokio::process::Command,
    sandboxed: Option<&Arc<Prepared>>,
) -> std::io::Result<tokio::process::Child> {
    match sandboxed {
        Some(s) => {
            child::install(&mut cmd, Arc::clone(s));
            s.spawn(cmd)
        }
        None => cmd.spawn(),
    }
}

/// Starts `launch` inside the sandbox (see `launch.rs`): on the thread inside the pids cgroup
/// when there is one, so the child starts there without a migration.
pub(crate) fn launch(
    launch: Launch,
    sandboxed: &Arc<Prepared>,
) -> std::io::Result<(i32, std::os::fd::OwnedFd)> {
    let Some(spawner) = sandboxed.cgroup.as_ref().and_then(cgroup::Cgroup::spawner) else {
        return launch::start(&launch, &sandboxed.applied);
    };
    let s = Arc::clone(sandboxed);
    spawner
        .run(move || launch::start(&launch, &s.applied))
        .unwrap_or_else(|| Err(std::io::Error::other("the sandbox's spawner thread ended")))
}

impl Prepared {
    /// Spawns `cmd` (its `pre_exec` already installed): on the thread inside the pids cgroup
    /// when there is one, so the child starts there without a migration.
    fn spawn(&self, mut cmd: tokio::process::Command) -> std::io::Result<tokio::process::Child> {
        let Some(spawner) = self.cgroup.as_ref().and_then(cgroup::Cgroup::spawner) else {
            return cmd.spawn();
        };
        let runtime = tokio::runtime::Handle::try_current().map_err(std::io::Error::other)?;
        spawner
            .run(move || {
                let _entered = runtime.enter();
                cmd.spawn()
            })
            .unwrap_or_else(|| Err(std::io::Error::other("the sandbox's spawner thread ended")))
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.tmpdir);
    }
}

impl Sandbox {
    pub fn new(policy: SandboxPolicy) -> Self {
        Self {
            policy,
            prepared: OnceLock::new(),
        }
    }

    pub fn policy(&self) -> &SandboxPolicy {
        &self.policy
    }

    /// Prepares the rules (once); the error says what the kernel lacks.
    pub(crate) fn prepare(&self) -> Result<Arc<Prepared>, SandboxError> {
        self.prepared
            .get_or_init(|| prepare(&self.policy).map(Arc::new))
            .clone()
    }

    /// Checks that the kernel offers what an enforced sandbox needs, without preparing it.
    pub fn check_kernel(&self) -> Result<(), SandboxError> {
        let needed = needed_abi(&self.policy);
        if self.policy.mode == SandboxMode::Enforce && believed_abi() < needed {
            return Err(SandboxError(missing_landlock(believed_abi(), needed)));
        }
        Ok(())
    }

    /// What the hook runs in, for its Input: `landlock+seccomp+rlimits+pids` and so on,
    /// or the error.
    pub fn describe(&self) -> String {
        match self.prepare() {
            Ok(p) => p.summary.clone(),
            Err(e) => format!("unavailable: {e}"),
        }
    }
}

/// The Landlock ABI of the running kernel (`0`: none).
pub fn landlock_abi() -> i32 {
    static ABI: OnceLock<i32> = OnceLock::new();
    *ABI.get_or_init(child::landlock_abi)
}

fn believed_abi() -> i32 {
    let real = landlock_abi();
    match std::env::var(SIMULATED_ABI_VAR)
        .ok()
        .and_then(|v| v.parse::<i32>().ok())
    {
        Some(simulated) => real.min(simulated),
        None => real,
    }
}

fn prepare(policy: &SandboxPolicy) -> Result<Prepared, SandboxError> {
    let enforce = policy.mode == SandboxMode::Enforce;
    let needed = needed_abi(policy);
    if enforce && believed_abi() < needed {
        return Err(SandboxError(missing_landlock(believed_abi(), needed)));
    }
    let tmpdir = private_tmpdir().map_err(|e| {
        SandboxError(format!(
            "cannot create the sandbox's temporary directory: {e}"
        ))
    })?;
    let mut writable = vec![tmpdir.clone()];
    for path in &policy.write {
        crate::private::create_dirs(path).map_err(|e| {
            SandboxError(format!(
                "cannot create the sandbox's write path `{}`: {e}",
                path.display()
            ))
        })?;
        writable.push(path.clone());
    }
    let landlock = rules::build(policy, &writable).map_err(|e| {
        let _ = std::fs::remove_dir_all(&tmpdir);
        SandboxError(e)
    })?;
    let mut parts = Vec::new();
    if landlock.is_some() {
        parts.push("landlock");
    }
    let seccomp = match policy.network {
        Network::On => None,
        Network::Off => Some(child::socket_filter(false)),
        Network::TcpPorts(_) => Some(child::socket_filter(true)),
    };
    if seccomp.is_some() {
        parts.push("seccomp");
    }
    parts.push("no_new_privs");
    parts.push("rlimits");
    let limits = policy.limits;
    let cgroup = if limits.processes == 0 {
        None
    } else {
        match cgroup::Cgroup::create(limits.processes) {
            Ok(cg) => Some(cg),
            // Without a pids cgroup, RLIMIT_NPROC limits an ordinary user (it counts all of
            // their processes); it does not bind root.
            Err(_) if !child::is_root() => None,
            Err(e) if enforce => {
                let _ = std::fs::remove_dir_all(&tmpdir);
                return Err(SandboxError(format!(
                    "cannot limit the hook's processes: running as root, `RLIMIT_NPROC` does not apply and no pids cgroup is writable ({e})"
                )));
            }
            Err(_) => None,
        }
    };
    let nproc = match (&cgroup, limits.processes) {
        (Some(_), _) | (None, 0) => None,
        (None, n) if !child::is_root() => Some(n),
        (None, _) => None,
    };
    if cgroup.is_some() {
        parts.push("pids");
    } else if nproc.is_some() {
        parts.push("nproc");
    }
    let applied = Applied::new(
        landlock,
        seccomp,
        limits,
        nproc,
        cgroup.as_ref().and_then(cgroup::Cgroup::procs_fd),
    );
    Ok(Prepared {
        applied,
        tmpdir,
        summary: parts.join("+"),
        cgroup,
    })
}

fn needed_abi(policy: &SandboxPolicy) -> i32 {
    match policy.network {
        Network::TcpPorts(_) => TCP_ABI,
        Network::Off | Network::On => FS_ABI,
    }
}

fn missing_landlock(have: i32, needed: i32) -> String {
    let what = if needed >= TCP_ABI {
        "Landlock ABI 4 (Linux 6.7, TCP port rules)"
    } else {
        "Landlock ABI 3 (Linux 6.2)"
    };
    let have = if have <= 0 {
        "this kernel has no Landlock".to_owned()
    } else {
        format!("this kernel offers Landlock ABI {have}")
    };
    format!(
        "the hook sandbox needs {what}; {have}; use `sandbox: best_effort` to run with what the kernel offers, or `sandbox: false`"
    )
}

/// A fresh directory of Tether's own (0700) in the system temporary directory.
fn private_tmpdir() -> std::io::Result<PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let base = std::env::temp_dir();
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("tether-sandbox-{}-{n}", std::process::id()));
        match std::fs::DirBuilder::new().mode_private().create(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
}

trait PrivateDir {
    fn mode_private(&mut self) -> &mut Self;
}

impl PrivateDir for std::fs::DirBuilder {
    fn mode_private(&mut self) -> &mut Self {
        use std::os::unix::fs::DirBuilderExt;
        self.mode(crate::private::DIR_MODE)
    }
}

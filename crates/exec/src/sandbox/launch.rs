//! Starting a sandboxed child without copying Tether's page tables.
//!
//! std forks whenever a `pre_exec` is set, and `fork` copies the parent's page tables: its cost
//! grows with the memory Tether maps. Here the child shares our memory instead
//! (`clone(CLONE_VM | CLONE_VFORK)`, as `posix_spawn` does), on a stack of its own, while the
//! calling thread waits for it to exec or exit. Since it writes to our memory, the child does
//! nothing but system calls on data prepared before the clone: its process group, working
//! directory and stdio, the sandbox's rules, signals as std leaves them (handlers reset, mask
//! empty, `SIGPIPE` default), then `execve`. A failure is an errno it leaves in memory we read
//! once it is gone.

#![allow(
    unsafe_code,
    reason = "clone, and the system calls of the child before exec"
)]

use std::ffi::{CString, OsStr, c_char, c_int, c_void};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicI32, Ordering};

use super::child::Applied;

/// The child's stack: its frames are small (no allocation, a few system calls).
const STACK_SIZE: usize = 64 * 1024;

thread_local! {
    /// The stack of the children this thread starts, kept between starts: a child is done
    /// with it once `start` returns (it exec'd or exited), and mapping one per start costs a
    /// TLB shootdown on every thread of ours when it is unmapped.
    static STACK: std::cell::RefCell<Option<Stack>> = const { std::cell::RefCell::new(None) };
}

/// Everything the child needs, owned by the parent until the child has exec'd.
#[derive(Debug)]
pub(crate) struct Launch {
    program: CString,
    argv: Vec<CString>,
    envp: Vec<CString>,
    cwd: CString,
    /// Become the child's stdin, stdout and stderr (close-on-exec here, numbered 3 or more so
    /// that no `dup2` overwrites another).
    stdio: [OwnedFd; 3],
}

fn c_string(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "nul byte found in provided data",
        )
    })
}

impl Launch {
    /// `program` must name a file by a path (it is not looked up in `PATH`); `argv` starts with
    /// `argv[0]`; `env` is the child's whole environment.
    pub(crate) fn new<'a>(
        program: &OsStr,
        argv: impl IntoIterator<Item = &'a OsStr>,
        env: impl IntoIterator<Item = (&'a OsStr, &'a OsStr)>,
        cwd: &Path,
        stdio: [OwnedFd; 3],
    ) -> io::Result<Self> {
        let argv = argv
            .into_iter()
            .map(|a| c_string(a.as_bytes()))
            .collect::<io::Result<Vec<_>>>()?;
        let envp = env
            .into_iter()
            .map(|(k, v)| c_string(&[k.as_bytes(), b"=", v.as_bytes()].concat()))
            .collect::<io::Result<Vec<_>>>()?;
        let stdio = stdio.map(above_stdio);
        let [a, b, c] = stdio;
        Ok(Self {
            program: c_string(program.as_bytes())?,
            argv,
            envp,
            cwd: c_string(cwd.as_os_str().as_bytes())?,
            stdio: [a?, b?, c?],
        })
    }
}

/// `fd` itself, or a close-on-exec duplicate numbered 3 or more when it is one of 0, 1, 2
/// (this process was started with some of them closed).
fn above_stdio(fd: OwnedFd) -> io::Result<OwnedFd> {
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    Ok(rustix::io::fcntl_dupfd_cloexec(&fd, 3)?)
}

/// What the child reads, as raw pointers into the parent's memory.
struct ChildArgs<'a> {
    program: *const c_char,
    argv: *const *const c_char,
    envp: *const *const c_char,
    cwd: *const c_char,
    stdio: [RawFd; 3],
    applied: &'a Applied,
    /// The errno of the step that failed; `0` while none did.
    error: AtomicI32,
}

/// Starts the child; returns its pid and a pidfd for it. The calling thread waits until the
/// child has exec'd or failed (its errno is returned, and the child reaped).
pub(crate) fn start(launch: &Launch, applied: &Applied) -> io::Result<(i32, OwnedFd)> {
    let argv = null_terminated(&launch.argv);
    let envp = null_terminated(&launch.envp);
    let args = ChildArgs {
        program: launch.program.as_ptr(),
        argv: argv.as_ptr(),
        envp: envp.as_ptr(),
        cwd: launch.cwd.as_ptr(),
        stdio: launch.stdio.each_ref().map(AsRawFd::as_raw_fd),
        applied,
        error: AtomicI32::new(0),
    };
    STACK.with_borrow_mut(|slot| {
        let stack = match slot.take() {
            Some(stack) => stack,
            None => Stack::new()?,
        };
        let started = clone_onto(&stack, &args);
        *slot = Some(stack);
        started
    })
}

/// Clones the child onto `stack` and waits for it to exec or fail.
fn clone_onto(stack: &Stack, args: &ChildArgs<'_>) -> io::Result<(i32, OwnedFd)> {
    let mut pidfd: c_int = -1;
    let flags = libc::CLONE_VM | libc::CLONE_VFORK | libc::CLONE_PIDFD | libc::SIGCHLD;
    // No signal handler of ours may run in the child, which shares our memory: every signal
    // is blocked across the clone, and the child resets the handlers before unblocking.
    let old = block_signals();
    // SAFETY: the stack is this thread's and unused; `args` and what it points to outlive
    // the child's use of them, since this thread is suspended until the child execs or exits
    // (`CLONE_VFORK`). The child makes only system calls (see `child_main`).
    let pid = unsafe {
        libc::clone(
            child_main,
            stack.top(),
            flags,
            std::ptr::from_ref(args).cast_mut().cast::<c_void>(),
            &raw mut pidfd,
        )
    };
    let clone_error = io::Error::last_os_error();
    restore_signals(&old);
    if pid < 0 {
        return Err(clone_error);
    }
    // SAFETY: the kernel wrote a new descriptor there (`CLONE_PIDFD`).
    let pidfd = unsafe { OwnedFd::from_raw_fd(pidfd) };
    match args.error.load(Ordering::Acquire) {
        0 => Ok((pid, pidfd)),
        errno => {
            // It has exited: collect it so it leaves no zombie.
            let _ = rustix::process::waitid(
                rustix::process::WaitId::PidFd(std::os::fd::AsFd::as_fd(&pidfd)),
                rustix::process::WaitIdOptions::EXITED,
            );
            Err(io::Error::from_raw_os_error(errno))
        }
    }
}

fn null_terminated(strings: &[CString]) -> Vec<*const c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

extern "C" fn child_main(arg: *mut c_void) -> c_int {
    // SAFETY: `arg` is the `ChildArgs` of `start`, alive while the parent waits.
    let args = unsafe { &*arg.cast_const().cast::<ChildArgs<'_>>() };
    let errno = exec(args);
    args.error.store(errno.max(1), Ordering::Release);
    // SAFETY: ends the child without running anything of the parent's (no atexit, no flush).
    unsafe { libc::_exit(127) }
}

/// Prepares the child and execs; returns the errno of the step that failed.
fn exec(args: &ChildArgs<'_>) -> c_int {
    let errno = || {
        io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO)
    };
    // SAFETY (this block): system calls on memory the parent prepared and keeps alive.
    unsafe {
        if libc::setpgid(0, 0) < 0 || libc::chdir(args.cwd) < 0 {
            return errno();
        }
        for (target, &fd) in args.stdio.iter().enumerate() {
            // `fd` > 2, so it is never a descriptor already replaced; `dup2` clears
            // close-on-exec on the copy.
            if libc::dup2(fd, target as c_int) < 0 {
                return errno();
            }
        }
    }
    // Before the seccomp filter, which every later system call goes through.
    reset_signals();
    if let Err(e) = args.applied.apply() {
        return e.raw_os_error().unwrap_or(libc::EPERM);
    }
    // SAFETY: NUL-terminated strings and null-terminated arrays of them.
    unsafe { libc::execve(args.program, args.argv, args.envp) };
    errno()
}

/// In the child: every caught signal back to its default action, `SIGPIPE` too (Rust ignores
/// it; std resets it for children), then nothing blocked.
fn reset_signals() {
    // SAFETY: `sigaction` and `sigprocmask` on local values.
    unsafe {
        for signal in 1..=64 {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &raw mut old) != 0 {
                continue;
            }
            let handled = old.sa_sigaction != libc::SIG_DFL && old.sa_sigaction != libc::SIG_IGN;
            if handled || signal == libc::SIGPIPE {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &raw const default, std::ptr::null_mut());
            }
        }
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&raw mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &raw const none, std::ptr::null_mut());
    }
}

fn block_signals() -> libc::sigset_t {
    // SAFETY: signal sets on local values; this thread's mask only.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&raw mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &raw const all, &raw mut old);
        old
    }
}

fn restore_signals(old: &libc::sigset_t) {
    // SAFETY: restores the mask `block_signals` saved.
    unsafe {
        libc::pthread_sigmask(libc::SIG_SETMASK, old, std::ptr::null_mut());
    }
}

/// An anonymous mapping with a guard page at its low end: a child that overflowed it would
/// fault rather than write over our memory.
struct Stack {
    base: *mut c_void,
    len: usize,
}

impl Stack {
    fn new() -> io::Result<Self> {
        let guard = page_size();
        let len = STACK_SIZE + guard;
        // SAFETY: a fresh private mapping; nothing else refers to it.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let stack = Self { base, len };
        // SAFETY: the lowest page of the mapping made above.
        if unsafe { libc::mprotect(base, guard, libc::PROT_NONE) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(stack)
    }

    /// The highest address (stacks grow down), 16-byte aligned as the mapping is page-aligned.
    fn top(&self) -> *mut c_void {
        self.base.wrapping_byte_add(self.len)
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, no longer used once the child exec'd or exited.
        unsafe {
            libc::munmap(self.base, self.len);
        }
    }
}

fn page_size() -> usize {
    // SAFETY: reads a constant of the system.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).unwrap_or(4096).max(4096)
}

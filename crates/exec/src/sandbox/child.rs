//! What the child does between its start and exec: raw system calls on data prepared before,
//! nothing that allocates or takes a lock (the parent has other threads, and a child started
//! by `launch.rs` shares the parent's memory).

#![allow(unsafe_code, reason = "system calls in the child, before exec")]

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

use super::Limits;

/// One classic BPF instruction, laid out as the kernel's `struct sock_filter`.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(crate) struct Insn {
    code: u16,
    jt: u8,
    jf: u8,
    k: u32,
}

const fn stmt(code: u32, k: u32) -> Insn {
    Insn {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

const fn jump(code: u32, k: u32, jt: u8, jf: u8) -> Insn {
    Insn {
        code: code as u16,
        jt,
        jf,
        k,
    }
}

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

/// x32 system calls on x86_64 carry this bit; they are refused.
const X32_BIT: u32 = 0x4000_0000;

/// The seccomp filter for a hook without general network: `socket(2)` fails with `EACCES`
/// (with `tcp`, except for TCP over IPv4 and IPv6, which Landlock filters by port), as does
/// `io_uring_setup` (io_uring could open sockets past this filter). `socketpair` stays.
/// A system call of another architecture kills the process.
pub(crate) fn socket_filter(tcp: bool) -> Vec<Insn> {
    use libc::{
        BPF_ABS, BPF_ALU, BPF_AND, BPF_JEQ, BPF_JGE, BPF_JMP, BPF_K, BPF_LD, BPF_RET, BPF_W,
        SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO, SECCOMP_RET_KILL_PROCESS,
    };
    let load = |offset: u32| stmt(BPF_LD | BPF_W | BPF_ABS, offset);
    let eq = |k: u32, jt: u8, jf: u8| jump(BPF_JMP | BPF_JEQ | BPF_K, k, jt, jf);
    let nr = |n: libc::c_long| u32::try_from(n).unwrap_or(u32::MAX);
    let allow = stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    let refuse = stmt(
        BPF_RET | BPF_K,
        SECCOMP_RET_ERRNO | libc::EACCES.unsigned_abs(),
    );
    // `struct seccomp_data`: nr at 0, arch at 4, the low half of args[i] at 16 + 8 i.
    let mut prog = vec![
        load(4),
        eq(AUDIT_ARCH, 1, 0),
        stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        load(0),
    ];
    if tcp {
        prog.extend([
            jump(BPF_JMP | BPF_JGE | BPF_K, X32_BIT, 9, 0),
            eq(nr(libc::SYS_io_uring_setup), 8, 0),
            eq(nr(libc::SYS_socket), 0, 6),
            load(16),
            eq(libc::AF_INET.unsigned_abs(), 1, 0),
            eq(libc::AF_INET6.unsigned_abs(), 0, 4),
            load(24),
            stmt(BPF_ALU | BPF_AND | BPF_K, 0xf),
            eq(libc::SOCK_STREAM.unsigned_abs(), 0, 1),
            allow,
            refuse,
        ]);
    } else {
        prog.extend([
            jump(BPF_JMP | BPF_JGE | BPF_K, X32_BIT, 3, 0),
            eq(nr(libc::SYS_io_uring_setup), 2, 0),
            eq(nr(libc::SYS_socket), 1, 0),
            allow,
            refuse,
        ]);
    }
    prog
}

/// Everything the child applies to itself, in this order: join the pids cgroup (unless it was
/// forked inside), lower the limits, set no_new_privs, install the seccomp filter, restrict
/// itself with Landlock.
#[derive(Debug)]
pub(crate) struct Applied {
    landlock: Option<OwnedFd>,
    seccomp: Option<Vec<Insn>>,
    rlimits: [(libc::__rlimit_resource_t, u64); 4],
    cgroup_procs: Option<i32>,
}

impl Applied {
    pub(super) fn new(
        landlock: Option<OwnedFd>,
        seccomp: Option<Vec<Insn>>,
        limits: Limits,
        nproc: Option<u64>,
        cgroup_procs: Option<i32>,
    ) -> Self {
        Self {
            landlock,
            seccomp,
            rlimits: [
                (libc::RLIMIT_CPU, limits.cpu_seconds),
                (libc::RLIMIT_AS, limits.address_space_bytes),
                (libc::RLIMIT_NOFILE, limits.open_files),
                (libc::RLIMIT_NPROC, nproc.unwrap_or(0)),
            ],
            cgroup_procs,
        }
    }

    /// Runs in the child. Async-signal-safe: system calls on prepared data only.
    pub(crate) fn apply(&self) -> io::Result<()> {
        fn check(r: libc::c_long) -> io::Result<()> {
            if r < 0 {
                Err(io::Error::last_os_error())
            } else {
                Ok(())
            }
        }
        if let Some(fd) = self.cgroup_procs {
            // `0` moves the writing process.
            let r = unsafe { libc::write(fd, b"0".as_ptr().cast(), 1) };
            check(r as libc::c_long)?;
        }
        for &(resource, value) in &self.rlimits {
            if value == 0 {
                continue;
            }
            let mut old = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            check(unsafe { libc::getrlimit(resource, &raw mut old) }.into())?;
            let value = value.min(old.rlim_max);
            let new = libc::rlimit {
                rlim_cur: value,
                rlim_max: value,
            };
            check(unsafe { libc::setrlimit(resource, &raw const new) }.into())?;
        }
        check(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) }.into())?;
        if let Some(prog) = &self.seccomp {
            let fprog = libc::sock_fprog {
                len: u16::try_from(prog.len()).unwrap_or(u16::MAX),
                filter: prog.as_ptr().cast_mut().cast::<libc::sock_filter>(),
            };
            check(unsafe {
                libc::syscall(
                    libc::SYS_seccomp,
                    libc::SECCOMP_SET_MODE_FILTER,
                    0,
                    &raw const fprog,
                )
            })?;
        }
        if let Some(fd) = &self.landlock {
            check(unsafe { libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0) })?;
        }
        Ok(())
    }
}

/// Makes the child apply `prepared` before it execs.
pub(crate) fn install(
    cmd: &mut tokio::process::Command,
    prepared: std::sync::Arc<super::Prepared>,
) {
    // SAFETY: `apply` makes system calls on memory prepared before the fork; it neither
    // allocates nor locks.
    unsafe {
        cmd.pre_exec(move || prepared.applied.apply());
    }
}

/// The running kernel's Landlock ABI version, `0` without Landlock.
pub(super) fn landlock_abi() -> i32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    let r = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    i32::try_from(r).unwrap_or(0).max(0)
}

pub(super) fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

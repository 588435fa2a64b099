//! How the process's allocator hands memory back to the kernel.

/// Largest allocation the heap serves (glibc's own ceiling for the threshold): a larger one
/// is a mapping of its own.
const HEAP_UP_TO: i32 = 32 << 20;
/// Free memory at the top of the heap kept rather than given back.
const KEEP_FREE: i32 = 64 << 20;

/// Keeps the buffers Tether frees, up to 32 MiB each, in the heap for reuse instead of
/// unmapping them. A tool output of tens of megabytes goes from copy to copy through the hook
/// chain (read, parsed, rewritten, printed), and a fresh mapping costs a page fault per
/// 4 KiB every time: with glibc's defaults that was a third of `redact_secrets`' cost on a
/// 20 MiB output. At most 64 MiB of free heap is kept. glibc only; elsewhere nothing changes.
pub fn keep_freed_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        #[expect(
            unsafe_code,
            reason = "mallopt takes two integers and only changes the allocator's thresholds"
        )]
        // SAFETY: `mallopt` has no preconditions; an unknown value is refused, not applied.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, HEAP_UP_TO);
            libc::mallopt(libc::M_TRIM_THRESHOLD, KEEP_FREE);
        }
    }
}

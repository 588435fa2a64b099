//! Shared test infrastructure. Used only from tests and benches, never by shipped code.
//!
//! The `hook-fixture` binary (src/bin) is a scriptable hook: it logs what it received and
//! replies as its arguments say, so engine tests can use real processes.

//! Integration tests of `tether-store` on real SQLite files in temp dirs.

#![allow(clippy::unwrap_used, reason = "tests")]

mod concurrency;
mod crash;
mod failures;
mod listing;
mod roundtrip;
mod support;

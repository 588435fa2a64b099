//! Integration tests of `tether-store` on real SQLite files in temp dirs and on real
//! PostgreSQL servers (see `pg.rs`; most tests run on both backends).

#![allow(clippy::unwrap_used, reason = "tests")]

mod concurrency;
mod crash;
mod failures;
mod listing;
mod parity;
mod pg;
mod postgres;
mod roundtrip;
mod support;

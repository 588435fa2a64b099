//! Shared test infrastructure. Used only from tests and benches, never by shipped code.
//!
//! The `hook-fixture` binary (src/bin) is a scriptable hook: it logs what it received and
//! replies as its arguments say, so engine tests can use real processes.
//!
//! `fake_llm` is a scripted model server speaking each provider's streaming dialect, and
//! `cassette` replays recorded provider transcripts; both capture what they were sent.
//!
//! `cli::tether` runs the binary in a test's own directory, home and config.
//!
//! `mcp` installs and starts the real MCP servers the MCP tests run against.
//!
//! `script_run` runs toolsets end to end on the script model behind a logging hook.
//!
//! `resources` reads this process's fds, threads, memory and descendants from `/proc`, for
//! tests that prove nothing leaked.

pub mod bins;
pub mod cassette;
pub mod cli;
pub mod embeddings;
pub mod fake_llm;
pub mod mcp;
pub mod pg;
pub mod resources;
pub mod script_run;
pub mod serve;

//! The only crate that spawns processes (hooks, the shell tool and MCP servers).
//!
//! Every child runs in its own process group with an explicit environment; stdout and stderr
//! are read concurrently with byte caps; a timeout, a cancellation or an output overflow kills
//! the whole group; after the main process exits we wait a bounded time for its pipes to close
//! (a grandchild such as `sleep 30 &` may hold them) and then kill the group. The result is
//! always an [`ExecRecord`], never a panic: what a failure means is for the caller to decide.
//! Tools may merge stderr into stdout (one pipe, as a terminal shows them) and spool huge
//! output to a file, keeping memory bounded without killing the command. The files Tether
//! keeps are private ([`private`]). A long-lived child is a [`Service`] (MCP servers) or a
//! [`LineService`] (persistent hooks: a line in, a line out).

mod child;
mod direct;
mod line;
mod memory;
pub mod private;
mod reaper;
mod run;
pub mod sandbox;
mod service;
mod shell;
mod spool;

pub use direct::ShellFlavor;
pub use line::{LineError, LineService};
pub use memory::keep_freed_buffers;
pub use reaper::MARKER;
pub use run::{Direct, ExecRecord, ExecSpec, Output, Stdin, run};
pub use service::{Service, ServiceSpec, StderrLog};
pub use shell::{Shell, ShellKind, find_in_path};
pub use spool::Spool;

//! One module per command.

pub(crate) mod hooks_check;
pub(crate) mod hooks_decide;
pub(crate) mod hooks_fire;
pub(crate) mod hooks_trust;
pub(crate) mod import_claude;
pub(crate) mod mcp;
pub(crate) mod reference;
pub(crate) mod run;
pub(crate) mod serve;
pub(crate) mod sessions;

//! A command hook's `sandbox:` turned into the sandbox `tether-exec` applies.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tether_config::{Diagnostic, HookSandbox, HookSpec, SandboxNetwork};
use tether_exec::sandbox::{Limits, Network, Sandbox, SandboxMode, SandboxPolicy, default_denied};

use crate::registry::HookEnv;

/// The sandbox of a command hook, `None` when it runs without one. An enforced sandbox the
/// kernel cannot provide is a load error.
pub(crate) fn build(
    spec: &HookSpec,
    cwd: &Path,
    env: &HookEnv,
) -> Result<Option<Arc<Sandbox>>, Box<Diagnostic>> {
    let Some(HookSandbox::On(profile)) = &spec.sandbox else {
        return Ok(None);
    };
    let home = env.var("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let resolve = |p: &str| -> PathBuf {
        match (p.strip_prefix("~/"), &home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ if p == "~" => home.clone().unwrap_or_else(|| PathBuf::from("/")),
            _ => cwd.join(p),
        }
    };
    let mut deny_read = home.as_deref().map(default_denied).unwrap_or_default();
    let data = tether_config::data_dir();
    let data = if data.is_absolute() {
        data
    } else {
        cwd.join(data)
    };
    for suffix in ["", "-wal", "-shm", "-journal"] {
        deny_read.push(data.join(format!("sessions.db{suffix}")));
    }
    deny_read.extend(profile.deny_read.iter().map(|p| resolve(p)));
    let defaults = Limits::default();
    let policy = SandboxPolicy {
        mode: if profile.best_effort {
            SandboxMode::BestEffort
        } else {
            SandboxMode::Enforce
        },
        deny_read,
        write: profile.write.iter().map(|p| resolve(p)).collect(),
        network: match &profile.network {
            SandboxNetwork::Off => Network::Off,
            SandboxNetwork::On => Network::On,
            SandboxNetwork::TcpPorts(ports) => Network::TcpPorts(ports.clone()),
        },
        limits: Limits {
            cpu_seconds: profile.cpu_seconds.unwrap_or(defaults.cpu_seconds),
            address_space_bytes: profile
                .address_space_mb
                .map_or(defaults.address_space_bytes, |mb| {
                    mb.saturating_mul(1 << 20)
                }),
            open_files: profile.open_files.unwrap_or(defaults.open_files),
            processes: profile.processes.unwrap_or(defaults.processes),
        },
    };
    let sandbox = Sandbox::new(policy);
    sandbox.check_kernel().map_err(|e| {
        Box::new(
            Diagnostic::new(spec.origin.clone(), format!("hook sandbox: {e}")).with_hint(
                "`sandbox: best_effort` runs with what the kernel offers; `sandbox: false` runs without",
            ),
        )
    })?;
    Ok(Some(Arc::new(sandbox)))
}

/// Adds `"sandbox": "…"` (what the hook runs in) to the front of an Input object.
pub(crate) fn tag_input(payload: &[u8], sandbox: &Sandbox) -> Arc<[u8]> {
    let described = serde_json::to_string(&sandbox.describe()).unwrap_or_default();
    let rest = payload.strip_prefix(b"{").unwrap_or(payload);
    let rest = rest.trim_ascii_start();
    let mut out = Vec::with_capacity(payload.len() + described.len() + 16);
    out.extend_from_slice(b"{\"sandbox\":");
    out.extend_from_slice(described.as_bytes());
    if !rest.starts_with(b"}") {
        out.push(b',');
    }
    out.extend_from_slice(rest);
    Arc::from(out)
}

//! The Landlock ruleset of a sandbox.
//!
//! Landlock grants, it does not deny: "everything readable but `~/.ssh`" is read access on
//! every entry of `/` except `/root` (or `/home`…), and inside it on every entry except
//! `.ssh`, and so on down to each denied path. The directories walked through can be
//! entered but not listed. Entries that appear there later are not readable: a secret
//! created after the rules were made stays unreadable. Symlinks are not followed (their
//! targets are reached by their real paths); a bind mount of a denied directory elsewhere
//! is another path and is not denied.

use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, NetPort, PathBeneath,
    PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
};

use super::{Network, SandboxMode, SandboxPolicy};

/// Devices every program expects to write (`>/dev/null`).
const DEVICES: [&str; 6] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

/// The ruleset's file descriptor, or `None` when the kernel has no Landlock (best effort).
pub(super) fn build(
    policy: &SandboxPolicy,
    writable: &[PathBuf],
) -> Result<Option<OwnedFd>, String> {
    let real = super::landlock_abi();
    if real <= 0 {
        return Ok(None);
    }
    // The newest ABI whose rights this code knows what to do with.
    let abi = ABI::from(real.min(7));
    let level = match policy.mode {
        SandboxMode::Enforce => CompatLevel::HardRequirement,
        SandboxMode::BestEffort => CompatLevel::BestEffort,
    };
    let fail = |e: &dyn std::fmt::Display| format!("cannot build the Landlock rules: {e}");
    let mut ruleset = Ruleset::default()
        .set_compatibility(level)
        .handle_access(AccessFs::from_all(abi))
        .map_err(|e| fail(&e))?;
    if policy.network != Network::On && real >= 4 {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(|e| fail(&e))?;
    }
    if real >= 6 {
        let mut scopes = BitFlags::from(Scope::Signal);
        if policy.network != Network::On {
            scopes |= Scope::AbstractUnixSocket;
        }
        ruleset = ruleset.scope(scopes).map_err(|e| fail(&e))?;
    }
    let mut created = ruleset.create().map_err(|e| fail(&e))?;
    let read_dir = AccessFs::from_read(abi);
    let read_file = read_dir & AccessFs::from_file(abi);
    for (path, is_dir) in readable(&policy.deny_read) {
        let access = if is_dir { read_dir } else { read_file };
        // An entry that vanished since the walk has nothing to grant.
        let Ok(fd) = PathFd::new(&path) else { continue };
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(|e| fail(&e))?;
    }
    for path in writable
        .iter()
        .map(PathBuf::as_path)
        .chain(DEVICES.iter().map(Path::new))
    {
        let Ok(meta) = std::fs::metadata(path) else {
            continue;
        };
        let access = if meta.is_dir() {
            AccessFs::from_all(abi)
        } else {
            AccessFs::from_file(abi)
        };
        let fd = PathFd::new(path).map_err(|e| fail(&e))?;
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(|e| fail(&e))?;
    }
    if let Network::TcpPorts(ports) = &policy.network
        && real >= 4
    {
        for port in ports {
            created = created
                .add_rule(NetPort::new(*port, AccessNet::ConnectTcp))
                .map_err(|e| fail(&e))?;
        }
    }
    Ok(Option::<OwnedFd>::from(created))
}

/// The paths to grant read access beneath, each with whether it is a directory: `/` when
/// nothing is denied, else the entries around the denied paths.
pub(super) fn readable(denied: &[PathBuf]) -> Vec<(PathBuf, bool)> {
    let denied: Vec<PathBuf> = denied.iter().map(|d| resolve(d)).collect();
    if denied.is_empty() {
        return vec![(PathBuf::from("/"), true)];
    }
    let mut out = Vec::new();
    walk(Path::new("/"), &denied, &mut out);
    out
}

fn walk(dir: &Path, denied: &[PathBuf], out: &mut Vec<(PathBuf, bool)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() || denied.contains(&path) {
            continue;
        }
        if kind.is_dir() && denied.iter().any(|d| d.starts_with(&path)) {
            walk(&path, denied, out);
        } else {
            out.push((path, kind.is_dir()));
        }
    }
}

/// The real path of `path`: its deepest existing ancestor resolved, the rest as written
/// (without `.` and `..`).
fn resolve(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(&existing) {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_owned());
                existing = parent.to_path_buf();
            }
            _ => break,
        }
    }
    path.components()
        .filter(|c| matches!(c, Component::RootDir | Component::Normal(_)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_goes_around_a_denied_directory_and_keeps_its_siblings() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().canonicalize().unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::create_dir_all(home.join("project/src")).unwrap();
        std::fs::write(home.join(".bashrc"), "").unwrap();
        std::os::unix::fs::symlink(home.join(".ssh"), home.join("keys")).unwrap();
        let got = readable(&[home.join(".ssh"), home.join(".aws")]);
        let paths: Vec<&PathBuf> = got.iter().map(|(p, _)| p).collect();
        assert!(paths.contains(&&home.join("project")));
        assert!(paths.contains(&&home.join(".bashrc")));
        assert!(!paths.iter().any(|p| p.starts_with(home.join(".ssh"))));
        assert!(
            !paths.contains(&&home.join("keys")),
            "symlinks are not granted"
        );
        assert!(
            !paths.contains(&&home),
            "a walked directory is not granted whole"
        );
        assert!(paths.contains(&&PathBuf::from("/usr")));
    }

    #[test]
    fn a_missing_denied_path_resolves_through_its_existing_parent() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().canonicalize().unwrap();
        assert_eq!(resolve(&tmp.path().join("b/.aws")), real.join("b/.aws"));
    }
}

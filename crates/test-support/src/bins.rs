//! Paths to this workspace's binaries for tests in other crates.
//!
//! Cargo only gives a package's own tests `CARGO_BIN_EXE_*`; other crates find the binaries
//! beside the test executable (`target/<profile>/`) and build them once if missing.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// `target/<profile>`, derived from the running test executable (`target/<profile>/deps/…`).
pub fn target_profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    let mut dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir
}

fn ensure_built(package: &str, bin: &str) -> PathBuf {
    let path = target_profile_dir().join(bin);
    if !path.exists() {
        let target_dir = target_profile_dir()
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        #[expect(
            clippy::disallowed_methods,
            reason = "test support builds a fixture binary"
        )]
        let status = std::process::Command::new(cargo)
            .args(["build", "--quiet", "-p", package, "--bin", bin])
            .env("CARGO_TARGET_DIR", target_dir)
            .status();
        assert!(
            status.is_ok_and(|s| s.success()),
            "could not build `{bin}` (run `cargo build -p {package} --bin {bin}`)"
        );
    }
    path
}

/// The `hook-fixture` binary.
pub fn hook_fixture() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| ensure_built("tether-test-support", "hook-fixture"))
}

/// The `tether` binary.
pub fn tether() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| ensure_built("tether-cli", "tether"))
}

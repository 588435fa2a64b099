//! A real PostgreSQL server for one test: `initdb` into a temp dir, `pg_ctl start` on a free
//! port of 127.0.0.1, stopped (and deleted) on drop.
//!
//! The binaries come from Debian's `postgresql` package (`/usr/lib/postgresql/<version>/bin`).
//! Without them the tests that need a server skip with a note, unless `CI` is set: there a
//! missing server is a failure (`.ci/run` installs it). PostgreSQL refuses to run as root, so
//! as root the server runs as `nobody`, in a temp dir handed over to it.

#![allow(clippy::unwrap_used, reason = "test set-up fails loudly")]

use std::net::TcpListener;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tempfile::TempDir;

/// The user the server runs as when the tests run as root.
const SERVER_USER: &str = "nobody";

#[derive(Debug)]
pub struct PgServer {
    dir: TempDir,
    bin: PathBuf,
    port: u16,
    as_root: bool,
}

impl PgServer {
    /// A new server, or `None` (after saying why) when PostgreSQL is not installed here.
    #[expect(clippy::print_stderr, reason = "a skipped test says why")]
    pub fn start() -> Option<Self> {
        let Some(bin) = find_bin_dir() else {
            let reason = "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin";
            assert!(
                std::env::var_os("CI").is_none(),
                "{reason}; CI needs them (`.ci/run` installs the `postgresql` package)"
            );
            eprintln!("skipping: {reason} (install the `postgresql` package to run this test)");
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        let as_root = std::fs::metadata("/proc/self").unwrap().uid() == 0;
        if as_root {
            let (uid, gid) = user_ids(SERVER_USER);
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid)).unwrap();
        }
        let mut server = Self {
            dir,
            bin,
            port: 0,
            as_root,
        };
        let data = server.data();
        server.run(
            "initdb",
            &[
                "-D",
                path_str(&data),
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        );
        // A free port can be taken between finding it and the server binding it: try again.
        for attempt in 0.. {
            server.port = free_port();
            if server.try_start() {
                break;
            }
            assert!(attempt < 3, "pg_ctl start failed:\n{}", server.log());
        }
        Some(server)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `postgres://` URL of database `db` on this server.
    pub fn url(&self, db: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{db}", self.port)
    }

    /// Stops the server, as an outage would; [`PgServer::restart`] brings it back.
    pub fn stop(&self) {
        let data = self.data();
        self.run(
            "pg_ctl",
            &["-D", path_str(&data), "-m", "fast", "-w", "stop"],
        );
    }

    pub fn restart(&self) {
        assert!(self.try_start(), "pg_ctl start failed:\n{}", self.log());
    }

    fn try_start(&self) -> bool {
        let data = self.data();
        let log = self.dir.path().join("server.log");
        let options = format!(
            "-k {} -p {} -c listen_addresses=127.0.0.1 -c fsync=off",
            path_str(self.dir.path()),
            self.port
        );
        let out = self.command(
            "pg_ctl",
            &[
                "-D",
                path_str(&data),
                "-l",
                path_str(&log),
                "-o",
                &options,
                "-w",
                "start",
            ],
        );
        out.status.success()
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    fn run(&self, program: &str, args: &[&str]) {
        let out = self.command(program, args);
        assert!(
            out.status.success(),
            "{program} {args:?} failed: {}{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            self.log()
        );
    }

    /// Runs one of the server's programs, as `nobody` when the tests run as root.
    fn command(&self, program: &str, args: &[&str]) -> Output {
        let exe = self.bin.join(program);
        #[expect(
            clippy::disallowed_methods,
            reason = "test set-up runs the server's own programs"
        )]
        let mut cmd = if self.as_root {
            let mut cmd = Command::new("runuser");
            cmd.args(["-u", SERVER_USER, "--"]).arg(exe);
            cmd
        } else {
            Command::new(exe)
        };
        cmd.args(args)
            .current_dir(self.dir.path())
            .output()
            .unwrap()
    }

    /// Runs `sql` on database `db` with the server's own `psql`.
    pub fn psql(&self, db: &str, sql: &str) -> String {
        let url = self.url(db);
        let out = self.command(
            "psql",
            &[url.as_str(), "-v", "ON_ERROR_STOP=1", "-tAc", sql],
        );
        assert!(
            out.status.success(),
            "psql {sql:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let data = self.data();
        // `immediate`: nothing to keep, and the temp dir goes right after.
        let _ = self.command(
            "pg_ctl",
            &["-D", path_str(&data), "-m", "immediate", "-w", "stop"],
        );
    }
}

/// The newest `/usr/lib/postgresql/<version>/bin` that has the server's programs.
fn find_bin_dir() -> Option<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            let complete = ["initdb", "pg_ctl", "postgres"]
                .iter()
                .all(|p| bin.join(p).is_file());
            complete.then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin)
}

fn user_ids(name: &str) -> (u32, u32) {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
    let line = passwd
        .lines()
        .find(|l| l.split(':').next() == Some(name))
        .unwrap_or_else(|| panic!("no user `{name}` to run PostgreSQL as"));
    let fields: Vec<&str> = line.split(':').collect();
    (fields[2].parse().unwrap(), fields[3].parse().unwrap())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

//! A real PostgreSQL server for one test: `initdb` into a temp dir, `pg_ctl start` on a free
//! port of 127.0.0.1, stopped (and deleted) on drop.
//!
//! The binaries come from Debian's `postgresql` package (`/usr/lib/postgresql/<version>/bin`).
//! Without them the tests that need a server skip with a note, unless `CI` is set: there a
//! missing server is a failure (`.ci/run` installs it). PostgreSQL refuses to run as root, so
//! as root the server runs as `nobody`, in a temp dir handed over to it.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use tempfile::TempDir;
use tokio_postgres::{Client, NoTls, Row};

/// The user the server runs as when the tests run as root.
const SERVER_USER: &str = "nobody";

#[derive(Debug)]
pub(crate) struct PgServer {
    dir: TempDir,
    bin: PathBuf,
    port: u16,
    as_root: bool,
}

impl PgServer {
    /// A new server, or `None` (after saying why) when PostgreSQL is not installed here.
    #[expect(clippy::print_stderr, reason = "a skipped test says why")]
    pub(crate) fn start() -> Option<Self> {
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

    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// `postgres://` URL of database `db` on this server.
    pub(crate) fn url(&self, db: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{db}", self.port)
    }

    /// Creates a database with a name unique on this server and returns its URL.
    pub(crate) fn create_database(&self) -> String {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!("tether_{}", NEXT.fetch_add(1, Ordering::Relaxed));
        self.raw("postgres")
            .batch(&format!("CREATE DATABASE {name}"));
        self.url(&name)
    }

    /// A client of its own on database `db`, for looking behind the store's back.
    pub(crate) fn raw(&self, db: &str) -> Raw {
        Raw::connect(&self.url(db))
    }

    /// Stops the server, as an outage would; [`PgServer::restart`] brings it back.
    pub(crate) fn stop(&self) {
        let data = self.data();
        self.run(
            "pg_ctl",
            &["-D", path_str(&data), "-m", "fast", "-w", "stop"],
        );
    }

    pub(crate) fn restart(&self) {
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

/// A plain client on a runtime of its own, for set-up and inspection in tests.
pub(crate) struct Raw {
    runtime: tokio::runtime::Runtime,
    client: Client,
}

impl Raw {
    pub(crate) fn connect(url: &str) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let client = runtime.block_on(async {
            let (client, connection) = tokio_postgres::connect(url, NoTls).await.unwrap();
            tokio::spawn(connection);
            client
        });
        Self { runtime, client }
    }

    pub(crate) fn batch(&self, sql: &str) {
        self.runtime
            .block_on(self.client.batch_execute(sql))
            .unwrap_or_else(|e| panic!("{sql}: {e:?}"));
    }

    pub(crate) fn query(&self, sql: &str) -> Vec<Row> {
        self.runtime
            .block_on(self.client.query(sql, &[]))
            .unwrap_or_else(|e| panic!("{sql}: {e:?}"))
    }

    pub(crate) fn count(&self, sql: &str) -> i64 {
        self.query(sql)[0].get(0)
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

/// A TCP proxy in front of a server that can break one connection on cue: when a client sends
/// bytes containing a pattern, that connection is cut instead of forwarded, as a network
/// failure would cut it mid-call.
#[derive(Debug)]
pub(crate) struct CuttingProxy {
    port: u16,
    armed: Arc<Mutex<Option<Vec<u8>>>>,
    cuts: Arc<AtomicUsize>,
}

impl CuttingProxy {
    pub(crate) fn start(upstream_port: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let armed: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();
        let cuts = Arc::new(AtomicUsize::new(0));
        let (arm, count) = (Arc::clone(&armed), Arc::clone(&cuts));
        // Lives as long as the test process; connections end when either side closes.
        thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let Ok(server) = TcpStream::connect(("127.0.0.1", upstream_port)) else {
                    return;
                };
                let (arm, count) = (Arc::clone(&arm), Arc::clone(&count));
                let (client_r, server_w) =
                    (client.try_clone().unwrap(), server.try_clone().unwrap());
                thread::spawn(move || pump(client_r, server_w, Some((arm, count))));
                thread::spawn(move || pump(server, client, None));
            }
        });
        Self { port, armed, cuts }
    }

    /// `url` (of the proxied server) with the proxy's port instead.
    pub(crate) fn url(&self, url: &str, upstream_port: u16) -> String {
        url.replace(&format!(":{upstream_port}/"), &format!(":{}/", self.port))
    }

    /// Cuts the next connection whose client sends `pattern`.
    pub(crate) fn cut_when_client_sends(&self, pattern: &[u8]) {
        *self.armed.lock().unwrap() = Some(pattern.to_vec());
    }

    pub(crate) fn cuts(&self) -> usize {
        self.cuts.load(Ordering::SeqCst)
    }
}

type Trigger = (Arc<Mutex<Option<Vec<u8>>>>, Arc<AtomicUsize>);

fn pump(mut from: TcpStream, mut to: TcpStream, trigger: Option<Trigger>) {
    let mut buf = vec![0; 64 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if let Some((armed, cuts)) = &trigger {
            let mut armed = armed.lock().unwrap();
            let hit = armed
                .as_ref()
                .is_some_and(|p| buf[..n].windows(p.len()).any(|w| w == p.as_slice()));
            if hit {
                *armed = None;
                cuts.fetch_add(1, Ordering::SeqCst);
                break;
            }
        }
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = from.shutdown(Shutdown::Both);
    let _ = to.shutdown(Shutdown::Both);
}

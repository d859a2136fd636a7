//! REST client overhead: listing 5,000 products over 50 pages of 100 from a loopback server, through
//! the client (`Client::items`, `AsyncClient::items`) and through a bare loop of GETs plus
//! `serde_json` on the same server (no retries, no checks). The target is client ≤ 1.1 × bare.
//!
//! `cargo bench -p energy-runtime --bench rest_client --all-features` (the async pair needs feature
//! `async`); figures in `BENCHMARKS.md`.
#![allow(missing_docs)]

use std::collections::HashMap;
use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use energy_api::rest::{ListProducts, Page, Product};
use energy_runtime::rest::{BaseUrl, Client, ClientConfig};
use serde_json::Value;

const PAGES: usize = 50;
const PAGE_SIZE: usize = 100;
const PRODUCTS: usize = PAGES * PAGE_SIZE;
/// The first page's target, as the client spells `ListProducts { page_size: Some(100), .. }`.
const FIRST_PAGE: &str = "/v1/products/?page_size=100";

/// A keep-alive HTTP/1.1 server on 127.0.0.1 answering GETs from pre-rendered responses (status line,
/// headers and body in one buffer), so that serving costs the same whatever the client; a thread per
/// connection. Any other target gets a 404. It runs until the process ends.
struct PageServer {
    base_url: String,
}

impl PageServer {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let base_url = format!("http://{}", listener.local_addr().expect("address"));
        let responses = Arc::new(render_pages(&base_url));
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let responses = Arc::clone(&responses);
                thread::spawn(move || serve(stream, &responses));
            }
        });
        Self { base_url }
    }
}

fn serve(stream: TcpStream, responses: &HashMap<String, Vec<u8>>) {
    let _ = stream.set_nodelay(true);
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut writer = stream;
    let not_found = response(404, b"{\"detail\": \"Not found.\"}");
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let target = line
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_owned();
        // Headers up to the blank line; a GET has no body.
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line.trim().is_empty() {
                break;
            }
        }
        let reply = responses.get(&target).unwrap_or(&not_found);
        if writer.write_all(reply).is_err() {
            return;
        }
    }
}

fn response(status: u16, body: &[u8]) -> Vec<u8> {
    let reason = if status == 200 { "OK" } else { "Not Found" };
    let mut response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    response.extend_from_slice(body);
    response
}

/// The 50 pages by request target: the real products of `products_list_1.json`, repeated with
/// distinct codes, each page's `next` pointing at the next page of this server, the last's `null`.
fn render_pages(base_url: &str) -> HashMap<String, Vec<u8>> {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/real-responses/products_list_1.json");
    let list: Value =
        serde_json::from_slice(&std::fs::read(&fixture).expect("fixture")).expect("JSON");
    let records = list["results"].as_array().expect("results").clone();
    let target = |page: usize| {
        if page == 1 {
            FIRST_PAGE.to_owned()
        } else {
            format!("/v1/products/?page={page}&page_size={PAGE_SIZE}")
        }
    };
    (1..=PAGES)
        .map(|page| {
            let results: Vec<Value> = (0..PAGE_SIZE)
                .map(|i| {
                    let n = (page - 1) * PAGE_SIZE + i;
                    let mut product = records[n % records.len()].clone();
                    let code = format!("{}-{n:04}", product["code"].as_str().expect("code"));
                    product["links"][0]["href"] = format!("{base_url}/v1/products/{code}/").into();
                    product["code"] = code.into();
                    product
                })
                .collect();
            let link = |page: usize| Value::from(format!("{base_url}{}", target(page)));
            let body = serde_json::json!({
                "count": PRODUCTS,
                "next": if page < PAGES { link(page + 1) } else { Value::Null },
                "previous": if page > 1 { link(page - 1) } else { Value::Null },
                "results": results,
            });
            let body = serde_json::to_vec(&body).expect("render");
            (target(page), response(200, &body))
        })
        .collect()
}

fn list() -> ListProducts {
    ListProducts::default().with_page_size(PAGE_SIZE as i64)
}

#[inline(never)]
fn client_blocking(client: &Client) -> Vec<Product> {
    client
        .items(&list())
        .collect::<Result<_, _>>()
        .expect("listing")
}

/// The bare loop: GET, `serde_json`, follow `next`.
#[inline(never)]
fn bare_ureq(agent: &ureq::Agent, base_url: &str) -> Vec<Product> {
    let mut products = Vec::new();
    let mut url = Some(format!("{base_url}{FIRST_PAGE}"));
    while let Some(current) = url {
        let body = agent
            .get(&current)
            .call()
            .expect("GET")
            .body_mut()
            .read_to_vec()
            .expect("body");
        let page: Page<Product> = serde_json::from_slice(&body).expect("page");
        products.extend(page.results);
        url = page.next;
    }
    products
}

fn bench(c: &mut Criterion) {
    let server = PageServer::start();
    let config = ClientConfig::new(BaseUrl::parse(&server.base_url).expect("base URL"));
    let client = Client::new(config.clone());
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .proxy(None)
        .build()
        .new_agent();
    // Both sides must list the same 5,000 products, or the comparison means nothing.
    let listed = client_blocking(&client);
    assert_eq!(listed.len(), PRODUCTS);
    assert_eq!(listed, bare_ureq(&agent, &server.base_url));

    if let Some(pairs) = paired_runs() {
        report_pairs(
            "blocking: client / bare ureq",
            pairs,
            || drop(black_box(client_blocking(&client))),
            || drop(black_box(bare_ureq(&agent, &server.base_url))),
        );
        #[cfg(feature = "async")]
        asynchronous::report_pairs(pairs, &server.base_url, config.clone());
    }

    let mut group = c.benchmark_group("list_5000_products");
    group.throughput(Throughput::Elements(PRODUCTS as u64));
    group.sample_size(30);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("client_blocking", |b| {
        b.iter(|| black_box(client_blocking(&client)))
    });
    group.bench_function("bare_ureq", |b| {
        b.iter(|| black_box(bare_ureq(&agent, &server.base_url)))
    });
    #[cfg(feature = "async")]
    asynchronous::bench(&mut group, &server.base_url, config, &listed);
    group.finish();
}

/// `REST_BENCH_PAIRS=n`: before criterion's runs, time `n` listings of each side alternately and print
/// the median of the ratios of each pair. On a shared machine whose speed drifts over seconds, the
/// ratio of neighbouring runs is steadier than the ratio of two criterion runs made a minute apart.
fn paired_runs() -> Option<usize> {
    std::env::var("REST_BENCH_PAIRS").ok()?.parse().ok()
}

fn report_pairs(label: &str, pairs: usize, mut client: impl FnMut(), mut bare: impl FnMut()) {
    let time = |run: &mut dyn FnMut()| {
        let start = std::time::Instant::now();
        run();
        start.elapsed().as_secs_f64() * 1e3
    };
    let median = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    let (mut client_ms, mut bare_ms, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..pairs.max(1) {
        let (c, b) = (time(&mut client), time(&mut bare));
        client_ms.push(c);
        bare_ms.push(b);
        ratios.push(c / b);
    }
    println!(
        "{label}: {pairs} pairs, median client {:.2} ms, bare {:.2} ms, median ratio {:.3}",
        median(client_ms),
        median(bare_ms),
        median(ratios)
    );
}

#[cfg(feature = "async")]
mod asynchronous {
    use criterion::BenchmarkGroup;
    use criterion::measurement::WallTime;
    use energy_runtime::rest::AsyncClient;
    use futures_util::TryStreamExt as _;

    use super::*;

    #[inline(never)]
    async fn client_async(client: &AsyncClient) -> Vec<Product> {
        client.items(&list()).try_collect().await.expect("listing")
    }

    /// The bare loop: GET, `serde_json`, follow `next`.
    #[inline(never)]
    async fn bare_reqwest(http: &reqwest::Client, base_url: &str) -> Vec<Product> {
        let mut products = Vec::new();
        let mut url = Some(format!("{base_url}{FIRST_PAGE}"));
        while let Some(current) = url {
            let body = http
                .get(&current)
                .send()
                .await
                .expect("GET")
                .bytes()
                .await
                .expect("body");
            let page: Page<Product> = serde_json::from_slice(&body).expect("page");
            products.extend(page.results);
            url = page.next;
        }
        products
    }

    pub(super) fn report_pairs(pairs: usize, base_url: &str, config: ClientConfig) {
        let (runtime, client, http) = setup(config);
        super::report_pairs(
            "async: client / bare reqwest",
            pairs,
            || drop(black_box(runtime.block_on(client_async(&client)))),
            || drop(black_box(runtime.block_on(bare_reqwest(&http, base_url)))),
        );
    }

    fn setup(config: ClientConfig) -> (tokio::runtime::Runtime, AsyncClient, reqwest::Client) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("tokio runtime");
        let client = AsyncClient::new(config).expect("async client");
        let http = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("reqwest client");
        (runtime, client, http)
    }

    pub(super) fn bench(
        group: &mut BenchmarkGroup<'_, WallTime>,
        base_url: &str,
        config: ClientConfig,
        expected: &[Product],
    ) {
        let (runtime, client, http) = setup(config);
        assert_eq!(runtime.block_on(client_async(&client)), expected);
        assert_eq!(runtime.block_on(bare_reqwest(&http, base_url)), expected);
        group.bench_function("client_async", |b| {
            b.iter(|| black_box(runtime.block_on(client_async(&client))))
        });
        group.bench_function("bare_reqwest", |b| {
            b.iter(|| black_box(runtime.block_on(bare_reqwest(&http, base_url))))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

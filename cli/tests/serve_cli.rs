//! `energy serve` as a client team runs it, and the project's own `energy products|rates|account`
//! against it: every command, filters, a London day across a clock change, credentials, on real
//! processes on 127.0.0.1.
#![cfg(feature = "serve")]

use energy_testkit::process::{EnergyProcess, run_energy};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

const KEY: &str = "sk_test_cli_1";

/// The real responses, and a tariff's half-hourly rates of spring 2024 under its path.
fn data(dir: &Path) {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/real-responses");
    for entry in std::fs::read_dir(&real).expect("the real responses") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "json") {
            std::fs::copy(&path, dir.join(path.file_name().expect("a name"))).expect("copied");
        }
    }
    let start = jiff::Timestamp::from_second(1_711_238_400).expect("2024-03-24T00:00Z");
    let rows: Vec<Value> = (0..(14 * 48))
        .rev()
        .map(|i| {
            let from = start + jiff::SignedDuration::from_mins(30 * i);
            json!({"value_exc_vat": 20.0, "value_inc_vat": 21.0, "valid_from": from.to_string(),
                   "valid_to": (from + jiff::SignedDuration::from_mins(30)).to_string(), "payment_method": null})
        })
        .collect();
    let tariff = dir
        .join("products/VAR-22-11-01/electricity-tariffs/E-1R-VAR-22-11-01-A/standard-unit-rates");
    std::fs::create_dir_all(&tariff).expect("a folder");
    let page = json!({"count": rows.len(), "next": null, "previous": null, "results": rows});
    std::fs::write(tariff.join("march.json"), page.to_string()).expect("written");
}

/// The records of `--format json`: a JSON object per line.
fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

/// `energy serve` on a free port; its base URL.
fn serve(dir: &Path) -> (EnergyProcess, String) {
    let data = dir.to_str().expect("a UTF-8 path");
    let server = EnergyProcess::start_with_env(
        &["serve", "--data", data, "--listen", "127.0.0.1:0"],
        &[("ENERGY_API_KEY", KEY)],
    );
    let started = std::time::Instant::now();
    loop {
        let stderr = server.stderr();
        if let Some(at) = stderr.find("listening on ") {
            let url = stderr[at + "listening on ".len()..]
                .split_whitespace()
                .next()
                .expect("an address")
                .to_owned();
            return (server, url);
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "energy serve did not start: {stderr}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_energy_tool_reads_every_endpoint_of_energy_serve() {
    let dir = tempfile::tempdir().expect("a folder");
    data(dir.path());
    let (server, url) = serve(dir.path());
    assert!(
        server.stderr().contains("53 products, 4 product details"),
        "{}",
        server.stderr()
    );
    assert!(
        server
            .stderr()
            .contains("skipped standard_unit_rates_1.json"),
        "{}",
        server.stderr()
    );

    let list = run_energy(
        &[
            "products",
            "list",
            "--base-url",
            &url,
            "--format",
            "json",
            "--page-size",
            "10",
        ],
        &[],
    );
    assert_eq!(list.code, Some(0), "{}", list.stderr);
    let products = json_lines(&list.stdout);
    assert_eq!(products.len(), 53, "every page followed");

    let green = run_energy(
        &[
            "products",
            "list",
            "--base-url",
            &url,
            "--format",
            "json",
            "--brand",
            "OCTOPUS_ENERGY",
            "--is-green",
            "true",
            "--page-size",
            "3",
        ],
        &[],
    );
    assert_eq!(green.code, Some(0), "{}", green.stderr);
    let green = json_lines(&green.stdout);
    assert!(!green.is_empty());
    assert!(
        green
            .iter()
            .all(|p| p["brand"] == "OCTOPUS_ENERGY" && p["is_green"] == true)
    );
    let expected = products
        .iter()
        .filter(|p| p["brand"] == "OCTOPUS_ENERGY" && p["is_green"] == true)
        .count();
    assert_eq!(green.len(), expected);

    let product = run_energy(
        &[
            "products",
            "get",
            "VAR-22-11-01",
            "--base-url",
            &url,
            "--format",
            "json",
        ],
        &[],
    );
    assert_eq!(product.code, Some(0), "{}", product.stderr);
    let missing = run_energy(
        &["products", "get", "NO-SUCH-PRODUCT", "--base-url", &url],
        &[],
    );
    assert_eq!(missing.code, Some(1));
    assert!(
        missing.stderr.contains("404") && missing.stderr.contains("no product NO-SUCH-PRODUCT"),
        "{}",
        missing.stderr
    );

    // The London day the clocks go forward: 23 hours, 46 half-hourly rates.
    let rates = run_energy(
        &[
            "rates",
            "VAR-22-11-01",
            "E-1R-VAR-22-11-01-A",
            "--from",
            "2024-03-31",
            "--to",
            "2024-04-01",
            "--base-url",
            &url,
            "--format",
            "json",
        ],
        &[],
    );
    assert_eq!(rates.code, Some(0), "{}", rates.stderr);
    let rates = json_lines(&rates.stdout);
    assert_eq!(rates.len(), 46);
    assert_eq!(rates[0]["valid_from"], "2024-03-31T22:30:00Z");

    let account = run_energy(
        &[
            "account",
            "A-68XX9999",
            "--base-url",
            &url,
            "--format",
            "json",
        ],
        &[("ENERGY_API_KEY", KEY)],
    );
    assert_eq!(account.code, Some(0), "{}", account.stderr);
    assert!(
        account.stdout.contains("\"number\": \"A-68XX9999\"")
            || account.stdout.contains("\"number\":\"A-68XX9999\"")
    );
    let refused = run_energy(
        &["account", "A-68XX9999", "--base-url", &url],
        &[("ENERGY_API_KEY", "sk_wrong")],
    );
    assert_eq!(refused.code, Some(1));
    assert!(refused.stderr.contains("401"), "{}", refused.stderr);
    assert!(!refused.stderr.contains("sk_wrong") && !server.stderr().contains("sk_wrong"));
    let bad = run_energy(
        &[
            "products",
            "list",
            "--base-url",
            &url,
            "--page-size",
            "5000",
        ],
        &[],
    );
    assert_eq!(bad.code, Some(1));
    assert!(
        bad.stderr.contains("page_size") && bad.stderr.contains("from 1 to 1000"),
        "{}",
        bad.stderr
    );
}

#[test]
fn energy_serve_refuses_plain_http_off_loopback_and_bad_arguments_in_words() {
    let off_loopback = run_energy(&["serve", "--mock", "--listen", "0.0.0.0:0"], &[]);
    assert_eq!(off_loopback.code, Some(2));
    assert!(
        off_loopback.stderr.contains("HTTPS only"),
        "{}",
        off_loopback.stderr
    );
    let both = run_energy(&["serve"], &[]);
    assert_eq!(both.code, Some(2));
    let no_dir = run_energy(&["serve", "--data", "/nonexistent/energy-data"], &[]);
    assert_eq!(no_dir.code, Some(2));
    assert!(
        no_dir
            .stderr
            .contains("cannot read /nonexistent/energy-data"),
        "{}",
        no_dir.stderr
    );
    let proxy = run_energy(&["serve", "--mock", "--trusted-proxy", "10.0.0.0/99"], &[]);
    assert_eq!(proxy.code, Some(2));
    assert!(proxy.stderr.contains("prefix length"), "{}", proxy.stderr);
    let tls = run_energy(
        &[
            "serve",
            "--mock",
            "--tls-cert",
            "/nonexistent.pem",
            "--tls-key",
            "/nonexistent-key.pem",
        ],
        &[],
    );
    assert_eq!(tls.code, Some(2));
    assert!(
        tls.stderr
            .contains("cannot read the certificate /nonexistent.pem"),
        "{}",
        tls.stderr
    );
}

#[test]
fn energy_serve_mock_serves_the_documents_examples_and_stops_on_sigterm() {
    let mut server = EnergyProcess::start(&["serve", "--mock", "--listen", "127.0.0.1:0"]);
    let started = std::time::Instant::now();
    while !server.stderr().contains("listening on ") {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{}",
            server.stderr()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let stderr = server.stderr();
    let url = stderr[stderr.find("listening on ").expect("said") + 13..]
        .split_whitespace()
        .next()
        .expect("an address")
        .to_owned();
    let list = run_energy(
        &["products", "list", "--base-url", &url, "--format", "json"],
        &[],
    );
    assert_eq!(list.code, Some(0), "{}", list.stderr);
    assert!(list.stdout.contains("AGILE-24-10-01"));
    server.terminate();
    assert_eq!(server.wait(Duration::from_secs(20)), Some(0));
    assert!(server.stderr().contains("energy serve: stopped"));
}

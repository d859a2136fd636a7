//! The `energy` binary's REST commands, run for real against a loopback HTTP server.

use std::process::Command;

use energy_testkit::fixture;
use energy_testkit::server::{GREEN_FILTERS, Reply, TestServer, serve_green_products};

const API_KEY: &str = "sk_live_8aFq2KmZ";
const BASIC_HEADER: &str = "Basic c2tfbGl2ZV84YUZxMkttWjo=";
const RATES_PATH: &str =
    "/v1/products/AGILE-24-04-03/electricity-tariffs/E-1R-AGILE-24-04-03-C/standard-unit-rates/";

/// What a run of `energy` gave, with the server's address replaced by `http://127.0.0.1:PORT`.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn energy(server: Option<&TestServer>, args: &[&str], env: &[(&str, &str)]) -> Run {
    let output = energy_testkit::process::energy_command()
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("run energy");
    let clean = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes).into_owned();
        match server {
            Some(server) => text.replace(server.base_url(), "http://127.0.0.1:PORT"),
            None => text,
        }
    };
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: clean(&output.stdout),
        stderr: clean(&output.stderr),
    }
}

fn ok(body: String) -> Reply {
    Reply::json(200, body)
}

const GREEN_ARGS: [&str; 10] = [
    "products",
    "list",
    "--brand",
    "OCTOPUS_ENERGY",
    "--is-green",
    "true",
    "--is-prepay",
    "false",
    "--page-size",
    "3",
];

fn serve_spring_forward_day(server: &TestServer) -> String {
    let target =
        format!("{RATES_PATH}?period_from=2024-03-31T00:00:00Z&period_to=2024-03-31T23:00:00Z");
    server.on(
        &target,
        [ok(fixture("rest/rates_spring_forward_day.json", ""))],
    );
    target
}

const SPRING_ARGS: [&str; 7] = [
    "rates",
    "AGILE-24-04-03",
    "E-1R-AGILE-24-04-03-C",
    "--from",
    "2024-03-31",
    "--to",
    "2024-04-01",
];

#[test]
fn products_list_prints_a_table_of_every_page() {
    let server = TestServer::start();
    serve_green_products(&server);
    // A proxy in the environment (nothing listens there) is not used for a loopback base URL.
    let dead_proxy = "http://127.0.0.1:9";
    let run = energy(
        Some(&server),
        &[&GREEN_ARGS[..], &["--base-url", server.base_url()]].concat(),
        &[
            ("HTTP_PROXY", dead_proxy),
            ("http_proxy", dead_proxy),
            ("ALL_PROXY", dead_proxy),
        ],
    );
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(server.requests().len(), 3);
    insta::assert_snapshot!("products_list_table", run.stdout);
}

#[test]
fn products_list_json_prints_one_object_per_line_in_the_api_field_names() {
    let server = TestServer::start();
    serve_green_products(&server);
    let run = energy(
        Some(&server),
        &[&GREEN_ARGS[..], &["--format", "json"]].concat(),
        &[("ENERGY_BASE_URL", server.base_url())],
    );
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    let lines: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object per line"))
        .collect();
    let expected: Vec<serde_json::Value> = (1..=3)
        .flat_map(|page| {
            let body: serde_json::Value = serde_json::from_str(&fixture(
                &format!("rest/products_green_page{page}.json"),
                "",
            ))
            .expect("fixture");
            body["results"].as_array().expect("results").clone()
        })
        .collect();
    assert_eq!(lines.len(), expected.len());
    for (line, record) in lines.iter().zip(&expected) {
        let keys = |v: &serde_json::Value| {
            let mut keys: Vec<String> = v.as_object().expect("object").keys().cloned().collect();
            keys.sort();
            keys
        };
        assert_eq!(keys(line), keys(record));
        assert_eq!(line["code"], record["code"]);
        assert_eq!(line["links"], record["links"]);
    }
}

#[test]
fn products_get_prints_the_product_and_its_tariffs() {
    let server = TestServer::start();
    server.on(
        "/v1/products/VAR-22-11-01/",
        [ok(fixture("real-responses/product_detail_3.json", ""))],
    );
    let run = energy(
        Some(&server),
        &[
            "products",
            "get",
            "VAR-22-11-01",
            "--base-url",
            server.base_url(),
        ],
        &[],
    );
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    insta::assert_snapshot!("products_get_table", run.stdout);

    let json = energy(
        Some(&server),
        &[
            "products",
            "get",
            "VAR-22-11-01",
            "--format",
            "json",
            "--base-url",
            server.base_url(),
        ],
        &[],
    );
    assert_eq!(json.code, 0);
    let product: serde_json::Value = serde_json::from_str(&json.stdout).expect("one object");
    let real: serde_json::Value =
        serde_json::from_str(&fixture("real-responses/product_detail_3.json", ""))
            .expect("fixture");
    // Every field of the real response survives, the ones the spec does not list included.
    for key in real.as_object().expect("object").keys() {
        assert!(product.get(key).is_some(), "{key} is missing");
    }
    // The same tariffs (as the same numbers: a `num` of `0` is printed `0.0`).
    let typed = |value: &serde_json::Value| {
        serde_json::from_value::<energy_api::rest::ProductDetail>(value.clone()).expect("decodes")
    };
    assert_eq!(typed(&product), typed(&real));
}

#[test]
fn rates_follow_the_product_to_its_tariff() {
    let server = TestServer::start();
    server.on(
        "/v1/products/VAR-22-11-01/",
        [ok(fixture("real-responses/product_detail_3.json", ""))],
    );
    server.on(
        "/v1/products/VAR-22-11-01/electricity-tariffs/E-1R-VAR-22-11-01-C/standard-unit-rates/",
        [ok(fixture("real-responses/standard_unit_rates_1.json", ""))],
    );
    let base = ["--base-url", server.base_url()];
    let run = energy(
        Some(&server),
        &[
            &["rates", "VAR-22-11-01", "--region", "C", "--format", "json"],
            &base[..],
        ]
        .concat(),
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 5, "the tariff's rates");
    assert_eq!(run.stderr, "tariff: E-1R-VAR-22-11-01-C\n");
    assert_eq!(
        server.targets(),
        [
            "/v1/products/VAR-22-11-01/",
            "/v1/products/VAR-22-11-01/electricity-tariffs/E-1R-VAR-22-11-01-C/standard-unit-rates/"
        ]
    );

    // Without a region, or with one the product does not have: the choices, and exit 1.
    let run = energy(
        Some(&server),
        &[&["rates", "VAR-22-11-01"], &base[..]].concat(),
        &[],
    );
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr,
        "error: product VAR-22-11-01 has tariffs in 3 regions; choose one with --region (A, B, C)\n"
    );
    let run = energy(
        Some(&server),
        &[&["rates", "VAR-22-11-01", "--region", "Z"], &base[..]].concat(),
        &[],
    );
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr,
        "error: product VAR-22-11-01 has no tariff in region Z; its regions: A, B, C\n"
    );

    // A tariff and a region together are a usage error.
    let run = energy(
        Some(&server),
        &[
            &[
                "rates",
                "VAR-22-11-01",
                "E-1R-VAR-22-11-01-C",
                "--region",
                "C",
            ],
            &base[..],
        ]
        .concat(),
        &[],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[test]
fn rates_table_of_the_spring_forward_day() {
    let server = TestServer::start();
    let target = serve_spring_forward_day(&server);
    let run = energy(
        Some(&server),
        &[&SPRING_ARGS[..], &["--base-url", server.base_url()]].concat(),
        &[],
    );
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(server.targets(), [target]);
    insta::assert_snapshot!("rates_table_spring_forward_day", run.stdout);
}

#[test]
fn rates_chart_shows_negative_prices() {
    let server = TestServer::start();
    serve_spring_forward_day(&server);
    let run = energy(
        Some(&server),
        &[
            &SPRING_ARGS[..],
            &["--format", "chart", "--base-url", server.base_url()],
        ]
        .concat(),
        &[],
    );
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert!(run.stdout.contains('░'), "negative bars are drawn");
    insta::assert_snapshot!("rates_chart_spring_forward_day", run.stdout);
}

#[test]
fn rates_json_prints_one_rate_per_line() {
    let server = TestServer::start();
    serve_spring_forward_day(&server);
    let run = energy(
        Some(&server),
        &[
            &SPRING_ARGS[..],
            &["--format", "json", "--base-url", server.base_url()],
        ]
        .concat(),
        &[],
    );
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 46);
    assert_eq!(
        lines[0],
        r#"{"value_exc_vat":17.65,"value_inc_vat":18.532,"valid_from":"2024-03-31T22:30:00Z","valid_to":"2024-03-31T23:00:00Z"}"#
    );
}

#[test]
fn a_civil_time_in_the_gap_is_sent_in_utc_with_a_note() {
    let server = TestServer::start();
    let target = format!("{RATES_PATH}?period_from=2024-03-31T01:30:00Z");
    server.on(
        &target,
        [ok(fixture("rest/rates_spring_forward_day.json", ""))],
    );
    let run = energy(
        Some(&server),
        &[
            "rates",
            "AGILE-24-04-03",
            "E-1R-AGILE-24-04-03-C",
            "--from",
            "2024-03-31T01:30",
            "--format",
            "json",
            "--base-url",
            server.base_url(),
        ],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(server.targets(), [target]);
    assert_eq!(
        run.stderr,
        "note: 2024-03-31T01:30:00 does not exist in Europe/London (the clocks go forward); using \
         02:30 BST (2024-03-31T01:30:00Z)\n"
    );
}

#[test]
fn account_prints_every_field_and_sends_the_basic_header() {
    let server = TestServer::start();
    server.on(
        "/v1/accounts/A-68XX9999/",
        [ok(fixture("real-responses/account_1.json", ""))],
    );
    let run = energy(
        Some(&server),
        &["account", "A-68XX9999"],
        &[
            ("ENERGY_BASE_URL", server.base_url()),
            ("ENERGY_API_KEY", API_KEY),
        ],
    );
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some(BASIC_HEADER)
    );
    insta::assert_snapshot!("account_table", run.stdout);
}

#[test]
fn account_with_a_token() {
    let server = TestServer::start();
    server.on(
        "/v1/accounts/B-1234A1A1/",
        [ok(fixture("real-responses/account_2.json", ""))],
    );
    let run = energy(
        Some(&server),
        &[
            "account",
            "B-1234A1A1",
            "--format",
            "json",
            "--base-url",
            server.base_url(),
        ],
        &[("ENERGY_TOKEN", "tok_9f8e7d6c5b4a")],
    );
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("tok_9f8e7d6c5b4a")
    );
    let account: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(account["number"], "B-1234A1A1");
}

#[test]
fn api_failures_exit_1_with_the_request_and_the_body_and_no_secret() {
    let server = TestServer::start();
    server.on(
        "/v1/accounts/A-68XX9999/",
        [Reply::json(401, r#"{"detail":"Invalid API key."}"#)],
    );
    server.on(
        "/v1/products/NO-SUCH-PRODUCT/",
        [Reply::json(
            404,
            r#"{"detail":"No Product matches the given query."}"#,
        )],
    );
    let malformed = fixture("rest/rates_spring_forward_day.json", "").replacen(
        "\"2024-03-31T22:00:00Z\"",
        "\"31/03/2024 23:00\"",
        1,
    );
    server.on(
        &format!("{RATES_PATH}?period_from=2024-03-31T00:00:00Z&period_to=2024-03-31T23:00:00Z"),
        [ok(malformed)],
    );
    let base = ["--base-url", server.base_url()];
    let runs = [
        energy(
            Some(&server),
            &[&["account", "A-68XX9999", "--api-key", API_KEY][..], &base].concat(),
            &[],
        ),
        energy(
            Some(&server),
            &[&["products", "get", "NO-SUCH-PRODUCT"][..], &base].concat(),
            &[],
        ),
        energy(Some(&server), &[&SPRING_ARGS[..], &base].concat(), &[]),
    ];
    let mut report = String::new();
    for run in &runs {
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert_eq!(run.stdout, "");
        assert!(!run.stderr.contains(API_KEY) && !run.stderr.contains(&BASIC_HEADER[6..]));
        report.push_str(&run.stderr);
    }
    insta::assert_snapshot!("api_failures", report);
}

#[test]
fn a_looping_next_stops_after_the_records_already_printed() {
    let server = TestServer::start();
    let first = format!("/v1/products/?{GREEN_FILTERS}&page_size=3");
    let mut page1: serde_json::Value = serde_json::from_str(&fixture(
        "rest/products_green_page1.json",
        server.base_url(),
    ))
    .expect("JSON");
    page1["next"] = format!("{}{first}", server.base_url()).into();
    server.on(&first, [ok(page1.to_string())]);
    let run = energy(
        Some(&server),
        &[
            &GREEN_ARGS[..],
            &["--format", "json", "--base-url", server.base_url()],
        ]
        .concat(),
        &[],
    );
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout.lines().count(), 3);
    assert_eq!(
        run.stderr,
        format!(
            "error: GET http://127.0.0.1:PORT{first}: the next page link `http://127.0.0.1:PORT{first}` \
             repeats a page already fetched; stopping\n"
        )
    );
}

#[test]
fn usage_errors_exit_2() {
    /// Arguments, environment, and what stderr must say.
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case<'_>; 7] = [
        (&["products", "list"], &[], "--base-url <URL>"),
        (
            &["products", "list", "--base-url", "http://api.example.com"],
            &[],
            "plain HTTP is refused",
        ),
        (
            &["products", "list", "--is-green", "yes"],
            &[("ENERGY_BASE_URL", "https://api.example.com")],
            "invalid value 'yes' for '--is-green <true|false>'",
        ),
        (
            &["products", "list", "--page-size", "0"],
            &[("ENERGY_BASE_URL", "https://api.example.com")],
            "--page-size",
        ),
        (
            &["rates", "P", "T", "--from", "31/03/2024"],
            &[("ENERGY_BASE_URL", "https://api.example.com")],
            "invalid date-time `31/03/2024`",
        ),
        (
            &["account", "A-68XX9999"],
            &[("ENERGY_BASE_URL", "https://api.example.com")],
            "<--api-key <KEY>|--token <TOKEN>|--api-key-file <PATH>|--token-file <PATH>>",
        ),
        (
            &[
                "account",
                "A-68XX9999",
                "--base-url",
                "https://sk_live_8aFq2KmZ@api.example.com",
            ],
            &[("ENERGY_TOKEN", "tok")],
            "must not carry user information",
        ),
    ];
    for (args, env, expected) in cases {
        let run = energy(None, args, env);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(expected), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains(API_KEY), "{}", run.stderr);
    }
}

#[test]
fn help_says_how_to_set_the_base_url_and_reads_date_times() {
    let list = energy(None, &["products", "list", "--help"], &[]);
    assert_eq!(list.code, 0);
    assert!(
        list.stdout
            .contains("set it with --base-url or the ENERGY_BASE_URL")
    );
    insta::assert_snapshot!("rates_help", energy(None, &["rates", "--help"], &[]).stdout);
}

#[test]
fn help_never_shows_a_secret_from_the_environment() {
    let run = energy(
        None,
        &["account", "--help"],
        &[
            ("ENERGY_API_KEY", API_KEY),
            ("ENERGY_TOKEN", "tok_9f8e7d6c5b4a"),
        ],
    );
    assert_eq!(run.code, 0);
    assert!(
        run.stdout.contains("[env: ENERGY_API_KEY]"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains(API_KEY) && !run.stdout.contains("tok_9f8e7d6c5b4a"));
}

#[test]
fn progress_shows_on_stderr_only_when_it_is_a_terminal() {
    let server = TestServer::start();
    serve_green_products(&server);
    // `script` (util-linux, essential in Debian) runs the command on a pseudo-terminal; stdout goes
    // to /dev/null, so what comes back is what the command wrote to its terminal stderr.
    let command = format!(
        "'{}' {} --base-url {} > /dev/null",
        env!("CARGO_BIN_EXE_energy"),
        GREEN_ARGS.join(" "),
        server.base_url()
    );
    let output = Command::new("script")
        .args(["--quiet", "--return", "--command", &command, "/dev/null"])
        .env_remove("ENERGY_BASE_URL")
        .output()
        .expect("run script");
    assert!(output.status.success(), "{output:?}");
    let terminal = String::from_utf8_lossy(&output.stdout);
    for line in [
        "fetching: page 1, 3 of 8 records",
        "fetching: page 2, 6 of 8 records",
        "fetching: page 3, 8 of 8 records",
    ] {
        assert!(terminal.contains(line), "{terminal:?}");
    }
    // The line is erased at the end, so that the table (on stdout) starts on a clean line.
    assert!(terminal.ends_with("\r\u{1b}[2K"), "{terminal:?}");
    // Run without a terminal (every other test), stderr stays empty.
    let plain = energy(
        Some(&server),
        &[&GREEN_ARGS[..], &["--base-url", server.base_url()]].concat(),
        &[],
    );
    assert_eq!(plain.stderr, "");
}

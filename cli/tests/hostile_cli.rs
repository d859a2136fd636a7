//! The `energy` binary against hostile servers and hostile arguments: nothing from the network
//! reaches the terminal raw, memory stays bounded (each run under a kernel limit on its data
//! segment, `prlimit --data`, so that a run that needed more fails instead of passing), lists end at
//! their page limit and deadline, retries are reported, no argument or environment value crashes,
//! and every subcommand exits the same way on a closed stdout.

use std::io::Write as _;
use std::process::{Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use energy_testkit::hostile::{Body, HostileServer, Response, gzip_zeros};

/// The data segment a run may use: what every bounded run fits in with room to spare, far below
/// what the unbounded behaviour took (2.17 GB for a gzip bomb, 890 MB for a 9 MB account).
const DATA_LIMIT: u64 = 256 * 1024 * 1024;

/// `energy` with `args`, `env` and `stdin`, under the data limit; ENERGY_* variables cleared.
fn energy(args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Output {
    let mut child = energy_testkit::process::clean_command("prlimit")
        .arg(format!("--data={DATA_LIMIT}"))
        .arg(energy_testkit::process::energy())
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run energy under prlimit");
    let mut input = child.stdin.take().expect("stdin");
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let output = child.wait_with_output().expect("energy ends");
    let _ = writer.join();
    output
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Whether a terminal would act on any of it: a control character other than a line break.
fn has_controls(output: &str) -> bool {
    output.chars().any(|c| c.is_control() && c != '\n')
}

/// A product as the API sends it, with `name` as its display name.
fn product(code: &str, name: &str) -> serde_json::Value {
    serde_json::json!({
        "code": code, "direction": "IMPORT", "full_name": name, "display_name": name,
        "description": name, "is_variable": true, "is_green": false, "is_tracker": false,
        "is_prepay": false, "is_business": false, "is_restricted": false, "term": null,
        "available_from": "2024-01-01T00:00:00Z", "available_to": null, "links": [], "brand": name
    })
}

/// A single-product response as the API sends it: the product's fields, and its tariffs, sample quotes
/// and consumption (none of them here).
fn product_detail(code: &str, name: &str) -> serde_json::Value {
    let mut detail = product(code, name);
    let members = serde_json::json!({
        "tariffs_active_at": "2024-11-23T00:00:00Z",
        "single_register_electricity_tariffs": {},
        "dual_register_electricity_tariffs": {},
        "single_register_gas_tariffs": {},
        "sample_quotes": {},
        "sample_consumption": {
            "electricity_single_rate": {"electricity_standard": 2700},
            "electricity_dual_rate": {"electricity_day": 1750, "electricity_night": 950},
            "dual_fuel_single_rate": {"electricity_standard": 2700, "gas_standard": 11500},
            "dual_fuel_dual_rate": {"electricity_day": 1750, "electricity_night": 950, "gas_standard": 11500}
        }
    });
    if let (Some(detail), serde_json::Value::Object(members)) = (detail.as_object_mut(), members) {
        detail.extend(members);
    }
    detail
}

/// A tariff of a single-product response, with `code` as its code.
fn tariff(code: &str) -> serde_json::Value {
    serde_json::json!({
        "code": code, "standing_charge_exc_vat": 45.57, "standing_charge_inc_vat": 47.8485,
        "online_discount_exc_vat": 0, "online_discount_inc_vat": 0, "dual_fuel_discount_exc_vat": 0,
        "dual_fuel_discount_inc_vat": 0, "exit_fees_exc_vat": 0, "exit_fees_inc_vat": 0, "links": [],
        "standard_unit_rate_exc_vat": 1, "standard_unit_rate_inc_vat": 1.05
    })
}

fn page(results: Vec<serde_json::Value>, next: Option<String>) -> String {
    serde_json::json!({"count": results.len(), "next": next, "previous": null, "results": results})
        .to_string()
}

/// Text that, written raw to a terminal, sets the window title, clears the screen, and moves up to
/// erase the line above (the error line) so that its own text stands in its place.
const HOSTILE: &str = "\u{1b}]0;owned\u{7}\u{1b}[2J\u{1b}[1A\u{1b}[2Kall fine\u{9b}31m\u{202e}";

#[test]
fn escape_sequences_from_the_server_never_reach_the_terminal() {
    let account = serde_json::json!({
        "number": "A-1",
        "properties": [{"address_line_1": HOSTILE, HOSTILE: 1}],
    })
    .to_string();
    let rates = serde_json::json!({"count": 1, "next": null, "previous": null, "results": [{
        "value_exc_vat": 1.0, "value_inc_vat": 1.05, "valid_from": "2024-03-31T00:00:00Z",
        "valid_to": null, "payment_method": HOSTILE}]})
    .to_string();
    let detail = {
        let mut detail = product_detail("P", HOSTILE);
        detail["single_register_electricity_tariffs"] = serde_json::json!({
            HOSTILE: {HOSTILE: tariff(HOSTILE)}
        });
        detail.to_string()
    };
    let list = page(vec![product(HOSTILE, HOSTILE)], None);
    let server = HostileServer::start(move |request| {
        let target = request.target.as_str();
        if target.starts_with("/v1/accounts/") {
            Response::json(200, account.clone())
        } else if target.contains("standard-unit-rates") {
            Response::json(200, rates.clone())
        } else if target == "/v1/products/P/" {
            Response::json(200, detail.clone())
        } else if target == "/v1/products/" {
            Response::json(200, list.clone())
        } else {
            // An error body that would overwrite the error line.
            Response::json(404, format!("{{\"detail\": \"{HOSTILE}\"}}"))
        }
    });
    let base = server.base_url();
    let env = [("ENERGY_BASE_URL", base), ("ENERGY_TOKEN", "t")];
    let visible = r"\x1b]0;owned\x07\x1b[2J\x1b[1A\x1b[2Kall fine\u{9b}31m\u{202e}";
    let runs = [
        (vec!["products", "list"], 0),
        (vec!["products", "get", "P"], 0),
        (vec!["rates", "P", "T"], 0),
        // The product's one tariff is looked up: its code is named on stderr.
        (vec!["rates", "P"], 0),
        // Its regions are listed in the error.
        (vec!["rates", "P", "--region", "Z"], 1),
        (vec!["rates", "P", HOSTILE, "--format", "chart"], 0),
        (vec!["account", "A-1"], 0),
        (vec!["products", "get", "NOT-THERE"], 1),
    ];
    for (args, code) in runs {
        let run = energy(&args, &env, b"");
        let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
        assert_eq!(run.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(!has_controls(&stdout), "{args:?}: {stdout:?}");
        assert!(!has_controls(&stderr), "{args:?}: {stderr:?}");
        assert!(
            stdout.contains(visible) || stderr.contains(visible),
            "{args:?}: the text is shown, made visible: {stdout}{stderr}"
        );
    }
    // JSON output is unchanged: serde_json escapes the ASCII control characters (ESC, BEL) itself,
    // and the value reads back exactly.
    let json = energy(&["products", "list", "--format", "json"], &env, b"");
    let line: serde_json::Value = serde_json::from_slice(&json.stdout).expect("one JSON line");
    assert_eq!(line["display_name"], HOSTILE);
    assert!(
        !json.stdout[..json.stdout.len() - 1]
            .iter()
            .any(|b| b.is_ascii_control())
    );
}

/// Pages each linking to the next, up to `last` (so that a command without a bound still ends for
/// the test to report it), `per_page` products named `name` on each, each page after `delay`.
fn endless_pages(per_page: usize, name: String, delay: Duration, last: u64) -> HostileServer {
    let base = Arc::new(std::sync::OnceLock::<String>::new());
    let shared = Arc::clone(&base);
    let served = Arc::new(AtomicU64::new(0));
    let server = HostileServer::start(move |_| {
        let number = served.fetch_add(1, Ordering::SeqCst) + 1;
        let next = (number < last).then(|| {
            format!(
                "{}/v1/products/?page={}",
                shared.get().map_or("", String::as_str),
                number + 1
            )
        });
        let products = (0..per_page)
            .map(|i| product(&format!("P-{number}-{i}"), &name))
            .collect();
        Response::json(200, page(products, next)).delay(delay)
    });
    let _ = base.set(server.base_url().to_owned());
    server
}

#[test]
fn endless_pages_stop_at_the_default_page_limit_in_table_mode() {
    let server = endless_pages(1, "Product".to_owned(), Duration::ZERO, 1_100);
    let run = energy(
        &["products", "list", "--base-url", server.base_url()],
        &[],
        b"",
    );
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    assert_eq!(server.requests(), 1000);
    assert_eq!(run.stdout, b"");
    assert_eq!(
        text(&run.stderr),
        format!(
            "error: GET {}/v1/products/?page=1000: stopped after 1000 pages (1000 records), the \
             page limit; more remain\nhelp: --max-pages raises the limit\n",
            server.base_url()
        )
    );
}

#[test]
fn a_table_holds_at_most_its_budget() {
    // Pages of 1,000 products whose every text field is 1 KB: a table of them all would hold
    // gigabytes; the table keeps shortened cells up to 64 MiB, then stops with an error.
    let server = endless_pages(1_000, "N".repeat(1_000), Duration::ZERO, 1_000);
    let started = Instant::now();
    let run = energy(
        &["products", "list", "--base-url", server.base_url()],
        &[],
        b"",
    );
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("error: stopped after ")
            && stderr.contains(
                "records: a table or chart holds at most 64 MiB of text, and more remain"
            ),
        "{stderr}"
    );
    assert!(stderr.contains("help: --format json prints each record as its page arrives"));
    assert!(server.requests() < 100, "{} pages", server.requests());
    assert!(started.elapsed() < Duration::from_secs(120));
}

#[test]
fn a_slow_endless_list_ends_at_the_deadline() {
    let server = endless_pages(
        1,
        "Product".to_owned(),
        Duration::from_millis(300),
        u64::MAX,
    );
    let started = Instant::now();
    let run = energy(
        &[
            "products",
            "list",
            "--format",
            "json",
            "--deadline",
            "2",
            "--base-url",
            server.base_url(),
        ],
        &[],
        b"",
    );
    let elapsed = started.elapsed();
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    let printed = text(&run.stdout).lines().count();
    assert!((3..=7).contains(&printed), "{printed} records");
    assert!(
        stderr.contains(&format!(
            "stopped at the deadline of 2 s for the whole list, after {printed} pages ({printed} records)"
        )) && stderr.ends_with("help: --deadline gives the command more time\n"),
        "{stderr}"
    );
}

#[test]
fn retries_are_reported_on_stderr_and_quiet_silences_them() {
    let answered = Arc::new(AtomicU64::new(0));
    let count = Arc::clone(&answered);
    let server = HostileServer::start(move |_| {
        if count.fetch_add(1, Ordering::SeqCst).is_multiple_of(2) {
            Response::json(429, r#"{"detail": "slow down"}"#).header("Retry-After", "1")
        } else {
            Response::json(200, product_detail("P", "Product").to_string())
        }
    });
    let args = [
        "products",
        "get",
        "P",
        "--format",
        "json",
        "--base-url",
        server.base_url(),
    ];
    let run = energy(&args, &[], b"");
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert_eq!(
        text(&run.stderr),
        format!(
            "retrying: GET {}/v1/products/P/: HTTP 429; retry 1 of 3 in 1 s, as the server asked \
             (Retry-After)\n",
            server.base_url()
        )
    );
    let quiet = energy(&[&args[..], &["--quiet"]].concat(), &[], b"");
    assert_eq!(
        (quiet.status.code(), text(&quiet.stderr)),
        (Some(0), String::new())
    );

    // A wait longer than the client accepts is not made, and the error says the server asked it.
    let server = HostileServer::start(|_| {
        Response::json(429, r#"{"detail": "later"}"#).header("Retry-After", "3600")
    });
    let run = energy(
        &["products", "get", "P", "--base-url", server.base_url()],
        &[],
        b"",
    );
    assert_eq!(run.status.code(), Some(1));
    assert!(
        text(&run.stderr).contains(
            "the server asked to wait 3600 s (Retry-After), longer than this client waits"
        ),
        "{}",
        text(&run.stderr)
    );
}

#[test]
fn a_gzip_bomb_ends_at_the_body_limit() {
    // 2 GiB of zeros in about 2 MB on the wire.
    let member = Arc::new(gzip_zeros(1024 * 1024));
    let server = HostileServer::start(move |_| {
        Response::body(
            200,
            Body::Repeat {
                chunk: Arc::clone(&member),
                count: 2048,
            },
        )
        .header("Content-Encoding", "gzip")
    });
    let run = energy(
        &["products", "get", "P", "--base-url", server.base_url()],
        &[],
        b"",
    );
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    assert_eq!(
        text(&run.stderr),
        format!(
            "error: GET {}/v1/products/P/: the response body is larger than the limit of 10 MiB \
             (counted decompressed); stopped reading it\nhelp: --max-body-mib raises the limit\n",
            server.base_url()
        )
    );
}

#[test]
fn a_large_account_is_shown_in_bounded_memory() {
    // 9 MB of small objects: as a tree of JSON values it took 890 MB.
    let properties: Vec<String> = (0..600_000).map(|i| format!(r#"{{"name":{i}}}"#)).collect();
    let body = format!(
        r#"{{"number":"A-1","properties":[{}]}}"#,
        properties.join(",")
    );
    assert!(body.len() > 9_000_000);
    let body = Arc::new(body.into_bytes());
    let server = HostileServer::start(move |_| Response::body(200, Body::Bytes(Arc::clone(&body))));
    for format in ["table", "json"] {
        let run = energy(
            &[
                "account",
                "A-1",
                "--format",
                format,
                "--base-url",
                server.base_url(),
            ],
            &[("ENERGY_TOKEN", "t")],
            b"",
        );
        assert_eq!(
            run.status.code(),
            Some(0),
            "{format}: {}",
            text(&run.stderr)
        );
        let stdout = text(&run.stdout);
        match format {
            "table" => {
                assert_eq!(stdout.lines().count(), 1 + 1 + 600_000);
                assert!(stdout.ends_with("properties[599999].name  599999\n"));
            }
            _ => assert!(
                stdout.starts_with(r#"{"number":"A-1","properties":[{"name":0},{"name":1}"#)
            ),
        }
    }
}

#[test]
fn a_large_unlisted_member_is_kept_in_bounded_memory() {
    // 9 MB of small objects in a member the schema does not list: as a tree of JSON values it took
    // 427 MB (the debug build more); kept as its text, it costs what it weighs.
    let mut detail = product_detail("P", "Product");
    detail["single_register_electricity_tariffs"] =
        serde_json::json!({"_A": {"varying": tariff("E-1R-P-A")}});
    let members: Vec<String> = (0..600_000).map(|i| format!(r#"{{"name":{i}}}"#)).collect();
    let body =
        detail
            .to_string()
            .replacen('{', &format!(r#"{{"unlisted":[{}],"#, members.join(",")), 1);
    assert!(body.len() > 9_000_000);
    let body = Arc::new(body.into_bytes());
    let server = HostileServer::start(move |_| Response::body(200, Body::Bytes(Arc::clone(&body))));
    for format in ["table", "json"] {
        let run = energy(
            &[
                "products",
                "get",
                "P",
                "--format",
                format,
                "--base-url",
                server.base_url(),
            ],
            &[],
            b"",
        );
        assert_eq!(
            run.status.code(),
            Some(0),
            "{format}: {}",
            text(&run.stderr)
        );
        let stdout = text(&run.stdout);
        match format {
            "table" => assert!(stdout.ends_with("1 tariffs\n"), "{stdout}"),
            _ => assert!(
                stdout.contains(r#"{"name":599999}]"#),
                "the member is kept whole"
            ),
        }
    }
    // The same response through a tariff lookup.
    let run = energy(
        &[
            "rates",
            "P",
            "--format",
            "json",
            "--base-url",
            server.base_url(),
        ],
        &[],
        b"",
    );
    assert!(
        text(&run.stderr).starts_with("tariff: E-1R-P-A\n"),
        "{}",
        text(&run.stderr)
    );
}

#[test]
fn extreme_values_of_every_option_never_crash() {
    let server = HostileServer::start(|_| Response::json(200, page(Vec::new(), None)));
    let base = server.base_url();
    let huge = "18446744073709551615";
    let beyond = "340282366920938463463374607431768211456";
    /// Arguments and environment of one run.
    type Run = (Vec<String>, Vec<(String, String)>);
    let mut runs: Vec<Run> = Vec::new();
    let mut run = |args: &[&str], env: &[(&str, &str)]| {
        runs.push((
            args.iter().map(|a| (*a).to_owned()).collect(),
            env.iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        ));
    };
    for value in ["0", "-1", huge, beyond, "1e9", "", "NaN"] {
        for option in [
            "--timeout",
            "--deadline",
            "--max-body-mib",
            "--max-pages",
            "--page-size",
        ] {
            run(
                &["products", "list", "--base-url", base, option, value],
                &[],
            );
        }
        run(&["events", "validate", "--max-line-bytes", value], &[]);
        run(
            &["rates", "P", "T", "--base-url", base, "--format", "chart"],
            &[("COLUMNS", value)],
        );
    }
    for columns in ["1000000000000000", "40", "39", "-5", "1000", huge] {
        run(
            &["rates", "P", "T", "--base-url", base, "--format", "chart"],
            &[("COLUMNS", columns)],
        );
    }
    for instant in [
        "9999-12-31",
        "-009999-01-01",
        "0000-01-01T00:00Z",
        "2024-02-30",
        "2024-03-31T01:30:99",
        "+99999-01-01",
        "",
    ] {
        run(
            &[
                "rates",
                "P",
                "T",
                "--base-url",
                base,
                "--from",
                instant,
                "--to",
                instant,
            ],
            &[],
        );
    }
    let long = "x".repeat(100_000);
    for url in [
        long.as_str(),
        "http://[::1",
        "https://",
        "http://127.0.0.1:99999",
        "\u{1b}[2J",
    ] {
        run(&["products", "list"], &[("ENERGY_BASE_URL", url)]);
    }
    for key in ["", "a\nb", long.as_str(), "\u{1b}[2J", ":"] {
        run(
            &["account", "A", "--base-url", base],
            &[("ENERGY_API_KEY", key)],
        );
        run(&["account", "A", "--base-url", base, "--token", key], &[]);
    }
    for number in ["", ".", "..", "../../x", long.as_str()] {
        run(
            &["account", number, "--base-url", base],
            &[("ENERGY_TOKEN", "t")],
        );
        run(&["products", "get", number, "--base-url", base], &[]);
    }
    for (args, env) in runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let output = energy(&args, &env, b"");
        let stderr = text(&output.stderr);
        assert!(
            matches!(output.status.code(), Some(0..=2)),
            "{args:?} {env:?}: {:?} {stderr}",
            output.status
        );
        assert!(!stderr.contains("panicked"), "{args:?} {env:?}: {stderr}");
        assert!(!has_controls(&stderr), "{args:?} {env:?}: {stderr:?}");
    }
    // A usage error names the option and its range.
    let out = energy(
        &["products", "list", "--base-url", base, "--timeout", huge],
        &[],
        b"",
    );
    assert!(
        text(&out.stderr).contains(&format!(
            "invalid value '{huge}' for '--timeout <SECONDS>': {huge} is not in 1..=3600"
        )),
        "{}",
        text(&out.stderr)
    );
}

/// Runs `energy` with its stdout a pipe whose reader is already gone.
fn with_closed_stdout(args: &[&str], stdin: &[u8]) -> Option<i32> {
    let mut child = energy_testkit::process::energy_command()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run energy");
    drop(child.stdout.take());
    let mut input = child.stdin.take().expect("stdin");
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let output = child.wait_with_output().expect("energy ends");
    let _ = writer.join();
    assert_eq!(
        text(&output.stderr),
        "",
        "{args:?}: nothing more is printed"
    );
    output.status.code()
}

#[test]
fn a_closed_stdout_ends_every_subcommand_with_141() {
    let products: Vec<_> = (0..2_000)
        .map(|i| product(&format!("P-{i}"), "Product"))
        .collect();
    let list = page(products, None);
    let account = serde_json::json!({"number": "A-1", "fields": vec!["x"; 20_000]}).to_string();
    let rates: Vec<_> = (0..2_000)
        .map(|i| {
            serde_json::json!({"value_exc_vat": 1.0, "value_inc_vat": 1.05,
                "valid_from": format!("2024-03-{:02}T00:00:00Z", 1 + i % 28), "valid_to": null})
        })
        .collect();
    let rates =
        serde_json::json!({"count": 2000, "next": null, "previous": null, "results": rates})
            .to_string();
    let server = HostileServer::start(move |request| {
        if request.target.starts_with("/v1/accounts/") {
            Response::json(200, account.clone())
        } else if request.target.contains("standard-unit-rates") {
            Response::json(200, rates.clone())
        } else {
            Response::json(200, list.clone())
        }
    });
    let base = server.base_url();
    let events: Vec<u8> =
        br#"{"event_type": "agreement.revoked", "version": "v1", "payload": {"agreement_id": 1}}
"#
        .repeat(50_000);
    let runs: [(&[&str], &[u8]); 7] = [
        (&["events", "validate"], &events),
        (&["products", "list", "--base-url", base], b""),
        (
            &["products", "list", "--format", "json", "--base-url", base],
            b"",
        ),
        (&["rates", "P", "T", "--base-url", base], b""),
        (
            &["rates", "P", "T", "--format", "chart", "--base-url", base],
            b"",
        ),
        (&["account", "A-1", "--token", "t", "--base-url", base], b""),
        (
            &[
                "account",
                "A-1",
                "--token",
                "t",
                "--format",
                "json",
                "--base-url",
                base,
            ],
            b"",
        ),
    ];
    for (args, stdin) in runs {
        assert_eq!(with_closed_stdout(args, stdin), Some(141), "{args:?}");
    }
}

#[test]
fn credentials_from_a_file_that_only_its_owner_can_read() {
    use std::os::unix::fs::PermissionsExt as _;
    let server = HostileServer::start(|request| {
        let authorization = request
            .header("authorization")
            .unwrap_or_default()
            .to_owned();
        Response::json(
            200,
            serde_json::json!({ "number": "A-1", "seen": authorization }).to_string(),
        )
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let key_file = dir.path().join("key");
    std::fs::write(&key_file, "sk_live_8aFq2KmZ\n").expect("write");
    let key = key_file.to_str().expect("path");
    let base = server.base_url();

    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let run = energy(
        &[
            "account",
            "A-1",
            "--format",
            "json",
            "--api-key-file",
            key,
            "--base-url",
            base,
        ],
        &[],
        b"",
    );
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let account: serde_json::Value = serde_json::from_slice(&run.stdout).expect("JSON");
    assert_eq!(account["seen"], "Basic c2tfbGl2ZV84YUZxMkttWjo=");
    // The same through the environment, and as a token.
    let run = energy(
        &["account", "A-1", "--format", "json", "--base-url", base],
        &[("ENERGY_TOKEN_FILE", key)],
        b"",
    );
    let account: serde_json::Value = serde_json::from_slice(&run.stdout).expect("JSON");
    assert_eq!(account["seen"], "sk_live_8aFq2KmZ");

    for mode in [0o644, 0o640, 0o604, 0o660] {
        std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(mode)).expect("chmod");
        let run = energy(
            &["account", "A-1", "--api-key-file", key, "--base-url", base],
            &[],
            b"",
        );
        let stderr = text(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{mode:o}: {stderr}");
        assert_eq!(
            stderr,
            format!(
                "error: permissions {mode:04o} for the credentials file `{key}` are too open: \
                 other users may read or change it; it must be readable by its owner only \
                 (chmod 600 {key})\n"
            )
        );
    }
    std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    std::fs::write(&key_file, "\n").expect("write");
    let empty = energy(
        &["account", "A-1", "--api-key-file", key, "--base-url", base],
        &[],
        b"",
    );
    assert_eq!(empty.status.code(), Some(2));
    assert!(text(&empty.stderr).contains("is empty"));
    let missing = energy(
        &[
            "account",
            "A-1",
            "--api-key-file",
            "/nonexistent/key",
            "--base-url",
            base,
        ],
        &[],
        b"",
    );
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(server.requests(), 2, "refused files send nothing");
    // Never both a key and a file.
    let both = energy(
        &[
            "account",
            "A-1",
            "--api-key",
            "k",
            "--api-key-file",
            key,
            "--base-url",
            base,
        ],
        &[],
        b"",
    );
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn validate_can_fail_on_empty_input() {
    for input in [&b""[..], b"\n\n  \n"] {
        let plain = energy(&["events", "validate"], &[], input);
        assert_eq!(plain.status.code(), Some(0));
        let strict = energy(&["events", "validate", "--fail-if-empty"], &[], input);
        assert_eq!(strict.status.code(), Some(1));
        assert!(
            text(&strict.stderr).ends_with("error: no event in standard input (--fail-if-empty)\n"),
            "{}",
            text(&strict.stderr)
        );
    }
    let one =
        br#"{"event_type": "agreement.revoked", "version": "v1", "payload": {"agreement_id": 1}}"#;
    let run = energy(&["events", "validate", "--fail-if-empty"], &[], one);
    assert_eq!(run.status.code(), Some(0));
    let help = energy(&["events", "validate", "--help"], &[], b"");
    assert!(text(&help.stdout).contains("--fail-if-empty"));
    assert!(text(&help.stdout).contains("without it, empty input exits 0"));
}

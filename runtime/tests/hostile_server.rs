//! Both REST clients against hostile servers on 127.0.0.1: gzip bombs, huge, slow and endless
//! bodies, endless pages, escape sequences, dot segments, redirects, `Retry-After` storms. Each test
//! asserts the bound the client enforces (the peak of bytes allocated by this test binary, the bytes
//! the server sent, the requests it received, the time taken against the client's own deadline) and
//! the message the user gets.
//!
//! Memory is measured by a counting global allocator: every test of this binary runs alone (one
//! lock), and its peak is the most bytes allocated above what was allocated when it started.
#![cfg(feature = "blocking")]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use energy_api::rest::{Endpoint, GetAccount, GetProduct, ListProducts, Page};
use energy_runtime::rest::{BaseUrl, Client, ClientConfig, Credentials, Error, RetryPolicy};
use energy_testkit::hostile::{Body, HostileServer, Response, gzip_zeros};
use peak_alloc::PeakAlloc;
use serde::de::DeserializeOwned;

#[global_allocator]
static ALLOCATOR: PeakAlloc = PeakAlloc;

/// One test at a time, so that a peak is the test's own.
static ALONE: Mutex<()> = Mutex::new(());

const MIB: usize = 1024 * 1024;
/// The default body limit, and the most a bounded call may allocate at its peak: the body buffer
/// (at most the limit) and what the HTTP stack, the test server and the decoder need besides.
const BODY_LIMIT: usize = 10 * MIB;
const BOUNDED_PEAK: usize = BODY_LIMIT + 14 * MIB;

/// Runs a test case alone: no other test of this binary allocates while it runs.
fn alone(case: impl FnOnce()) {
    let _alone = ALONE.lock().unwrap_or_else(PoisonError::into_inner);
    case();
}

/// Runs `test` (within a case run [`alone`]) and returns its result and its peak of allocated bytes.
fn measured<T>(test: impl FnOnce() -> T) -> (T, usize) {
    let base = ALLOCATOR.current_usage();
    ALLOCATOR.reset_peak_usage();
    let result = test();
    let peak = ALLOCATOR.peak_usage().saturating_sub(base);
    // Shown with `--nocapture`: the figures quoted in the README's security section.
    println!("peak allocation: {peak} bytes");
    (result, peak)
}

/// The blocking client, or the async one on a tokio runtime.
#[derive(Clone, Copy, Debug)]
enum Which {
    Blocking,
    #[cfg(feature = "async")]
    Async,
}

impl Which {
    fn send<E: Endpoint>(self, config: ClientConfig, endpoint: &E) -> Result<E::Response, Error> {
        match self {
            Which::Blocking => Client::new(config).send(endpoint),
            #[cfg(feature = "async")]
            Which::Async => runtime().block_on(async {
                energy_runtime::rest::AsyncClient::new(config)
                    .expect("client")
                    .send(endpoint)
                    .await
            }),
        }
    }

    /// The number of records of every page, and the error that ended the list.
    fn count_items<E, T>(self, config: ClientConfig, endpoint: &E) -> (usize, Option<Error>)
    where
        E: Endpoint<Response = Page<T>>,
        T: Send + 'static,
        Page<T>: DeserializeOwned,
    {
        let mut count = 0;
        let mut ended = None;
        let mut take = |item: Result<T, Error>| match item {
            Ok(_) => count += 1,
            Err(error) => ended = Some(error),
        };
        match self {
            Which::Blocking => Client::new(config).items(endpoint).for_each(&mut take),
            #[cfg(feature = "async")]
            Which::Async => runtime().block_on(async {
                use futures_util::StreamExt as _;
                let client = energy_runtime::rest::AsyncClient::new(config).expect("client");
                let mut items = std::pin::pin!(client.items(endpoint));
                while let Some(item) = items.next().await {
                    take(item);
                }
            }),
        }
        (count, ended)
    }
}

#[cfg(feature = "async")]
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// Runs each case with both clients: `blocking::<case>` and `nonblocking::<case>`.
macro_rules! both_clients {
    ($($case:ident),* $(,)?) => {
        mod blocking {
            $( #[test] fn $case() { super::alone(|| super::$case(super::Which::Blocking)) } )*
        }
        #[cfg(feature = "async")]
        mod nonblocking {
            $( #[test] fn $case() { super::alone(|| super::$case(super::Which::Async)) } )*
        }
    };
}

both_clients!(
    a_gzip_bomb_stops_at_the_body_limit,
    a_huge_body_stops_at_the_body_limit,
    a_huge_body_announced_by_its_length_is_refused_unread,
    an_error_body_is_kept_as_a_short_excerpt,
    a_body_that_does_not_decode_is_not_copied_into_the_error,
    a_trickled_body_ends_at_the_timeout,
    endless_pages_stop_at_the_default_page_limit,
    a_slow_endless_list_ends_at_its_deadline,
    a_retry_after_storm_ends_at_the_deadline_and_each_retry_is_announced,
    a_long_retry_after_is_refused_and_named,
    dot_segments_never_reach_another_endpoint,
    a_redirect_shows_where_it_pointed_and_is_not_followed,
    server_text_in_errors_is_escaped_and_shortened,
    a_self_signed_certificate_is_explained,
);

fn config(server: &HostileServer) -> ClientConfig {
    ClientConfig::new(BaseUrl::parse(server.base_url()).expect("loopback base URL"))
}

/// A product detail body is the target of most cases: `GET /v1/products/P/`.
fn product() -> GetProduct {
    GetProduct::new("P")
}

fn a_gzip_bomb_stops_at_the_body_limit(which: Which) {
    // 1 GiB of zeros in about 1 MB on the wire: 1,024 gzip members of 1 MiB each.
    let member = Arc::new(gzip_zeros(MIB));
    let server = HostileServer::start(move |_| {
        Response::body(
            200,
            Body::Repeat {
                chunk: Arc::clone(&member),
                count: 1024,
            },
        )
        .header("Content-Encoding", "gzip")
    });
    let (error, peak) = measured(|| which.send(config(&server), &product()).expect_err("a bomb"));
    assert!(peak < BOUNDED_PEAK, "{which:?}: peak {peak} bytes");
    match which {
        // The blocking client asks for gzip and decompresses: the limit counts decompressed bytes.
        Which::Blocking => assert_eq!(
            error.to_string(),
            format!(
                "GET {}/v1/products/P/: the response body is larger than the limit of 10 MiB \
                 (counted decompressed); stopped reading it",
                server.base_url()
            )
        ),
        // The async client asks for no compression, so it reads the gzip bytes as they are: not JSON.
        #[cfg(feature = "async")]
        Which::Async => assert!(matches!(error, Error::Decode { .. }), "{error}"),
    }
}

fn a_huge_body_stops_at_the_body_limit(which: Which) {
    // 1 GiB with no Content-Length: the body ends when the connection closes.
    let server = HostileServer::start(|_| {
        Response::body(
            200,
            Body::Repeat {
                chunk: Arc::new(vec![b' '; 64 * 1024]),
                count: 16 * 1024,
            },
        )
        .without_length()
    });
    let started = Instant::now();
    let (error, peak) = measured(|| which.send(config(&server), &product()).expect_err("huge"));
    assert!(
        matches!(error, Error::BodyTooLarge { limit, .. } if limit == BODY_LIMIT as u64),
        "{error}"
    );
    assert!(peak < BOUNDED_PEAK, "{which:?}: peak {peak} bytes");
    // The client stopped reading: the server got rid of the limit and what the socket buffers hold.
    assert!(
        server.body_bytes_sent() < 64 * MIB as u64,
        "{} bytes sent",
        server.body_bytes_sent()
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

fn a_huge_body_announced_by_its_length_is_refused_unread(which: Which) {
    let server = HostileServer::start(|_| {
        Response::body(
            200,
            Body::Repeat {
                chunk: Arc::new(vec![b' '; 64 * 1024]),
                count: 32 * 1024,
            },
        )
    });
    let (error, peak) = measured(|| which.send(config(&server), &product()).expect_err("huge"));
    assert!(matches!(error, Error::BodyTooLarge { .. }), "{error}");
    assert!(peak < 4 * MIB, "{which:?}: peak {peak} bytes");
}

fn an_error_body_is_kept_as_a_short_excerpt(which: Which) {
    // A 503 storm whose every answer is 1 GiB long.
    let server = HostileServer::start(|_| {
        Response::body(
            503,
            Body::Repeat {
                chunk: Arc::new(b"{\"detail\": \"busy\"} ".repeat(1000)),
                count: 56_000,
            },
        )
        .without_length()
    });
    let policy = RetryPolicy {
        initial_backoff: Duration::from_millis(10),
        ..RetryPolicy::default()
    };
    let (error, peak) = measured(|| {
        which
            .send(config(&server).with_retry(policy), &product())
            .expect_err("503")
    });
    assert_eq!(error.status(), Some(503), "{error}");
    let body = error.body().expect("a body");
    assert!(body.len() <= 16 * 1024 && body.starts_with("{\"detail\": \"busy\"}"));
    assert!(
        error.to_string().ends_with("; gave up after 3 retries"),
        "{error}"
    );
    assert!(peak < 4 * MIB, "{which:?}: peak {peak} bytes");
    assert_eq!(server.requests(), 4);
}

fn a_body_that_does_not_decode_is_not_copied_into_the_error(which: Which) {
    // 8 MiB of valid JSON of the wrong shape.
    let mut body = b"{\"padding\": \"".to_vec();
    body.resize(8 * MIB, b'x');
    body.extend_from_slice(b"\", \"code\": 7}");
    let body = Arc::new(body);
    let server = HostileServer::start(move |_| Response::body(200, Body::Bytes(Arc::clone(&body))));
    let (error, _) = measured(|| which.send(config(&server), &product()).expect_err("decode"));
    assert!(matches!(error, Error::Decode { .. }), "{error}");
    let kept = error.body().expect("body").len();
    assert!(
        kept <= 16 * 1024,
        "{which:?}: the error keeps {kept} bytes of the body"
    );
}

fn a_trickled_body_ends_at_the_timeout(which: Which) {
    // One byte every 50 ms of a body announced as 1 MiB: it would take 14 hours.
    let server = HostileServer::start(|_| {
        Response::body(
            200,
            Body::Trickle {
                interval: Duration::from_millis(50),
                count: MIB as u64,
            },
        )
    });
    let started = Instant::now();
    let error = which
        .send(
            config(&server).with_timeout(Duration::from_secs(1)),
            &product(),
        )
        .expect_err("timeout");
    assert!(matches!(error, Error::Timeout { .. }), "{which:?}: {error}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

/// A list whose every page links to a next one, up to `last` (so that a client without a bound
/// still ends, for the test to report it), each page after `delay`.
fn endless_pages(delay: Duration, last: u64) -> HostileServer {
    let base = Arc::new(Mutex::new(String::new()));
    let shared = Arc::clone(&base);
    let served = Arc::new(AtomicU64::new(0));
    let server = HostileServer::start(move |_| {
        let page = served.fetch_add(1, Ordering::SeqCst) + 1;
        let next = if page < last {
            format!(
                "\"{}/v1/products/?page={}\"",
                shared.lock().unwrap_or_else(PoisonError::into_inner),
                page + 1
            )
        } else {
            "null".to_owned()
        };
        Response::json(
            200,
            format!(
                r#"{{"count": 1000000000, "next": {next}, "previous": null, "results": [{{
                "code": "P-{page}", "direction": "IMPORT", "full_name": "Product {page}",
                "display_name": "Product", "description": "", "is_variable": true, "is_green": false,
                "is_tracker": false, "is_prepay": false, "is_business": false, "is_restricted": false,
                "term": null, "available_from": "2024-01-01T00:00:00Z", "available_to": null,
                "links": [], "brand": "B"}}]}}"#
            ),
        )
        .delay(delay)
    });
    *base.lock().unwrap_or_else(PoisonError::into_inner) = server.base_url().to_owned();
    server
}

fn endless_pages_stop_at_the_default_page_limit(which: Which) {
    let server = endless_pages(Duration::ZERO, 1_100);
    let ((count, error), peak) =
        measured(|| which.count_items(config(&server), &ListProducts::default()));
    let error = error.expect("the page limit ends the list");
    assert!(
        error
            .to_string()
            .ends_with("stopped after 1000 pages (1000 records), the page limit; more remain"),
        "{error}"
    );
    assert_eq!((count, server.requests()), (1000, 1000));
    assert!(peak < 8 * MIB, "{which:?}: peak {peak} bytes");
}

fn a_slow_endless_list_ends_at_its_deadline(which: Which) {
    let server = endless_pages(Duration::from_millis(300), u64::MAX);
    let started = Instant::now();
    let (count, error) = which.count_items(
        config(&server).with_deadline(Duration::from_secs(2)),
        &ListProducts::default(),
    );
    let elapsed = started.elapsed();
    let error = error.expect("the deadline ends the list");
    let Error::DeadlineExceeded { pages, records, .. } = &error else {
        panic!("{error}")
    };
    assert_eq!((*pages, *records), (count, count));
    assert!((3..=7).contains(pages), "{pages} pages");
    assert!(
        error.to_string().contains(&format!(
            "stopped at the deadline of 2 s for the whole list, after {pages} pages"
        )),
        "{error}"
    );
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}

fn a_retry_after_storm_ends_at_the_deadline_and_each_retry_is_announced(which: Which) {
    let server = HostileServer::start(|_| {
        Response::json(429, r#"{"detail": "slow down"}"#).header("Retry-After", "1")
    });
    let notices = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&notices);
    let config = config(&server)
        .with_retry(RetryPolicy {
            max_retries: 1000,
            ..RetryPolicy::default()
        })
        .with_deadline(Duration::from_millis(2500))
        .with_retry_notice(move |notice| {
            seen.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(notice.to_string());
        });
    let started = Instant::now();
    let error = which.send(config, &product()).expect_err("deadline");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        error.to_string().ends_with(
            "no complete answer within the deadline of 2.5 s (retries and their waits included)"
        ),
        "{error}"
    );
    let notices = notices.lock().unwrap_or_else(PoisonError::into_inner);
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert_eq!(
        notices[0],
        format!(
            "GET {}/v1/products/P/: HTTP 429; retry 1 of 1000 in 1 s, as the server asked \
             (Retry-After)",
            server.base_url()
        )
    );
}

fn a_long_retry_after_is_refused_and_named(which: Which) {
    let server = HostileServer::start(|_| {
        Response::json(429, r#"{"detail": "come back tomorrow"}"#).header("Retry-After", "86400")
    });
    let started = Instant::now();
    let error = which
        .send(config(&server), &product())
        .expect_err("refused");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(server.requests(), 1);
    assert_eq!(
        error.to_string(),
        format!(
            "GET {}/v1/products/P/: HTTP 429: {{\"detail\": \"come back tomorrow\"}}; the server \
             asked to wait 86400 s (Retry-After), longer than this client waits, so the request \
             was not retried",
            server.base_url()
        )
    );
}

fn dot_segments_never_reach_another_endpoint(which: Which) {
    let server =
        HostileServer::start(|_| Response::json(200, r#"{"number": "A-1", "properties": []}"#));
    let config =
        config(&server).with_credentials(Credentials::api_key("sk_live_8aFq2KmZ").expect("key"));
    for value in ["..", ".", ""] {
        let error = which
            .send(config.clone(), &GetAccount::new(value))
            .expect_err(value);
        assert!(
            matches!(&error, Error::InvalidPathParameter { parameter, .. } if parameter == "account_number"),
            "{error}"
        );
    }
    assert!(server.targets().is_empty(), "{:?}", server.targets());
    for value in ["...", "../..", "%2e%2e", ".\u{2e}/x"] {
        which
            .send(config.clone(), &GetAccount::new(value))
            .expect(value);
    }
    assert_eq!(
        server.targets(),
        [
            "/v1/accounts/.../",
            "/v1/accounts/..%2F../",
            "/v1/accounts/%252e%252e/",
            "/v1/accounts/..%2Fx/",
        ]
    );
}

fn a_redirect_shows_where_it_pointed_and_is_not_followed(which: Which) {
    let elsewhere = HostileServer::start(|_| Response::json(200, "{}"));
    let location = format!("{}/steal?\u{1b}[2J", elsewhere.base_url());
    let server = HostileServer::start(move |_| {
        Response::json(302, "").header("Location", &location.replace('\u{1b}', "%1B"))
    });
    let error = which.send(config(&server), &product()).expect_err("302");
    assert_eq!(error.status(), Some(302));
    assert_eq!(
        error.to_string(),
        format!(
            "GET {}/v1/products/P/: HTTP 302 (a redirect to `{}/steal?%1B[2J`, not followed)",
            server.base_url(),
            elsewhere.base_url()
        )
    );
    assert_eq!(elsewhere.requests(), 0);
}

fn server_text_in_errors_is_escaped_and_shortened(which: Which) {
    // An error body that sets the window title, clears the screen, and moves up to erase the line
    // above so that its own text takes the place of the real error.
    let hostile = "\u{1b}]0;owned\u{7}\u{1b}[2J\u{1b}[1A\u{1b}[2Kerror: none, all fine";
    let body = serde_json::json!({ "detail": hostile })
        .to_string()
        .replace("\\u001b", "\u{1b}")
        .replace("\\u0007", "\u{7}");
    let server = HostileServer::start(move |_| Response::json(404, body.clone()));
    let error = which.send(config(&server), &product()).expect_err("404");
    let message = error.to_string();
    assert!(!message.chars().any(char::is_control), "{message:?}");
    assert!(
        message.ends_with(
            r#"HTTP 404: {"detail":"\x1b]0;owned\x07\x1b[2J\x1b[1A\x1b[2Kerror: none, all fine"}"#
        ),
        "{message}"
    );

    // A next link of 100 KB to another origin is named, not printed whole.
    let server = HostileServer::start(|_| {
        Response::json(
            200,
            format!(
                r#"{{"count": 2, "next": "https://evil.example.net/{}\u001b[2J", "previous": null, "results": []}}"#,
                "x".repeat(100_000)
            ),
        )
    });
    let (_, error) = which.count_items(config(&server), &ListProducts::default());
    let message = error.expect("a foreign next").to_string();
    assert!(message.len() < 1_000, "{} bytes: {message}", message.len());
    assert!(message.contains("more characters)"), "{message}");
    assert!(!message.chars().any(char::is_control), "{message:?}");
}

#[test]
fn the_request_path_never_leaves_its_endpoint() {
    use proptest::prelude::*;
    let base = BaseUrl::parse("https://api.example.com").expect("base");
    let config = ClientConfig::new(base).with_credentials(Credentials::token("t").expect("token"));
    let mut runner = proptest::test_runner::TestRunner::new(proptest::test_runner::Config {
        cases: 2_000,
        ..Default::default()
    });
    let values = prop_oneof![any::<String>(), "[./%2eE]{0,6}", "[./?#%a-z0-9\\\\]{0,12}",];
    let _alone = ALONE.lock().unwrap_or_else(PoisonError::into_inner);
    runner
        .run(&values, |value| {
            let Ok(request) = config.request(&GetAccount::new(value.clone())) else {
                prop_assert!(
                    matches!(value.as_str(), "" | "." | ".."),
                    "{value:?} refused"
                );
                return Ok(());
            };
            // As the async client's URL parser (WHATWG, the `url` crate) reads it.
            let url = url::Url::parse(request.url()).expect("a URL");
            let segments: Vec<&str> = url.path_segments().expect("segments").collect();
            prop_assert_eq!(segments.len(), 4, "{}", request.url());
            prop_assert_eq!(&segments[..2], &["v1", "accounts"]);
            prop_assert_eq!(segments[3], "");
            let decoded = percent_encoding::percent_decode_str(segments[2]).decode_utf8_lossy();
            prop_assert_eq!(decoded.as_ref(), value.as_str());
            prop_assert!(url.query().is_none() && url.fragment().is_none());
            // As the blocking client's (the `http` crate's `Uri`) reads it: the same path, unchanged.
            let uri: ureq::http::Uri = request.url().parse().expect("a URI");
            prop_assert_eq!(uri.path(), url.path());
            Ok(())
        })
        .expect("every value stays one segment of /v1/accounts/");
}

/// A TLS server on 127.0.0.1 presenting a self-signed certificate: the handshake is all it does.
fn self_signed_tls_server() -> String {
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let fixture = |name: &str| {
        std::fs::read(format!(
            "{}/tests/fixtures/tls/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .expect("fixture")
    };
    let certificates = CertificateDer::pem_slice_iter(&fixture("self-signed.crt"))
        .collect::<Result<Vec<_>, _>>()
        .expect("certificate");
    let key = PrivateKeyDer::from_pem_slice(&fixture("self-signed.key")).expect("key");
    let config = Arc::new(
        rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(certificates, key)
        .expect("server config"),
    );
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let base_url = format!("https://{}", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let config = Arc::clone(&config);
            std::thread::spawn(move || {
                let connection = rustls::ServerConnection::new(config).expect("connection");
                let mut tls = rustls::StreamOwned::new(connection, stream);
                let _ = std::io::Read::read(&mut tls, &mut [0; 1024]);
            });
        }
    });
    base_url
}

fn a_self_signed_certificate_is_explained(which: Which) {
    let base = self_signed_tls_server();
    let config = ClientConfig::new(BaseUrl::parse(&base).expect("https base URL"))
        .with_credentials(Credentials::api_key("sk_live_8aFq2KmZ").expect("key"));
    let error = which
        .send(config, &GetAccount::new("A-1"))
        .expect_err("untrusted");
    assert!(matches!(error, Error::Transport { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.starts_with(&format!(
            "GET {base}/v1/accounts/A-1/: the server's TLS certificate is not issued by an \
             authority this client trusts (it is self-signed, or from a private authority); \
             nothing was sent to a server that cannot be verified ("
        )),
        "{which:?}: {message}"
    );
}

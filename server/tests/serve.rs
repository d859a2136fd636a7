//! The server on 127.0.0.1, as client teams and hostile clients meet it: every rule of the spec on a
//! data set written as the API returns it (1,500 products, a year of half-hourly rates across both
//! clock changes), the project's own clients (blocking and async) paging through it, the error body
//! for everything refused, credentials, links, limits, TLS and a graceful stop.

use energy_api::rest::server::{
    Api, GetAccountResponse, GetProductResponse, ListProductsResponse,
    ListStandardUnitRatesResponse,
};
use energy_api::rest::{
    GetAccount, GetProduct, ListProducts, ListStandardUnitRates, Product, StandardUnitRate,
};
use energy_runtime::rest::{BaseUrl, Client, ClientConfig, Credentials, DateTimeParam};
use energy_server::{
    DataSet, Keys, Limits, PublicUrl, RouterConfig, Server, ServerError, TrustedProxies,
};
use serde_json::{Value, json};
use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const KEY: &str = "sk_test_6f1d0c";
const TOKEN: &str = "tok_4b9e27";
const BRANDS: [&str; 3] = ["OCTOPUS_ENERGY", "AFFECT_ENERGY", "EBB_ENERGY"];
const PRODUCTS: usize = 1_500;

/// Product `i` as the API lists it: brands, green and prepay flags in turn.
fn product(i: usize) -> Value {
    let code = format!("VAR-{i:04}");
    json!({
        "code": code, "direction": "IMPORT", "full_name": format!("Flexible {i}"),
        "display_name": "Flexible", "description": "A variable tariff.", "is_variable": true,
        "is_green": i.is_multiple_of(2), "is_tracker": false, "is_prepay": i.is_multiple_of(5), "is_business": false,
        "is_restricted": false, "term": if i.is_multiple_of(3) { Value::Null } else { json!(12) },
        "available_from": "2023-03-28T10:35:00+01:00", "available_to": null,
        "links": [{"href": format!("https://api.example.com/v1/products/{code}/"), "method": "GET", "rel": "self"}],
        "brand": BRANDS[i % 3],
    })
}

/// Half-hourly rates of 2024 in UTC, latest first (17,568 rows), the value a function of the time.
fn rates() -> Vec<Value> {
    let start = jiff::Timestamp::from_second(1_704_067_200).expect("2024-01-01"); // 2024-01-01T00:00Z
    let mut rows: Vec<Value> = (0..17_568)
        .map(|i| {
            let from = start + jiff::SignedDuration::from_mins(30 * i);
            let to = from + jiff::SignedDuration::from_mins(30);
            let value = f64::from(u32::try_from(i % 97).expect("small")) / 4.0 - 5.0;
            json!({"value_exc_vat": value, "value_inc_vat": value * 1.05,
                   "valid_from": from.to_string(), "valid_to": to.to_string(), "payment_method": null})
        })
        .collect();
    rows.reverse();
    rows
}

/// The data set as files: products over two pages' files, the real responses' details and accounts,
/// the rates of one tariff under its path.
fn write_data(dir: &Path) {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/real-responses");
    for file in [
        "product_detail_1.json",
        "product_detail_3.json",
        "account_1.json",
        "account_2.json",
    ] {
        std::fs::copy(real.join(file), dir.join(file)).expect("a real response is copied");
    }
    let all: Vec<Value> = (0..PRODUCTS).map(product).collect();
    for (n, chunk) in all.chunks(1_000).enumerate() {
        let page = json!({"count": PRODUCTS, "next": null, "previous": null, "results": chunk});
        std::fs::write(dir.join(format!("products_{n}.json")), page.to_string()).expect("written");
    }
    let tariff = dir.join(
        "products/AGILE-24-10-01/electricity-tariffs/E-1R-AGILE-24-10-01-C/standard-unit-rates",
    );
    std::fs::create_dir_all(&tariff).expect("a folder");
    let rows = rates();
    let page = json!({"count": rows.len(), "next": null, "previous": null, "results": rows});
    std::fs::write(tariff.join("2024.json"), page.to_string()).expect("written");
}

/// A server on a thread of its own, on 127.0.0.1, until dropped (a graceful stop).
struct Running {
    address: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    _data: tempfile::TempDir,
}

impl Running {
    fn start() -> Self {
        Self::start_with(|config| config, Limits::default(), None)
    }

    fn start_with(
        configure: impl FnOnce(RouterConfig) -> RouterConfig + Send + 'static,
        limits: Limits,
        tls: Option<Arc<rustls::ServerConfig>>,
    ) -> Self {
        let data = tempfile::tempdir().expect("a folder");
        write_data(data.path());
        let set = DataSet::load(data.path()).expect("the data set loads");
        Self::serve(set, configure, limits, tls, data)
    }

    fn serve<A: Api<Principal = energy_server::KeyHolder>>(
        api: A,
        configure: impl FnOnce(RouterConfig) -> RouterConfig + Send + 'static,
        limits: Limits,
        tls: Option<Arc<rustls::ServerConfig>>,
        data: tempfile::TempDir,
    ) -> Self {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (ready, address) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("a port");
                let bound = listener.local_addr().expect("an address");
                let public = PublicUrl::parse(&format!("http://{bound}")).expect("a URL");
                let config = configure(RouterConfig::new(public));
                let keys = Keys::new().api_key(KEY).token(TOKEN);
                let router = Server::new(api, keys, config).router();
                ready.send(bound).expect("the test waits");
                energy_server::serve(listener, router, tls, limits, async {
                    let _ = stopped.await;
                })
                .await;
            });
        });
        let address = address.recv().expect("the server starts");
        Self {
            address,
            stop: Some(stop),
            thread: Some(thread),
            _data: data,
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One response read off the wire.
struct Answer {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

/// Sends `request` (raw bytes) and reads the answer until the server closes the connection; `None` when
/// it closed without one.
fn raw(address: SocketAddr, request: &[u8]) -> Option<Answer> {
    let mut stream = TcpStream::connect(address).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a timeout");
    let _ = stream.write_all(request);
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes);
    let (head, _) = text.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    let at = bytes.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let mut body = bytes[at..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = unchunk(&body);
    }
    Some(Answer {
        status,
        head: head.to_owned(),
        body,
    })
}

fn unchunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(std::str::from_utf8(&body[..end]).unwrap_or("0").trim(), 16)
                .unwrap_or(0);
        if size == 0 {
            break;
        }
        out.extend_from_slice(&body[end + 2..end + 2 + size]);
        body = &body[end + 4 + size..];
    }
    out
}

fn get(address: SocketAddr, target: &str, headers: &[&str]) -> Answer {
    let mut request = format!("GET {target} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n");
    for h in headers {
        request.push_str(h);
        request.push_str("\r\n");
    }
    request.push_str("\r\n");
    raw(address, request.as_bytes()).expect("an answer")
}

fn basic(user_and_password: &str) -> String {
    use base64::Engine as _;
    format!(
        "Authorization: Basic {}",
        base64::engine::general_purpose::STANDARD.encode(user_and_password)
    )
}

fn codes(answer: &Answer) -> Vec<(String, String)> {
    answer.json()["errors"]
        .as_array()
        .map(|errors| {
            errors
                .iter()
                .map(|e| {
                    (
                        e["parameter"].as_str().unwrap_or("").to_owned(),
                        e["code"].as_str().unwrap_or("").to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn every_refusal_is_the_apis_error_body_with_every_violation() {
    let server = Running::start();
    let a = server.address;
    let bad = get(
        a,
        "/v1/products/?page_size=0&is_green=yes&brand=&colour=red&page=x",
        &[],
    );
    assert_eq!(bad.status, 400);
    assert_eq!(bad.header("content-type"), Some("application/json"));
    assert_eq!(
        codes(&bad),
        [
            ("brand", "empty"),
            ("is_green", "invalid"),
            ("page_size", "out_of_range"),
            ("page", "invalid"),
            ("colour", "unknown")
        ]
        .map(|(p, c)| (p.to_owned(), c.to_owned()))
    );
    let order = get(
        a,
        "/v1/products/AGILE-24-10-01/electricity-tariffs/E-1R-AGILE-24-10-01-C/standard-unit-rates/?period_from=2024-04-02&period_to=2024-04-01",
        &[],
    );
    assert_eq!(
        codes(&order),
        [("period_from".to_owned(), "order".to_owned())]
    );
    let bad_date = get(
        a,
        "/v1/products/P/electricity-tariffs/T/standard-unit-rates/?period_to=2024-02-30T00:00Z",
        &[],
    );
    assert_eq!(
        codes(&bad_date),
        [("period_to".to_owned(), "invalid".to_owned())]
    );
    let encoding = get(a, "/v1/products/?brand=%zz&is_prepay=%FF", &[]);
    assert_eq!(
        codes(&encoding),
        [("brand", "bad_encoding"), ("is_prepay", "bad_encoding")]
            .map(|(p, c)| (p.to_owned(), c.to_owned()))
    );
    let repeated = get(a, "/v1/products/?page_size=5&page_size=6", &[]);
    assert_eq!(
        codes(&repeated),
        [("page_size".to_owned(), "repeated".to_owned())]
    );

    let missing = get(a, "/v1/nothing-here/", &[]);
    assert_eq!(
        (missing.status, missing.json()["code"].as_str()),
        (404, Some("not_found"))
    );
    let unknown_product = get(a, "/v1/products/VAR-99-99-99/", &[]);
    assert_eq!(unknown_product.status, 404);
    assert_eq!(unknown_product.json()["detail"], "no product VAR-99-99-99");
    let past_the_end = get(a, "/v1/products/?page=99", &[]);
    assert_eq!(past_the_end.status, 404);

    for method in ["POST", "DELETE", "PUT", "PATCH", "OPTIONS", "TRACE"] {
        let request = format!(
            "{method} /v1/products/ HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
        let answer = raw(a, request.as_bytes()).expect("an answer");
        assert_eq!(answer.status, 405, "{method}");
        assert_eq!(answer.header("allow"), Some("GET, HEAD"), "{method}");
        assert_eq!(answer.json()["code"], "method_not_allowed");
    }
    let head = raw(
        a,
        b"HEAD /v1/products HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .expect("an answer");
    assert_eq!((head.status, head.body.len()), (200, 0));
}

#[test]
fn filters_combine_and_both_path_forms_serve_the_same() {
    let server = Running::start();
    let a = server.address;
    let with_slash = get(
        a,
        "/v1/products/?brand=AFFECT_ENERGY&is_green=true&page_size=1000",
        &[],
    )
    .json();
    let without = get(
        a,
        "/v1/products?brand=AFFECT_ENERGY&is_green=true&page_size=1000",
        &[],
    )
    .json();
    assert_eq!(with_slash, without);
    let expected: Vec<String> = (0..PRODUCTS)
        .filter(|i| BRANDS[i % 3] == "AFFECT_ENERGY" && i.is_multiple_of(2))
        .map(|i| format!("VAR-{i:04}"))
        .collect();
    assert_eq!(with_slash["count"], expected.len());
    let got: Vec<&str> = with_slash["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|p| p["code"].as_str())
        .collect();
    assert_eq!(got, expected);
    let detail = get(a, "/v1/products/AGILE-FLEX-22-11-25", &[]);
    assert_eq!(detail.status, 200);
    assert_eq!(detail.json()["code"], "AGILE-FLEX-22-11-25");
}

#[test]
fn the_projects_clients_page_through_every_record_as_computed_from_the_data_set() {
    let server = Running::start();
    let base = BaseUrl::parse(&server.url()).expect("a loopback URL");
    let client = Client::new(
        ClientConfig::new(base.clone()).with_credentials(Credentials::api_key(KEY).expect("a key")),
    );
    // 1,500 products, 15 pages of 100, following `next`.
    let all: Vec<Product> = client
        .items(&ListProducts::default())
        .collect::<Result<_, _>>()
        .expect("every page");
    assert_eq!(all.len(), PRODUCTS);
    assert!(
        all.iter()
            .enumerate()
            .all(|(i, p)| p.code == format!("VAR-{i:04}"))
    );
    let prepay: Vec<Product> = client
        .items(
            &ListProducts::default()
                .with_is_prepay(true)
                .with_is_green(false)
                .with_page_size(7),
        )
        .collect::<Result<_, _>>()
        .expect("every page");
    let expected = (0..PRODUCTS)
        .filter(|i| i.is_multiple_of(5) && i % 2 == 1)
        .count();
    assert_eq!(prepay.len(), expected);

    // The London day of the spring clock change: 23 hours, 46 rates; of the autumn one: 25 hours, 50.
    for (day, next_day, count) in [
        ("2024-03-31", "2024-04-01", 46),
        ("2024-10-27", "2024-10-28", 50),
    ] {
        let mut request = ListStandardUnitRates::new("AGILE-24-10-01", "E-1R-AGILE-24-10-01-C");
        request.period_from = Some(
            DateTimeParam::parse(day)
                .and_then(|p| p.to_timestamp())
                .expect("a day"),
        );
        request.period_to = Some(
            DateTimeParam::parse(next_day)
                .and_then(|p| p.to_timestamp())
                .expect("a day"),
        );
        let rates: Vec<StandardUnitRate> = client
            .items(&request)
            .collect::<Result<_, _>>()
            .expect("every page");
        assert_eq!(rates.len(), count, "{day}");
        assert!(
            rates.windows(2).all(|w| w[0].valid_from > w[1].valid_from),
            "latest first"
        );
    }
    // A whole quarter through the async client: 4,368 rates over 44 pages.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let rates: Vec<StandardUnitRate> = runtime.block_on(async {
        use futures_util::TryStreamExt as _;
        let client = energy_runtime::rest::AsyncClient::new(ClientConfig::new(base.clone()))
            .expect("a client");
        let mut request = ListStandardUnitRates::new("AGILE-24-10-01", "E-1R-AGILE-24-10-01-C");
        request.period_from = Some("2024-04-01T00:00:00Z".parse().expect("an instant"));
        request.period_to = Some("2024-07-01T00:00:00Z".parse().expect("an instant"));
        client
            .items(&request)
            .try_collect()
            .await
            .expect("every page")
    });
    assert_eq!(rates.len(), 91 * 48);
    let account = client
        .send(&GetAccount::new("A-68XX9999"))
        .expect("the account");
    assert_eq!(account.number, "A-68XX9999");
}

#[test]
fn credentials_as_the_spec_gives_them_and_no_secret_in_an_answer() {
    let server = Running::start();
    let a = server.address;
    let path = "/v1/accounts/A-68XX9999/";
    assert_eq!(get(a, path, &[&basic(&format!("{KEY}:"))]).status, 200);
    assert_eq!(
        get(a, path, &[&format!("Authorization: {TOKEN}")]).status,
        200
    );
    assert_eq!(
        get(a, path, &[&format!("Authorization: Bearer {TOKEN}")]).status,
        200
    );
    for refused in [
        String::new(),
        basic(&format!("{KEY}:a-password")),
        basic("sk_test_wrong:"),
        "Authorization: Basic %%%not-base64".to_owned(),
        format!("Authorization: {TOKEN}x"),
    ] {
        let headers: Vec<&str> = if refused.is_empty() {
            vec![]
        } else {
            vec![refused.as_str()]
        };
        let answer = get(a, path, &headers);
        assert_eq!(answer.status, 401, "{refused}");
        assert_eq!(
            answer.header("www-authenticate"),
            Some(r#"Basic realm="energy", charset="UTF-8""#)
        );
        let text = String::from_utf8_lossy(&answer.body);
        assert!(
            !text.contains(KEY) && !text.contains(TOKEN) && !text.contains("wrong"),
            "{text}"
        );
    }
    // Operations without authentication never ask for it, even with wrong credentials.
    assert_eq!(get(a, "/v1/products/", &[&basic("nobody:")]).status, 200);
}

#[test]
fn links_come_from_the_public_url_or_a_trusted_proxy_never_from_host() {
    let server = Running::start_with(
        |mut config| {
            config.public_url = PublicUrl::parse("https://api.energy.example").expect("a URL");
            config.trusted_proxies =
                TrustedProxies::parse(&["10.0.0.0/8".to_owned()]).expect("a block");
            config
        },
        Limits::default(),
        None,
    );
    let answer = get(
        server.address,
        "/v1/products/?is_green=true&page=2&page_size=10",
        &[
            "Host: evil.example",
            "X-Forwarded-Host: evil.example",
            "X-Forwarded-Proto: http",
        ],
    );
    let page = answer.json();
    assert_eq!(
        page["next"],
        "https://api.energy.example/v1/products/?is_green=true&page_size=10&page=3"
    );
    assert_eq!(
        page["previous"],
        "https://api.energy.example/v1/products/?is_green=true&page_size=10"
    );
}

/// Handlers that wait, for the limits.
struct Slow(Arc<AtomicUsize>);

impl Api for Slow {
    type Principal = energy_server::KeyHolder;

    async fn list_products(
        &self,
        request: ListProducts,
    ) -> Result<ListProductsResponse, ServerError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(
            u64::try_from(request.page_size.unwrap_or(100)).unwrap_or(0) * 10,
        ))
        .await;
        Ok(ListProductsResponse::Ok(energy_server::paginate(
            Vec::new(),
            request.page,
            None,
        )?))
    }
    async fn get_product(&self, r: GetProduct) -> Result<GetProductResponse, ServerError> {
        Err(ServerError::not_found(r.product_code))
    }
    async fn list_standard_unit_rates(
        &self,
        r: ListStandardUnitRates,
    ) -> Result<ListStandardUnitRatesResponse, ServerError> {
        Err(ServerError::not_found(r.tariff_code))
    }
    async fn get_account(
        &self,
        r: GetAccount,
        _: &energy_server::KeyHolder,
    ) -> Result<GetAccountResponse, ServerError> {
        Err(ServerError::not_found(r.account_number))
    }
}

#[test]
fn load_is_shed_with_503_and_a_slow_handler_times_out_and_a_stop_finishes_what_is_in_flight() {
    let started = Arc::new(AtomicUsize::new(0));
    let mut server = Running::serve(
        Slow(started.clone()),
        |mut config| {
            config.max_in_flight = 2;
            config.request_timeout = Duration::from_secs(3);
            config
        },
        Limits::default(),
        None,
        tempfile::tempdir().expect("a folder"),
    );
    let a = server.address;
    // Two requests of 1 s fill the server; a third is shed at once.
    let busy: Vec<_> = (0..2)
        .map(|_| std::thread::spawn(move || get(a, "/v1/products/?page_size=100", &[]).status))
        .collect();
    while started.load(Ordering::SeqCst) < 2 {
        std::thread::sleep(Duration::from_millis(5));
    }
    let shed = get(a, "/v1/products/?page_size=1", &[]);
    assert_eq!(shed.status, 503);
    assert_eq!(shed.header("retry-after"), Some("1"));
    assert_eq!(shed.json()["code"], "unavailable");
    assert!(busy.into_iter().all(|t| t.join().expect("answered") == 200));
    // 5 s of work against a 3 s limit.
    let late = get(a, "/v1/products/?page_size=500", &[]);
    assert_eq!((late.status, late.header("retry-after")), (503, Some("1")));
    // A stop lets a request in flight finish.
    let in_flight = std::thread::spawn(move || get(a, "/v1/products/?page_size=150", &[]).status);
    while started.load(Ordering::SeqCst) < 4 {
        std::thread::sleep(Duration::from_millis(5));
    }
    let stopping = Instant::now();
    server.stop();
    assert_eq!(in_flight.join().expect("answered"), 200);
    assert!(stopping.elapsed() >= Duration::from_millis(1_000));
    assert!(TcpStream::connect(a).is_err(), "no longer listening");
}

#[test]
fn hostile_input_is_answered_with_a_4xx_or_a_closed_connection_and_others_are_still_served() {
    let limits = Limits {
        header_read_timeout: Duration::from_secs(2),
        ..Limits::default()
    };
    let server = Running::start_with(|config| config, limits, None);
    let a = server.address;
    let is_refusal = |answer: Option<Answer>| answer.is_none_or(|r| (400..500).contains(&r.status));
    // A 1 MiB query string.
    let long = format!(
        "GET /v1/products/?brand={} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "a".repeat(1 << 20)
    );
    assert!(is_refusal(raw(a, long.as_bytes())));
    // 10,000 headers.
    let mut many = String::from("GET /v1/products/ HTTP/1.1\r\nHost: x\r\n");
    for i in 0..10_000 {
        many.push_str(&format!("X-Header-{i}: {i}\r\n"));
    }
    many.push_str("\r\n");
    assert!(is_refusal(raw(a, many.as_bytes())));
    // A URI just past the server's own limit: 414 in the error body.
    let over = get(
        a,
        &format!("/v1/products/?brand={}", "b".repeat(9_000)),
        &[],
    );
    assert_eq!(
        (over.status, over.json()["code"].as_str()),
        (414, Some("uri_too_long"))
    );
    // Invalid UTF-8 in the path and the query, percent-encoded and raw.
    let answer = raw(
        a,
        b"GET /v1/products/%C3%28/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .expect("an answer");
    assert_eq!(
        (answer.status, codes(&answer)),
        (
            400,
            vec![("product_code".to_owned(), "bad_encoding".to_owned())]
        )
    );
    assert!(is_refusal(raw(
        a,
        b"GET /v1/products/?brand=\xff\xfe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )));
    assert!(is_refusal(raw(a, b"GARBAGE\r\n\r\n")));
    // A client that never finishes its headers is cut off; meanwhile others are served.
    let mut slow = TcpStream::connect(a).expect("connects");
    slow.write_all(b"GET /v1/products/ HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        .expect("written");
    assert_eq!(get(a, "/v1/products/?page_size=1", &[]).status, 200);
    slow.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("a timeout");
    let cut = Instant::now();
    let mut rest = Vec::new();
    let _ = slow.read_to_end(&mut rest);
    assert!(
        cut.elapsed() < Duration::from_secs(9),
        "the slow client was cut off"
    );
    // Thousands of connections at once, each asking: each answered, or closed (never left hanging),
    // and the server still serves.
    let workers: Vec<_> = (0..8)
        .map(|_| {
            std::thread::spawn(move || {
                let mut streams: Vec<TcpStream> =
                    (0..250).filter_map(|_| TcpStream::connect(a).ok()).collect();
                for s in &mut streams {
                    let _ = s.write_all(b"GET /v1/products/?page_size=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                }
                let (mut answered, mut closed) = (0, 0);
                for mut s in streams {
                    let _ = s.set_read_timeout(Some(Duration::from_secs(30)));
                    let mut buf = Vec::new();
                    match s.read_to_end(&mut buf) {
                        Ok(_) if buf.starts_with(b"HTTP/1.1 200") => answered += 1,
                        Ok(_) if buf.is_empty() => closed += 1,
                        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => closed += 1,
                        other => panic!("neither answered nor closed: {other:?} {}", String::from_utf8_lossy(&buf)),
                    }
                }
                (answered, closed)
            })
        })
        .collect();
    let (answered, closed) = workers
        .into_iter()
        .map(|w| w.join().expect("a worker"))
        .fold((0, 0), |(a, c), (x, y)| (a + x, c + y));
    eprintln!("2,000 connections at once: {answered} answered, {closed} closed");
    assert_eq!(answered + closed, 2_000);
    assert!(answered > 0);
    assert_eq!(get(a, "/v1/products/?page_size=1", &[]).status, 200);
}

#[test]
fn https_with_a_certificate_health_metrics_and_the_document() {
    let dir = tempfile::tempdir().expect("a folder");
    let authority = energy_testkit::secrets::Authority::new("energy test CA");
    let (cert, key) = authority.issue(dir.path(), "server", &["127.0.0.1", "localhost"], false);
    let tls = energy_server::tls_config(&cert, &key).expect("a TLS configuration");
    let server = Running::start_with(|config| config, Limits::default(), Some(tls));
    let ca = authority.write(dir.path(), "ca.pem");
    // The project's own client, trusting the test CA through SSL_CERT_FILE is not portable: a TLS
    // handshake and a request by hand with rustls.
    let mut roots = rustls::RootCertStore::empty();
    use rustls::pki_types::pem::PemObject as _;
    for c in rustls::pki_types::CertificateDer::pem_file_iter(&ca).expect("the CA") {
        roots.add(c.expect("a certificate")).expect("a root");
    }
    let config = Arc::new(
        rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_root_certificates(roots)
        .with_no_client_auth(),
    );
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").expect("a name");
    let mut connection = rustls::ClientConnection::new(config, name).expect("a connection");
    let mut socket = TcpStream::connect(server.address).expect("connects");
    let mut tls = rustls::Stream::new(&mut connection, &mut socket);
    tls.write_all(
        b"GET /v1/products/?page_size=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    )
    .expect("sent");
    let mut bytes = Vec::new();
    let _ = tls.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(
        text.contains(&format!(
            "\"next\":\"https://{}/v1/products/?page_size=1&page=2\"",
            server.address
        )) || text.contains("\"next\":\"http"),
        "{text}"
    );
    // Plain HTTP to a TLS port: no answer.
    assert!(raw(server.address, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").is_none());

    let plain = Running::start();
    let health = get(plain.address, "/healthz", &[]);
    assert_eq!(
        (health.status, health.json()["status"].as_str()),
        (200, Some("ok"))
    );
    let _ = get(plain.address, "/v1/products/?page_size=0", &[]);
    let metrics = get(plain.address, "/metrics", &[]);
    let text = String::from_utf8_lossy(&metrics.body);
    assert!(
        text.contains("http_server_requests_total{operation=\"list_products\",status=\"400\"} 1"),
        "{text}"
    );
    assert!(text.contains("operation=\"list_products\"} 1"), "{text}");
    let document = get(plain.address, "/openapi.yaml", &[]);
    assert_eq!(document.status, 200);
    assert!(String::from_utf8_lossy(&document.body).contains("openapi: \"3.1.0\""));
}

#[test]
fn prefer_asks_for_a_documented_status_or_example_when_enabled() {
    let server = Running::start_with(
        |mut config| {
            config.honour_prefer = true;
            config
        },
        Limits::default(),
        None,
    );
    let a = server.address;
    let not_found = get(a, "/v1/products/", &["Prefer: code=404"]);
    assert_eq!(
        (not_found.status, not_found.header("preference-applied")),
        (404, Some("code=404"))
    );
    let unavailable = get(a, "/v1/products/", &["Prefer: code=503"]);
    assert_eq!(
        (unavailable.status, unavailable.header("retry-after")),
        (503, Some("1"))
    );
    let unauthorized = get(a, "/v1/accounts/A-1/", &["Prefer: code=401"]);
    assert_eq!(unauthorized.status, 401);
    // A 401 is not documented where no credentials are asked for: the preference is ignored.
    assert_eq!(
        get(a, "/v1/products/?page_size=1", &["Prefer: code=401"]).status,
        200
    );
    let example = get(a, "/v1/products/ANY/", &["Prefer: example=sample"]);
    assert_eq!(example.status, 200);
    assert_eq!(example.json()["code"], "AGILE-24-10-01");
    let off = Running::start();
    assert_eq!(
        get(
            off.address,
            "/v1/products/?page_size=1",
            &["Prefer: code=404"]
        )
        .status,
        200
    );
}

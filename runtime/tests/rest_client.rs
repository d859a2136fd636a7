//! The blocking and the async client run the same table of cases, against a real HTTP server on
//! 127.0.0.1 serving real (or real-shaped) API responses.
#![cfg(feature = "blocking")]

use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

use energy_api::rest::{
    Endpoint, GetAccount, GetProduct, ListProducts, ListStandardUnitRates, Page, Product,
    StandardUnitRate,
};
use energy_runtime::rest::{
    BaseUrl, Client, ClientConfig, Credentials, DateTimeParam, Error, RetryPolicy,
};
use energy_testkit::fixture;
use energy_testkit::server::{GREEN_FILTERS, Reply, TestServer, serve_green_products};

#[path = "rest_client/drive.rs"]
mod drive;
#[cfg(feature = "async")]
use drive::Async;
use drive::{Api, Blocking};

/// Runs every case with both clients: `blocking::<case>` and `nonblocking::<case>`.
macro_rules! table {
    ($($case:ident),* $(,)?) => {
        mod blocking {
            $( #[test] fn $case() { super::$case(&super::Blocking) } )*
        }
        #[cfg(feature = "async")]
        mod nonblocking {
            $( #[test] fn $case() { super::$case(&super::Async) } )*
        }
    };
}

table!(
    products_over_several_pages_with_combined_filters,
    pages_are_fetched_lazily,
    the_page_api_gives_each_envelope,
    half_hourly_rates_of_the_spring_forward_day_latest_first_some_negative,
    the_fall_back_day_and_the_fold_are_queried_in_utc,
    the_spring_forward_gap_is_queried_in_utc,
    rates_over_two_pages_follow_next_exactly_as_given,
    a_real_page_whose_next_leaves_the_origin_stops_with_an_error,
    a_next_to_another_loopback_port_is_not_followed,
    a_looping_next_is_an_error_not_a_loop,
    the_page_cap_stops_with_an_error,
    one_product_leads_to_its_tariffs,
    extra_fields_never_break_a_list,
    the_account_sends_the_exact_basic_header,
    the_account_sends_a_token_as_given,
    the_account_without_credentials_is_refused_before_any_request,
    unauthorized_is_a_status_error_without_the_secret,
    not_found_keeps_the_api_error,
    too_many_requests_waits_for_retry_after,
    too_many_requests_gives_up_after_the_retries,
    service_unavailable_backs_off_then_succeeds,
    a_server_error_is_not_retried,
    a_malformed_body_names_the_json_path,
    a_truncated_body_is_an_error,
    a_redirect_is_not_followed,
    a_slow_server_times_out,
    a_refused_connection_is_a_transport_error,
);

const API_KEY: &str = "sk_live_8aFq2KmZ";
/// `Basic ` + base64 of `sk_live_8aFq2KmZ:` (user name, colon, empty password).
const BASIC_HEADER: &str = "Basic c2tfbGl2ZV84YUZxMkttWjo=";
const PRODUCT: &str = "AGILE-24-04-03";
const TARIFF: &str = "E-1R-AGILE-24-04-03-C";
const RATES_PATH: &str =
    "/v1/products/AGILE-24-04-03/electricity-tariffs/E-1R-AGILE-24-04-03-C/standard-unit-rates/";

fn config(server: &TestServer) -> ClientConfig {
    ClientConfig::new(BaseUrl::parse(server.base_url()).expect("loopback base URL"))
}

fn ok(body: String) -> Reply {
    Reply::json(200, body)
}

fn green_products() -> ListProducts {
    ListProducts::default()
        .with_brand("OCTOPUS_ENERGY")
        .with_is_green(true)
        .with_is_prepay(false)
        .with_page_size(3)
}

fn rates(from: &str, to: &str) -> ListStandardUnitRates {
    let mut rates = ListStandardUnitRates::new(PRODUCT, TARIFF);
    let instant = |text: &str| {
        DateTimeParam::parse(text)
            .and_then(|p| p.to_timestamp())
            .expect("date-time")
    };
    rates.period_from = Some(instant(from));
    rates.period_to = Some(instant(to));
    rates
}

/// The rows of a rates fixture with `from <= valid_from < to` (UTC strings), as one page.
fn rates_between(fixture_name: &str, from: &str, to: &str) -> String {
    let mut page: serde_json::Value =
        serde_json::from_str(&fixture(fixture_name, "")).expect("fixture JSON");
    let rows: Vec<serde_json::Value> = page["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|row| {
            let start = row["valid_from"].as_str().expect("valid_from");
            from <= start && start < to
        })
        .cloned()
        .collect();
    page["count"] = rows.len().into();
    page["results"] = rows.into();
    page.to_string()
}

fn assert_half_hourly_latest_first(rates: &[StandardUnitRate]) {
    for pair in rates.windows(2) {
        assert!(
            pair[0].valid_from > pair[1].valid_from,
            "not latest first: {pair:?}"
        );
    }
    for rate in rates {
        let to = rate.valid_to.expect("valid_to");
        assert_eq!(to.duration_since(rate.valid_from).as_mins(), 30, "{rate:?}");
    }
}

fn products_over_several_pages_with_combined_filters(api: &impl Api) {
    let server = TestServer::start();
    serve_green_products(&server);
    // Credentials are configured, but listing products needs none: none may be sent.
    let config = config(&server).with_credentials(Credentials::api_key(API_KEY).expect("key"));
    let (products, error): (Vec<Product>, _) = api.items(config, &green_products());
    assert!(error.is_none(), "{error:?}");
    let codes: Vec<&str> = products.iter().map(|p| p.code.as_str()).collect();
    assert_eq!(
        codes,
        [
            "AGILE-24-04-03",
            "AGILE-OUTGOING-19-05-13",
            "GO-GREEN-VAR-22-10-14",
            "OUTGOING-FIX-12M-19-05-13",
            "OUTGOING-LITE-FIX-12M-23-09-12",
            "OUTGOING-SEG-EO-FIX-12M-24-04-05",
            "OUTGOING-SEG-FIX-12M-20-07-07",
            "AGILE-FLEX-22-11-25",
        ]
    );
    assert_eq!(products.len(), 8);
    assert!(
        products
            .iter()
            .all(|p| p.brand == "OCTOPUS_ENERGY" && p.is_green && !p.is_prepay)
    );
    assert_eq!(
        server.targets(),
        [
            format!("/v1/products/?{GREEN_FILTERS}&page_size=3"),
            format!("/v1/products/?{GREEN_FILTERS}&page=2&page_size=3"),
            format!("/v1/products/?{GREEN_FILTERS}&page=3&page_size=3"),
        ]
    );
    for request in server.requests() {
        assert_eq!(request.method, "GET");
        assert_eq!(request.header("authorization"), None);
        assert_eq!(request.header("accept"), Some("application/json"));
        assert_eq!(
            request.header("user-agent"),
            Some(concat!("energy-runtime/", env!("CARGO_PKG_VERSION")))
        );
    }
}

fn pages_are_fetched_lazily(api: &impl Api) {
    let server = TestServer::start();
    serve_green_products(&server);
    let first: Vec<Product> = api.first_items(config(&server), &green_products(), 3);
    assert_eq!(first.len(), 3);
    assert_eq!(server.requests().len(), 1, "{:?}", server.targets());
    let four: Vec<Product> = api.first_items(config(&server), &green_products(), 4);
    assert_eq!(four.len(), 4);
    assert_eq!(server.requests().len(), 1 + 2, "{:?}", server.targets());
}

fn the_page_api_gives_each_envelope(api: &impl Api) {
    let server = TestServer::start();
    serve_green_products(&server);
    let (pages, error): (Vec<Page<Product>>, _) = api.pages(config(&server), &green_products());
    assert!(error.is_none(), "{error:?}");
    let sizes: Vec<usize> = pages.iter().map(|p| p.results.len()).collect();
    assert_eq!(sizes, [3, 3, 2]);
    assert!(pages.iter().all(|p| p.count == 8));
    assert_eq!(pages[0].previous, None);
    assert_eq!(
        pages[2].previous.as_deref(),
        Some(
            format!(
                "{}/v1/products/?{GREEN_FILTERS}&page=2&page_size=3",
                server.base_url()
            )
            .as_str()
        )
    );
    assert_eq!(pages[2].next, None);
}

fn half_hourly_rates_of_the_spring_forward_day_latest_first_some_negative(api: &impl Api) {
    let server = TestServer::start();
    // Midnight to midnight in London on 31 March 2024: 23 hours, so 46 half-hours.
    let target =
        format!("{RATES_PATH}?period_from=2024-03-31T00:00:00Z&period_to=2024-03-31T23:00:00Z");
    server.on(
        &target,
        [ok(fixture("rest/rates_spring_forward_day.json", ""))],
    );
    let (rates, error) = api.items(config(&server), &rates("2024-03-31", "2024-04-01"));
    assert!(error.is_none(), "{error:?}");
    assert_eq!(server.targets(), [target]);
    assert_eq!(rates.len(), 46);
    assert_half_hourly_latest_first(&rates);
    assert_eq!(rates[0].valid_from.to_string(), "2024-03-31T22:30:00Z");
    assert_eq!(rates[45].valid_from.to_string(), "2024-03-31T00:00:00Z");
    let negative = rates.iter().filter(|r| r.value_inc_vat < 0.0).count();
    assert!(negative >= 5, "{negative} negative prices");
    assert!(
        rates
            .iter()
            .all(|r| r.value_exc_vat.signum() == r.value_inc_vat.signum())
    );
}

fn the_fall_back_day_and_the_fold_are_queried_in_utc(api: &impl Api) {
    let server = TestServer::start();
    // Midnight to midnight in London on 27 October 2024: 25 hours, so 50 half-hours.
    let day =
        format!("{RATES_PATH}?period_from=2024-10-26T23:00:00Z&period_to=2024-10-28T00:00:00Z");
    server.on(&day, [ok(fixture("rest/rates_fall_back_day.json", ""))]);
    // 01:30 happens twice: the first one (BST) is meant; 02:30 is GMT.
    let fold =
        format!("{RATES_PATH}?period_from=2024-10-27T00:30:00Z&period_to=2024-10-27T02:30:00Z");
    server.on(
        &fold,
        [ok(rates_between(
            "rest/rates_fall_back_day.json",
            "2024-10-27T00:30:00Z",
            "2024-10-27T02:30:00Z",
        ))],
    );
    let (whole_day, error) = api.items(config(&server), &rates("2024-10-27", "2024-10-28"));
    assert!(error.is_none(), "{error:?}");
    assert_eq!(whole_day.len(), 50);
    assert_half_hourly_latest_first(&whole_day);
    let (across_fold, error) = api.items(
        config(&server),
        &rates("2024-10-27T01:30", "2024-10-27T02:30"),
    );
    assert!(error.is_none(), "{error:?}");
    // From the first 01:30 (BST) through both 01:00-02:00 hours to 02:30 GMT: 2 hours.
    assert_eq!(across_fold.len(), 4);
    assert_eq!(server.targets(), [day, fold]);
}

fn the_spring_forward_gap_is_queried_in_utc(api: &impl Api) {
    let server = TestServer::start();
    // 01:30 does not exist on 31 March 2024: it is read as 02:30 BST, 01:30 UTC.
    let target =
        format!("{RATES_PATH}?period_from=2024-03-31T01:30:00Z&period_to=2024-03-31T03:00:00Z");
    server.on(
        &target,
        [ok(rates_between(
            "rest/rates_spring_forward_day.json",
            "2024-03-31T01:30:00Z",
            "2024-03-31T03:00:00Z",
        ))],
    );
    let (rates, error) = api.items(
        config(&server),
        &rates("2024-03-31T01:30", "2024-03-31T04:00"),
    );
    assert!(error.is_none(), "{error:?}");
    assert_eq!(server.targets(), [target]);
    assert_eq!(rates.len(), 3);
}

fn rates_over_two_pages_follow_next_exactly_as_given(api: &impl Api) {
    let server = TestServer::start();
    let first =
        format!("{RATES_PATH}?period_from=2024-03-30T00:00:00Z&period_to=2024-04-01T23:00:00Z");
    // The server's own link encodes the colons and puts `page` first: it is followed as it is.
    let second = format!(
        "{RATES_PATH}?page=2&period_from=2024-03-30T00%3A00%3A00Z&period_to=2024-04-01T23%3A00%3A00Z"
    );
    server.on(
        &first,
        [ok(fixture(
            "rest/rates_three_days_page1.json",
            server.base_url(),
        ))],
    );
    server.on(
        &second,
        [ok(fixture(
            "rest/rates_three_days_page2.json",
            server.base_url(),
        ))],
    );
    let (rates, error) = api.items(config(&server), &rates("2024-03-30", "2024-04-02"));
    assert!(error.is_none(), "{error:?}");
    assert_eq!(server.targets(), [first, second]);
    // 48 + 46 + 48 half-hours: 30 March, the short 31 March, 1 April.
    assert_eq!(rates.len(), 142);
    assert_half_hourly_latest_first(&rates);
}

fn a_real_page_whose_next_leaves_the_origin_stops_with_an_error(api: &impl Api) {
    let server = TestServer::start();
    let path = "/v1/products/AGILE-24-10-01/electricity-tariffs/E-1R-AGILE-24-10-01-H/standard-unit-rates/";
    // A real page of the real API: its `next` points to the real host, not to this server.
    server.on(
        path,
        [ok(fixture("real-responses/standard_unit_rates_2.json", ""))],
    );
    let endpoint = ListStandardUnitRates::new("AGILE-24-10-01", "E-1R-AGILE-24-10-01-H");
    let (rates, error) = api.items(config(&server), &endpoint);
    assert_eq!(rates.len(), 100, "the page's own records are delivered");
    assert_half_hourly_latest_first(&rates);
    let error = error.expect("an error instead of following the link");
    assert!(matches!(error, Error::ForeignNextPage { .. }), "{error}");
    let message = error.to_string();
    assert!(
        message.contains("https://api.octopus.energy/v1/products/AGILE-24-10-01"),
        "{message}"
    );
    assert!(message.contains(server.base_url()), "{message}");
    assert_eq!(server.targets(), [path]);
}

fn a_next_to_another_loopback_port_is_not_followed(api: &impl Api) {
    let server = TestServer::start();
    let elsewhere = TestServer::start();
    let mut page: serde_json::Value =
        serde_json::from_str(&fixture("rest/products_green_page1.json", "")).expect("JSON");
    page["next"] = format!("{}/v1/products/?page=2", elsewhere.base_url()).into();
    server.on(
        &format!("/v1/products/?{GREEN_FILTERS}&page_size=3"),
        [ok(page.to_string())],
    );
    let (products, error): (Vec<Product>, _) = api.items(config(&server), &green_products());
    assert_eq!(products.len(), 3);
    assert!(
        matches!(error, Some(Error::ForeignNextPage { .. })),
        "{error:?}"
    );
    assert!(elsewhere.requests().is_empty());
}

fn a_looping_next_is_an_error_not_a_loop(api: &impl Api) {
    let server = TestServer::start();
    let first = format!("/v1/products/?{GREEN_FILTERS}&page_size=3");
    let mut page2: serde_json::Value = serde_json::from_str(&fixture(
        "rest/products_green_page2.json",
        server.base_url(),
    ))
    .expect("JSON");
    // Page 2 says its next page is page 1 again.
    page2["next"] = format!("{}{first}", server.base_url()).into();
    server.on(
        &first,
        [ok(fixture(
            "rest/products_green_page1.json",
            server.base_url(),
        ))],
    );
    server.on(
        &format!("/v1/products/?{GREEN_FILTERS}&page=2&page_size=3"),
        [ok(page2.to_string())],
    );
    let (products, error): (Vec<Product>, _) = api.items(config(&server), &green_products());
    assert_eq!(products.len(), 6);
    let error = error.expect("a loop error");
    assert!(matches!(error, Error::PaginationLoop { .. }), "{error}");
    assert_eq!(server.requests().len(), 2);
}

fn the_page_cap_stops_with_an_error(api: &impl Api) {
    let server = TestServer::start();
    serve_green_products(&server);
    let (products, error): (Vec<Product>, _) =
        api.items(config(&server).with_max_pages(2), &green_products());
    assert_eq!(products.len(), 6);
    assert!(
        matches!(error, Some(Error::PageLimit { limit: 2, .. })),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), 2);
}

fn one_product_leads_to_its_tariffs(api: &impl Api) {
    let server = TestServer::start();
    server.on(
        "/v1/products/AGILE-FLEX-22-11-25/",
        [ok(fixture("real-responses/product_detail_1.json", ""))],
    );
    let product = api
        .send(config(&server), &GetProduct::new("AGILE-FLEX-22-11-25"))
        .expect("product");
    assert_eq!(product.code, "AGILE-FLEX-22-11-25");
    assert_eq!(product.direction, None);
    let regions = &product.single_register_electricity_tariffs;
    assert_eq!(regions.len(), 14);
    let tariff = &regions["_C"]["direct_debit_monthly"];
    assert_eq!(tariff.code, "E-1R-AGILE-FLEX-22-11-25-C");
    // The tariff's code is what the unit-rates endpoint takes.
    let rates = ListStandardUnitRates::new(&product.code, &tariff.code);
    assert!(
        tariff
            .links
            .iter()
            .any(|link| link.rel == "standard_unit_rates" && link.href.ends_with(&rates.path()))
    );
}

fn extra_fields_never_break_a_list(api: &impl Api) {
    let server = TestServer::start();
    let mut page: serde_json::Value =
        serde_json::from_str(&fixture("real-responses/standard_unit_rates_4.json", ""))
            .expect("JSON");
    // Fields a later API version might add, on the envelope and on every record.
    page["next"] = serde_json::Value::Null;
    page["total_pages"] = 5318.into();
    for row in page["results"].as_array_mut().expect("results") {
        row["region"] = "J".into();
        row["source"] = serde_json::json!({"market": "N2EX", "auction": "day-ahead"});
    }
    let path = "/v1/products/AGILE-FLEX-22-11-25/electricity-tariffs/E-1R-AGILE-FLEX-22-11-25-J/standard-unit-rates/";
    server.on(path, [ok(page.to_string())]);
    let endpoint = ListStandardUnitRates::new("AGILE-FLEX-22-11-25", "E-1R-AGILE-FLEX-22-11-25-J");
    let (rates, error) = api.items(config(&server), &endpoint);
    assert!(error.is_none(), "{error:?}");
    assert_eq!(rates.len(), 5);
    assert_eq!(rates[0].value_inc_vat, 18.291);
}

fn the_account_sends_the_exact_basic_header(api: &impl Api) {
    let server = TestServer::start();
    server.on(
        "/v1/accounts/A-68XX9999/",
        [ok(fixture("real-responses/account_1.json", ""))],
    );
    let config = config(&server).with_credentials(Credentials::api_key(API_KEY).expect("key"));
    let account = api
        .send(config, &GetAccount::new("A-68XX9999"))
        .expect("account");
    assert_eq!(account.number, "A-68XX9999");
    assert_eq!(account.properties[0].postcode, "AA1 1AA");
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].header("authorization"), Some(BASIC_HEADER));
}

fn the_account_sends_a_token_as_given(api: &impl Api) {
    let server = TestServer::start();
    server.on(
        "/v1/accounts/B-1234A1A1/",
        [ok(fixture("real-responses/account_2.json", ""))],
    );
    let token = "JWT eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJCLTEyMzRBMUExIn0.c2lnbmF0dXJl";
    let config = config(&server).with_credentials(Credentials::token(token).expect("token"));
    let account = api
        .send(config, &GetAccount::new("B-1234A1A1"))
        .expect("account");
    assert_eq!(account.number, "B-1234A1A1");
    assert_eq!(server.requests()[0].header("authorization"), Some(token));
}

fn the_account_without_credentials_is_refused_before_any_request(api: &impl Api) {
    let server = TestServer::start();
    let error = api
        .send(config(&server), &GetAccount::new("A-68XX9999"))
        .expect_err("no credentials");
    assert!(
        matches!(
            error,
            Error::MissingCredentials {
                operation: "get_account"
            }
        ),
        "{error}"
    );
    assert!(server.requests().is_empty());
}

fn unauthorized_is_a_status_error_without_the_secret(api: &impl Api) {
    let server = TestServer::start();
    server.on(
        "/v1/accounts/A-68XX9999/",
        [Reply::json(401, r#"{"detail":"Invalid API key."}"#)
            .header("WWW-Authenticate", "Basic realm=\"api\"")],
    );
    let config = config(&server).with_credentials(Credentials::api_key(API_KEY).expect("key"));
    let error = api
        .send(config, &GetAccount::new("A-68XX9999"))
        .expect_err("401");
    assert_eq!(error.status(), Some(401));
    assert_eq!(error.body(), Some(r#"{"detail":"Invalid API key."}"#));
    let request = error.request().expect("request");
    assert_eq!(
        request.url,
        format!("{}/v1/accounts/A-68XX9999/", server.base_url())
    );
    for shown in [error.to_string(), format!("{error:?}")] {
        assert!(
            !shown.contains(API_KEY) && !shown.contains(&BASIC_HEADER[6..]),
            "{shown}"
        );
    }
    assert_eq!(
        error.to_string(),
        format!(
            "GET {}/v1/accounts/A-68XX9999/: HTTP 401: {{\"detail\":\"Invalid API key.\"}}",
            server.base_url()
        )
    );
    assert_eq!(server.requests().len(), 1);
}

fn not_found_keeps_the_api_error(api: &impl Api) {
    let server = TestServer::start();
    server.on(
        "/v1/products/NO-SUCH-PRODUCT/",
        [Reply::json(
            404,
            r#"{"detail":"No Product matches the given query."}"#,
        )],
    );
    let error = api
        .send(config(&server), &GetProduct::new("NO-SUCH-PRODUCT"))
        .expect_err("404");
    let Error::Status {
        status, api_error, ..
    } = &error
    else {
        panic!("{error}")
    };
    assert_eq!(*status, 404);
    let detail = api_error.as_ref().map(|e| e.0["detail"].clone());
    assert_eq!(detail, Some("No Product matches the given query.".into()));
}

fn too_many_requests_waits_for_retry_after(api: &impl Api) {
    let server = TestServer::start();
    server.on(
        "/v1/products/AGILE-FLEX-22-11-25/",
        [
            Reply::json(
                429,
                r#"{"detail":"Request was throttled. Expected available in 1 second."}"#,
            )
            .header("Retry-After", "1"),
            ok(fixture("real-responses/product_detail_1.json", "")),
        ],
    );
    let product = api
        .send(config(&server), &GetProduct::new("AGILE-FLEX-22-11-25"))
        .expect("the retry succeeds");
    assert_eq!(product.code, "AGILE-FLEX-22-11-25");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let waited = requests[1].at.duration_since(requests[0].at);
    assert!(waited >= Duration::from_secs(1), "retried after {waited:?}");
}

fn too_many_requests_gives_up_after_the_retries(api: &impl Api) {
    let server = TestServer::start();
    server.on(
        "/v1/products/AGILE-FLEX-22-11-25/",
        [Reply::json(429, r#"{"detail":"Request was throttled."}"#).header("Retry-After", "0")],
    );
    let policy = RetryPolicy {
        max_retries: 2,
        ..RetryPolicy::default()
    };
    let error = api
        .send(
            config(&server).with_retry(policy),
            &GetProduct::new("AGILE-FLEX-22-11-25"),
        )
        .expect_err("429");
    assert!(
        matches!(error, Error::Status { status: 429, retry_after: Some(wait), .. } if wait == Duration::ZERO),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), 3);
}

fn service_unavailable_backs_off_then_succeeds(api: &impl Api) {
    let server = TestServer::start();
    let unavailable = Reply::json(503, r#"{"detail":"Service temporarily unavailable."}"#);
    server.on(
        "/v1/products/AGILE-FLEX-22-11-25/",
        [
            unavailable.clone(),
            unavailable,
            ok(fixture("real-responses/product_detail_1.json", "")),
        ],
    );
    let policy = RetryPolicy {
        initial_backoff: Duration::from_millis(100),
        ..RetryPolicy::default()
    };
    let product = api
        .send(
            config(&server).with_retry(policy),
            &GetProduct::new("AGILE-FLEX-22-11-25"),
        )
        .expect("the third attempt succeeds");
    assert_eq!(product.code, "AGILE-FLEX-22-11-25");
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests[1].at.duration_since(requests[0].at) >= Duration::from_millis(100));
    assert!(requests[2].at.duration_since(requests[1].at) >= Duration::from_millis(200));
}

fn a_server_error_is_not_retried(api: &impl Api) {
    let server = TestServer::start();
    server.on(
        "/v1/products/AGILE-FLEX-22-11-25/",
        [Reply::json(500, r#"{"detail":"A server error occurred."}"#)],
    );
    let error = api
        .send(config(&server), &GetProduct::new("AGILE-FLEX-22-11-25"))
        .expect_err("500");
    assert_eq!(error.status(), Some(500));
    assert!(
        error
            .to_string()
            .ends_with("HTTP 500: {\"detail\":\"A server error occurred.\"}"),
        "{error}"
    );
    assert_eq!(server.requests().len(), 1);
}

fn a_malformed_body_names_the_json_path(api: &impl Api) {
    let server = TestServer::start();
    let body = fixture("rest/rates_spring_forward_day.json", "").replacen(
        "\"2024-03-31T22:00:00Z\"",
        "\"31/03/2024 23:00\"",
        1,
    );
    let target =
        format!("{RATES_PATH}?period_from=2024-03-31T00:00:00Z&period_to=2024-03-31T23:00:00Z");
    server.on(&target, [ok(body)]);
    let (rates, error) = api.items(config(&server), &rates("2024-03-31", "2024-04-01"));
    assert!(rates.is_empty());
    let error = error.expect("a decode error");
    let Error::Decode { path, .. } = &error else {
        panic!("{error}")
    };
    // The second row's `valid_from` (the first row's `valid_to` holds the same text, unchanged).
    assert_eq!(path, "results[1].valid_from");
    assert!(
        error.to_string().contains("at `results[1].valid_from`"),
        "{error}"
    );
}

fn a_truncated_body_is_an_error(api: &impl Api) {
    let server = TestServer::start();
    let body = fixture("real-responses/product_detail_1.json", "");
    server.on(
        "/v1/products/AGILE-FLEX-22-11-25/",
        [ok(body[..body.len() / 2].to_owned())],
    );
    let error = api
        .send(config(&server), &GetProduct::new("AGILE-FLEX-22-11-25"))
        .expect_err("truncated");
    assert!(matches!(error, Error::Decode { .. }), "{error}");
    assert!(error.to_string().contains("EOF while parsing"), "{error}");
}

fn a_redirect_is_not_followed(api: &impl Api) {
    let server = TestServer::start();
    let elsewhere = TestServer::start();
    server.on(
        "/v1/accounts/A-68XX9999/",
        [Reply::json(302, "").header(
            "Location",
            &format!("{}/v1/accounts/A-68XX9999/", elsewhere.base_url()),
        )],
    );
    let config = config(&server).with_credentials(Credentials::api_key(API_KEY).expect("key"));
    let error = api
        .send(config, &GetAccount::new("A-68XX9999"))
        .expect_err("302");
    assert_eq!(error.status(), Some(302));
    assert!(elsewhere.requests().is_empty());
}

fn a_slow_server_times_out(api: &impl Api) {
    let server = TestServer::start();
    server.on(
        "/v1/products/AGILE-FLEX-22-11-25/",
        [ok(fixture("real-responses/product_detail_1.json", "")).delay(Duration::from_secs(3))],
    );
    let error = api
        .send(
            config(&server).with_timeout(Duration::from_millis(300)),
            &GetProduct::new("AGILE-FLEX-22-11-25"),
        )
        .expect_err("timeout");
    assert!(matches!(error, Error::Timeout { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        format!(
            "GET {}/v1/products/AGILE-FLEX-22-11-25/: no response within 0.3s",
            server.base_url()
        )
    );
}

fn a_refused_connection_is_a_transport_error(api: &impl Api) {
    // The discard port: privileged, so no test server can take it, and no service listens there.
    let port = 9;
    let base = BaseUrl::parse(&format!("http://127.0.0.1:{port}")).expect("base");
    let error = api
        .send(
            ClientConfig::new(base),
            &GetProduct::new("AGILE-FLEX-22-11-25"),
        )
        .expect_err("refused");
    assert!(matches!(error, Error::Transport { .. }), "{error:?}");
    assert!(
        error.to_string().starts_with(&format!(
            "GET http://127.0.0.1:{port}/v1/products/AGILE-FLEX-22-11-25/: "
        )),
        "{error}"
    );
}

/// The async streams can move to another task (`tokio::spawn` needs `Send + 'static`).
#[cfg(feature = "async")]
#[test]
fn async_streams_are_send_and_static() {
    fn assert_send_static<S: Send + 'static>(_: S) {}
    let config = ClientConfig::new(BaseUrl::parse("https://api.example.com").expect("base"));
    let client = energy_runtime::rest::AsyncClient::new(config).expect("client");
    assert_send_static(client.items(&ListProducts::default()));
    assert_send_static(client.pages(&ListStandardUnitRates::new("P", "T")));
    assert_send_static(client.clone());
}

#[test]
fn plain_http_base_urls_are_refused() {
    for url in [
        "http://api.example.com",
        "http://192.168.1.10:8000",
        "http://[2001:db8::1]",
    ] {
        let error = BaseUrl::parse(url).expect_err(url);
        assert!(matches!(error, Error::InvalidBaseUrl { .. }), "{error}");
        assert!(
            error.to_string().contains("plain HTTP is refused"),
            "{error}"
        );
    }
}

/// Collects every log record of this test binary.
struct Capture(Mutex<Vec<String>>);

impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(record.args().to_string());
    }
    fn flush(&self) {}
}

fn captured_logs() -> &'static Capture {
    static CAPTURE: OnceLock<&'static Capture> = OnceLock::new();
    CAPTURE.get_or_init(|| {
        let capture: &'static Capture = Box::leak(Box::new(Capture(Mutex::new(Vec::new()))));
        // Only this function installs a logger in this binary.
        let _ = log::set_logger(capture);
        log::set_max_level(log::LevelFilter::Trace);
        capture
    })
}

#[test]
fn no_secret_reaches_logs_debug_or_errors() {
    let logs = captured_logs();
    let server = TestServer::start();
    let token = "tok_9f8e7d6c5b4a";
    server.on(
        "/v1/accounts/A-68XX9999/",
        [Reply::json(429, r#"{"detail":"Request was throttled."}"#).header("Retry-After", "0")],
    );
    let mut shown = Vec::new();
    for credentials in [
        Credentials::api_key(API_KEY).expect("key"),
        Credentials::token(token).expect("token"),
    ] {
        let config = config(&server)
            .with_credentials(credentials)
            .with_retry(RetryPolicy {
                max_retries: 1,
                ..RetryPolicy::default()
            });
        shown.push(format!("{:?}", Client::new(config.clone())));
        #[cfg(feature = "async")]
        shown.push(format!("{:?}", Async::client(config.clone())));
        #[cfg_attr(not(feature = "async"), allow(unused_mut))]
        let mut errors = vec![Blocking.send(config.clone(), &GetAccount::new("A-68XX9999"))];
        #[cfg(feature = "async")]
        errors.push(Async.send(config, &GetAccount::new("A-68XX9999")));
        for error in errors {
            let error = error.expect_err("429");
            shown.push(error.to_string());
            shown.push(format!("{error:?}"));
        }
    }
    let logged = logs
        .0
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    assert!(
        logged
            .iter()
            .any(|line| line.contains("HTTP 429; retry 1 of 1")),
        "the retries are logged: {logged:?}"
    );
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r.header("authorization").is_some()),
        "the credentials were sent"
    );
    for text in shown.iter().chain(&logged) {
        for secret in [API_KEY, &BASIC_HEADER[6..], token] {
            assert!(!text.contains(secret), "{secret} leaked into: {text}");
        }
    }
}

//! The generated REST types read what the real API sends (responses published by third parties), which
//! is more and sometimes different from the spec's tables.

use energy_api::rest::{
    Account, Endpoint, GetProduct, ListProducts, ListStandardUnitRates, Page, Product,
    ProductDetail, StandardUnitRate,
};
use jiff::Timestamp;

fn real(name: &str) -> Vec<u8> {
    std::fs::read(energy_tests::fixture(&format!("real-responses/{name}"))).expect("fixture exists")
}

fn ts(s: &str) -> Timestamp {
    s.parse().expect("valid timestamp")
}

#[test]
fn product_lists_decode() {
    for (name, results) in [
        ("products_list_1.json", 43),
        ("products_list_2.json", 40),
        ("products_list_3.json", 2),
    ] {
        let page: Page<Product> =
            serde_json::from_slice(&real(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(page.results.len(), results, "{name}");
    }
    let page: Page<Product> = serde_json::from_slice(&real("products_list_3.json")).unwrap();
    assert_eq!(
        page.count, 101,
        "count is what the server reports, not the length of the page"
    );
    assert_eq!(
        page.next.as_deref(),
        Some("https://api.octopus.energy/v1/products/?page=2")
    );
    let export = &page.results[1];
    assert_eq!(
        (export.code.as_str(), export.direction.as_str(), export.term),
        ("AFFECT-SEG-FIX-12M-20-11-11", "EXPORT", Some(12))
    );
    assert_eq!(export.available_from, ts("2020-11-11T17:00:00Z"));
    assert_eq!(export.links[0].rel, "self");
}

#[test]
fn offsets_are_kept_as_instants() {
    let page: Page<Product> = serde_json::from_slice(&real("products_list_1.json")).unwrap();
    let agile = page
        .results
        .iter()
        .find(|p| p.code == "AGILE-24-04-03")
        .expect("listed");
    // "2024-04-03T00:00:00+01:00" is 23:00 UTC the day before.
    assert_eq!(agile.available_from, ts("2024-04-02T23:00:00Z"));
    assert_eq!(agile.available_to, None);
}

#[test]
fn the_single_product_response_keeps_what_the_spec_does_not_show() {
    for name in [
        "product_detail_1.json",
        "product_detail_2.json",
        "product_detail_3.json",
        "product_detail_4.json",
    ] {
        let bytes = real(name);
        let detail: ProductDetail =
            serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            detail.direction, None,
            "{name}: real single-product responses carry no direction"
        );
        assert!(
            detail
                .additional_fields
                .contains_key("single_register_electricity_tariffs"),
            "{name}"
        );
        // Nothing is lost: re-serialised, the response is the same JSON (date-times as the same instants).
        let original: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let back = serde_json::to_value(&detail).unwrap();
        for (key, value) in original.as_object().unwrap() {
            let kept = &back[key];
            match (key.as_str(), value) {
                ("available_from" | "available_to", serde_json::Value::String(s)) => {
                    assert_eq!(kept.as_str().map(ts), Some(ts(s)), "{name}: {key}");
                }
                _ => assert_eq!(kept, value, "{name}: {key}"),
            }
        }
    }
    let detail: ProductDetail = serde_json::from_slice(&real("product_detail_2.json")).unwrap();
    assert_eq!(
        detail.additional_fields["tariffs_active_at"], "2021-01-07T19:51:50.907790Z",
        "kept as sent"
    );
}

#[test]
fn unit_rates_decode_with_null_and_absent_fields() {
    for name in [
        "standard_unit_rates_1.json",
        "standard_unit_rates_2.json",
        "standard_unit_rates_3.json",
        "standard_unit_rates_4.json",
        "day_unit_rates_1.json",
    ] {
        let page: Page<StandardUnitRate> =
            serde_json::from_slice(&real(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!page.results.is_empty(), "{name}");
        // Latest first, as the spec says.
        for pair in page.results.windows(2) {
            assert!(
                pair[0].valid_from >= pair[1].valid_from,
                "{name}: descending valid_from"
            );
        }
    }
    let open: Page<StandardUnitRate> =
        serde_json::from_slice(&real("standard_unit_rates_1.json")).unwrap();
    assert_eq!(open.results[0].valid_to, None, "null valid_to: still valid");
    assert_eq!(
        open.results[0].payment_method, None,
        "absent payment_method"
    );
    assert_eq!(open.results[4].value_exc_vat, 18.0);

    let agile: Page<StandardUnitRate> =
        serde_json::from_slice(&real("standard_unit_rates_2.json")).unwrap();
    assert_eq!(agile.results.len(), 100);
    for rate in &agile.results {
        let to = rate.valid_to.expect("half-hourly rates end");
        assert_eq!(
            to.duration_since(rate.valid_from).as_secs(),
            30 * 60,
            "each half-hourly rate covers 30 minutes"
        );
    }
}

#[test]
fn money_accepts_integers_and_floats_and_negatives() {
    let rate: StandardUnitRate = serde_json::from_str(
        r#"{"value_exc_vat": -2, "value_inc_vat": -2.1, "valid_from": "2024-03-31T00:30Z", "valid_to": "2024-03-31T01:00:00.000Z", "payment_method": null}"#,
    )
    .expect("integers, negative values, seconds omitted and fractional seconds are all accepted");
    assert_eq!((rate.value_exc_vat, rate.value_inc_vat), (-2.0, -2.1));
    assert_eq!(rate.valid_from, ts("2024-03-31T00:30:00Z"));
    assert_eq!(rate.valid_to, Some(ts("2024-03-31T01:00:00Z")));
}

#[test]
fn accounts_are_kept_whole() {
    for name in ["account_1.json", "account_2.json"] {
        let bytes = real(name);
        let account: Account =
            serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let original: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            serde_json::to_value(&account).unwrap(),
            original,
            "{name}: lossless"
        );
        assert!(account.0["number"].is_string());
    }
}

#[test]
fn endpoints_build_their_requests() {
    let list = ListProducts {
        brand: Some("OCTOPUS_ENERGY".into()),
        is_green: Some(true),
        ..Default::default()
    };
    assert_eq!(list.path(), "/v1/products/");
    assert_eq!(
        list.query(),
        [
            ("brand", "OCTOPUS_ENERGY".to_owned()),
            ("is_green", "true".to_owned())
        ]
    );
    const { assert!(!ListProducts::AUTH_REQUIRED) };

    let mut rates = ListStandardUnitRates::new("AGILE-24-10-01", "E-1R-AGILE-24-10-01-H");
    rates.period_from = Some(ts("2024-03-31T00:00:00+01:00"));
    assert_eq!(
        rates.path(),
        "/v1/products/AGILE-24-10-01/electricity-tariffs/E-1R-AGILE-24-10-01-H/standard-unit-rates/"
    );
    assert_eq!(
        rates.query(),
        [("period_from", "2024-03-30T23:00:00Z".to_owned())],
        "sent with an explicit offset"
    );

    let odd = GetProduct::new("A/B?C D");
    assert_eq!(
        odd.path(),
        "/v1/products/A%2FB%3FC%20D/",
        "path segments are percent-encoded"
    );
    // `.` and `..` as a segment mean "this" and "the parent" folder: their dots are encoded, other
    // dots are unreserved and kept (RFC 3986).
    for (code, segment) in [
        (".", "%2E"),
        ("..", "%2E%2E"),
        ("...", "..."),
        ("v1.2", "v1.2"),
        ("../x", "..%2Fx"),
    ] {
        assert_eq!(
            energy_api::rest::GetAccount::new(code).path(),
            format!("/v1/accounts/{segment}/"),
            "{code}"
        );
    }
    const { assert!(energy_api::rest::GetAccount::AUTH_REQUIRED) };
}

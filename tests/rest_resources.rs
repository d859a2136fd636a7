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

/// `back` (re-serialised) is `original`: the same members at every depth, date-times as the same
/// instants (offsets are written in UTC, and fractions of a second as `jiff` writes them), numbers as
/// the same numbers.
fn assert_lossless(original: &serde_json::Value, back: &serde_json::Value, at: &str) {
    use serde_json::Value;
    match (original, back) {
        (Value::Object(a), Value::Object(b)) => {
            let keys = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
            let (mut ka, mut kb) = (keys(a), keys(b));
            ka.sort();
            kb.sort();
            assert_eq!(ka, kb, "{at}: members");
            for (k, v) in a {
                assert_lossless(v, &b[k], &format!("{at}.{k}"));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len(), "{at}: items");
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert_lossless(x, y, &format!("{at}[{i}]"));
            }
        }
        (Value::String(a), Value::String(b)) if a != b => {
            assert_eq!(
                a.parse::<Timestamp>().ok(),
                b.parse::<Timestamp>().ok(),
                "{at}: {a} and {b} are the same instant"
            );
            assert!(a.parse::<Timestamp>().is_ok(), "{at}: {a} is a date-time");
        }
        // A `num` is an `f64`: `0` comes back as `0.0`, the same number.
        (Value::Number(a), Value::Number(b)) => assert_eq!(a.as_f64(), b.as_f64(), "{at}"),
        _ => assert_eq!(original, back, "{at}"),
    }
}

#[test]
fn the_single_product_response_is_typed_from_the_real_responses() {
    for (name, regions, dual, gas) in [
        ("product_detail_1.json", 14, 0, 0),
        ("product_detail_2.json", 14, 0, 0),
        ("product_detail_3.json", 3, 3, 3),
        ("product_detail_4.json", 3, 3, 3),
    ] {
        let bytes = real(name);
        let detail: ProductDetail =
            serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            detail.direction, None,
            "{name}: real single-product responses carry no direction"
        );
        assert_eq!(
            detail.single_register_electricity_tariffs.len(),
            regions,
            "{name}"
        );
        assert_eq!(
            detail.dual_register_electricity_tariffs.len(),
            dual,
            "{name}"
        );
        assert_eq!(detail.single_register_gas_tariffs.len(), gas, "{name}");
        assert!(
            detail.additional_fields.is_empty(),
            "{name}: every member is typed"
        );
        // Every tariff's code is a tariff of this product, and links to its rates.
        for by_payment in detail.single_register_electricity_tariffs.values() {
            for tariff in by_payment.values() {
                assert!(tariff.code.starts_with("E-1R-"), "{name}: {}", tariff.code);
                assert!(
                    tariff.code.contains(&detail.code),
                    "{name}: {}",
                    tariff.code
                );
                assert!(
                    tariff.links.iter().any(|l| l.rel == "standard_unit_rates"
                        && l.href
                            .ends_with(&format!("/{}/standard-unit-rates/", tariff.code))),
                    "{name}: {}",
                    tariff.code
                );
            }
        }
        // Nothing is lost: re-serialised, the response is the same JSON.
        let original: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_lossless(&original, &serde_json::to_value(&detail).unwrap(), name);
    }
    let agile: ProductDetail = serde_json::from_slice(&real("product_detail_1.json")).unwrap();
    let a = &agile.single_register_electricity_tariffs["_A"]["direct_debit_monthly"];
    assert_eq!(a.code, "E-1R-AGILE-FLEX-22-11-25-A");
    assert_eq!(
        (a.standing_charge_inc_vat, a.standard_unit_rate_inc_vat),
        (37.296, 19.908)
    );
    assert_eq!(a.exit_fees_type.as_deref(), Some("NONE"));
    let quote = &agile.sample_quotes["_A"]["direct_debit_monthly"];
    assert_eq!(quote.electricity_single_rate.annual_cost_inc_vat, 67_365);
    assert_eq!(
        quote.electricity_dual_rate, None,
        "absent for a single-rate product"
    );
    assert_eq!(
        agile
            .sample_consumption
            .electricity_single_rate
            .electricity_standard,
        2_700
    );

    let fixed: ProductDetail = serde_json::from_slice(&real("product_detail_4.json")).unwrap();
    let economy = &fixed.dual_register_electricity_tariffs["_A"]["direct_debit_monthly"];
    assert_eq!(
        (
            economy.day_unit_rate_inc_vat,
            economy.night_unit_rate_inc_vat
        ),
        (30.638055, 12.85221)
    );
    let old: ProductDetail = serde_json::from_slice(&real("product_detail_2.json")).unwrap();
    let tariff = &old.single_register_electricity_tariffs["_A"]["direct_debit_monthly"];
    assert_eq!(tariff.exit_fees_type, None, "absent from the 2021 response");
    assert_eq!(old.tariffs_active_at, ts("2021-01-07T19:51:50.907790Z"));
}

#[test]
fn a_single_product_response_keeps_members_it_does_not_list() {
    let text = String::from_utf8(real("product_detail_3.json")).unwrap();
    // Members a later API may add, at the top and inside a tariff, written as a server would.
    let text = text.replacen(
        '{',
        r#"{"green_credentials": {"certified": true, "since": 2021},"#,
        1,
    );
    let text = text.replacen(
        r#""code": "G-1R-VAR-22-11-01-A","#,
        r#""code": "G-1R-VAR-22-11-01-A", "carbon_offset": 0.5,"#,
        1,
    );
    let detail: ProductDetail = serde_json::from_str(&text).expect("decodes");
    // Kept as their JSON text, exactly as they came, and read on demand.
    let credentials = &detail.additional_fields["green_credentials"];
    assert_eq!(credentials.get(), r#"{"certified": true, "since": 2021}"#);
    assert_eq!(
        credentials.parse::<serde_json::Value>().unwrap()["since"],
        2021
    );
    let tariff = &detail.single_register_gas_tariffs["_A"]["varying"];
    assert_eq!(
        tariff.additional_fields["carbon_offset"]
            .parse::<f64>()
            .unwrap(),
        0.5
    );
    let original: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_lossless(
        &original,
        &serde_json::to_value(&detail).unwrap(),
        "extended",
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
fn accounts_are_typed_from_the_real_responses() {
    for name in ["account_1.json", "account_2.json"] {
        let bytes = real(name);
        let account: Account =
            serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let original: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_lossless(&original, &serde_json::to_value(&account).unwrap(), name);
        assert!(
            account.additional_fields.is_empty(),
            "{name}: every member is typed"
        );
    }
    let account: Account = serde_json::from_slice(&real("account_1.json")).unwrap();
    assert_eq!(account.number, "A-68XX9999");
    let property = &account.properties[0];
    assert_eq!((property.id, property.moved_out_at), (23_445, None));
    assert_eq!(property.moved_in_at, ts("2014-09-05T20:37:46.732538Z"));
    let import = &property.electricity_meter_points[0];
    assert!(!import.is_export);
    assert_eq!(import.meters[0].registers[0].rate, "STANDARD");
    // The current agreement is the one without an end: the tariff to ask unit rates of.
    let current: Vec<&str> = import
        .agreements
        .iter()
        .filter(|a| a.valid_to.is_none())
        .map(|a| a.tariff_code.as_str())
        .collect();
    assert_eq!(current, ["E-1R-VAR-17-01-11-A"]);
    assert!(property.electricity_meter_points[1].is_export);
    assert_eq!(property.gas_meter_points[0].mprn, "9999999999");

    let documented: Account = serde_json::from_slice(&real("account_2.json")).unwrap();
    let agreement = &documented.properties[0].gas_meter_points[0].agreements[1];
    assert_eq!(
        agreement.valid_to,
        Some(ts("2023-03-31T23:00:00Z")),
        "an offset (+01:00) read as the instant"
    );
}

#[test]
fn endpoints_build_their_requests() {
    let list = ListProducts::default()
        .with_brand("OCTOPUS_ENERGY")
        .with_is_green(true);
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

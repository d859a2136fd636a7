//! Realistic sample values of every struct of the model, for tests: payloads a platform would send.
//!
//! Values come from the field's name and type (an `*_at` string is a date-time, an `account_number`
//! looks like one), deterministically, so that tests and fixtures are stable.

use crate::model::{EventVersion, Field, Format, Model, Struct, Type};
use serde_json::{Map, Value, json};

/// Which optional fields a sample carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Optionals {
    /// Every optional field present.
    All,
    /// Every optional field absent.
    None,
}

/// A sample payload of an event version. An incomplete payload also carries a field the schema does not
/// list, as the platform would send it.
pub fn event_payload(model: &Model, version: &EventVersion, optionals: Optionals) -> Value {
    let mut value = struct_value(model, &version.payload, optionals, 0);
    if version.payload.incomplete
        && let Value::Object(map) = &mut value
    {
        map.insert("unlisted_field".to_owned(), json!("kept as it arrived"));
    }
    value
}

/// Where the named types of a sample are looked up: event payloads use the shared types, REST resources
/// the other resources (the two may use one name for different types, such as `Product`).
#[derive(Clone, Copy)]
struct Scope<'m> {
    model: &'m Model,
    rest: bool,
    /// The type argument of the generic resource being sampled.
    arg: Option<&'m Type>,
    /// The index of the array item being sampled, so that two records of a list differ.
    item: usize,
    /// The struct whose fields are being sampled (a tariff's `code` is not a product's).
    within: &'m str,
}

impl<'m> Scope<'m> {
    fn named(&self, name: &str) -> Option<&'m Struct> {
        if self.rest {
            self.model
                .rest
                .as_ref()
                .and_then(|r| r.resources.iter().find(|s| s.name == name))
        } else {
            self.model.shared_type(name)
        }
    }
}

/// A sample value of a struct of the events (a shared type or a payload).
pub fn struct_value(model: &Model, s: &Struct, optionals: Optionals, depth: usize) -> Value {
    let scope = Scope {
        model,
        rest: false,
        arg: None,
        item: 0,
        within: "",
    };
    scope_struct_value(scope, s, optionals, depth)
}

/// A sample value of a REST resource; `arg` is the type argument of a generic one (`Page<Product>`).
/// An incomplete resource also carries a member the schema does not list, as the API sends it.
pub fn resource_value(
    model: &Model,
    s: &Struct,
    arg: Option<&Type>,
    optionals: Optionals,
) -> Value {
    let mut value = resource_example(model, s, arg, optionals);
    if s.incomplete
        && let Value::Object(map) = &mut value
    {
        map.insert("unlisted_field".to_owned(), json!("kept as it arrived"));
    }
    value
}

/// A sample value of a REST resource as the documents show it in examples: [`resource_value`] without
/// the member the schema does not list. A free-form resource is the error body when it is the API's
/// error response, else an empty object.
pub fn resource_example(
    model: &Model,
    s: &Struct,
    arg: Option<&Type>,
    optionals: Optionals,
) -> Value {
    let scope = Scope {
        model,
        rest: true,
        arg,
        item: 0,
        within: "",
    };
    if s.free_form {
        let is_error = model
            .rest
            .as_ref()
            .is_some_and(|r| matches!(&r.error_response, Some(Type::Named(e)) if e.name == s.name));
        return if is_error {
            json!({"detail": "Not found."})
        } else {
            json!({})
        };
    }
    scope_struct_value(scope, s, optionals, 0)
}

/// A sample value of a REST parameter (a path or query parameter of an endpoint).
pub fn parameter_value(model: &Model, f: &Field, index: usize) -> Value {
    // Within the parameter's bounds: its default, else its least value.
    if let Some(value) = f.rules.default.or(f.rules.minimum) {
        return Value::from(value);
    }
    let scope = Scope {
        model,
        rest: true,
        arg: None,
        item: 0,
        within: "",
    };
    type_value(scope, &f.name, &f.ty, f.format, Optionals::All, 0, index)
}

fn scope_struct_value(scope: Scope<'_>, s: &Struct, optionals: Optionals, depth: usize) -> Value {
    let scope = Scope {
        within: &s.name,
        ..scope
    };
    let mut map = Map::new();
    for (index, f) in s.fields.iter().enumerate() {
        if f.optional && (optionals == Optionals::None || depth > 2) {
            continue;
        }
        // A sample page is the only one (no link to a next or previous page), and a sample product is
        // available with no end.
        let usually_null =
            scope.rest && matches!(f.name.as_str(), "next" | "previous" | "available_to");
        let value = if f.nullable && (optionals == Optionals::None || usually_null) {
            Value::Null
        } else {
            type_value(scope, &f.name, &f.ty, f.format, optionals, depth, index)
        };
        map.insert(f.name.clone(), value);
    }
    Value::Object(map)
}

fn type_value(
    scope: Scope<'_>,
    name: &str,
    ty: &Type,
    format: Option<Format>,
    optionals: Optionals,
    depth: usize,
    seed: usize,
) -> Value {
    if scope.rest
        && let Some(value) = rest_value(name, ty, scope.item, scope.within)
    {
        return value;
    }
    match ty {
        Type::Str => match format {
            Some(Format::DateTime) => json!(date_time(seed)),
            Some(Format::Uri) => json!(format!(
                "https://api.example.com/v1/{}/{}/",
                name.replace('_', "-"),
                seed + 1
            )),
            None => json!(string_value(name, seed)),
        },
        Type::Int => json!(int_value(name, seed)),
        Type::Num => json!(num_value(name, seed)),
        Type::Bool => json!(bool_value(name)),
        Type::Obj => obj_value(name),
        Type::Array(inner) if depth > 2 => {
            let _ = inner;
            json!([])
        }
        Type::Array(inner) => {
            let item = |i: usize| {
                type_value(
                    Scope { item: i, ..scope },
                    singular(name),
                    inner,
                    None,
                    optionals,
                    depth + 1,
                    seed + i,
                )
            };
            json!([item(0), item(1)])
        }
        Type::Map(value) => {
            let keys = map_keys(scope.rest, name);
            let entries = keys.iter().enumerate().map(|(i, key)| {
                let value = type_value(
                    Scope { item: i, ..scope },
                    singular(name),
                    value,
                    None,
                    optionals,
                    depth + 1,
                    seed + i,
                );
                ((*key).to_owned(), value)
            });
            Value::Object(entries.collect())
        }
        Type::Named(r) => match scope.named(&r.name) {
            Some(s) if s.free_form => obj_value(name),
            Some(s) => {
                let inner = Scope {
                    arg: r.arg.as_deref(),
                    ..scope
                };
                scope_struct_value(inner, s, optionals, depth + 1)
            }
            None => json!({}),
        },
        Type::Param(_) => match scope.arg {
            Some(arg) => type_value(
                Scope { arg: None, ..scope },
                name,
                arg,
                format,
                optionals,
                depth,
                seed,
            ),
            None => json!({}),
        },
    }
}

/// Values of the REST API's fields that name alone cannot make realistic: two products of a list, two
/// consecutive half-hourly rates (latest first) in pence per kWh with 5% VAT, a page of two results.
fn rest_value(name: &str, ty: &Type, item: usize, within: &str) -> Option<Value> {
    let second = item % 2 == 1;
    let value = match (name, ty) {
        ("code", Type::Str) if within.ends_with("Tariff") => json!(if second {
            "E-1R-AGILE-24-10-01-C"
        } else {
            "E-1R-AGILE-24-10-01-A"
        }),
        ("code" | "product_code", Type::Str) => {
            json!(if second {
                "VAR-22-11-01"
            } else {
                "AGILE-24-10-01"
            })
        }
        ("full_name", Type::Str) => json!(if second {
            "Flexible Octopus November 2022 v1"
        } else {
            "Agile Octopus October 2024 v1"
        }),
        ("display_name", Type::Str) => {
            json!(if second {
                "Flexible Octopus"
            } else {
                "Agile Octopus"
            })
        }
        ("description", Type::Str) => json!(if second {
            "A variable tariff whose prices follow the market, with no exit fees."
        } else {
            "Half-hourly prices that follow the wholesale market, published a day ahead."
        }),
        ("href", Type::Str) => json!("https://api.example.com/v1/products/AGILE-24-10-01/"),
        ("term", Type::Int) => json!(12),
        ("count", Type::Int) => json!(2),
        ("page_size", Type::Int) => json!(100),
        ("value_exc_vat", Type::Num) => json!(if second { 21.6 } else { 22.95 }),
        ("value_inc_vat", Type::Num) => json!(if second { 22.68 } else { 24.0975 }),
        ("valid_from" | "period_from", Type::Str) => {
            json!(if second {
                "2024-03-31T22:30:00Z"
            } else {
                "2024-03-31T23:00:00Z"
            })
        }
        ("valid_to" | "period_to", Type::Str) => {
            json!(if second {
                "2024-03-31T23:00:00Z"
            } else {
                "2024-03-31T23:30:00Z"
            })
        }
        ("available_from", Type::Str) => json!("2024-10-01T00:00:00+01:00"),
        ("tariffs_active_at", Type::Str) => json!("2024-11-23T00:00:00Z"),
        // A single-product response's tariffs and quotes, in pence (VAT at 5%).
        ("standing_charge_exc_vat", Type::Num) => json!(45.57),
        ("standing_charge_inc_vat", Type::Num) => json!(47.8485),
        ("standard_unit_rate_exc_vat", Type::Num) => json!(22.95),
        ("standard_unit_rate_inc_vat", Type::Num) => json!(24.0975),
        ("day_unit_rate_exc_vat", Type::Num) => json!(30.008),
        ("day_unit_rate_inc_vat", Type::Num) => json!(31.5084),
        ("night_unit_rate_exc_vat", Type::Num) => json!(12.588),
        ("night_unit_rate_inc_vat", Type::Num) => json!(13.2174),
        (
            "online_discount_exc_vat"
            | "online_discount_inc_vat"
            | "dual_fuel_discount_exc_vat"
            | "dual_fuel_discount_inc_vat"
            | "exit_fees_exc_vat"
            | "exit_fees_inc_vat",
            Type::Num,
        ) => json!(0),
        ("exit_fees_type", Type::Str) => json!("NONE"),
        ("annual_cost_inc_vat", Type::Int) => json!(if second { 110_586 } else { 85_652 }),
        ("annual_cost_exc_vat", Type::Int) => json!(if second { 105_320 } else { 81_573 }),
        ("electricity_standard", Type::Int) => json!(2_700),
        ("electricity_day", Type::Int) => json!(1_750),
        ("electricity_night", Type::Int) => json!(950),
        ("gas_standard", Type::Int) => json!(11_500),
        // An account: a property with its meter points.
        ("number", Type::Str) => json!("A-1B2C3D4E"),
        ("id", Type::Int) => json!(1_234_567),
        ("address_line_1", Type::Str) => json!("10 Downing Street"),
        ("address_line_2" | "address_line_3" | "county", Type::Str) => json!(""),
        ("town", Type::Str) => json!("LONDON"),
        ("profile_class", Type::Int) => json!(1),
        ("consumption_standard", Type::Int) => json!(2_560),
        ("serial_number", Type::Str) => json!(if second { "21L4381885" } else { "21L4381884" }),
        ("identifier", Type::Str) => json!("1"),
        ("rate", Type::Str) => json!("STANDARD"),
        ("tariff_code", Type::Str) => json!(if second {
            "E-1R-VAR-22-11-01-C"
        } else {
            "E-1R-AGILE-24-10-01-C"
        }),
        _ => return None,
    };
    Some(value)
}

/// The names of a map's sample members: a single-product response keys its tariffs and quotes by
/// region and then by payment method; other maps by a name made from the field's.
fn map_keys(rest: bool, name: &str) -> Vec<String> {
    if rest && (name.ends_with("_tariffs") || name == "sample_quotes") {
        vec!["_A".to_owned(), "_C".to_owned()]
    } else if rest && (name.ends_with("_tariff") || name == "sample_quote") {
        vec!["direct_debit_monthly".to_owned()]
    } else {
        (1..=2).map(|i| format!("{}_{i}", singular(name))).collect()
    }
}

fn singular(name: &str) -> &str {
    name.strip_suffix('s').unwrap_or(name)
}

/// A date-time of 2024 in UTC, different per seed.
fn date_time(seed: usize) -> String {
    let day = 1 + seed % 28;
    let half_hours = seed * 7 % 48;
    format!(
        "2024-03-{day:02}T{:02}:{:02}:00Z",
        half_hours / 2,
        (half_hours % 2) * 30
    )
}

fn string_value(name: &str, seed: usize) -> String {
    let n = name.to_ascii_lowercase();
    let ends = |s: &str| n.ends_with(s);
    if ends("_at")
        || ends("datetime")
        || ends("timestamp")
        || n == "occurred_at"
        || ends("_from")
        || ends("_to")
        || matches!(
            n.as_str(),
            "start" | "end" | "begin" | "period_start" | "period_end" | "rebill_from"
        )
    {
        return date_time(seed);
    }
    if ends("_date") || ends("_on") || n == "date" || n.contains("expiry_date") || ends("ssd") {
        return format!("2024-04-{:02}", 1 + seed % 28);
    }
    if n.contains("email") {
        return "jane.doe@example.com".to_owned();
    }
    let fixed = match n.as_str() {
        "account_number" | "linked_account_number" => "A-1B2C3D4E",
        "mpan" | "import_mpan" | "export_mpan" => "1200012345678",
        "mprn" => "7512345606",
        "cups" => "ES0021000000000000AA",
        "postcode" => "SW1A 1AA",
        "product_code" => "AGILE-24-10-01",
        "tariff_code" => "E-1R-AGILE-24-10-01-H",
        "market_name" | "market" => "GB_ELECTRICITY",
        "brand" | "brand_code" => "OCTOPUS_ENERGY",
        "currency" => "GBP",
        "channel" => "EMAIL",
        "status" | "new_status" | "issue_status" | "stage" => "ACTIVE",
        "previous_status" => "PENDING",
        "fuel" | "utility" => "ELECTRICITY",
        "user_number" | "account_user_number" | "latest_contacted_account_user_number" => {
            "U-9A8B7C6D"
        }
        "rel" => "self",
        "method" => "GET",
        "direction" => "IMPORT",
        "payment_method" => "DIRECT_DEBIT",
        _ => "",
    };
    if !fixed.is_empty() {
        return fixed.to_owned();
    }
    if ends("uuid") {
        return format!("6f1c2d3e-4b5a-4c6d-8e7f-{:012x}", 0x1234_5678 + seed);
    }
    if ends("_number")
        || ends("_identifier")
        || ends("_reference")
        || n == "number"
        || n == "identifier"
    {
        return format!("{}-{:05}", initials(&n), 10_000 + seed);
    }
    if ends("_id") || n == "id" {
        return format!("{}_{:04}", n.trim_end_matches("_id"), 1000 + seed);
    }
    if ends("_type")
        || n == "type"
        || n == "subtype"
        || ends("_code")
        || n == "code"
        || ends("_reason")
        || n == "reason"
    {
        return name
            .trim_end_matches("_type")
            .trim_end_matches("_code")
            .to_ascii_uppercase();
    }
    format!("sample {}", name.replace('_', " "))
}

fn initials(name: &str) -> String {
    let letters: String = name.split('_').filter_map(|w| w.chars().next()).collect();
    letters.to_ascii_uppercase()
}

fn int_value(name: &str, seed: usize) -> i64 {
    let n = name.to_ascii_lowercase();
    let seed = i64::try_from(seed).unwrap_or(0);
    if n.ends_with("year") {
        2019
    } else if n.contains("count") || n == "digits" || n.ends_with("_digits") {
        5
    } else if n.contains("amount") || n.contains("value") || n.contains("reading") {
        2_500 + seed
    } else if n.contains("soc") {
        80
    } else if n == "power" || n.contains("capacity") || n.contains("rating") {
        7_400
    } else if n.contains("days") {
        30
    } else {
        100_000 + seed * 37
    }
}

fn num_value(name: &str, seed: usize) -> f64 {
    let n = name.to_ascii_lowercase();
    let seed = i32::try_from(seed % 100).unwrap_or(0);
    // A ratio of integers: the nearest double to the decimal, which prints as that decimal (`1.0255`),
    // where a sum of floats would print `1.0254999999999999`.
    if n.contains("priority") {
        f64::from(75 + seed) / 100.0
    } else if n.contains("vat") {
        f64::from(-25 + 10 * seed) / 10.0
    } else {
        f64::from(10_225 + 10 * seed) / 10_000.0
    }
}

fn bool_value(name: &str) -> bool {
    // Stable across runs and platforms: a sum of bytes, not a hasher.
    name.bytes().map(u32::from).sum::<u32>() % 2 == 0
}

fn obj_value(name: &str) -> Value {
    match name {
        "changes" => json!({"email": ["old@example.com", "new@example.com"]}),
        "legal_address" => json!({"line_1": "10 Downing Street", "postcode": "SW1A 2AA"}),
        "owner" | "actor" => json!({"type": "SUPPORT_USER", "id": 42}),
        _ => json!({"source": "sample", "attempt": 1, "tags": ["a", "b"]}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_follow_field_names() {
        assert_eq!(string_value("account_number", 0), "A-1B2C3D4E");
        assert!(string_value("occurred_at", 3).ends_with('Z'));
        assert_eq!(string_value("supply_start_date", 0), "2024-04-01");
        assert_eq!(int_value("manufactured_year", 0), 2019);
        assert_eq!(date_time(0), "2024-03-01T00:00:00Z");
    }
}

//! The documents agree with the Rust types, because both come from one model: what the generated Rust
//! types produce validates against the schemas of the emitted AsyncAPI and OpenAPI documents and of the
//! per-version JSON Schema files, and what they reject the schemas reject too.
//!
//! - every one of the 288 event versions: sample payloads (optional fields present, and absent) decoded
//!   into the generated Rust values, serialised again, validated against the version's payload schema
//!   in `asyncapi.yaml` and against `schemas/events/<id>.json`;
//! - every REST resource the same way against `openapi.yaml`, and the real API responses of
//!   `tests/fixtures/real-responses/` against the schema of their endpoint's response;
//! - mutations (each required field removed, each field given a value of the wrong type, a required field
//!   of a nested shared type removed) rejected by the Rust decoder and by every schema.
//!
//! The schemas are validated with formats asserted (`date-time`, `uri`), so the documents' formats agree
//! with `jiff::Timestamp` too. The AsyncAPI schemas are read as JSON Schema draft-07 (AsyncAPI 3.0's
//! schema format is a draft-07 superset); the OpenAPI 3.1 schemas and the files as draft 2020-12.

use energy_api::Event;
use energy_api::rest::{self, Endpoint};
use energy_codegen::{Field, Format, Model, Struct, Type};
use energy_codegen::{Optionals, event_payload, resource_value};
use jsonschema::{Draft, Registry, Validator};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

fn model() -> Model {
    energy_codegen::build_model(&energy_tests::schema_dir()).expect("the real schema is valid")
}

fn read_generated(relative: &str) -> String {
    let path = energy_tests::generated_dir().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A YAML document as JSON.
fn yaml_document(text: &str) -> Value {
    serde_saphyr::from_str(text).expect("the document is valid YAML")
}

/// A document's schemas, by JSON pointer, with formats asserted and no network.
struct Document {
    registry: Registry<'static>,
    uri: &'static str,
    draft: Draft,
}

impl Document {
    fn new(uri: &'static str, contents: Value, draft: Draft) -> Self {
        let registry = Registry::new()
            .draft(draft)
            .add(uri, contents)
            .and_then(|b| b.prepare())
            .expect("the document is a valid resource");
        Document {
            registry,
            uri,
            draft,
        }
    }

    /// A validator of the schema at `pointer` (`#/components/schemas/Link`).
    fn validator(&self, pointer: &str) -> Validator {
        jsonschema::options()
            .with_draft(self.draft)
            .should_validate_formats(true)
            .with_registry(&self.registry)
            .build(&json!({"$ref": format!("{}{pointer}", self.uri)}))
            .unwrap_or_else(|e| panic!("{}{pointer} does not compile: {e}", self.uri))
    }
}

fn errors(validator: &Validator, value: &Value) -> Vec<String> {
    validator
        .iter_errors(value)
        .map(|e| format!("at `{}`: {e}", e.instance_path()))
        .collect()
}

/// `asyncapi.yaml` as JSON, and its schemas (read as draft-07, AsyncAPI 3.0's schema format).
fn asyncapi_document() -> (Value, Document) {
    let asyncapi = yaml_document(&read_generated("asyncapi.yaml"));
    let document = Document::new(
        "json-schema:///asyncapi.yaml",
        asyncapi.clone(),
        Draft::Draft7,
    );
    (asyncapi, document)
}

/// A value of the wrong JSON type for a field (or, for a date-time, a string that is none).
fn wrong_value(f: &Field) -> Value {
    match &f.ty {
        Type::Str if f.format == Some(Format::DateTime) => json!("the day after tomorrow"),
        Type::Str => json!(12345),
        Type::Int => json!("12345"),
        Type::Num => json!("1.5"),
        Type::Bool => json!("true"),
        Type::Obj | Type::Array(_) | Type::Map(_) | Type::Named(_) | Type::Param(_) => {
            json!("a string")
        }
    }
}

/// Mutations of a sample object, each with what it does: every required field removed (a nullable one
/// only where `null` is not the Rust default), every field of the wrong type, and a required field of a
/// nested struct removed.
fn mutations(
    sample: &Value,
    s: &Struct,
    nested: &dyn Fn(&str) -> Option<Struct>,
) -> Vec<(String, Value)> {
    let Value::Object(map) = sample else {
        return vec![("a string instead of the object".to_owned(), json!("x"))];
    };
    let mut out = Vec::new();
    for f in &s.fields {
        if !map.contains_key(&f.name) {
            continue;
        }
        if !f.optional && !f.nullable {
            let mut m = map.clone();
            m.remove(&f.name);
            out.push((format!("`{}` removed", f.name), Value::Object(m)));
        }
        let mut m = map.clone();
        m.insert(f.name.clone(), wrong_value(f));
        out.push((format!("`{}` of the wrong type", f.name), Value::Object(m)));
        if let Type::Named(r) = &f.ty
            && let Some(inner) = nested(&r.name)
            && let Some(Value::Object(inner_map)) = map.get(&f.name)
            && let Some(required) = inner
                .fields
                .iter()
                .find(|g| !g.optional && !g.nullable && inner_map.contains_key(&g.name))
        {
            let mut inner_map = inner_map.clone();
            inner_map.remove(&required.name);
            let mut m = map.clone();
            m.insert(f.name.clone(), Value::Object(inner_map));
            out.push((
                format!("`{}.{}` removed", f.name, required.name),
                Value::Object(m),
            ));
        }
    }
    out
}

#[test]
fn the_embedded_documents_are_the_generated_files() {
    assert_eq!(energy_api::OPENAPI_YAML, read_generated("openapi.yaml"));
    assert_eq!(energy_api::ASYNCAPI_YAML, read_generated("asyncapi.yaml"));
    assert!(energy_api::OPENAPI_YAML.starts_with("# @generated by `cargo xtask codegen`"));
    let asyncapi = yaml_document(energy_api::ASYNCAPI_YAML);
    assert_eq!(asyncapi["asyncapi"], "3.0.0");
    assert_eq!(yaml_document(energy_api::OPENAPI_YAML)["openapi"], "3.1.0");
}

#[test]
fn every_event_version_agrees_with_its_schemas() {
    let model = model();
    let asyncapi = yaml_document(&read_generated("asyncapi.yaml"));
    let messages = asyncapi["components"]["messages"]
        .as_object()
        .expect("messages")
        .clone();
    let document = Document::new("json-schema:///asyncapi.yaml", asyncapi, Draft::Draft7);
    let files = energy_tests::generated_schema_files();
    let shared = |name: &str| model.shared_type(name).cloned();
    let mut versions = 0;
    let mut payloads = 0;
    let mut rejected = 0;
    let mut failures = Vec::new();
    for (_, event) in model.events() {
        for v in &event.versions {
            versions += 1;
            assert!(
                messages.contains_key(&v.id),
                "no message `{}` in asyncapi.yaml",
                v.id
            );
            let in_document =
                document.validator(&format!("#/components/messages/{}/payload", v.id));
            let path = energy_codegen::emit::jsonschema::path(v);
            let file: Value =
                serde_json::from_str(&read_generated(&path)).expect("schema files are JSON");
            assert_eq!(
                file["$schema"],
                "https://json-schema.org/draft/2020-12/schema"
            );
            let in_file = files.validator(&path);
            let schemas = [
                ("asyncapi.yaml", &in_document),
                ("the JSON Schema file", &in_file),
            ];

            for optionals in [Optionals::All, Optionals::None] {
                let sample = event_payload(&model, v, optionals);
                let bytes = serde_json::to_vec(&sample).expect("samples serialise");
                let decoded = match Event::decode(&event.name, &v.label, &bytes) {
                    Ok(decoded) => decoded,
                    Err(e) => {
                        failures.push(format!("{} ({optionals:?}) does not decode: {e}", v.id));
                        continue;
                    }
                };
                let serialised: Value = serde_json::from_slice(&decoded.to_payload_json())
                    .expect("payload JSON parses");
                for (name, schema) in schemas {
                    let found = errors(schema, &serialised);
                    if !found.is_empty() {
                        failures.push(format!(
                            "{} ({optionals:?}) from Rust, against {name}: {}",
                            v.id,
                            found.join("; ")
                        ));
                    }
                }
                payloads += 1;
            }

            let sample = event_payload(&model, v, Optionals::All);
            for (what, mutated) in mutations(&sample, &v.payload, &shared) {
                let bytes = serde_json::to_vec(&mutated).expect("mutations serialise");
                if Event::decode(&event.name, &v.label, &bytes).is_ok() {
                    failures.push(format!("{} with {what}: the Rust decoder accepts it", v.id));
                }
                for (name, schema) in schemas {
                    if schema.is_valid(&mutated) {
                        failures.push(format!("{} with {what}: {name} accepts it", v.id));
                    }
                }
                rejected += 1;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{versions} versions, {payloads} payloads, {rejected} mutations rejected");
    assert_eq!(versions, 288, "every event version of the catalogue");
    assert_eq!(payloads, 2 * 288);
    assert!(
        rejected > 2 * 288,
        "at least two mutations per version on average, found {rejected}"
    );
}

/// Decodes a JSON value into `T` and serialises it again.
fn through<T: DeserializeOwned + Serialize>(value: &Value) -> Result<Value, String> {
    let typed: T = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
    serde_json::to_value(&typed).map_err(|e| e.to_string())
}

type Through = fn(&Value) -> Result<Value, String>;

/// The Rust type of every non-generic resource, and of each page the endpoints return.
fn resource_types() -> Vec<(&'static str, Through)> {
    vec![
        ("Account", through::<rest::Account>),
        ("Agreement", through::<rest::Agreement>),
        ("AnnualCost", through::<rest::AnnualCost>),
        ("ApiError", through::<rest::ApiError>),
        (
            "DualFuelDualRateConsumption",
            through::<rest::DualFuelDualRateConsumption>,
        ),
        (
            "DualFuelSingleRateConsumption",
            through::<rest::DualFuelSingleRateConsumption>,
        ),
        ("DualRateConsumption", through::<rest::DualRateConsumption>),
        ("DualRegisterTariff", through::<rest::DualRegisterTariff>),
        ("ElectricityMeter", through::<rest::ElectricityMeter>),
        (
            "ElectricityMeterPoint",
            through::<rest::ElectricityMeterPoint>,
        ),
        ("GasMeter", through::<rest::GasMeter>),
        ("GasMeterPoint", through::<rest::GasMeterPoint>),
        ("Link", through::<rest::Link>),
        ("Property", through::<rest::Property>),
        ("Register", through::<rest::Register>),
        ("SampleConsumption", through::<rest::SampleConsumption>),
        ("SampleQuote", through::<rest::SampleQuote>),
        (
            "SingleRateConsumption",
            through::<rest::SingleRateConsumption>,
        ),
        (
            "SingleRegisterTariff",
            through::<rest::SingleRegisterTariff>,
        ),
        ("Product", through::<rest::Product>),
        ("ProductDetail", through::<rest::ProductDetail>),
        ("StandardUnitRate", through::<rest::StandardUnitRate>),
        ("ProductPage", through::<rest::Page<rest::Product>>),
        (
            "StandardUnitRatePage",
            through::<rest::Page<rest::StandardUnitRate>>,
        ),
    ]
}

#[test]
fn every_rest_resource_agrees_with_its_schema() {
    let model = model();
    let rest_model = model.rest.as_ref().expect("the schema has a REST API");
    let openapi = yaml_document(&read_generated("openapi.yaml"));
    let schema_names: Vec<String> = openapi["components"]["schemas"]
        .as_object()
        .expect("schemas")
        .keys()
        .cloned()
        .collect();
    let document = Document::new("json-schema:///openapi.yaml", openapi, Draft::Draft202012);
    let types = resource_types();
    let mut covered: Vec<&str> = types.iter().map(|(n, _)| *n).collect();
    covered.sort_unstable();
    assert_eq!(
        covered, schema_names,
        "every schema of openapi.yaml has its Rust type in this test"
    );
    let resource = |name: &str| {
        rest_model
            .resources
            .iter()
            .find(|r| r.name == name)
            .cloned()
    };
    let mut failures = Vec::new();
    let mut rejected = 0;
    for (name, through) in types {
        let validator = document.validator(&format!("#/components/schemas/{name}"));
        // A page is the generic envelope applied to the record type its name starts with.
        let (s, arg) = match name.strip_suffix("Page") {
            Some(item) => (
                resource("Page").expect("Page"),
                Some(Type::Named(energy_codegen::NamedRef {
                    id: energy_codegen::TypeId::Resource(
                        rest_model
                            .resources
                            .iter()
                            .position(|r| r.name == item)
                            .expect("the record type is a resource"),
                    ),
                    name: item.to_owned(),
                    arg: None,
                })),
            ),
            None => (resource(name).expect("a resource"), None),
        };
        for optionals in [Optionals::All, Optionals::None] {
            let sample = resource_value(&model, &s, arg.as_ref(), optionals);
            match through(&sample) {
                Ok(serialised) => {
                    let found = errors(&validator, &serialised);
                    if !found.is_empty() {
                        failures.push(format!("{name} ({optionals:?}): {}", found.join("; ")));
                    }
                }
                Err(e) => failures.push(format!("{name} ({optionals:?}) does not decode: {e}")),
            }
        }
        let sample = resource_value(&model, &s, arg.as_ref(), Optionals::All);
        for (what, mutated) in mutations(&sample, &s, &resource) {
            if through(&mutated).is_ok() {
                failures.push(format!("{name} with {what}: the Rust decoder accepts it"));
            }
            if validator.is_valid(&mutated) {
                failures.push(format!("{name} with {what}: openapi.yaml accepts it"));
            }
            rejected += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{rejected} mutations of REST resources rejected");
    assert!(
        rejected >= 40,
        "mutations of every resource, found {rejected}"
    );
}

/// The response schema of an endpoint in the OpenAPI document, and its Rust response type.
fn check_responses<E>(
    openapi: &Value,
    document: &Document,
    fixtures: &[&str],
    failures: &mut Vec<String>,
) where
    E: Endpoint,
    E::Response: Serialize,
{
    let operation = &openapi["paths"][E::PATH_TEMPLATE][E::METHOD.as_str().to_ascii_lowercase()];
    assert_eq!(
        operation["operationId"],
        E::OPERATION,
        "{} {}",
        E::METHOD.as_str(),
        E::PATH_TEMPLATE
    );
    assert_eq!(
        operation["security"].as_array().is_some_and(Vec::is_empty),
        !E::AUTH_REQUIRED,
        "{}: `security: []` exactly on the public endpoints",
        E::OPERATION
    );
    let target = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
        .as_str()
        .unwrap_or_else(|| panic!("{}: the response refers to a schema", E::OPERATION));
    let validator = document.validator(target);
    for fixture in fixtures {
        let path = energy_tests::fixture(&format!("real-responses/{fixture}"));
        let text = std::fs::read_to_string(&path).expect("fixture");
        let raw: Value = serde_json::from_str(&text).expect("fixtures are JSON");
        let found = errors(&validator, &raw);
        if !found.is_empty() {
            failures.push(format!("{fixture} as sent: {}", found.join("; ")));
        }
        match serde_json::from_str::<E::Response>(&text) {
            Ok(typed) => {
                let serialised = serde_json::to_value(&typed).expect("responses serialise");
                let found = errors(&validator, &serialised);
                if !found.is_empty() {
                    failures.push(format!("{fixture} from Rust: {}", found.join("; ")));
                }
            }
            Err(e) => failures.push(format!("{fixture} does not decode: {e}")),
        }
    }
}

#[test]
fn real_responses_agree_with_their_endpoints_schemas() {
    let openapi = yaml_document(&read_generated("openapi.yaml"));
    let document = Document::new(
        "json-schema:///openapi.yaml",
        openapi.clone(),
        Draft::Draft202012,
    );
    let mut failures = Vec::new();
    check_responses::<rest::ListProducts>(
        &openapi,
        &document,
        &[
            "products_list_1.json",
            "products_list_2.json",
            "products_list_3.json",
        ],
        &mut failures,
    );
    check_responses::<rest::GetProduct>(
        &openapi,
        &document,
        &[
            "product_detail_1.json",
            "product_detail_2.json",
            "product_detail_3.json",
            "product_detail_4.json",
        ],
        &mut failures,
    );
    check_responses::<rest::ListStandardUnitRates>(
        &openapi,
        &document,
        &[
            "standard_unit_rates_1.json",
            "standard_unit_rates_2.json",
            "standard_unit_rates_3.json",
            "standard_unit_rates_4.json",
            "day_unit_rates_1.json",
        ],
        &mut failures,
    );
    check_responses::<rest::GetAccount>(
        &openapi,
        &document,
        &["account_1.json", "account_2.json"],
        &mut failures,
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_real_response_with_a_broken_field_is_rejected_by_both() {
    let openapi = yaml_document(&read_generated("openapi.yaml"));
    let document = Document::new("json-schema:///openapi.yaml", openapi, Draft::Draft202012);
    let page = document.validator("#/components/schemas/StandardUnitRatePage");
    let text = std::fs::read_to_string(energy_tests::fixture(
        "real-responses/standard_unit_rates_1.json",
    ))
    .expect("fixture");
    let mut value: Value = serde_json::from_str(&text).expect("JSON");
    assert!(page.is_valid(&value));
    value["results"][0]["valid_from"] = json!("2021-13-45T25:00:00Z");
    assert!(!page.is_valid(&value), "an impossible date-time");
    assert!(through::<rest::Page<rest::StandardUnitRate>>(&value).is_err());
    value["results"][0]["valid_from"] = json!("2021-03-01T00:00:00Z");
    value["results"][0]
        .as_object_mut()
        .expect("a rate")
        .remove("value_inc_vat");
    assert!(
        !page.is_valid(&value),
        "a required field of a record removed"
    );
    assert!(through::<rest::Page<rest::StandardUnitRate>>(&value).is_err());
}

/// A schema with its references and identification made comparable: `#/components/schemas/Ledger`,
/// `../types/Ledger.json` and `Ledger.json` all become `Ledger`; `$comment`, `$schema`, `$id` and
/// `title` (a file's identification) are left out.
fn comparable(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "$comment" | "$schema" | "$id" | "title"))
                .map(|(k, v)| match (k.as_str(), v) {
                    ("$ref", Value::String(target)) => {
                        let name = target.rsplit('/').next().unwrap_or(target);
                        (k.clone(), json!(name.trim_end_matches(".json")))
                    }
                    _ => (k.clone(), comparable(v)),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(comparable).collect()),
        other => other.clone(),
    }
}

/// The JSON Schema files and the AsyncAPI document's schemas are one set of schemas: a file per
/// component schema, named alike (the file's `title` is the component's key), structurally equal; every
/// message's payload is the schema of its version's Rust type, which for a version whose payload is a
/// shared type is `allOf` that type.
#[test]
fn the_json_schema_files_are_the_asyncapi_schemas() {
    let model = model();
    let asyncapi = yaml_document(&read_generated("asyncapi.yaml"));
    let components = asyncapi["components"]["schemas"]
        .as_object()
        .expect("component schemas");
    let file = |path: &str| -> Value {
        serde_json::from_str(&read_generated(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let mut compared = Vec::new();
    for t in &model.shared_types {
        compared.push((
            t.name.clone(),
            energy_codegen::emit::jsonschema::type_path(&t.name),
        ));
    }
    for (name, _) in energy_codegen::emit::bus::schemas() {
        compared.push((
            name.to_owned(),
            format!("{}/{name}.json", energy_codegen::emit::bus::DIR),
        ));
    }
    let mut aliases = 0;
    for (_, event) in model.events() {
        for v in &event.versions {
            let path = energy_codegen::emit::jsonschema::path(v);
            let name = &v.payload.rust_name;
            if let Some(shared) = &v.alias_of {
                let expected = json!([{"$ref": shared.name}]);
                assert_eq!(comparable(&components[name])["allOf"], expected, "{}", v.id);
                aliases += 1;
            }
            let payload = &asyncapi["components"]["messages"][&v.id]["payload"];
            assert_eq!(comparable(payload), json!({"$ref": name}), "{}", v.id);
            compared.push((name.clone(), path));
        }
    }
    let mut names: Vec<&str> = compared.iter().map(|(name, _)| name.as_str()).collect();
    names.sort_unstable();
    let keys: Vec<&str> = components.keys().map(String::as_str).collect();
    assert_eq!(
        names, keys,
        "a file for every component schema and no other"
    );
    for (name, path) in &compared {
        let f = file(path);
        assert_eq!(f["title"], json!(name), "{path} is titled as its component");
        assert_eq!(
            comparable(&f),
            comparable(&components[name]),
            "{path} and components/schemas/{name} differ"
        );
    }
    assert_eq!(
        aliases, 4,
        "the versions whose payload is `DisputedClosingReading`"
    );
    assert_eq!(
        compared.len(),
        48 + 3 + 288,
        "the shared types, the bus's three and every version"
    );
}

/// `int` is `i64` in the crate, and the documents bound every integer to its range: within it both the
/// crate and the schemas accept, outside it both reject. JSON Schema cannot refuse `12.0` or `1e3` for
/// an integer (its data model has one kind of number) while the crate does, so every integer's
/// description says so.
#[test]
fn integers_are_bounded_alike_and_their_refused_forms_are_stated() {
    let model = model();
    let (asyncapi, document) = asyncapi_document();
    let files = energy_tests::generated_schema_files();
    let (event, v, field) = model
        .events()
        .flat_map(|(_, e)| e.versions.iter().map(move |v| (e, v)))
        .find_map(|(e, v)| {
            let f = v
                .payload
                .fields
                .iter()
                .find(|f| f.ty == Type::Int && !f.optional)?;
            Some((e, v, f))
        })
        .expect("a version with a required integer field");
    let in_document = document.validator(&format!("#/components/messages/{}/payload", v.id));
    let in_file = files.validator(&energy_codegen::emit::jsonschema::path(v));
    let sample = serde_json::to_string(&event_payload(&model, v, Optionals::All)).expect("JSON");
    let current = format!(
        "\"{}\":{}",
        field.name,
        event_payload(&model, v, Optionals::All)[&field.name]
    );
    assert!(sample.contains(&current), "{sample} has {current}");
    let with = |number: &str| sample.replace(&current, &format!("\"{}\":{number}", field.name));
    let cases = [
        ("-9223372036854775808", true, true),
        ("9223372036854775807", true, true),
        ("0", true, true),
        ("9223372036854775808", false, false),
        ("18446744073709551616", false, false),
        ("-18446744073709551616", false, false),
        ("1e19", false, false),
        // The forms JSON Schema reads as integers and the crate refuses: stated, not enforced.
        ("12.0", false, true),
        ("1e3", false, true),
    ];
    for (number, rust_accepts, schemas_accept) in cases {
        let text = with(number);
        let decoded = Event::decode(&event.name, &v.label, text.as_bytes());
        assert_eq!(
            decoded.is_ok(),
            rust_accepts,
            "the crate on {text}: {decoded:?}"
        );
        let value: Value = serde_json::from_str(&text).expect("JSON");
        for (name, validator) in [("asyncapi.yaml", &in_document), ("the file", &in_file)] {
            assert_eq!(
                validator.is_valid(&value),
                schemas_accept,
                "{name} on {number}"
            );
        }
    }
    // Every integer schema of every document carries the bounds and the statement.
    let openapi = yaml_document(&read_generated("openapi.yaml"));
    let mut integers = 0;
    let mut check = |schema: &Value, at: &str| {
        visit(schema, "", &mut |key, node| {
            let is_integer = node["type"] == "integer"
                || node["type"]
                    .as_array()
                    .is_some_and(|t| t.contains(&json!("integer")));
            if is_integer {
                integers += 1;
                // A parameter's rules (`page_size`: 1 to 1000) and a header's (`Retry-After` ≥ 0)
                // narrow the bounds; every integer states both.
                assert!(node["minimum"].as_i64().is_some(), "{at}: {node}");
                assert!(node["maximum"].as_i64().is_some(), "{at}: {node}");
                // The items of an array of integers are described by the array, the schema of a
                // parameter by the parameter.
                let description = node["description"].as_str().unwrap_or_default();
                assert!(
                    key == "items"
                        || key == "schema"
                        || description.contains(energy_codegen::emit::INTEGER_NOTE),
                    "{at}: {node}"
                );
            }
        });
    };
    check(&asyncapi, "asyncapi.yaml");
    check(&openapi, "openapi.yaml");
    for (_, e) in model.events() {
        for v in &e.versions {
            let path = energy_codegen::emit::jsonschema::path(v);
            check(
                &serde_json::from_str(&read_generated(&path)).expect("JSON"),
                &path,
            );
        }
    }
    assert!(integers > 400, "{integers} integer schemas");
}

/// Calls `f` on every object of a JSON tree, with the key it is the value of (`""` in an array).
fn visit(value: &Value, key: &str, f: &mut dyn FnMut(&str, &Value)) {
    match value {
        Value::Object(map) => {
            f(key, value);
            map.iter().for_each(|(k, v)| visit(v, k, f));
        }
        Value::Array(items) => items.iter().for_each(|v| visit(v, "", f)),
        _ => {}
    }
}

/// Every example of the documents is built from the model's sample data and validates against its own
/// schema: each AsyncAPI message's payload example against the message's payload schema and the
/// version's JSON Schema file, and decodes with the Rust types to the same JSON; each OpenAPI response
/// example against its response schema, and decodes with the resource's Rust type; each parameter
/// example against the parameter's schema.
#[test]
fn every_example_validates_against_its_own_schema() {
    let (asyncapi, document) = asyncapi_document();
    let files = energy_tests::generated_schema_files();
    let model = model();
    let mut failures = Vec::new();
    let mut message_examples = 0;
    for (_, event) in model.events() {
        for v in &event.versions {
            let message = &asyncapi["components"]["messages"][&v.id];
            let examples = message["examples"].as_array().cloned().unwrap_or_default();
            if examples.is_empty() {
                failures.push(format!("message {} has no example", v.id));
            }
            let in_document =
                document.validator(&format!("#/components/messages/{}/payload", v.id));
            let in_file = files.validator(&energy_codegen::emit::jsonschema::path(v));
            let headers = document.validator(&format!("#/components/messages/{}/headers", v.id));
            for example in examples {
                message_examples += 1;
                let found = errors(&headers, &example["headers"]);
                if example["headers"].is_null() || !found.is_empty() {
                    failures.push(format!("{} example headers: {}", v.id, found.join("; ")));
                }
                if example["headers"]["ce-type"] != event.name.as_str()
                    || example["headers"]["ce-dataversion"] != v.label.as_str()
                {
                    failures.push(format!("{} example headers name another event", v.id));
                }
                let payload = &example["payload"];
                for (name, validator) in [("asyncapi.yaml", &in_document), ("its file", &in_file)] {
                    let found = errors(validator, payload);
                    if !found.is_empty() {
                        failures.push(format!("{} example, {name}: {}", v.id, found.join("; ")));
                    }
                }
                let bytes = serde_json::to_vec(payload).expect("JSON");
                match Event::decode(&event.name, &v.label, &bytes) {
                    Ok(decoded) => {
                        let again: Value = serde_json::from_slice(&decoded.to_payload_json())
                            .expect("payload JSON");
                        if &again != payload {
                            failures.push(format!("{} example changes through Rust", v.id));
                        }
                    }
                    Err(e) => failures.push(format!("{} example does not decode: {e}", v.id)),
                }
            }
        }
    }

    let openapi = yaml_document(&read_generated("openapi.yaml"));
    let rest_document = Document::new(
        "json-schema:///openapi.yaml",
        openapi.clone(),
        Draft::Draft202012,
    );
    let types = resource_types();
    let mut response_examples = 0;
    let mut parameter_examples = 0;
    let mut check_content = |at: String, content: &Value, failures: &mut Vec<String>| {
        let media = &content["application/json"];
        let target = media["schema"]["$ref"].as_str().unwrap_or_default();
        let validator = rest_document.validator(target);
        let name = target.rsplit('/').next().unwrap_or_default();
        let through = types.iter().find(|(n, _)| *n == name).map(|(_, t)| *t);
        let examples = media["examples"].as_object().cloned().unwrap_or_default();
        if examples.is_empty() {
            failures.push(format!("{at} has no example"));
        }
        for (key, example) in examples {
            response_examples += 1;
            let value = &example["value"];
            let found = errors(&validator, value);
            if !found.is_empty() {
                failures.push(format!("{at} example {key}: {}", found.join("; ")));
            }
            match through.map(|t| t(value)) {
                Some(Ok(_)) => {}
                Some(Err(e)) => failures.push(format!("{at} example {key} does not decode: {e}")),
                None => failures.push(format!("{at}: no Rust type for `{name}`")),
            }
        }
    };
    for (path, item) in openapi["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("path item") {
            let at = format!("{method} {path}");
            check_content(
                format!("{at} 200"),
                &operation["responses"]["200"]["content"],
                &mut failures,
            );
            for parameter in operation["parameters"]
                .as_array()
                .cloned()
                .unwrap_or_default()
            {
                parameter_examples += 1;
                let name = parameter["name"].as_str().unwrap_or_default();
                let validator = jsonschema::options()
                    .with_draft(Draft::Draft202012)
                    .should_validate_formats(true)
                    .build(&parameter["schema"])
                    .expect("a parameter schema compiles");
                match parameter.get("example") {
                    None => failures.push(format!("{at}: parameter {name} has no example")),
                    Some(example) => {
                        let found = errors(&validator, example);
                        if !found.is_empty() {
                            failures.push(format!("{at}: parameter {name}: {}", found.join("; ")));
                        }
                    }
                }
            }
        }
    }
    check_content(
        "the Error response".to_owned(),
        &openapi["components"]["responses"]["Error"]["content"],
        &mut failures,
    );
    // The dead letter's example: its headers and payload against the message's schemas.
    let dead_letter = &asyncapi["components"]["messages"]["deadLetter"];
    for example in dead_letter["examples"]
        .as_array()
        .cloned()
        .unwrap_or_default()
    {
        for part in ["headers", "payload"] {
            let validator = document.validator(&format!("#/components/messages/deadLetter/{part}"));
            let found = errors(&validator, &example[part]);
            if example[part].is_null() || !found.is_empty() {
                failures.push(format!(
                    "the dead letter's example {part}: {}",
                    found.join("; ")
                ));
            }
        }
        message_examples += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        message_examples,
        288 + 1,
        "every version's, and the dead letter's"
    );
    assert_eq!(
        response_examples,
        4 + 1,
        "the four endpoints and the error response"
    );
    assert_eq!(
        parameter_examples,
        5 + 1 + 5 + 1,
        "every parameter of every endpoint"
    );
}

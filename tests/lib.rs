//! Shared helpers of the cross-crate tests: where the workspace, the schema and the fixtures are.
#![forbid(unsafe_code)]

use std::path::PathBuf;

// The helpers every test crate shares are in `energy-testkit`, under the names these tests know them by.
pub use energy_testkit::{
    SchemaFiles, copy_tree, fixture_path as fixture, generated_dir, generator_fixture, schema_dir,
    workspace as workspace_root,
};

/// The JSON Schema files of the checked-in crate (`generated/schemas/`), by the generator's `$id`s.
pub fn generated_schema_files() -> SchemaFiles {
    SchemaFiles::generated(energy_codegen::emit::jsonschema::id)
}

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The Rust examples of `docs/using-energy-api.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/using-energy-api.md")]
pub struct UsingEnergyApiDoctests;

/// The Rust examples of `docs/events-runtime.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/events-runtime.md")]
pub struct EventsRuntimeDoctests;

/// The Rust examples of `docs/event-bus.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/event-bus.md")]
pub struct EventBusDoctests;

/// The Rust examples of `docs/rest-client.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/rest-client.md")]
pub struct RestClientDoctests;

/// The Rust examples of `docs/consumer-contracts.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/consumer-contracts.md")]
pub struct ConsumerContractsDoctests;

/// One payload of the real catalogue: a sample of the model or a frozen golden case.
#[derive(Debug, Clone)]
pub struct CataloguePayload {
    /// The event type.
    pub event_type: String,
    /// The payload version.
    pub version: String,
    /// What it is, for messages: `account.created.v1 sample All`, `account.created.v1 golden realistic`.
    pub label: String,
    /// The payload.
    pub value: serde_json::Value,
}

/// Every sample payload of every version of the real catalogue (with every optional field, and with
/// none) and every golden case of `tests/golden/events/` whose version is still in the catalogue.
pub fn catalogue_payloads(model: &energy_codegen::Model) -> Vec<CataloguePayload> {
    use energy_codegen::{Optionals, event_payload};
    let mut out = Vec::new();
    let mut known = std::collections::BTreeMap::new();
    for (_, event) in model.events() {
        for version in &event.versions {
            known.insert(
                version.id.clone(),
                (event.name.clone(), version.label.clone()),
            );
            for optionals in [Optionals::All, Optionals::None] {
                out.push(CataloguePayload {
                    event_type: event.name.clone(),
                    version: version.label.clone(),
                    label: format!("{} sample {optionals:?}", version.id),
                    value: event_payload(model, version, optionals),
                });
            }
        }
    }
    let dir = workspace_root().join(energy_codegen::compat::GOLDEN_DIR);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a folder entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    for path in files {
        let id = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        // A version since retired keeps its golden payloads, but nothing reads it any more.
        let Some((event_type, version)) = known.get(&id) else {
            continue;
        };
        let text = std::fs::read_to_string(&path).expect("readable");
        let file: serde_json::Value = serde_json::from_str(&text).expect("a golden file is JSON");
        let Some(serde_json::Value::Object(cases)) = file.get("cases") else {
            panic!("{id}: no cases");
        };
        for (name, payload) in cases {
            out.push(CataloguePayload {
                event_type: event_type.clone(),
                version: version.clone(),
                label: format!("{id} golden {name}"),
                value: payload.clone(),
            });
        }
    }
    out
}

//! Shared helpers of the cross-crate tests: where the workspace, the schema and the fixtures are.
#![forbid(unsafe_code)]

use std::path::PathBuf;

// The helpers every test crate shares are in `energy-testkit`, under the names these tests know them by.
pub use energy_testkit::{
    copy_tree, copy_tree_in_order, fixture_path as fixture, workspace as workspace_root,
};

/// The real schema folder.
pub fn schema_dir() -> PathBuf {
    workspace_root().join("schema")
}

/// The checked-in `energy-api` crate.
pub fn generated_dir() -> PathBuf {
    workspace_root().join("generated")
}

/// The JSON Schema files of an output (`schemas/**/*.json`), each registered under its `$id`, so that the
/// `$ref`s between files resolve as a consumer's validator resolves them, without a network.
pub struct SchemaFiles {
    registry: jsonschema::Registry<'static>,
}

impl SchemaFiles {
    /// The files among `files` (path relative to `generated/`, contents) that are JSON Schemas.
    pub fn new<'f>(files: impl IntoIterator<Item = (&'f String, &'f String)>) -> Self {
        let mut builder = jsonschema::Registry::new().draft(jsonschema::Draft::Draft202012);
        for (path, text) in files {
            if !(path.starts_with("schemas/") && path.ends_with(".json")) {
                continue;
            }
            let schema: serde_json::Value =
                serde_json::from_str(text).unwrap_or_else(|e| panic!("{path}: {e}"));
            let id = energy_codegen::emit::jsonschema::id(path);
            assert_eq!(
                schema["$id"],
                id.as_str(),
                "{path}: its `$id` mirrors its path"
            );
            builder = builder.add(&id, schema).expect("a valid `$id`");
        }
        SchemaFiles {
            registry: builder.prepare().expect("the schema files resolve"),
        }
    }

    /// The checked-in files of `generated/schemas/`.
    pub fn generated() -> Self {
        let root = generated_dir();
        let mut files = std::collections::BTreeMap::new();
        let mut pending = vec![root.join("schemas")];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).expect("schemas folder") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    pending.push(path);
                } else {
                    let relative = path.strip_prefix(&root).expect("under generated/");
                    let relative = relative.to_string_lossy().replace('\\', "/");
                    files.insert(relative, std::fs::read_to_string(&path).expect("readable"));
                }
            }
        }
        SchemaFiles::new(&files)
    }

    /// A validator of the file at `path` (relative to `generated/`), with formats asserted.
    pub fn validator(&self, path: &str) -> jsonschema::Validator {
        let id = energy_codegen::emit::jsonschema::id(path);
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .with_registry(&self.registry)
            .build(&serde_json::json!({ "$ref": id }))
            .unwrap_or_else(|e| panic!("{path} does not compile: {e}"))
    }
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

/// Writes a generated crate as the member `name` of the scratch workspace `scratch`: renamed, and with
/// its `energy-api-core` dependency (the sibling folder `api-core` in this repository) made absolute.
pub fn write_scratch_crate(
    scratch: &std::path::Path,
    name: &str,
    mut files: std::collections::BTreeMap<String, String>,
) {
    let core = workspace_root().join("api-core");
    let manifest = files
        .get_mut("Cargo.toml")
        .expect("a manifest is generated");
    *manifest = manifest
        .replace("name = \"energy-api\"", &format!("name = \"{name}\""))
        .replace(
            "path = \"../api-core\"",
            &format!("path = \"{}\"", core.display()),
        );
    energy_codegen::write_files(&scratch.join(name), &files, false).expect("scratch crate written");
}

/// Makes `scratch` a workspace of the generated crates in `members` (folders under it), with this
/// workspace's locked dependency versions, and checks it with warnings denied.
pub fn check_scratch_workspace(scratch: &std::path::Path, members: &[String]) {
    let root = workspace_root();
    let manifest = format!(
        "[workspace]\nresolver = \"3\"\nmembers = [{}]\n",
        members.join(", ")
    );
    std::fs::write(scratch.join("Cargo.toml"), manifest).expect("scratch workspace written");
    std::fs::copy(root.join("Cargo.lock"), scratch.join("Cargo.lock")).expect("lock file copied");
    // Every feature: the borrowed views too.
    cargo_check(scratch, &["--workspace", "--all-features"]);
}

/// `cargo check` with warnings denied, in a target folder of its own (the running `cargo test` holds the
/// workspace's), shared by every such check so dependencies build once.
pub fn cargo_check(dir: &std::path::Path, args: &[&str]) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = std::process::Command::new(cargo)
        .current_dir(dir)
        .arg("check")
        .args(args)
        .args(["--offline", "--quiet"])
        .env("RUSTFLAGS", "-D warnings")
        .env(
            "CARGO_TARGET_DIR",
            workspace_root().join("target").join("scratch-check"),
        )
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "`cargo check {}` in {} fails:\n{}",
        args.join(" "),
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

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
    use energy_codegen::samples::{Optionals, event_payload};
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

//! `schemas/`: JSON Schema (draft 2020-12) files for consumers in other languages, one per event payload
//! version and one per shared type, so that a generator given the folder defines each type once.
//!
//! - `schemas/events/<id>.json` (`agreement.updated.v2.json`): the payload of one version; a version
//!   whose payload is a shared type is `allOf` that type's file;
//! - `schemas/types/<Name>.json` (`Ledger.json`): one shared type;
//! - `schemas/bus/<Name>.json`: the headers of events on the bus (`CloudEventHeaders.json`) and the
//!   dead letter's headers and body (`DeadLetterHeaders.json`, `DeadLetterPayload.json`);
//! - every file has an `$id` under [`ID_BASE`] that mirrors its path, its `title` is the Rust name
//!   (`AgreementUpdatedV2`, `Ledger`), and references are relative (`../types/Ledger.json`), so they
//!   resolve both by `$id` and by file path.
//!
//! The schemas are written as the AsyncAPI document's (`super::schema`, bare references), so the two are
//! structurally equal: the same schema once references and identifiers are mapped.

use super::schema::{Dialect, Schemas, version_description};
use super::tree::{Map, json_map_text, push_json_string, to_json};
use crate::model::{EventVersion, Model};
use std::collections::BTreeMap;

/// The folder of the payload files, relative to `generated/`.
pub const DIR: &str = "schemas/events";

/// The folder of the shared type files, relative to `generated/`.
pub const TYPES_DIR: &str = "schemas/types";

/// The dialect every file declares.
pub const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The base of every file's `$id` (a naming decision: [`crate::naming::SCHEMA_ID_BASE`]).
pub use crate::naming::SCHEMA_ID_BASE as ID_BASE;

/// References from a payload file to the shared types' folder.
const FROM_EVENTS: Schemas<'static> = Schemas {
    ref_prefix: "../types/",
    ref_suffix: ".json",
    dialect: Dialect::BareReferences,
};

/// References between shared type files, in one folder.
const FROM_TYPES: Schemas<'static> = Schemas {
    ref_prefix: "",
    ref_suffix: ".json",
    dialect: Dialect::BareReferences,
};

/// References inside a self-contained file, to its own `$defs`.
const BUNDLED: Schemas<'static> = Schemas {
    ref_prefix: "#/$defs/",
    ref_suffix: "",
    dialect: Dialect::BareReferences,
};

/// The folder of the self-contained payload files, relative to `generated/`: each version's schema
/// with the shared types it reaches under `$defs` and no reference outside itself, the form a schema
/// registry that stores one schema per subject takes. Beside `schemas/` rather than in it, so that a
/// generator given that folder still meets each type once.
pub const BUNDLED_DIR: &str = "schemas-bundled";

/// The path of a version's self-contained file, relative to `generated/`.
pub fn bundled_path(version: &EventVersion) -> String {
    format!("{BUNDLED_DIR}/{}.json", version.id)
}

/// The path of a version's file, relative to `generated/`.
pub fn path(version: &EventVersion) -> String {
    format!("{DIR}/{}.json", version.id)
}

/// The path of a shared type's file, relative to `generated/`.
pub fn type_path(name: &str) -> String {
    format!("{TYPES_DIR}/{name}.json")
}

/// The `$id` of the file at `path` (relative to `generated/`).
pub fn id(path: &str) -> String {
    let relative = path.strip_prefix("schemas/").unwrap_or(path);
    format!("{ID_BASE}{relative}")
}

/// The first members of every file: the generated header, the dialect, the identifier and the title.
fn root(path: &str, title: &str) -> Map {
    Map::new()
        .with("$comment", super::header_text())
        .with("$schema", DRAFT)
        .with("$id", id(path))
        .with("title", title)
}

/// Every event version's file and every shared type's file.
pub fn emit(model: &Model) -> Result<BTreeMap<String, String>, String> {
    let mut files = BTreeMap::new();
    let mut add = |path: String, text: String| {
        if files.insert(path.clone(), text).is_some() {
            return Err(format!("two schemas are written to `{path}`"));
        }
        Ok(())
    };
    for t in &model.shared_types {
        let path = type_path(&t.name);
        let schema = FROM_TYPES.struct_schema(t, &t.doc);
        add(
            path.clone(),
            to_json(&root(&path, &t.name).with_all(schema)),
        )?;
    }
    for (name, schema) in super::bus::schemas() {
        let path = format!("{}/{name}.json", super::bus::DIR);
        add(path.clone(), to_json(&root(&path, name).with_all(schema)))?;
    }
    // Each shared type's schema written once, as an entry of `$defs`, for every self-contained file
    // that reaches it.
    let defs: BTreeMap<&str, String> = model
        .shared_types
        .iter()
        .map(|t| {
            let schema = BUNDLED.struct_schema(t, &t.doc);
            (t.name.as_str(), json_map_text(&schema, 2))
        })
        .collect();
    for (_, event) in model.events() {
        for v in &event.versions {
            let path = path(v);
            let schema = FROM_EVENTS.payload_schema(v, &version_description(v));
            add(
                path.clone(),
                to_json(&root(&path, &v.payload.rust_name).with_all(schema)),
            )?;
            let path = bundled_path(v);
            add(path.clone(), bundled(model, &defs, v, &path))?;
        }
    }
    Ok(files)
}

/// A version's self-contained schema: its payload's, and under `$defs` every shared type it reaches
/// (their entries written once, in `defs`), as [`to_json`] writes the whole.
fn bundled(model: &Model, defs: &BTreeMap<&str, String>, v: &EventVersion, path: &str) -> String {
    let schema = BUNDLED.payload_schema(v, &version_description(v));
    let mut reached: std::collections::BTreeSet<&str> = model
        .shared_types_reached(&[&v.payload])
        .into_iter()
        .map(|t| t.name.as_str())
        .collect();
    if let Some(shared) = &v.alias_of {
        reached.insert(model.named(shared.id).name.as_str());
    }
    let mut text = to_json(&root(path, &v.payload.rust_name).with_all(schema));
    let entries: Vec<(&str, &String)> = reached
        .into_iter()
        .filter_map(|name| defs.get(name).map(|d| (name, d)))
        .collect();
    if entries.is_empty() {
        return text;
    }
    // The document's closing `\n}\n` gives way to one more member, `$defs`.
    text.truncate(text.len().saturating_sub(3));
    text.push_str(",\n  \"$defs\": {");
    for (i, (name, def)) in entries.into_iter().enumerate() {
        text.push_str(if i == 0 { "\n    " } else { ",\n    " });
        push_json_string(&mut text, name);
        text.push_str(": ");
        text.push_str(def);
    }
    text.push_str("\n  }\n}\n");
    text
}

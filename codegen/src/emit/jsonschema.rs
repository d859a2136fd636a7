//! `schemas/events/<type>.<version>.json`: one self-contained JSON Schema (draft 2020-12) per event
//! payload version, for consumers in other languages.
//!
//! The file is named by the version's stable id (`schemas/events/agreement.updated.v2.json`); the payload
//! is the root schema and the shared types it uses, directly or not, are under `$defs`. The mapping is the
//! AsyncAPI document's (`super::schema`), so the two agree.

use super::schema::{Dialect, Schemas, referenced_types, version_description};
use super::tree::{Map, to_json};
use crate::model::{EventVersion, Model};
use std::collections::BTreeMap;

/// The folder of the files, relative to `generated/`.
pub const DIR: &str = "schemas/events";

/// The dialect every file declares.
pub const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

const SCHEMAS: Schemas<'static> = Schemas {
    ref_prefix: "#/$defs/",
    dialect: Dialect::SiblingsAllowed,
};

/// The path of a version's file, relative to `generated/`.
pub fn path(version: &EventVersion) -> String {
    format!("{DIR}/{}.json", version.id)
}

/// Every event version's schema file.
pub fn emit(model: &Model) -> Result<BTreeMap<String, String>, String> {
    let mut files = BTreeMap::new();
    for (_, event) in model.events() {
        for v in &event.versions {
            let mut root = Map::new()
                .with("$comment", super::header_text())
                .with("$schema", DRAFT)
                .with("title", format!("{} {}", event.name, v.label))
                .with("description", version_description(v));
            let uses = match &v.alias_of {
                Some(shared) => {
                    root.set("$ref", format!("{}{}", SCHEMAS.ref_prefix, shared.name));
                    let t = model
                        .shared_type(&shared.name)
                        .ok_or_else(|| format!("unknown shared type `{}`", shared.name))?;
                    let mut all = referenced_types(model, &[t]);
                    if !all.iter().any(|s| s.name == t.name) {
                        all.push(t);
                        all.sort_by(|a, b| a.name.cmp(&b.name));
                    }
                    all
                }
                None => {
                    for (key, value) in SCHEMAS.object_schema(&v.payload, None).entries() {
                        root.set(key.as_str(), value.clone());
                    }
                    referenced_types(model, &[&v.payload])
                }
            };
            if !uses.is_empty() {
                let mut defs = Map::new();
                for t in uses {
                    defs.set(&t.name, SCHEMAS.struct_schema(t, &t.doc));
                }
                root.set("$defs", defs);
            }
            if files.insert(path(v), to_json(&root)).is_some() {
                return Err(format!("two event versions are written to `{}`", path(v)));
            }
        }
    }
    Ok(files)
}

//! `avro/`: an Avro schema (`.avsc`) per event payload version, for teams that share types through a
//! schema registry (Kafka) and generate their code from Avro.
//!
//! - `avro/<id>.avsc` (`agreement.updated.v2.avsc`): a record named as the payload's Rust type in the
//!   namespace [`EVENTS_NAMESPACE`] (`energy.events.AgreementUpdatedV2`); the shared types it reaches are
//!   records of [`TYPES_NAMESPACE`], each defined in full where it is first met (depth first, in field
//!   order) and named by its full name after that, so that each file stands alone (a registry stores one
//!   schema per subject);
//! - the first member is a `"$comment"` with the generated header (Avro allows attributes it does not
//!   define), then `type`, `name`, `namespace`, `doc` and `fields`;
//! - types: `str` → `string`, `int` → `long`, `num` → `double`, `bool` → `boolean`, `[T]` → `array`,
//!   `map<T>` → `map`, a shared type → its record; an optional field → `["null", T]` with
//!   `"default": null`; a renamed field has its former names as `aliases` (Avro's schema resolution
//!   then pairs them); date-times are strings, as the schema types them;
//! - a free-form object (`obj`) → a `string` holding the object's JSON text, and the field says so with
//!   the attribute [`JSON_ATTRIBUTE`] (every string inside the field's type is such a text: `[obj]` is
//!   an array of them); Avro has no type for "any JSON value" without a recursive record that no code
//!   generator makes usable, and the text loses nothing;
//! - a payload that keeps the members it does not list (`incomplete`) has a last field
//!   [`ADDITIONAL_FIELDS`], a `string` holding those members as the JSON text of an object (`"{}"` when
//!   there are none, the default), marked with [`JSON_ATTRIBUTE`] too.

use super::tree::{Map, Node, to_json};
use crate::model::{ADDITIONAL_FIELDS, EventVersion, Field, Model, Struct, Type, TypeId};
use std::collections::{BTreeMap, BTreeSet};

/// The folder of the files, relative to `generated/`.
pub const DIR: &str = "avro";

/// The namespace of the payload records.
pub const EVENTS_NAMESPACE: &str = "energy.events";

/// The namespace of the shared types' records.
pub const TYPES_NAMESPACE: &str = "energy.types";

/// The field attribute of a field whose strings are JSON texts (`"energy.json": "object"`).
pub const JSON_ATTRIBUTE: &str = "energy.json";

/// The path of a version's file, relative to `generated/`.
pub fn path(version: &EventVersion) -> String {
    format!("{DIR}/{}.avsc", version.id)
}

/// The full name of a version's record (`energy.events.AgreementUpdatedV2`).
pub fn record_name(version: &EventVersion) -> String {
    format!("{EVENTS_NAMESPACE}.{}", version.payload.rust_name)
}

/// Every event version's file.
pub fn emit(model: &Model) -> Result<BTreeMap<String, String>, String> {
    let mut files = BTreeMap::new();
    for (_, event) in model.events() {
        for v in &event.versions {
            let mut defined = BTreeSet::new();
            let record = Map::new()
                .with("$comment", super::header_text())
                .with_all(record(
                    model,
                    &v.payload,
                    &v.payload.rust_name,
                    EVENTS_NAMESPACE,
                    &super::schema::version_description(v),
                    &mut defined,
                ));
            if files.insert(path(v), to_json(&record)).is_some() {
                return Err(format!("two Avro schemas are written to `{}`", path(v)));
            }
        }
    }
    Ok(files)
}

/// A record of a struct's fields; `defined` holds the full names already defined in the file.
fn record(
    model: &Model,
    s: &Struct,
    name: &str,
    namespace: &str,
    doc: &str,
    defined: &mut BTreeSet<String>,
) -> Map {
    defined.insert(format!("{namespace}.{name}"));
    let mut fields: Vec<Node> = s
        .fields
        .iter()
        .map(|f| Node::Map(field(model, f, defined)))
        .collect();
    if s.incomplete || s.free_form {
        fields.push(Node::Map(
            Map::new()
                .with("name", ADDITIONAL_FIELDS)
                .with(
                    "doc",
                    "The members the schema does not list, as the JSON text of an object.",
                )
                .with("type", "string")
                .with("default", "{}")
                .with(JSON_ATTRIBUTE, "object"),
        ));
    }
    Map::new()
        .with("type", "record")
        .with("name", name)
        .with("namespace", namespace)
        .with_opt("doc", (!doc.is_empty()).then_some(doc))
        .with("fields", fields)
}

/// One field of a record.
fn field(model: &Model, f: &Field, defined: &mut BTreeSet<String>) -> Map {
    let ty = type_schema(model, &f.ty, defined);
    let mut out = Map::new().with("name", f.name.as_str());
    if let Some(doc) = super::schema::field_description(f) {
        out.set("doc", doc);
    }
    if f.is_option() {
        out.set("type", vec![Node::from("null"), ty]);
        out.set("default", Node::Null);
    } else {
        out.set("type", ty);
    }
    if !f.renamed_from.is_empty() {
        let aliases: Vec<Node> = f
            .renamed_from
            .iter()
            .map(|n| Node::from(n.as_str()))
            .collect();
        out.set("aliases", aliases);
    }
    if holds_obj(&f.ty) {
        out.set(JSON_ATTRIBUTE, "object");
    }
    out
}

/// The type holds free-form objects (directly or as items or values).
fn holds_obj(ty: &Type) -> bool {
    match ty {
        Type::Obj => true,
        Type::Array(inner) | Type::Map(inner) => holds_obj(inner),
        _ => false,
    }
}

/// The Avro schema of a value of `ty`.
fn type_schema(model: &Model, ty: &Type, defined: &mut BTreeSet<String>) -> Node {
    match ty {
        Type::Str | Type::Obj | Type::Param(_) => Node::from("string"),
        Type::Int => Node::from("long"),
        Type::Num => Node::from("double"),
        Type::Bool => Node::from("boolean"),
        Type::Array(inner) => Node::Map(
            Map::new()
                .with("type", "array")
                .with("items", type_schema(model, inner, defined)),
        ),
        Type::Map(value) => Node::Map(
            Map::new()
                .with("type", "map")
                .with("values", type_schema(model, value, defined)),
        ),
        Type::Named(r) => {
            let full = format!("{TYPES_NAMESPACE}.{}", r.name);
            if defined.contains(&full) {
                return Node::from(full);
            }
            let s = match r.id {
                TypeId::Shared(_) | TypeId::Resource(_) => model.named(r.id),
            };
            Node::Map(record(model, s, &r.name, TYPES_NAMESPACE, &s.doc, defined))
        }
    }
}

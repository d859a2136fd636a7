//! JSON Schema of the model's types, shared by the OpenAPI, AsyncAPI and JSON Schema emitters.
//!
//! One mapping for all three documents, so that they cannot disagree: `str` → `string` (with its
//! `format`), `int` → `integer`/`int64`, `num` → `number`/`double`, `bool` → `boolean`, `obj` → `object`
//! (any members), `[T]` → `array` of `T`, a named type → `$ref`, nullable → `type: [T, "null"]` (or
//! `oneOf` with `null` for a reference). Optional fields are left out of `required`. Every object accepts
//! members it does not list, as the Rust decoder does; an incomplete type says so and spells out
//! `additionalProperties: true`.

use super::tree::{Map, Node, reference};
use crate::model::{EventVersion, Field, NamedRef, Struct, Type};
pub(crate) use crate::naming::component_name;

/// The schema language a document uses, which decides how a described reference is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// OpenAPI 3.1 schemas and JSON Schema 2020-12: `$ref` may have sibling keywords.
    SiblingsAllowed,
    /// AsyncAPI 3.0 schemas (a JSON Schema draft-07 superset): siblings of `$ref` are ignored, so a
    /// described reference is written as `allOf: [{$ref}]` with the description beside it.
    Draft07,
}

/// How references to named types are written in one document.
pub struct Schemas<'a> {
    /// Prefix of a reference: `#/components/schemas/` or `#/$defs/`.
    pub ref_prefix: &'a str,
    /// The document's schema language.
    pub dialect: Dialect,
}

/// The description of a field as the documents show it: the schema's text, then where it came from.
pub fn field_description(f: &Field) -> Option<String> {
    let origin = f.origin.as_ref().map(|o| format!("From {o}."));
    match (&f.description, origin) {
        (Some(d), Some(o)) => Some(format!("{d} {o}")),
        (Some(d), None) => Some(d.clone()),
        (None, o) => o,
    }
}

/// The sentence an incomplete type's description ends with.
pub const INCOMPLETE_NOTE: &str = "Incomplete: the schema does not list every field of this type; \
     members it does not list occur and are allowed.";

impl Schemas<'_> {
    /// A `$ref` to a named type.
    pub fn reference(&self, r: &NamedRef) -> Map {
        reference(format!("{}{}", self.ref_prefix, component_name(r)))
    }

    /// The schema of a value of `ty`. `param` replaces the type parameter of a generic type (`{}`, any
    /// value, when `None`).
    pub fn type_schema(&self, ty: &Type, format: Option<&str>, param: Option<&Type>) -> Map {
        let scalar = |name: &str, format: Option<&str>| {
            Map::new()
                .with("type", name)
                .with_opt("format", format.map(str::to_owned))
        };
        match ty {
            Type::Str => scalar("string", format),
            Type::Int => scalar("integer", Some("int64")),
            Type::Num => scalar("number", Some("double")),
            Type::Bool => scalar("boolean", None),
            Type::Obj => scalar("object", None),
            Type::Array(inner) => Map::new()
                .with("type", "array")
                .with("items", self.type_schema(inner, None, param)),
            Type::Named(r) => self.reference(r),
            Type::Param(_) => match param {
                Some(p) => self.type_schema(p, None, None),
                None => Map::new(),
            },
        }
    }

    /// The schema of a field's value: its type, `null` allowed when nullable, and its description.
    pub fn field_schema(&self, f: &Field, param: Option<&Type>) -> Map {
        let format = f.format.map(|fmt| fmt.keyword());
        let mut schema = self.type_schema(&f.ty, format, param);
        if f.nullable {
            schema = nullable(schema);
        }
        describe(schema, field_description(f), self.dialect)
    }

    /// An object schema of a struct's fields (no description): `type`, `required`, `properties`, and
    /// `additionalProperties: true` when the struct is incomplete.
    pub fn object_schema(&self, s: &Struct, param: Option<&Type>) -> Map {
        if s.free_form {
            return Map::new().with("type", "object");
        }
        let required: Vec<&str> = s
            .fields
            .iter()
            .filter(|f| !f.optional)
            .map(|f| f.name.as_str())
            .collect();
        let mut properties = Map::new();
        for f in &s.fields {
            properties.set(&f.name, self.field_schema(f, param));
        }
        let mut schema = Map::new().with("type", "object");
        if !required.is_empty() {
            schema.set("required", required);
        }
        schema.set("properties", properties);
        if s.incomplete {
            schema.set("additionalProperties", true);
        }
        schema
    }

    /// A struct's schema with its description first (the struct's doc, plus the incomplete note).
    pub fn struct_schema(&self, s: &Struct, description: &str) -> Map {
        let mut text = description.to_owned();
        if s.incomplete && !text.contains(INCOMPLETE_NOTE) {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(INCOMPLETE_NOTE);
        }
        let mut schema = Map::new();
        if !text.is_empty() {
            schema.set("description", text);
        }
        for (key, value) in self.object_schema(s, None).entries() {
            schema.set(key.as_str(), value.clone());
        }
        schema
    }
}

/// `schema` that also accepts `null`.
fn nullable(schema: Map) -> Map {
    match schema.get("type") {
        Some(Node::Str(t)) if schema.get("$ref").is_none() => {
            let mut out = schema.clone();
            out.set("type", vec![t.as_str(), "null"]);
            out
        }
        _ if schema.is_empty() => schema,
        _ => Map::new().with(
            "oneOf",
            vec![
                Node::Map(schema),
                Node::Map(Map::new().with("type", "null")),
            ],
        ),
    }
}

/// `schema` with a description, written so the dialect keeps it next to a `$ref`.
fn describe(schema: Map, description: Option<String>, dialect: Dialect) -> Map {
    let Some(description) = description else {
        return schema;
    };
    if schema.get("$ref").is_some() && dialect == Dialect::Draft07 {
        return Map::new()
            .with("description", description)
            .with("allOf", vec![Node::Map(schema)]);
    }
    schema.with("description", description)
}

/// Every shared type a struct refers to, directly or through other shared types, by name (sorted).
pub fn referenced_types<'m>(
    model: &'m crate::model::Model,
    roots: &[&'m Struct],
) -> Vec<&'m Struct> {
    let mut found: std::collections::BTreeMap<&str, &Struct> = std::collections::BTreeMap::new();
    let mut pending: Vec<&Struct> = roots.to_vec();
    while let Some(s) = pending.pop() {
        for f in &s.fields {
            let mut ty = &f.ty;
            while let Type::Array(inner) = ty {
                ty = inner;
            }
            if let Type::Named(r) = ty
                && let Some(t) = model.shared_type(&r.name)
                && found.insert(t.name.as_str(), t).is_none()
            {
                pending.push(t);
            }
        }
    }
    found.into_values().collect()
}

/// What a payload version is: the model's description, and whether the catalogue lists every field.
pub(crate) fn version_description(v: &EventVersion) -> String {
    if v.payload.incomplete {
        format!("{}\n\n{INCOMPLETE_NOTE}", v.payload.doc)
    } else {
        v.payload.doc.clone()
    }
}

//! JSON Schema of the model's types, shared by the OpenAPI, AsyncAPI and JSON Schema emitters.
//!
//! One mapping for all three documents, so that they cannot disagree: `str` → `string` (with its
//! `format`), `int` → `integer`/`int64` bounded to the range of `i64`, `num` → `number`/`double`,
//! `bool` → `boolean`, `obj` → `object` with `additionalProperties: true` (any members, all kept),
//! `[T]` → `array` of `T`, a named type → `$ref`, nullable → `type: [T, "null"]` (or `oneOf` with `null`
//! for a reference). Optional fields are left out of `required`. Every object accepts members it does not
//! list, as the Rust decoder does; a type that keeps them (incomplete, or free-form) spells out
//! `additionalProperties: true`, which generators need to type the kept members at all.
//!
//! The description of an integer field states the number forms the Rust decoder refuses although JSON
//! Schema cannot: `12.0` and `1e3` are integers to every JSON Schema validator (the data model has one
//! kind of number), but not to `i64`.

use super::tree::{Map, Node, reference};
use crate::model::{EventVersion, Field, NamedRef, Struct, Type};
pub use crate::naming::component_name;

/// How a document writes a field that refers to a named type and has a description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// OpenAPI 3.1: `$ref` may have sibling keywords, so the description sits beside it.
    SiblingsAllowed,
    /// The event schemas (AsyncAPI 3.0, a JSON Schema draft-07 superset that ignores siblings of
    /// `$ref`, and the JSON Schema files, written alike so that the two stay structurally equal): a
    /// `$ref` stands alone and its description moves into the description of the object holding the
    /// field. A wrapper (`allOf: [{$ref}]` with a description) would keep it in place, but generators
    /// make an anonymous type of every wrapper, and json-schema-to-typescript documents the referenced
    /// type with a description that belongs to the field.
    BareReferences,
}

/// How references to named types are written in one document.
pub struct Schemas<'a> {
    /// Prefix of a reference: `#/components/schemas/`, or `../types/` in a file of another folder.
    pub ref_prefix: &'a str,
    /// Suffix of a reference: empty, or `.json` for a reference to a file.
    pub ref_suffix: &'a str,
    /// The document's schema language.
    pub dialect: Dialect,
}

/// The description of a field as the documents show it: the schema's text, where it came from, and for
/// an integer the number forms the Rust decoder refuses.
pub fn field_description(f: &Field) -> Option<String> {
    let origin = f.origin.as_ref().map(|o| format!("From {o}."));
    let integer = holds_integers(&f.ty).then(|| INTEGER_NOTE.to_owned());
    let parts: Vec<String> = [f.description.clone(), origin, integer]
        .into_iter()
        .flatten()
        .collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// What an integer field's description says about the forms of its numbers.
pub const INTEGER_NOTE: &str =
    "A whole number written without a fraction or exponent (`12`, not `12.0` or `1e3`).";

/// The type is `int`, or an array of them.
fn holds_integers(ty: &Type) -> bool {
    match ty {
        Type::Int => true,
        Type::Array(inner) | Type::Map(inner) => holds_integers(inner),
        _ => false,
    }
}

/// The sentence an incomplete type's description ends with.
pub const INCOMPLETE_NOTE: &str = "Incomplete: the schema does not list every field of this type; \
     members it does not list occur and are allowed.";

impl Schemas<'_> {
    /// A `$ref` to a named type.
    pub fn reference(&self, r: &NamedRef) -> Map {
        reference(format!(
            "{}{}{}",
            self.ref_prefix,
            component_name(r),
            self.ref_suffix
        ))
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
            Type::Int => scalar("integer", Some("int64"))
                .with("minimum", i64::MIN)
                .with("maximum", i64::MAX),
            Type::Num => scalar("number", Some("double")),
            Type::Bool => scalar("boolean", None),
            Type::Obj => free_form(),
            Type::Array(inner) => Map::new()
                .with("type", "array")
                .with("items", self.type_schema(inner, None, param)),
            Type::Map(value) => Map::new()
                .with("type", "object")
                .with("additionalProperties", self.type_schema(value, None, param)),
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
        if self.bare_reference(&schema) {
            return schema;
        }
        schema.with_opt("description", field_description(f))
    }

    /// In this dialect, `schema` is a reference written without a description.
    fn bare_reference(&self, schema: &Map) -> bool {
        self.dialect == Dialect::BareReferences && schema.get("$ref").is_some()
    }

    /// The descriptions of a struct's fields that this dialect cannot write beside their `$ref`, as a
    /// Markdown list for the struct's description (empty when there are none).
    fn reference_notes(&self, s: &Struct) -> String {
        let mut notes = String::new();
        for f in &s.fields {
            let schema = self.field_schema(f, None);
            if let (true, Some(text)) = (self.bare_reference(&schema), field_description(f)) {
                if notes.is_empty() {
                    notes.push_str("Fields that refer to another schema:");
                }
                notes.push_str(&format!("\n- `{}`: {text}", f.name));
            }
        }
        notes
    }

    /// An object schema of a struct's fields (no description): `type`, `required`, `properties`, and
    /// `additionalProperties: true` when the struct keeps members it does not list.
    pub fn object_schema(&self, s: &Struct, param: Option<&Type>) -> Map {
        if s.free_form {
            return free_form();
        }
        // A renamed field is required under either of its names (decoders accept both), not both.
        let required: Vec<&str> = s
            .fields
            .iter()
            .filter(|f| !f.optional && f.renamed_from.is_empty())
            .map(|f| f.name.as_str())
            .collect();
        let mut properties = Map::new();
        let mut renames = Vec::new();
        for f in &s.fields {
            properties.set(&f.name, self.field_schema(f, param));
            for former in &f.renamed_from {
                let text = format!(
                    "The former name of `{}`: still read as it, never written.",
                    f.name
                );
                let schema = self.field_schema(f, param).with("description", text);
                properties.set(former, schema.with("deprecated", true));
            }
            if !f.renamed_from.is_empty() {
                renames.extend(rename_constraints(f));
            }
        }
        let mut schema = Map::new().with("type", "object");
        if !required.is_empty() {
            schema.set("required", required);
        }
        schema.set("properties", properties);
        if !renames.is_empty() {
            schema.set("allOf", renames);
        }
        if s.incomplete {
            schema.set("additionalProperties", true);
        }
        schema
    }

    /// A struct's schema with its description first (the struct's doc, the incomplete note, and the
    /// descriptions of fields written as bare references).
    pub fn struct_schema(&self, s: &Struct, description: &str) -> Map {
        let mut text = description.to_owned();
        let incomplete =
            (s.incomplete && !text.contains(INCOMPLETE_NOTE)).then_some(INCOMPLETE_NOTE);
        for paragraph in [incomplete.map(str::to_owned), Some(self.reference_notes(s))]
            .into_iter()
            .flatten()
            .filter(|p| !p.is_empty())
        {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&paragraph);
        }
        Map::new()
            .with_opt("description", (!text.is_empty()).then_some(text))
            .with_all(self.object_schema(s, None))
    }
}

impl Schemas<'_> {
    /// The schema of an event version's payload, with its description: the payload's struct; for a
    /// version whose payload is a shared type, `allOf` that one type, so that each version has a schema
    /// of its own, named as its Rust type alias: model generators then give each version a model of that
    /// name (Modelina otherwise warns that it redefines the shared model once per such version).
    pub fn payload_schema(&self, v: &EventVersion, description: &str) -> Map {
        let schema = match &v.alias_of {
            Some(shared) => Map::new()
                .with("description", description)
                .with("allOf", vec![Node::Map(self.reference(shared))]),
            None => self.struct_schema(&v.payload, description),
        };
        match &v.deprecated {
            Some(_) => schema.with("deprecated", true),
            None => schema,
        }
    }
}

/// What a renamed field's names require of an object: one of them when the field is required, never two.
fn rename_constraints(f: &Field) -> Vec<Node> {
    let names: Vec<&str> = std::iter::once(f.name.as_str())
        .chain(f.renamed_from.iter().map(String::as_str))
        .collect();
    let mut out = Vec::new();
    if !f.optional {
        let either: Vec<Node> = names
            .iter()
            .map(|n| Node::Map(Map::new().with("required", vec![*n])))
            .collect();
        out.push(Node::Map(Map::new().with("anyOf", either)));
    }
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            let both = Map::new().with("required", vec![*a, *b]);
            out.push(Node::Map(Map::new().with("not", both)));
        }
    }
    out
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

/// An object whose members are all kept, of any type.
fn free_form() -> Map {
    Map::new()
        .with("type", "object")
        .with("additionalProperties", true)
}

/// An example of a struct as a document tree, its members in the order of the struct's fields at every
/// depth (the model's samples are JSON objects, whose members come sorted). `lookup` finds the struct of
/// a named type; `arg` is the type argument of a generic struct.
pub fn example<'m>(
    value: &serde_json::Value,
    s: &Struct,
    arg: Option<&Type>,
    lookup: &dyn Fn(&str) -> Option<&'m Struct>,
) -> Node {
    let serde_json::Value::Object(members) = value else {
        return Node::from(value);
    };
    let mut out = Map::new();
    for f in &s.fields {
        if let Some(member) = members.get(&f.name) {
            out.set(&f.name, typed_example(member, &f.ty, arg, lookup));
        }
    }
    for (key, member) in members {
        if out.get(key).is_none() {
            out.set(key.as_str(), Node::from(member));
        }
    }
    Node::Map(out)
}

fn typed_example<'m>(
    value: &serde_json::Value,
    ty: &Type,
    arg: Option<&Type>,
    lookup: &dyn Fn(&str) -> Option<&'m Struct>,
) -> Node {
    match (ty, value) {
        (Type::Array(inner), serde_json::Value::Array(items)) => Node::Seq(
            items
                .iter()
                .map(|item| typed_example(item, inner, arg, lookup))
                .collect(),
        ),
        (Type::Map(value), serde_json::Value::Object(members)) => {
            let mut out = Map::new();
            for (key, member) in members {
                out.set(key.as_str(), typed_example(member, value, arg, lookup));
            }
            Node::Map(out)
        }
        (Type::Named(r), _) => match lookup(&r.name) {
            Some(s) => example(value, s, r.arg.as_deref(), lookup),
            None => Node::from(value),
        },
        (Type::Param(_), _) => match arg {
            Some(arg) => typed_example(value, arg, None, lookup),
            None => Node::from(value),
        },
        _ => Node::from(value),
    }
}

/// What a payload version is: the model's description, and whether the catalogue lists every field.
pub(crate) fn version_description(v: &EventVersion) -> String {
    let mut text = v.payload.doc.clone();
    if v.payload.incomplete {
        text.push_str(&format!("\n\n{INCOMPLETE_NOTE}"));
    }
    text
}

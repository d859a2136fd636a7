//! `proto/`: Protobuf (proto3) schemas of the event payloads, for teams that generate their types with
//! `protoc` or `buf`, and the `buf.yaml` that lints them.
//!
//! - `proto/energy/types/v1/types.proto`, package `energy.types.v1`: every shared type, once;
//! - `proto/energy/events/<section>/v1/<section>.proto`, package `energy.events.<section>.v1`: a message
//!   per payload version of the catalogue section, named as its Rust type without underscores
//!   (`AgreementUpdatedV2`; `LifecycleSupportSiteSaleV100` for the version `1.0.0`, so that
//!   `MESSAGE_PASCAL_CASE` holds). The `v1` of a package is the version of the Protobuf package (as
//!   `buf` wants one), not of a payload: payload versions are messages;
//! - field numbers are the model's ([`FieldNumbers`](crate::model::FieldNumbers), recorded in the
//!   published baseline and never changed); a number whose field is gone is `reserved` with its name;
//! - types: `str` → `string`, `int` → `int64`, `num` → `double`, `bool` → `bool`, `obj` →
//!   `google.protobuf.Struct` (its JSON form is the object itself), `[T]` → `repeated T`, `map<T>` →
//!   `map<string, T>`, a shared type → its message; a list or map inside another (`[[int]]`) is a
//!   `google.protobuf.ListValue` or `Struct` (Protobuf nests neither directly; these keep the JSON
//!   shape, their items untyped);
//! - every singular field has explicit presence (`optional` on scalars; messages always have it), the
//!   required ones too: proto3 has no required fields, and presence lets a reader tell a missing field
//!   from a zero value; a list is absent and empty alike (proto3 cannot tell them apart);
//! - a payload that keeps the members it does not list has a field `additional_fields`, a
//!   `google.protobuf.Struct` holding them.

use super::header;
use crate::model::{ADDITIONAL_FIELDS, Model, Section, Struct, Type};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The folder of the files, relative to `generated/`.
pub const DIR: &str = "proto";

/// The path of the shared types' file, relative to `generated/`.
pub const TYPES_PATH: &str = "proto/energy/types/v1/types.proto";

/// The package of the shared types.
pub const TYPES_PACKAGE: &str = "energy.types.v1";

/// The path of a section's file, relative to `generated/`.
pub fn section_path(section: &Section) -> String {
    format!("{DIR}/energy/events/{m}/v1/{m}.proto", m = section.module)
}

/// The package of a section's messages.
pub fn section_package(section: &Section) -> String {
    format!("energy.events.{}.v1", section.module)
}

/// The name of a message, from a Rust name: without underscores (PascalCase for `buf lint`).
pub fn message_name(rust_name: &str) -> String {
    rust_name.replace('_', "")
}

/// The `buf.yaml` of the folder: the lint rules the files are held to (`buf lint` in `cargo xtask
/// test`), and the breaking-change rules `buf breaking` checks (wire and JSON compatibility).
const BUF_YAML: &str = "version: v2
lint:
  use:
    - STANDARD
breaking:
  use:
    - WIRE_JSON
";

/// Every file of the folder.
pub fn emit(model: &Model) -> Result<BTreeMap<String, String>, String> {
    let mut files = BTreeMap::new();
    if model.sections.is_empty() {
        return Ok(files);
    }
    files.insert(
        format!("{DIR}/buf.yaml"),
        format!("{}{BUF_YAML}", header("#")),
    );
    if !model.shared_types.is_empty() {
        let mut body = String::new();
        for t in &model.shared_types {
            body.push_str(&message(model, t, &message_name(&t.name), &t.name, &t.doc)?);
        }
        files.insert(TYPES_PATH.to_owned(), file(TYPES_PACKAGE, &body));
    }
    for section in &model.sections {
        let mut body = String::new();
        for event in &section.events {
            for v in &event.versions {
                let doc = super::schema::version_description(v);
                let name = message_name(&v.payload.rust_name);
                body.push_str(&message(model, &v.payload, &name, &v.id, &doc)?);
            }
        }
        files.insert(
            section_path(section),
            file(&section_package(section), &body),
        );
    }
    Ok(files)
}

/// A file: the header, syntax, package, the imports its messages use, then the messages.
fn file(package: &str, body: &str) -> String {
    let mut out = header("//");
    out.push_str("syntax = \"proto3\";\n\n");
    let _ = writeln!(out, "package {package};\n");
    let mut imports = Vec::new();
    if body.contains("google.protobuf.") {
        imports.push("google/protobuf/struct.proto");
    }
    if package != TYPES_PACKAGE && body.contains(&format!("{TYPES_PACKAGE}.")) {
        imports.push("energy/types/v1/types.proto");
    }
    for import in &imports {
        let _ = writeln!(out, "import \"{import}\";");
    }
    if !imports.is_empty() {
        out.push('\n');
    }
    out.push_str(body.trim_end());
    out.push('\n');
    out
}

/// A message of a struct; `key` finds its field numbers.
fn message(model: &Model, s: &Struct, name: &str, key: &str, doc: &str) -> Result<String, String> {
    let mut out = String::new();
    comment(&mut out, "", doc);
    let _ = writeln!(out, "message {name} {{");
    // A field the model has no number for (a model edited after `build_model` numbered it) takes the
    // next numbers after the recorded ones, in declared order, as `build_model` would give it.
    let slots = model
        .field_numbers
        .get(key)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let recorded_number = |field: &str| slots.iter().position(|s| s == field).map(|i| i + 1);
    let recorded = slots.len();
    let unnumbered: Vec<&str> = s
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .chain((s.incomplete || s.free_form).then_some(ADDITIONAL_FIELDS))
        .filter(|name| recorded_number(name).is_none())
        .collect();
    let number = |field: &str| -> Result<usize, String> {
        match recorded_number(field) {
            Some(n) => Ok(n),
            None => unnumbered
                .iter()
                .position(|name| *name == field)
                .map(|i| recorded + i + 1)
                .ok_or_else(|| format!("no field number for `{field}` of `{key}`")),
        }
    };
    for f in &s.fields {
        // proto3 has no required fields: the comment says which the schema requires.
        let required = (!f.is_option()).then_some("Required.".to_owned());
        let text: Vec<String> = [required, super::schema::field_description(f)]
            .into_iter()
            .flatten()
            .collect();
        if !text.is_empty() {
            comment(&mut out, "  ", &text.join(" "));
        }
        let ty = field_type(&f.ty);
        let label = match &f.ty {
            Type::Array(_) | Type::Map(_) => "",
            Type::Named(_) | Type::Obj => "",
            _ => "optional ",
        };
        let _ = writeln!(out, "  {label}{ty} {} = {};", f.name, number(&f.name)?);
    }
    if s.incomplete || s.free_form {
        comment(
            &mut out,
            "  ",
            "The members the schema does not list (incomplete: the schema does not list every field).",
        );
        let _ = writeln!(
            out,
            "  google.protobuf.Struct {ADDITIONAL_FIELDS} = {};",
            number(ADDITIONAL_FIELDS)?
        );
    }
    let present = |slot: &str| {
        s.fields.iter().any(|f| f.name == slot)
            || ((s.incomplete || s.free_form) && slot == ADDITIONAL_FIELDS)
    };
    let retired: Vec<(usize, &String)> = slots
        .iter()
        .enumerate()
        .filter(|(_, slot)| !present(slot))
        .map(|(i, slot)| (i + 1, slot))
        .collect();
    if !retired.is_empty() {
        let numbers: Vec<String> = retired.iter().map(|(n, _)| n.to_string()).collect();
        let names: Vec<String> = retired.iter().map(|(_, s)| format!("\"{s}\"")).collect();
        let _ = writeln!(out, "  reserved {};", numbers.join(", "));
        let _ = writeln!(out, "  reserved {};", names.join(", "));
    }
    out.push_str("}\n\n");
    Ok(out)
}

/// The Protobuf type of a field of `ty` (with `repeated` or `map<…>`).
fn field_type(ty: &Type) -> String {
    match ty {
        Type::Array(inner) => format!("repeated {}", element_type(inner)),
        Type::Map(value) => format!("map<string, {}>", element_type(value)),
        other => element_type(other),
    }
}

/// The Protobuf type of a single value of `ty`.
fn element_type(ty: &Type) -> String {
    match ty {
        Type::Str | Type::Param(_) => "string".to_owned(),
        Type::Int => "int64".to_owned(),
        Type::Num => "double".to_owned(),
        Type::Bool => "bool".to_owned(),
        Type::Obj => "google.protobuf.Struct".to_owned(),
        Type::Named(r) => format!("{TYPES_PACKAGE}.{}", message_name(&r.name)),
        // Protobuf nests no list or map directly in another; the well-known types whose JSON form is
        // an array or an object keep the JSON shape (their items untyped).
        Type::Array(_) => "google.protobuf.ListValue".to_owned(),
        Type::Map(_) => "google.protobuf.Struct".to_owned(),
    }
}

/// `text` as `//` comment lines, each indented by `indent`.
fn comment(out: &mut String, indent: &str, text: &str) {
    for line in text.trim().lines() {
        let line = line.trim_end();
        if line.is_empty() {
            let _ = writeln!(out, "{indent}//");
        } else {
            let _ = writeln!(out, "{indent}// {line}");
        }
    }
}

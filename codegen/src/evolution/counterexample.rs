//! Counterexamples: for a change that breaks a direction, a concrete payload written under one side that
//! the other side's reader rejects, proven by running the decoder's own shape checker
//! (`energy_api_core::shape`, which accepts exactly what the generated decoders accept) on it.

use super::finding::{Counterexample, Finding, Subject, Verdict};
use crate::model::{EventVersion, Model, Struct, Type};
use crate::samples::{Optionals, event_payload};
use energy_api_core::shape::{Shape, StructTable, check_struct};

/// How deep a type that contains itself is unrolled; sample payloads are shallower.
const MAX_DEPTH: usize = 12;

/// Attaches a counterexample to every event finding that breaks a direction, when one is found.
pub(super) fn attach(old: &Model, new: &Model, findings: &mut [Finding]) {
    for f in findings.iter_mut() {
        let Subject::Event {
            event,
            version: Some(label),
        } = &f.subject
        else {
            continue;
        };
        let version_in = |model: &'_ Model, name: &str| -> Option<EventVersion> {
            model
                .events()
                .find(|(_, e)| e.name == name || e.renamed_from.iter().any(|r| r == event))
                .and_then(|(_, e)| e.versions.iter().find(|v| &v.label == label).cloned())
        };
        let old_version = version_in(old, event).or_else(|| {
            // The event may have had its old name on the old side.
            old.events()
                .filter(|(_, e)| {
                    new.events()
                        .any(|(_, n)| n.name == *event && n.renamed_from.contains(&e.name))
                })
                .find_map(|(_, e)| e.versions.iter().find(|v| &v.label == label).cloned())
        });
        let new_version = version_in(new, event);
        let (Some(old_v), Some(new_v)) = (old_version, new_version) else {
            continue;
        };
        f.counterexample = match (&f.forward, &f.backward) {
            (Verdict::Rejects(_), _) => find(new, &new_v, old, &old_v, "forward"),
            (_, Verdict::Rejects(_)) => find(old, &old_v, new, &new_v, "backward"),
            _ => None,
        };
    }
}

/// A payload of `written` (valid for its own reader) that the reader of `read` rejects.
fn find(
    writer_model: &Model,
    written: &EventVersion,
    reader_model: &Model,
    read: &EventVersion,
    direction: &'static str,
) -> Option<Counterexample> {
    let writer = struct_shape(writer_model, &written.payload, None, 0);
    let reader = struct_shape(reader_model, &read.payload, None, 0);
    for optionals in [Optionals::All, Optionals::None] {
        let payload = event_payload(writer_model, written, optionals).to_string();
        if check(writer, &payload).is_err() {
            continue;
        }
        if let Err(error) = check(reader, &payload) {
            return Some(Counterexample {
                direction,
                payload,
                error,
            });
        }
    }
    None
}

/// The shape checker's verdict on `payload`, with serde_json's message.
fn check(shape: &'static StructTable, payload: &str) -> Result<(), String> {
    let mut de = serde_json::Deserializer::from_str(payload);
    check_struct(shape, &mut de)
        .and_then(|()| de.end())
        .map_err(|e| energy_api_core::json::message_of(&e))
}

/// The shape of a model struct, as the generated crate writes it statically. Built once per
/// counterexample and kept for the life of the process: a comparison checks a handful of payloads.
fn struct_shape(
    model: &Model,
    s: &Struct,
    arg: Option<&Type>,
    depth: usize,
) -> &'static StructTable {
    let fields: Vec<&'static str> = s.fields.iter().map(|f| leak_str(&f.name)).collect();
    let shapes: Vec<Shape> = s
        .fields
        .iter()
        .map(|f| {
            let shape = type_shape(model, &f.ty, arg, depth + 1);
            if f.is_option() {
                Shape::Optional(Box::leak(Box::new(shape)))
            } else {
                shape
            }
        })
        .collect();
    let aliases: Vec<(&'static str, usize)> = s
        .fields
        .iter()
        .enumerate()
        .flat_map(|(i, f)| f.renamed_from.iter().map(move |r| (leak_str(r), i)))
        .collect();
    Box::leak(Box::new(StructTable {
        name: leak_str(&format!("struct {}", s.rust_name)),
        fields: fields.leak(),
        aliases: aliases.leak(),
        // Only a hint of where to look first for a key: these shapes check one payload each.
        by_name: &[],
        shapes: shapes.leak(),
        omit_none: s
            .fields
            .iter()
            .map(|f| f.optional)
            .collect::<Vec<_>>()
            .leak(),
        keep_unlisted: s.incomplete,
    }))
}

fn type_shape(model: &Model, ty: &Type, arg: Option<&Type>, depth: usize) -> Shape {
    match ty {
        Type::Str => Shape::Str,
        Type::Int => Shape::Int,
        Type::Num => Shape::Num,
        Type::Bool => Shape::Bool,
        Type::Obj => Shape::Obj,
        Type::Array(inner) => {
            Shape::Array(Box::leak(Box::new(type_shape(model, inner, arg, depth))))
        }
        Type::Map(value) => Shape::Map(Box::leak(Box::new(type_shape(model, value, arg, depth)))),
        Type::Named(r) => {
            let s = model.named(r.id);
            if s.free_form || depth > MAX_DEPTH {
                Shape::Obj
            } else {
                Shape::Struct(struct_shape(model, s, r.arg.as_deref().or(arg), depth))
            }
        }
        Type::Param(_) => match arg {
            Some(a) => type_shape(model, a, None, depth),
            None => Shape::Obj,
        },
    }
}

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

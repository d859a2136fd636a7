//! What a type is on the wire, on one side, and which changes of it a reader accepts.

use crate::evolution::finding::Verdict;
use crate::evolution::rules::Rule;
use crate::model::{Format, Model, Struct, Type};

/// One side's struct being compared: its model, and the type argument of a generic resource.
#[derive(Clone, Copy)]
pub(super) struct At<'m> {
    pub(super) model: &'m Model,
    pub(super) strukt: &'m Struct,
    pub(super) arg: Option<&'m Type>,
}

/// What is compared at one place, on one side.
#[derive(Clone, Copy)]
pub(super) enum Shape<'m> {
    Str(Option<Format>),
    Int,
    Num,
    Bool,
    /// Any JSON object (`obj`, a free-form resource).
    Obj,
    Struct(At<'m>),
    Array(&'m Type, At<'m>),
    /// `map<T>`: an object of values of one type.
    Map(&'m Type, At<'m>),
}

impl Shape<'_> {
    pub(super) fn describe(&self) -> String {
        match self {
            Shape::Str(None) => "str".to_owned(),
            Shape::Str(Some(f)) => format!("str ({})", f.keyword()),
            Shape::Int => "int".to_owned(),
            Shape::Num => "num".to_owned(),
            Shape::Bool => "bool".to_owned(),
            Shape::Obj => "obj".to_owned(),
            Shape::Struct(at) => format!("`{}`", at.strukt.name),
            Shape::Array(..) => "an array".to_owned(),
            Shape::Map(value, _) => format!("map<{}>", notation(value)),
        }
    }

    /// A value of this shape in the decoder's words, for messages: "a string", "i64".
    fn expected(&self) -> &'static str {
        match self {
            Shape::Str(_) => "a string",
            Shape::Int => "i64",
            Shape::Num => "f64",
            Shape::Bool => "a boolean",
            Shape::Obj | Shape::Map(..) => "a map",
            Shape::Struct(_) => "a struct",
            Shape::Array(..) => "a sequence",
        }
    }
}

/// The shape of `ty` as written in `at`'s struct.
pub(super) fn shape_of<'m>(ty: &'m Type, format: Option<Format>, at: At<'m>) -> Shape<'m> {
    match ty {
        Type::Str => Shape::Str(format),
        Type::Int => Shape::Int,
        Type::Num => Shape::Num,
        Type::Bool => Shape::Bool,
        Type::Obj => Shape::Obj,
        Type::Array(inner) => Shape::Array(inner, at),
        Type::Map(value) => Shape::Map(value, at),
        Type::Named(r) => {
            let strukt = at.model.named(r.id);
            if strukt.free_form {
                Shape::Obj
            } else {
                Shape::Struct(At {
                    model: at.model,
                    strukt,
                    // The argument is written in the enclosing struct: resolve it there.
                    arg: r.arg.as_deref().map(|a| resolve_param(a, at)),
                })
            }
        }
        Type::Param(_) => match at.arg {
            Some(arg) => shape_of(arg, format, At { arg: None, ..at }),
            None => Shape::Obj,
        },
    }
}

fn resolve_param<'m>(ty: &'m Type, at: At<'m>) -> &'m Type {
    match (ty, at.arg) {
        (Type::Param(_), Some(arg)) => arg,
        _ => ty,
    }
}

/// Whether a reader expecting `reader` accepts every value a writer of `writer` sends; the rule the
/// difference falls under.
pub(super) fn type_change(reader: &Shape<'_>, writer: &Shape<'_>) -> Option<(Rule, Verdict)> {
    let rejects = |why: String| Verdict::Rejects(why);
    match (reader, writer) {
        (Shape::Num, Shape::Int) | (Shape::Obj, Shape::Struct(_) | Shape::Map(..)) => {
            Some((Rule::FieldTypeWidened, Verdict::Reads))
        }
        (Shape::Int, Shape::Num) => Some((
            Rule::FieldTypeNarrowed,
            rejects("invalid type: a number with a fraction, expected i64".to_owned()),
        )),
        (Shape::Struct(at), Shape::Obj) => Some((
            Rule::FieldTypeNarrowed,
            rejects(format!(
                "any object may arrive where `{}` is expected",
                at.strukt.name
            )),
        )),
        (Shape::Map(value, _), Shape::Obj) => Some((
            Rule::FieldTypeNarrowed,
            rejects(format!(
                "any object may arrive where a map of {} is expected",
                value.describe()
            )),
        )),
        _ => Some((
            Rule::FieldTypeChanged,
            rejects(format!(
                "invalid type: {}, expected {}",
                writer.describe(),
                reader.expected()
            )),
        )),
    }
}

/// A type in the schema's notation: `str`, `[Ledger]`, `Page<Product>`, `map<Tariff>`.
pub(crate) fn notation(ty: &Type) -> String {
    match ty {
        Type::Str => "str".to_owned(),
        Type::Int => "int".to_owned(),
        Type::Num => "num".to_owned(),
        Type::Bool => "bool".to_owned(),
        Type::Obj => "obj".to_owned(),
        Type::Array(inner) => format!("[{}]", notation(inner)),
        Type::Map(value) => format!("map<{}>", notation(value)),
        Type::Named(r) => match &r.arg {
            Some(arg) => format!("{}<{}>", r.name, notation(arg)),
            None => r.name.clone(),
        },
        Type::Param(p) => p.clone(),
    }
}

//! Which structs have a borrowed view of their own (feature `borrowed` of the generated crate): those
//! holding, directly or through shared types, a string or a free-form object, whose view is a type with
//! a lifetime (`Name<'a>`); any other struct (numbers and booleans only) is its own view, re-exported.
//! Decided here once, for the emitter of the views and for the evolution check (a struct that starts or
//! stops borrowing changes its view's type).

use crate::model::{Format, Model, Struct, Type};
use std::collections::BTreeSet;

/// The shared types of `model` that have a view of their own, by name: a fixpoint, since a type borrows
/// when one of its fields does, through the types found so far.
pub(crate) fn shared_views(model: &Model) -> BTreeSet<String> {
    let mut shared = BTreeSet::new();
    loop {
        let before = shared.len();
        for t in &model.shared_types {
            if !shared.contains(&t.name) && fields_borrow(&shared, t) {
                shared.insert(t.name.clone());
            }
        }
        if shared.len() == before {
            return shared;
        }
    }
}

/// Whether a field of `s` borrows, given the shared types that do (`shared`).
pub(crate) fn fields_borrow(shared: &BTreeSet<String>, s: &Struct) -> bool {
    s.fields
        .iter()
        .any(|f| type_borrows(shared, &f.ty, f.format))
}

fn type_borrows(shared: &BTreeSet<String>, ty: &Type, format: Option<Format>) -> bool {
    match ty {
        // A date-time is a `jiff::Timestamp` either way.
        Type::Str => format != Some(Format::DateTime),
        Type::Obj | Type::Map(_) => true,
        Type::Int | Type::Num | Type::Bool | Type::Param(_) => false,
        Type::Array(inner) => type_borrows(shared, inner, None),
        Type::Named(r) => shared.contains(&r.name),
    }
}

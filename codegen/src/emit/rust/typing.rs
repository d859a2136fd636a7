//! How the generated code names a Rust type: the module a named type lives in ([`Home`]), an
//! identifier (raw where a keyword needs it), and the Rust type of a field's value. Below both the
//! structs (`structs.rs`) and their constructors (`construct.rs`), which write with it.

use crate::model::{Format, Type};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

/// Which module a named type lives in, so references can be written as full paths.
#[derive(Clone, Copy)]
pub(crate) enum Home {
    /// `crate::types`.
    Types,
    /// `crate::rest`.
    Rest,
}

/// The identifier of `name` (`r#type` as a raw identifier).
pub(crate) fn ident(name: &str) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(name, Span::call_site()),
    }
}

/// The Rust type of a field's value, without the `Option` of an optional field.
pub(crate) fn value_type(
    ty: &Type,
    format: Option<Format>,
    home: Home,
    boxed: bool,
) -> TokenStream {
    let inner = match ty {
        Type::Str if format == Some(Format::DateTime) => quote!(::jiff::Timestamp),
        Type::Str => quote!(::std::string::String),
        Type::Int => quote!(i64),
        Type::Num => quote!(f64),
        Type::Bool => quote!(bool),
        Type::Obj => quote!(::serde_json::Map<::std::string::String, ::serde_json::Value>),
        Type::Array(inner) => {
            let inner = value_type(inner, None, home, false);
            quote!(::std::vec::Vec<#inner>)
        }
        // Sorted by name, so that a value prints, compares and serializes the same on every run.
        Type::Map(value) => {
            let value = value_type(value, None, home, false);
            quote!(::std::collections::BTreeMap<::std::string::String, #value>)
        }
        Type::Named(r) => {
            let name = format_ident!("{}", r.name);
            let module = match home {
                Home::Types => quote!(crate::types),
                Home::Rest => quote!(crate::rest),
            };
            match &r.arg {
                Some(arg) => {
                    let arg = value_type(arg, None, home, false);
                    quote!(#module::#name<#arg>)
                }
                None => quote!(#module::#name),
            }
        }
        Type::Param(p) => {
            let p = format_ident!("{}", p);
            quote!(#p)
        }
    };
    if boxed {
        quote!(::std::boxed::Box<#inner>)
    } else {
        inner
    }
}

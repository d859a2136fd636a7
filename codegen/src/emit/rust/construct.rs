//! How code outside the generated crate builds its structs (payloads, shared types, REST resources and
//! endpoint requests): they are `#[non_exhaustive]`, so that a field added to one later is a minor
//! release, not a major one (a struct literal in a user's crate would stop compiling). Reading is
//! unchanged: fields stay public, patterns with `..` still match.
//!
//! Producers build a struct with `new`, taking the required fields in schema order, and a `with_<field>`
//! setter per optional field, by value: `AgreementUpdatedV2::new(12, changes, "A-1B2C3D4E")
//! .with_is_override(true)`. A struct whose fields are all optional also derives `Default`. Why not
//! builders: a required field stays a parameter of `new`, so forgetting one (or one added in a major
//! release) is a compile error rather than an error of `build()` at run time; and there is no second
//! type per struct to compile (issue 24's budgets). Every function here is generic (`impl Into<T>`) or
//! `#[inline]`, so the generated crate type-checks it but compiles no machine code for it; a producer
//! pays for the few it calls, and no more than for a struct literal.
//!
//! Kept apart from the struct emitter so that changes to how structs are read and written (their tables,
//! `table_struct!`) and to how they are built touch different files.

use super::typing::{Home, ident, value_type};
use crate::model::{Field, Struct};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// More parameters than clippy's `too_many_arguments` allows: a payload has as many required fields as
/// the schema says.
const CLIPPY_MAX_ARGUMENTS: usize = 7;

/// Whether `Default` is derived: every field is optional (left out when absent), so an empty value is a
/// valid one. A required field that may be `null` is still required.
pub(crate) fn derives_default(s: &Struct) -> bool {
    s.fields.iter().all(|f| f.optional)
}

/// The attributes before a struct: `#[non_exhaustive]`.
pub(crate) fn attributes() -> TokenStream {
    quote!(#[non_exhaustive])
}

/// The parameter type of a field's value in `new` or its setter: anything that converts into it
/// (`&str` for a `String`), except a value that may be `null`, taken as the `Option` it is so that
/// `None` needs no annotation.
fn parameter(f: &Field, home: Home, nullable: bool) -> TokenStream {
    let value = value_type(&f.ty, f.format, home, false);
    if nullable {
        quote!(::std::option::Option<#value>)
    } else {
        quote!(impl ::std::convert::Into<#value>)
    }
}

/// The field's value from a parameter named as the field (`Box`ed where the field is).
fn stored(f: &Field, nullable: bool) -> TokenStream {
    let id = ident(&f.rust_name);
    match (nullable, f.boxed) {
        (true, true) => quote!(#id.map(::std::boxed::Box::new)),
        (true, false) => quote!(#id),
        (false, true) => quote!(::std::boxed::Box::new(#id.into())),
        (false, false) => quote!(#id.into()),
    }
}

/// `impl Name { pub fn new(…) -> Self; pub fn with_<field>(self, …) -> Self; … }` for a struct of
/// `home` (free-form types are tuple structs with a public map, built as they are: none).
pub(crate) fn impl_block(s: &Struct, home: Home, cfg: &TokenStream) -> TokenStream {
    if s.free_form {
        return TokenStream::new();
    }
    let name = format_ident!("{}", s.rust_name);
    let generics = s.generic.as_ref().map(|g| {
        let g = format_ident!("{}", g);
        quote!(<#g>)
    });
    let required: Vec<&Field> = s.fields.iter().filter(|f| !f.optional).collect();
    let params = required.iter().map(|f| {
        let id = ident(&f.rust_name);
        let ty = parameter(f, home, f.nullable);
        quote!(#id: #ty)
    });
    let inits = s.fields.iter().map(|f| {
        let id = ident(&f.rust_name);
        match (f.optional, f.nullable && !f.boxed) {
            (true, _) => quote!(#id: ::std::option::Option::None),
            // Taken as it is: the shorthand, as clippy asks.
            (false, true) => quote!(#id),
            (false, false) => {
                let value = stored(f, f.nullable);
                quote!(#id: #value)
            }
        }
    });
    let additional = s
        .incomplete
        .then(|| quote!(additional_fields: ::std::collections::BTreeMap::new(),));
    let many = (required.len() > CLIPPY_MAX_ARGUMENTS).then(|| {
        quote!(#[allow(clippy::too_many_arguments, reason = "one parameter per required field")])
    });
    let new_doc = if required.is_empty() {
        format!(" A `{}` with every (optional) field unset.", s.rust_name)
    } else if required.len() == s.fields.len() {
        format!(" A `{}` from its fields, in schema order.", s.rust_name)
    } else {
        format!(
            " A `{}` from its required fields, in schema order; optional fields start unset (`with_…` sets one).",
            s.rust_name
        )
    };
    let setters = s
        .fields
        .iter()
        .filter(|f| f.optional)
        .map(|f| setter(f, home));
    quote! {
        #cfg
        impl #generics #name #generics {
            #[doc = #new_doc]
            #[inline]
            #many
            pub fn new(#(#params),*) -> Self {
                Self { #(#inits,)* #additional }
            }
            #(#setters)*
        }
    }
}

/// `with_<field>`: the optional field `f` set, by value.
pub(crate) fn setter(f: &Field, home: Home) -> TokenStream {
    let id = ident(&f.rust_name);
    let setter = format_ident!("with_{}", crate::naming::unraw(&f.rust_name));
    let ty = parameter(f, home, false);
    let value = stored(f, false);
    let doc = format!(" Sets `{}`.", f.name);
    quote! {
        #[doc = #doc]
        #[inline]
        #[must_use]
        pub fn #setter(mut self, #id: #ty) -> Self {
            self.#id = ::std::option::Option::Some(#value);
            self
        }
    }
}

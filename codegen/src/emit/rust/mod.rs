//! The `energy-api` crate: Rust types with serde impls for every shared type, event payload and REST resource.

mod events;
mod name_table;
mod rest;
mod support;

use crate::model::{Field, Format, Model, Struct, Type};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};

/// Which module a named type lives in, so references can be written as full paths.
#[derive(Clone, Copy)]
pub(crate) enum Home {
    /// `crate::types`.
    Types,
    /// `crate::rest`.
    Rest,
}

/// A generated Rust file: built from the model and formatted on its own, so files can be made in parallel.
enum Job {
    Lib,
    Types,
    De,
    Shape,
    Shapes,
    Events(events::File),
    EventsDecode,
    EventsRouting,
    Rest,
    RestEndpoint,
    Documents,
}

impl Job {
    fn run(
        &self,
        model: &Model,
        views: &[BTreeSet<(String, String)>],
    ) -> Result<(String, String), String> {
        let (path, tokens) = match self {
            Job::Lib => ("src/lib.rs".to_owned(), lib_rs(model)),
            Job::Types => ("src/types.rs".to_owned(), types_rs(model)),
            Job::De => ("src/de.rs".to_owned(), support::de()),
            Job::Shape => ("src/shape.rs".to_owned(), support::shape()),
            Job::Shapes => ("src/shapes.rs".to_owned(), shapes_rs(model)),
            Job::Events(file) => file.build(model, views),
            Job::EventsDecode => ("src/events/decode.rs".to_owned(), support::events_decode()),
            Job::EventsRouting => (
                "src/events/routing.rs".to_owned(),
                support::events_routing(),
            ),
            Job::Rest => ("src/rest/mod.rs".to_owned(), rest::file(model)),
            Job::RestEndpoint => ("src/rest/endpoint.rs".to_owned(), support::rest_endpoint()),
            Job::Documents => ("src/documents.rs".to_owned(), documents_rs(model)),
        };
        Ok((path, format_file(tokens)?))
    }
}

/// Every Rust file of the crate, and its `Cargo.toml`, by path relative to the crate.
///
/// Building and formatting the files is most of the generator's time; the files are independent, so they
/// are made on one thread per core. The result does not depend on which thread made what.
pub fn emit(model: &Model) -> Result<BTreeMap<String, String>, String> {
    let mut jobs = vec![
        Job::Lib,
        Job::Types,
        Job::De,
        Job::Shape,
        Job::Shapes,
        Job::EventsDecode,
        Job::EventsRouting,
    ];
    jobs.extend(events::File::all(model).map(Job::Events));
    jobs.push(Job::Rest);
    if model.rest.is_some() {
        jobs.push(Job::RestEndpoint);
    }
    jobs.push(Job::Documents);
    let views = events::view_owners(model);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(jobs.len());
    let results: Vec<Result<Vec<(String, String)>, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(job) = jobs.get(i) else {
                            return Ok(done);
                        };
                        done.push(job.run(model, &views)?);
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a generator thread panicked".to_owned()))
            })
            .collect()
    });
    let mut files = BTreeMap::new();
    files.insert("Cargo.toml".to_owned(), cargo_toml(model));
    files.insert(
        "rustfmt.toml".to_owned(),
        format!(
            "{}# The generator formats this crate (prettyplease); `cargo fmt` leaves it alone.\ndisable_all_formatting = true\n",
            crate::emit::header("#")
        ),
    );
    for result in results {
        files.extend(result?);
    }
    Ok(files)
}

/// Formats a token stream as a Rust file with the generated header.
fn format_file(tokens: TokenStream) -> Result<String, String> {
    let file = syn::parse2::<syn::File>(tokens)
        .map_err(|e| format!("generated Rust does not parse: {e}"))?;
    Ok(format!(
        "{}\n{}",
        crate::emit::header("//").trim_end(),
        prettyplease::unparse(&file)
    ))
}

fn cargo_toml(model: &Model) -> String {
    let features: Vec<&str> = model.sections.iter().map(|s| s.feature.as_str()).collect();
    let mut out = crate::emit::header("#");
    out.push_str(
        r#"[package]
name = "energy-api"
version = "0.1.0"
description = "Types of the energy supply platform's interface: every REST resource and every event payload, with serde."
edition.workspace = true
rust-version.workspace = true
license.workspace = true
publish.workspace = true

# One feature per section of the events catalogue, all on by default: a team that reads one domain
# compiles only its payloads (`default-features = false, features = ["billing"]`).
[features]
"#,
    );
    let quoted: Vec<String> = features.iter().map(|f| format!("\"{f}\"")).collect();
    out.push_str(&format!("default = [{}]\n", quoted.join(", ")));
    for f in &features {
        out.push_str(&format!("{f} = []\n"));
    }
    out.push_str(
        r#"
[dependencies]
jiff = { workspace = true }
serde = { workspace = true }
serde_json = { workspace = true }

[lints]
workspace = true
"#,
    );
    out
}

fn lib_rs(model: &Model) -> TokenStream {
    let counts = format!(
        " Generated from {} shared payload types, {} event types in {} payload versions across {} sections, \
         and {} REST resources with {} endpoints.",
        model.shared_types.len(),
        model.sections.iter().map(|s| s.events.len()).sum::<usize>(),
        model.version_count(),
        model.sections.len(),
        model.rest.as_ref().map_or(0, |r| r.resources.len()),
        model.rest.as_ref().map_or(0, |r| r.endpoints.len()),
    );
    let reexport = if model.rest.is_some() {
        quote!(
            pub use documents::{ASYNCAPI_YAML, OPENAPI_YAML};
        )
    } else {
        quote!(
            pub use documents::ASYNCAPI_YAML;
        )
    };
    quote! {
        #![doc = " Types of the energy supply platform's public interface, generated from its YAML schemas."]
        #![doc = ""]
        #![doc = " - [`types`]: payload types shared by several events;"]
        #![doc = " - [`events`]: one struct per event payload version, a version enum per event type, and [`Event`] to"]
        #![doc = "   decode any payload by (event type, version);"]
        #![doc = " - [`rest`]: the REST resources, the paginated envelope and a request type per endpoint;"]
        #![doc = " - [`documents`]: the OpenAPI and AsyncAPI documents of the same interface, as text."]
        #![doc = ""]
        #![doc = " Unknown JSON fields are ignored when decoding, so that payloads with fields added later still decode."]
        #![doc = ""]
        #![doc = #counts]
        #![forbid(unsafe_code)]

        pub mod types;
        pub mod events;
        pub mod rest;
                mod de;
        mod shape;
        mod shapes;

        pub mod documents;

        pub use events::{DecodeError, Event, EventKind, EventType, PayloadError, PayloadErrorKind};
        #reexport
    }
}

/// `src/documents.rs`: the OpenAPI and AsyncAPI documents, embedded, so that a service can serve them.
fn documents_rs(model: &Model) -> TokenStream {
    let asyncapi_path = format!("../{}", crate::emit::asyncapi::PATH);
    let openapi_path = format!("../{}", crate::emit::openapi::PATH);
    let openapi = model.rest.is_some().then(|| {
        quote! {
            /// The REST API as an OpenAPI 3.1.0 document (YAML), as in `openapi.yaml`.
            pub const OPENAPI_YAML: &str = include_str!(#openapi_path);
        }
    });
    quote! {
        #![doc = " The interface's documents, generated from the same model as the Rust types, embedded as text."]
        #openapi
        /// The events catalogue as an AsyncAPI 3.0.0 document (YAML), as in `asyncapi.yaml`.
        pub const ASYNCAPI_YAML: &str = include_str!(#asyncapi_path);
    }
}

fn types_rs(model: &Model) -> TokenStream {
    let structs = model
        .shared_types
        .iter()
        .map(|s| struct_tokens(s, Home::Types));
    quote! {
        #![doc = " Payload types shared by several events (the catalogue's \"Shared payload types\")."]
        #(#structs)*
    }
}

/// `#[doc]` attributes, one per line, so that they print as `///` lines.
pub(crate) fn doc_attrs(text: &str) -> TokenStream {
    let lines = text.lines().map(|l| {
        if l.is_empty() {
            String::new()
        } else {
            format!(" {l}")
        }
    });
    quote! { #(#[doc = #lines])* }
}

/// `#![doc]` attributes, one per line, for a module's own documentation.
pub(crate) fn inner_doc_attrs(text: &str) -> TokenStream {
    let lines = text.lines().map(|l| {
        if l.is_empty() {
            String::new()
        } else {
            format!(" {l}")
        }
    });
    quote! { #(#![doc = #lines])* }
}

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
        Type::Named(r) => {
            let name = format_ident!("{}", r.rust_name);
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

/// The documentation of a field: its description, or a sentence made from its name and type.
fn field_doc(f: &Field) -> String {
    let mut doc = match &f.description {
        Some(d) => d.clone(),
        None => format!("`{}` ({}).", f.name, f.ty.describe()),
    };
    if let Some(origin) = &f.origin {
        doc.push_str(&format!(" From {origin}."));
    }
    doc
}

/// A struct with serde: a derived `Serialize`, and a compact `Deserialize` (see [`deserialize_impl`]).
/// Optional fields are `Option` and skipped when absent; unknown fields are ignored, or kept in
/// `additional_fields` when the struct is incomplete.
pub(crate) fn struct_tokens(s: &Struct, home: Home) -> TokenStream {
    let name = format_ident!("{}", s.rust_name);
    let doc = if s.incomplete {
        doc_attrs(&format!(
            "{}\n\nIncomplete: the spec does not show every field; fields not listed here are kept in \
             `additional_fields`, not dropped.",
            s.doc
        ))
    } else {
        doc_attrs(&s.doc)
    };
    let generics = s.generic.as_ref().map(|g| {
        let g = format_ident!("{}", g);
        quote!(<#g>)
    });
    if s.free_form {
        return quote! {
            #doc
            #[derive(Debug, Clone, Default, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
            #[serde(transparent)]
            pub struct #name(pub ::serde_json::Map<::std::string::String, ::serde_json::Value>);
        };
    }
    let fields = s.fields.iter().map(|f| {
        let doc = doc_attrs(&field_doc(f));
        let id = ident(&f.rust_name);
        let value = value_type(&f.ty, f.format, home, f.boxed);
        let rename = (crate::naming::unraw(&f.rust_name) != f.name).then(|| {
            let json = &f.name;
            quote!(#[serde(rename = #json)])
        });
        let (ty, skip) = if f.optional {
            (
                quote!(::std::option::Option<#value>),
                quote!(#[serde(skip_serializing_if = "::std::option::Option::is_none")]),
            )
        } else if f.nullable {
            (quote!(::std::option::Option<#value>), quote!())
        } else {
            (value, quote!())
        };
        quote! {
            #doc
            #rename
            #skip
            pub #id: #ty,
        }
    });
    let additional = s.incomplete.then(|| {
        quote! {
            /// Fields the schema does not list (it marks this type incomplete), kept as they came.
            #[serde(flatten)]
            pub additional_fields: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
        }
    });
    let deserialize = deserialize_impl(s, home);
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq, ::serde::Serialize)]
        pub struct #name #generics {
            #(#fields)*
            #additional
        }
        #deserialize
    }
}

/// `Deserialize` written out for one struct: a single map visitor that finds each key's field through a
/// table lookup shared by every struct (`crate::de`), instead of serde_derive's field enum, key visitor
/// and sequence visitor per struct. It accepts and rejects exactly what the derive would (the same
/// "missing field", "duplicate field" and type errors), and compiles to a fraction of the code.
fn deserialize_impl(s: &Struct, home: Home) -> TokenStream {
    if !s.incomplete && s.generic.is_none() {
        return deserialize_macro_call(s);
    }
    let name = format_ident!("{}", s.rust_name);
    let expecting = format!("struct {}", s.rust_name);
    let json_names = s.fields.iter().map(|f| f.name.as_str());
    let slots: Vec<Ident> = (0..s.fields.len()).map(|i| format_ident!("f{i}")).collect();
    let indices = 0..s.fields.len();
    let inits = s
        .fields
        .iter()
        .zip(&slots)
        .enumerate()
        .map(|(i, (f, slot))| {
            let id = ident(&f.rust_name);
            if f.is_option() {
                quote!(#id: #slot.flatten())
            } else {
                quote!(#id: crate::de::required(#slot, FIELDS[#i])?)
            }
        });
    let slot_types = s.fields.iter().map(|f| {
        let value = value_type(&f.ty, f.format, home, f.boxed);
        if f.is_option() {
            quote!(::std::option::Option<::std::option::Option<#value>>)
        } else {
            quote!(::std::option::Option<#value>)
        }
    });
    let (key_seed, other_arm, additional_init, additional_decl) = if s.incomplete {
        (
            quote!(crate::de::KeyOrName(FIELDS)),
            quote! {
                ::std::result::Result::Err(other) => {
                    additional_fields.insert(other, ::serde::de::MapAccess::next_value(&mut map)?);
                }
                ::std::result::Result::Ok(_) => {
                    ::serde::de::MapAccess::next_value::<::serde::de::IgnoredAny>(&mut map)?;
                }
            },
            quote!(additional_fields,),
            quote!(let mut additional_fields = ::serde_json::Map::new();),
        )
    } else {
        (
            quote!(crate::de::Key {
                fields: FIELDS,
                next: &mut next
            }),
            quote!(_ => {
                ::serde::de::MapAccess::next_value::<::serde::de::IgnoredAny>(&mut map)?;
            }),
            quote!(),
            quote!(let mut next = 0;),
        )
    };
    let known = |i: usize| {
        if s.incomplete {
            quote!(::std::result::Result::Ok(#i))
        } else {
            quote!(::std::option::Option::Some(#i))
        }
    };
    let known_arms = indices.map(|i| {
        let pattern = known(i);
        let slot = &slots[i];
        quote!(#pattern => crate::de::set(&mut #slot, &mut map, FIELDS[#i])?,)
    });
    let (impl_generics, type_generics, visitor_decl, visitor_value) = match &s.generic {
        Some(g) => {
            let g = format_ident!("{}", g);
            (
                quote!(<'de, #g: ::serde::Deserialize<'de>>),
                quote!(<#g>),
                quote!(struct Visitor<#g>(::std::marker::PhantomData<#g>);),
                quote!(Visitor(::std::marker::PhantomData)),
            )
        }
        None => (
            quote!(<'de>),
            quote!(),
            quote!(
                struct Visitor;
            ),
            quote!(Visitor),
        ),
    };
    quote! {
        impl #impl_generics ::serde::Deserialize<'de> for #name #type_generics {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                const FIELDS: &[&str] = &[#(#json_names),*];
                #visitor_decl
                impl #impl_generics ::serde::de::Visitor<'de> for Visitor #type_generics {
                    type Value = #name #type_generics;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str(#expecting)
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> ::std::result::Result<Self::Value, A::Error> {
                        #(let mut #slots: #slot_types = ::std::option::Option::None;)*
                        #additional_decl
                        while let ::std::option::Option::Some(key) = ::serde::de::MapAccess::next_key_seed(&mut map, #key_seed)? {
                            match key {
                                #(#known_arms)*
                                #other_arm
                            }
                        }
                        ::std::result::Result::Ok(#name { #(#inits,)* #additional_init })
                    }
                }
                deserializer.deserialize_struct(#expecting, FIELDS, #visitor_value)
            }
        }
    }
}

/// `src/shapes.rs`: the shape of every struct of the events (shared types and payloads) as static data,
/// for the allocation-free checks of `crate::shape`.
fn shapes_rs(model: &Model) -> TokenStream {
    let shared = model.shared_types.iter().map(|s| struct_shape(s, quote!()));
    let payloads = model.sections.iter().flat_map(|section| {
        let feature = &section.feature;
        section
            .events
            .iter()
            .flat_map(|e| &e.versions)
            .filter(|v| v.alias_of.is_none())
            .map(move |v| struct_shape(&v.payload, quote!(#[cfg(feature = #feature)])))
    });
    quote! {
        #![doc = " The shape of every struct of the events, as static data (see `crate::shape`); named as the structs."]
                #![allow(non_upper_case_globals, reason = "each shape is named exactly as its struct")]
        #![allow(dead_code, reason = "a shared type that no compiled event uses keeps its shape")]


        #(#shared)*
        #(#payloads)*
    }
}

fn struct_shape(s: &Struct, cfg: TokenStream) -> TokenStream {
    let name = format_ident!("{}", s.rust_name);
    let expecting = format!("struct {}", s.rust_name);
    let fields = s.fields.iter().map(|f| f.name.as_str());
    let shapes = s.fields.iter().map(|f| {
        let shape = shape_expr(&f.ty);
        if f.is_option() {
            quote!(crate::shape::Shape::Optional(&#shape))
        } else {
            shape
        }
    });
    let required = s.fields.iter().map(|f| !f.is_option());
    let incomplete = s.incomplete;
    quote! {
        #cfg
        pub(crate) static #name: crate::shape::StructShape = crate::shape::StructShape {
            name: #expecting,
            fields: &[#(#fields),*],
            shapes: &[#(#shapes),*],
            required: &[#(#required),*],
            incomplete: #incomplete,
        };
    }
}

fn shape_expr(ty: &Type) -> TokenStream {
    match ty {
        Type::Str => quote!(crate::shape::Shape::Str),
        Type::Int => quote!(crate::shape::Shape::Int),
        Type::Num => quote!(crate::shape::Shape::Num),
        Type::Bool => quote!(crate::shape::Shape::Bool),
        Type::Obj => quote!(crate::shape::Shape::Obj),
        Type::Array(inner) => {
            let inner = shape_expr(inner);
            quote!(crate::shape::Shape::Array(&#inner))
        }
        Type::Named(r) => {
            let name = format_ident!("{}", r.rust_name);
            quote!(crate::shape::Shape::Struct(&#name))
        }
        // Only REST resources are generic; events have no type parameters.
        Type::Param(_) => quote!(crate::shape::Shape::Obj),
    }
}

/// `Deserialize` for a complete, non-generic struct: an invocation of `crate::de::deserialize_struct!`,
/// which holds the visitor written out once for all of them.
fn deserialize_macro_call(s: &Struct) -> TokenStream {
    let name = format_ident!("{}", s.rust_name);
    let expecting = format!("struct {}", s.rust_name);
    let fields = s.fields.iter().enumerate().map(|(index, f)| {
        let id = ident(&f.rust_name);
        let json = &f.name;
        let mode = format_ident!(
            "{}",
            if f.is_option() {
                "optional"
            } else {
                "required"
            }
        );
        let index = proc_macro2::Literal::usize_unsuffixed(index);
        quote!((#index, #mode, #id, #json))
    });
    quote! {
        crate::de::deserialize_struct!(#name, #expecting, [#(#fields),*]);
    }
}

//! The derived twin of the generated crate, for tests and benchmarks only: the same Rust types with
//! `#[derive(Serialize, Deserialize)]` and the serde attributes that say what the generated impls do
//! (renamed fields, former names as aliases, optional fields skipped when `None`, kept unlisted members
//! flattened), and functions that pair each generated type with its twin.
//!
//! It is not part of `generated/`: the `energy-twin` test crate writes it in its build script from the
//! same model, so it can never be stale. What a `table_struct!` does is then
//! compared with what serde's derive does, in every format (`tests/formats.rs`) and for speed
//! (`tests/benches/event_decoding.rs`).

use super::structs::{Home, ident, serde_field_attrs, value_type};
use crate::model::{Field, Model, Struct, Type};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The twin's source: modules `types`, `events` (every payload struct, flat) and `rest`, and the pairing
/// functions `payload_pair`, `shared_pair` and `resource_pair`, which call a [`Pair`] visitor (declared
/// by the crate that includes the file) with the generated type and its twin.
///
/// A resource is named by its Rust type as the REST module writes it (`Page<Product>` for a generic one
/// applied to an argument; see [`resource_key`]).
pub fn file(model: &Model) -> Result<String, String> {
    let shared = model
        .shared_types
        .iter()
        .map(|s| twin_struct(s, Home::Types));
    let payloads = model
        .sections
        .iter()
        .flat_map(|s| &s.events)
        .flat_map(|e| &e.versions)
        .filter(|v| v.alias_of.is_none())
        .map(|v| twin_struct(&v.payload, Home::Types));
    let resources = model
        .rest
        .iter()
        .flat_map(|r| &r.resources)
        .map(|s| twin_struct(s, Home::Rest));
    let payload_arms = model.events().flat_map(|(section, event)| {
        event.versions.iter().map(move |v| {
            let (event_type, label) = (&event.name, &v.label);
            let (ours, twin) = match &v.alias_of {
                Some(shared) => {
                    let name = format_ident!("{}", shared.name);
                    (
                        quote!(::energy_api::types::#name),
                        quote!(crate::types::#name),
                    )
                }
                None => {
                    let module = format_ident!("{}", section.module);
                    let name = format_ident!("{}", v.payload.rust_name);
                    (
                        quote!(::energy_api::events::#module::#name),
                        quote!(crate::events::#name),
                    )
                }
            };
            quote!((#event_type, #label) => ::std::option::Option::Some(visitor.pair::<#ours, #twin>()),)
        })
    });
    let shared_arms = model.shared_types.iter().map(|s| {
        let key = &s.name;
        let name = format_ident!("{}", s.rust_name);
        quote!(#key => ::std::option::Option::Some(visitor.pair::<::energy_api::types::#name, crate::types::#name>()),)
    });
    let mut resource_types: Vec<(String, Type)> = Vec::new();
    if let Some(rest) = &model.rest {
        for (index, r) in rest.resources.iter().enumerate() {
            if r.generic.is_none() {
                let ty = Type::Named(crate::model::NamedRef {
                    id: crate::model::TypeId::Resource(index),
                    name: r.name.clone(),
                    arg: None,
                });
                resource_types.push((resource_key(&ty), ty));
            }
        }
        for e in &rest.endpoints {
            if let Type::Named(r) = &e.response
                && r.arg.is_some()
            {
                resource_types.push((resource_key(&e.response), e.response.clone()));
            }
        }
    }
    resource_types.sort();
    resource_types.dedup();
    let resource_arms = resource_types.iter().map(|(key, ty)| {
        let twin = value_type(ty, None, Home::Rest, false);
        let ours = ours_rest_type(ty);
        quote!(#key => ::std::option::Option::Some(visitor.pair::<#ours, #twin>()),)
    });
    let resource_keys = resource_types.iter().map(|(key, _)| key);
    let tokens = quote! {
        /// Shared payload types, derived.
        pub mod types {
            #(#shared)*
        }
        /// Every event payload struct, derived (an alias version's payload is its shared type).
        pub mod events {
            #(#payloads)*
        }
        /// The REST resources, derived.
        pub mod rest {
            #(#resources)*
        }

        /// Calls `visitor` with the generated payload type of (`event_type`, `version`) and its twin.
        pub fn payload_pair<V: Pair>(event_type: &str, version: &str, visitor: V) -> ::std::option::Option<V::Output> {
            match (event_type, version) {
                #(#payload_arms)*
                _ => ::std::option::Option::None,
            }
        }

        /// Calls `visitor` with the generated shared type named `name` and its twin.
        pub fn shared_pair<V: Pair>(name: &str, visitor: V) -> ::std::option::Option<V::Output> {
            match name {
                #(#shared_arms)*
                _ => ::std::option::Option::None,
            }
        }

        /// Every REST resource type `resource_pair` knows, by Rust type (`Page<Product>`).
        pub const RESOURCES: &[&str] = &[#(#resource_keys),*];

        /// Calls `visitor` with the generated REST resource type named `key` (see [`RESOURCES`]) and its
        /// twin.
        pub fn resource_pair<V: Pair>(key: &str, visitor: V) -> ::std::option::Option<V::Output> {
            match key {
                #(#resource_arms)*
                _ => ::std::option::Option::None,
            }
        }
    };
    let file = syn::parse2::<syn::File>(tokens)
        .map_err(|e| format!("the derived twin does not parse: {e}"))?;
    Ok(format!(
        "{}{}",
        crate::emit::header("//"),
        prettyplease::unparse(&file)
    ))
}

/// The key of a REST resource type for [`file`]'s `resource_pair`: its Rust name, with its type argument
/// (`Page<Product>`).
pub fn resource_key(ty: &Type) -> String {
    match ty {
        Type::Named(r) => match &r.arg {
            Some(arg) => format!("{}<{}>", r.name, resource_key(arg)),
            None => r.name.clone(),
        },
        other => other.describe(),
    }
}

/// The generated crate's type of a REST resource.
fn ours_rest_type(ty: &Type) -> TokenStream {
    match ty {
        Type::Named(r) => {
            let name = format_ident!("{}", r.name);
            match &r.arg {
                Some(arg) => {
                    let arg = ours_rest_type(arg);
                    quote!(::energy_api::rest::#name<#arg>)
                }
                None => quote!(::energy_api::rest::#name),
            }
        }
        other => value_type(other, None, Home::Rest, false),
    }
}

/// A struct with serde's derives and the attributes that say what the generated impls do.
fn twin_struct(s: &Struct, home: Home) -> TokenStream {
    let name = format_ident!("{}", s.rust_name);
    let doc = format!(" The derived twin of `{}`.", s.rust_name);
    if s.free_form {
        return quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, Default, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
            #[serde(transparent)]
            pub struct #name(pub ::serde_json::Map<::std::string::String, ::serde_json::Value>);
        };
    }
    let generics = s.generic.as_ref().map(|g| {
        let g = format_ident!("{}", g);
        quote!(<#g>)
    });
    let fields = s.fields.iter().map(|f| twin_field(f, home));
    // Kept members as values: a derive cannot hold serde_json's raw text in other formats, and a user
    // who derives would write this.
    let additional = s.incomplete.then(|| {
        quote! {
            /// Members the schema does not list.
            #[serde(flatten)]
            pub additional_fields: ::std::collections::BTreeMap<::std::string::String, ::serde_json::Value>,
        }
    });
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        pub struct #name #generics {
            #(#fields)*
            #additional
        }
    }
}

fn twin_field(f: &Field, home: Home) -> TokenStream {
    let id = ident(&f.rust_name);
    let value = value_type(&f.ty, f.format, home, f.boxed);
    let ty = if f.is_option() {
        quote!(::std::option::Option<#value>)
    } else {
        value
    };
    let serde = serde_field_attrs(f, true);
    let doc = format!(" `{}`.", f.name);
    quote! {
        #[doc = #doc]
        #serde
        pub #id: #ty,
    }
}

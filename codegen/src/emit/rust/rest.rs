//! `src/rest/mod.rs`: the REST resources, and a request type per endpoint implementing `Endpoint`.

use super::structs::{Home, doc_attrs, ident, inner_doc_attrs, struct_tokens, value_type};
use crate::model::{Endpoint, Field, Format, Model, PathSegment, Type};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeSet;

pub(super) fn file(model: &Model) -> TokenStream {
    let Some(rest) = &model.rest else {
        return quote! {
            #![doc = " The schema defines no REST API."]
        };
    };
    let doc = inner_doc_attrs(&rest.doc);
    // Any resource may be held by another: each is written `nested`, and one that holds a free-form
    // resource reads it as a free-form object.
    let free_form: BTreeSet<String> = rest
        .resources
        .iter()
        .filter(|r| r.free_form)
        .map(|r| r.name.clone())
        .collect();
    let resources = rest
        .resources
        .iter()
        .map(|r| struct_tokens(r, Home::Rest, true, &free_form, &quote!(), false));
    let endpoints = rest.endpoints.iter().map(endpoint);
    let error = rest.error_response.as_ref().map(|t| {
        let ty = value_type(t, None, Home::Rest, false);
        quote! {
            /// The body of an error response.
            pub type ErrorResponse = #ty;
        }
    });
    let version = &rest.version;
    let version_doc = format!(" The API version, also the first path segment (`/{version}/`).");
    quote! {
        #doc
        #(#resources)*
        #error
        #(#endpoints)*

        #[doc = #version_doc]
        pub const API_VERSION: &str = #version;

        pub use ::energy_api_core::rest::{Endpoint, Method};
        pub use ::energy_api_core::datetime;

        #[cfg(feature = "server")]
        pub mod server;
    }
}

fn endpoint(e: &Endpoint) -> TokenStream {
    let name = format_ident!("{}", e.rust_name);
    let doc = doc_attrs(&format!(
        "`{} {}`{}\n\n{}",
        e.method,
        e.path,
        auth_note(e),
        e.doc
    ));
    let fields: Vec<&Field> = e.path_parameters.iter().chain(&e.query).collect();
    let decls = fields.iter().map(|f| {
        let doc = doc_attrs(f.description.as_deref().unwrap_or(""));
        let id = ident(&f.rust_name);
        let value = value_type(&f.ty, f.format, Home::Rest, false);
        let ty = if f.optional {
            quote!(::std::option::Option<#value>)
        } else {
            value
        };
        quote! { #doc pub #id: #ty, }
    });
    let required: Vec<&&Field> = fields.iter().filter(|f| !f.optional).collect();
    let constructor = if required.is_empty() {
        quote!()
    } else {
        let params = required.iter().map(|f| {
            let id = ident(&f.rust_name);
            let ty = value_type(&f.ty, f.format, Home::Rest, false);
            quote!(#id: impl ::std::convert::Into<#ty>)
        });
        let inits = fields.iter().map(|f| {
            let id = ident(&f.rust_name);
            if f.optional {
                quote!(#id: ::std::option::Option::None)
            } else {
                quote!(#id: #id.into())
            }
        });
        let doc = " A request with the required parameters; optional ones start unset.".to_string();
        quote! {
            impl #name {
                #[doc = #doc]
                pub fn new(#(#params),*) -> Self {
                    Self { #(#inits),* }
                }
            }
        }
    };
    let derive_default = required.is_empty().then(|| quote!(Default,));
    let path_pushes = e.segments.iter().map(|s| match s {
        PathSegment::Literal(text) if text.chars().count() == 1 => {
            let c = text.chars().next().unwrap_or('/');
            quote!(path.push(#c);)
        }
        PathSegment::Literal(text) => quote!(path.push_str(#text);),
        PathSegment::Param(p) => {
            let f = e.path_parameters.iter().find(|f| &f.name == p);
            let id = ident(f.map_or(p.as_str(), |f| f.rust_name.as_str()));
            quote!(::energy_api_core::rest::push_path_segment(&mut path, &self.#id.to_string());)
        }
    });
    let query_pushes = e.query.iter().map(|f| {
        let key = &f.name;
        let id = ident(&f.rust_name);
        let push_one = |value: TokenStream, ty: &Type| {
            let text = query_text(ty, f.format, value);
            quote!(query.push((#key, #text));)
        };
        match (&f.ty, f.optional) {
            (Type::Array(inner), true) => {
                let push = push_one(quote!(item), inner);
                quote!(if let ::std::option::Option::Some(items) = &self.#id { for item in items { #push } })
            }
            (Type::Array(inner), false) => {
                let push = push_one(quote!(item), inner);
                quote!(for item in &self.#id { #push })
            }
            (ty, true) => {
                let push = push_one(quote!(value), ty);
                quote!(if let ::std::option::Option::Some(value) = &self.#id { #push })
            }
            (ty, false) => push_one(quote!(self.#id), ty),
        }
    });
    let response = value_type(&e.response, None, Home::Rest, false);
    let method = format_ident!(
        "{}",
        heck::ToUpperCamelCase::to_upper_camel_case(e.method.to_ascii_lowercase().as_str())
    );
    let (template, operation, auth) = (&e.path, &e.name, e.auth_required);
    let query_body = if e.query.is_empty() {
        quote!(::std::vec::Vec::new())
    } else {
        quote! {
            let mut query = ::std::vec::Vec::new();
            #(#query_pushes)*
            query
        }
    };
    let setters: Vec<TokenStream> = e
        .query
        .iter()
        .filter(|f| f.optional)
        .map(|f| super::construct::setter(f, Home::Rest))
        .collect();
    let setters = (!setters.is_empty()).then(|| quote!(impl #name { #(#setters)* }));
    let non_exhaustive = super::construct::attributes();
    quote! {
        #doc
        #[derive(Debug, Clone, #derive_default PartialEq)]
        #non_exhaustive
        pub struct #name {
            #(#decls)*
        }

        #constructor
        #setters

        impl Endpoint for #name {
            type Response = #response;
            const METHOD: Method = Method::#method;
            const PATH_TEMPLATE: &'static str = #template;
            const OPERATION: &'static str = #operation;
            const AUTH_REQUIRED: bool = #auth;

            fn path(&self) -> ::std::string::String {
                let mut path = ::std::string::String::new();
                #(#path_pushes)*
                path
            }

            fn query(&self) -> ::std::vec::Vec<(&'static str, ::std::string::String)> {
                #query_body
            }
        }
    }
}

fn auth_note(e: &Endpoint) -> &'static str {
    if e.auth_required {
        " (authentication required)."
    } else {
        " (no authentication)."
    }
}

/// The query-string text of one value: `true`/`false`, decimal numbers, and date-times with an explicit offset.
fn query_text(ty: &Type, format: Option<Format>, value: TokenStream) -> TokenStream {
    match (ty, format) {
        (Type::Str, Some(Format::DateTime)) => quote!(#value.to_string()),
        (Type::Str, _) => quote!(#value.clone()),
        _ => quote!(#value.to_string()),
    }
}

//! `src/rest/server.rs` (feature `server`): the serving side of the endpoints, as declarations the
//! macros of `energy_api_core::server` expand: each request type's operation row and parameters
//! (`server_request!`), a response enum per operation (`server_reply!`), the handlers' trait and its
//! routes (`server_api!`). The machinery (reading parameters, routing, HTTP) is hand-written elsewhere.

use super::structs::{Home, doc_attrs, value_type};
use crate::model::{Endpoint, Field, Model, Rest, Type};
use crate::samples::{self, Optionals};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The file's tokens.
pub(super) fn file(model: &Model, rest: &Rest) -> TokenStream {
    let examples = rest
        .endpoints
        .iter()
        .filter_map(|e| example(model, rest, e));
    let requests = rest.endpoints.iter().map(request);
    let responses = rest.endpoints.iter().map(|e| response(rest, e));
    let paged = page_resource(rest).map(|page| {
        let name = format_ident!("{}", page.rust_name);
        let has = |field: &str| page.fields.iter().any(|f| f.name == field);
        let next = has("next").then(|| quote!(self.next = next;));
        let previous = has("previous").then(|| quote!(self.previous = previous;));
        let unused =
            (!has("next") || !has("previous")).then(|| quote!(let _ = (&next, &previous);));
        quote! {
            impl<T> ::energy_api_core::server::Paged for crate::rest::#name<T> {
                fn count(&self) -> i64 {
                    self.count
                }

                fn set_links(
                    &mut self,
                    next: ::std::option::Option<::std::string::String>,
                    previous: ::std::option::Option<::std::string::String>,
                ) {
                    #unused
                    #next
                    #previous
                }
            }
        }
    });
    let operations = rest.endpoints.iter().map(|e| {
        let doc = doc_attrs(&format!("`{} {}`: {}", e.method, e.path, e.doc));
        let op = format_ident!("{}", e.name);
        let request = format_ident!("{}", e.rust_name);
        let response = response_name(e);
        let principal = e.auth_required.then(|| quote!(, principal: Principal));
        quote! {
            #doc
            fn #op(request: crate::rest::#request #principal) -> #response;
        }
    });
    quote! {
        #![doc = " The serving side of the REST API (feature `server`): the operations' rows and parameters, a"]
        #![doc = " response enum per operation, and [`Api`], the trait a team serving the API implements. The"]
        #![doc = " `energy-server` crate routes HTTP requests to it."]

        pub use ::energy_api_core::server::{
            Arguments, Example, Location, Operation, Paged, Parameter, Reply, Request, Route,
            ServerError, Violation,
        };

        #(#responses)*

        #(#requests)*

        #paged

        /// The documents' examples of each operation's response (`Prefer: example=sample`, and what
        /// `energy serve --mock` serves), as in `openapi.yaml`.
        pub const EXAMPLES: &[::energy_api_core::server::Example] = &[#(#examples),*];

        ::energy_api_core::server_api! {
            /// The API's operations, one handler each: what a team serving the API implements. Each
            /// takes its operation's request type, the one a client sends, already checked against
            /// every rule of its parameters, and (for those that require authentication) the
            /// principal the server's authentication check found; it returns its operation's response
            /// or the one error type shared by every operation. An operation left out does not compile.
            pub trait Api {
                #(#operations)*
            }
        }
    }
}

/// The OpenAPI document's `sample` example of an endpoint's response.
fn example(model: &Model, rest: &Rest, e: &Endpoint) -> Option<TokenStream> {
    let Type::Named(r) = &e.response else {
        return None;
    };
    let resource = rest.resources.iter().find(|s| s.name == r.name)?;
    let value = samples::resource_example(model, resource, r.arg.as_deref(), Optionals::All);
    let body = serde_json::to_string(&value).ok()?;
    let operation = &e.name;
    Some(quote! {
        ::energy_api_core::server::Example {
            operation: #operation,
            status: 200,
            name: "sample",
            body: #body,
        }
    })
}

fn response_name(e: &Endpoint) -> proc_macro2::Ident {
    format_ident!("{}Response", e.rust_name)
}

/// The response enum of an endpoint: one variant per documented status (the schema documents 200).
fn response(rest: &Rest, e: &Endpoint) -> TokenStream {
    let name = response_name(e);
    let body = value_type(&e.response, None, Home::Rest, false);
    let doc = doc_attrs(&format!(
        "The responses of `{}`: one variant per documented status. Errors (400, 401, 404, …) are \
         [`ServerError`](::energy_api_core::server::ServerError)s, shared by every operation.",
        e.name
    ));
    let ok_doc = format!(" 200: {}.", e.response.describe());
    let paged = is_page(rest, &e.response).then(|| quote!(paged));
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum #name {
            #[doc = #ok_doc]
            Ok(#body),
        }

        ::energy_api_core::server_reply!(#name { Ok = 200 #paged });
    }
}

/// The list envelope whose links a server writes: the generic resource with an integer `count` and
/// nullable string links `next` and (or) `previous`.
fn page_resource(rest: &Rest) -> Option<&crate::model::Struct> {
    rest.resources.iter().find(|r| {
        let field = |name: &str| r.fields.iter().find(|f| f.name == name);
        let link = |name: &str| {
            field(name).is_some_and(|f| f.ty == Type::Str && f.nullable && !f.optional)
        };
        r.generic.is_some()
            && field("count").is_some_and(|f| f.ty == Type::Int && !f.optional && !f.nullable)
            && (link("next") || link("previous"))
    })
}

fn is_page(rest: &Rest, ty: &Type) -> bool {
    matches!(ty, Type::Named(r) if r.arg.is_some()
        && page_resource(rest).is_some_and(|page| page.name == r.name))
}

/// The operation row of an endpoint and how its request type is read.
fn request(e: &Endpoint) -> TokenStream {
    let request = format_ident!("{}", e.rust_name);
    let (name, path, auth) = (&e.name, &e.path, e.auth_required);
    let method = format_ident!(
        "{}",
        heck::ToUpperCamelCase::to_upper_camel_case(e.method.to_ascii_lowercase().as_str())
    );
    let rows = e
        .path_parameters
        .iter()
        .map(|f| row(f, quote!(path)))
        .chain(e.query.iter().map(|f| row(f, quote!(query))));
    let mut required = Vec::new();
    let mut defaulted = Vec::new();
    let mut optional = Vec::new();
    let mut lists = Vec::new();
    let mut required_lists = Vec::new();
    for f in e.path_parameters.iter().chain(&e.query) {
        let id = super::structs::ident(&f.rust_name);
        let entry = {
            let wire = &f.name;
            quote!(#id = #wire)
        };
        match (&f.ty, f.optional) {
            (Type::Array(_), true) => lists.push(entry),
            (Type::Array(_), false) => required_lists.push(entry),
            (_, false) => required.push(entry),
            (_, true) if f.rules.default.is_some() => defaulted.push(entry),
            (_, true) => optional.push(entry),
        }
    }
    let row_name = format_ident!("{}", e.name.to_ascii_uppercase());
    let row_doc = format!(" The row of `{name}`: its method, path, authentication and parameters.");
    quote! {
        #[doc = #row_doc]
        const #row_name: ::energy_api_core::server::Operation = ::energy_api_core::server::Operation {
            name: #name,
            method: ::energy_api_core::rest::Method::#method,
            path: #path,
            auth_required: #auth,
            parameters: &[#(#rows),*],
        };

        ::energy_api_core::server_request!(
            crate::rest::#request = #row_name,
            required: [#(#required),*],
            defaulted: [#(#defaulted),*],
            optional: [#(#optional),*],
            lists: [#(#lists),*],
            required_lists: [#(#required_lists),*],
        );
    }
}

/// A parameter's row, with its rules.
fn row(f: &Field, location: TokenStream) -> TokenStream {
    let wire = &f.name;
    let mut row = quote!(::energy_api_core::server::Parameter::#location(#wire));
    let number = proc_macro2::Literal::i64_unsuffixed;
    if let Some(min) = f.rules.minimum.map(number) {
        row = quote!(#row.minimum(#min));
    }
    if let Some(max) = f.rules.maximum.map(number) {
        row = quote!(#row.maximum(#max));
    }
    if let Some(default) = f.rules.default.map(number) {
        row = quote!(#row.default(#default));
    }
    if let Some(other) = &f.rules.not_after {
        row = quote!(#row.not_after(#other));
    }
    row
}

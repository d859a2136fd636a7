//! `src/events/`: payload structs and version enums per section, and the `Event` enum over all of them.

use super::structs::{Home, doc_attrs, ident, inner_doc_attrs, struct_tokens};
use crate::model::{EventType, EventVersion, Model, Section};
use crate::views::{VersionView, version_views};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeSet;

/// For each section, the (newer, older) payload pairs whose version view it writes: the first section to
/// need one. Payloads that are a shared type as a whole could make two events ask for the same conversion.
pub(super) fn view_owners(model: &Model) -> Vec<BTreeSet<(String, String)>> {
    let mut written = BTreeSet::new();
    model
        .sections
        .iter()
        .map(|section| {
            let mut owned = BTreeSet::new();
            for view in section.events.iter().flat_map(version_views) {
                let pair = (payload_type_name(view.newer), payload_type_name(view.older));
                if pair.0 != pair.1 && written.insert(pair.clone()) {
                    owned.insert(pair);
                }
            }
            owned
        })
        .collect()
}

/// The Rust name of a version's payload type: its own struct, or the shared type it is.
fn payload_type_name(v: &EventVersion) -> String {
    v.alias_of
        .as_ref()
        .map_or(&v.payload.rust_name, |a| &a.name)
        .clone()
}

pub(super) fn section_rs(
    section: &Section,
    owned_views: &BTreeSet<(String, String)>,
    compiled: &crate::model::Compiled,
) -> TokenStream {
    let mut doc = inner_doc_attrs(&format!(
        "Events of the catalogue section \"{}\".\n\n{}",
        section.title, section.doc
    ));
    let deprecated = section
        .events
        .iter()
        .flat_map(|e| &e.versions)
        .any(|v| v.deprecated.is_some());
    if deprecated {
        // Users of a deprecated payload are warned; this module still decodes and converts it.
        doc.extend(quote! {
            #![allow(deprecated, reason = "deprecated payload versions are still decoded")]
        });
    }
    let items = section.events.iter().map(|e| {
        let structs = e.versions.iter().map(|v| match &v.alias_of {
            Some(shared) => {
                let doc = doc_attrs(&v.payload.doc);
                let name = format_ident!("{}", v.payload.rust_name);
                let target = format_ident!("{}", shared.name);
                quote! { #doc pub type #name = crate::types::#target; }
            }
            None => {
                let compiled = compiled.payload(v);
                let tokens = struct_tokens(
                    &v.payload,
                    Home::Types,
                    false,
                    &BTreeSet::new(),
                    &quote!(),
                    compiled,
                );
                match &v.deprecated {
                    Some(d) => {
                        let note = format!("sunset {}", d.sunset);
                        quote! { #[deprecated(note = #note)] #tokens }
                    }
                    None => tokens,
                }
            }
        });
        let enum_ = version_enum(section, e);
        let views = version_views(e);
        let conversions = views
            .iter()
            .filter(|view| {
                owned_views
                    .contains(&(payload_type_name(view.newer), payload_type_name(view.older)))
            })
            .map(view_impl);
        quote! { #(#structs)* #enum_ #(#conversions)* }
    });
    quote! {
        #doc
        #(#items)*
    }
}

/// An event type's version enum and its impls, as an invocation of the template's `version_enum!`
/// (`templates/events/routing.rs`): the enum as data, each version with its label and payload type and
/// the newer versions that can be read as it (`#[views(..)]`, its version views).
fn version_enum(section: &Section, e: &EventType) -> TokenStream {
    let name = format_ident!("{}", e.rust_name);
    let event_type = &e.name;
    let mut doc = format!(
        "Event type `{}` ({}), in each of its payload versions.",
        e.name, section.title
    );
    if let Some(d) = &e.description {
        doc.push_str("\n\n");
        doc.push_str(d);
    }
    let doc = doc_attrs(&doc);
    let views = version_views(e);
    let versions = e.versions.iter().map(|v| {
        let variant = format_ident!("{}", v.variant);
        let payload = format_ident!("{}", v.payload.rust_name);
        let (label, variant_doc) = (&v.label, format!(" Payload version `{}`.", v.label));
        let newer: Vec<_> = views
            .iter()
            .filter(|view| view.older.label == v.label)
            .map(|view| format_ident!("{}", view.newer.variant))
            .collect();
        let views = (!newer.is_empty()).then(|| quote!(#[views(#(#newer),*)]));
        quote! {
            #[doc = #variant_doc]
            #[version = #label]
            #views
            #variant(#payload),
        }
    });
    quote! {
        super::routing::version_enum! {
            #doc
            #[event_type = #event_type]
            pub enum #name {
                #(#versions)*
            }
        }
    }
}

/// The Rust type of a version's payload: the shared type itself when the payload is one as a whole.
fn payload_type(v: &EventVersion) -> TokenStream {
    match &v.alias_of {
        Some(shared) => {
            let name = format_ident!("{}", shared.name);
            quote!(crate::types::#name)
        }
        None => {
            let name = format_ident!("{}", v.payload.rust_name);
            quote!(#name)
        }
    }
}

/// `From<newer> for older` of a version view, unless that conversion was already written.
fn view_impl(view: &VersionView<'_>) -> TokenStream {
    let newer = payload_type(view.newer);
    let older = payload_type(view.older);
    let event_type = view
        .newer
        .id
        .strip_suffix(&format!(".{}", view.newer.label))
        .unwrap_or(&view.newer.id);
    let doc = format!(
        " Version view: `{event_type}` {} read as {} (every field of {} is in {}; the others are dropped).",
        view.newer.label, view.older.label, view.older.label, view.newer.label
    );
    let fields = view.fields.iter().map(|f| {
        let id = ident(&f.field.rust_name);
        if f.wrap_in_some {
            quote!(#id: ::std::option::Option::Some(newer.#id))
        } else {
            quote!(#id: newer.#id)
        }
    });
    quote! {
        #[doc = #doc]
        impl ::std::convert::From<#newer> for #older {
            fn from(newer: #newer) -> Self {
                Self { #(#fields,)* }
            }
        }
    }
}

/// The rows of `energy_api_core::event_enum!`, a line per event type of the catalogue in order:
/// `#[cfg(feature = "<section>")] <Variant>(<payload>) = "<name>"`, the payload's type given by
/// `payload` (the owned version enum, or its borrowed view).
pub(super) fn event_rows(
    model: &Model,
    payload: impl Fn(&Section, &EventType) -> TokenStream,
) -> Vec<TokenStream> {
    model
        .events()
        .map(|(s, e)| {
            let feature = &s.feature;
            let variant = format_ident!("{}", e.rust_name);
            let (ty, name) = (payload(s, e), &e.name);
            quote!(#[cfg(feature = #feature)] #variant(#ty) = #name,)
        })
        .collect()
}

/// `feature = "<section>"` for every section: the `any(…)` of a build with at least one.
pub(super) fn any_feature(model: &Model) -> Vec<TokenStream> {
    model
        .sections
        .iter()
        .map(|s| {
            let f = &s.feature;
            quote!(feature = #f)
        })
        .collect()
}

/// `SECTIONS`: every section with its event types, whatever the crate's features, so that a bus can
/// subscribe to (and a stream capture) a whole section from any build.
fn sections_const(model: &Model) -> TokenStream {
    let sections = model.sections.iter().map(|s| {
        let (name, title) = (&s.feature, &s.title);
        let mut types: Vec<&str> = s.events.iter().map(|e| e.name.as_str()).collect();
        let mut former: Vec<&str> = s
            .events
            .iter()
            .flat_map(|e| e.renamed_from.iter().map(String::as_str))
            .collect();
        types.sort_unstable();
        former.sort_unstable();
        quote! {
            ::energy_api_core::bus::Section {
                name: #name,
                title: #title,
                event_types: &[#(#types),*],
                former_event_types: &[#(#former),*],
            },
        }
    });
    quote! {
        /// Every catalogue section, by name, with its event types (also those of sections whose
        /// feature is off): the subject filters of a section are built from these
        /// (`energy_api_core::bus::type_filter`).
        pub const SECTIONS: &[::energy_api_core::bus::Section] = &[#(#sections)*];
    }
}

/// `src/events/mod.rs`: the section modules, `SECTIONS`, the enums over every event type (one row each
/// of `energy_api_core::event_enum!`), the names' hash table and `CATALOGUE`, a row per event type. The
/// code that reads them is the templates `decode.rs`, `routing.rs` and `catalogue.rs`.
pub(super) fn mod_rs(model: &Model) -> TokenStream {
    let modules = model.sections.iter().map(|s| {
        let module = format_ident!("{}", s.module);
        let feature = &s.feature;
        let doc = format!(" Section \"{}\" (cargo feature `{}`).", s.title, s.feature);
        quote! {
            #[doc = #doc]
            #[cfg(feature = #feature)]
            pub mod #module;
            #[cfg(feature = #feature)]
            pub use #module::*;
        }
    });
    let events: Vec<(&Section, &EventType)> = model.events().collect();
    let any_feature = any_feature(model);
    let rows = event_rows(model, |s, e| {
        let (m, n) = (
            format_ident!("{}", s.module),
            format_ident!("{}", e.rust_name),
        );
        quote!(#m::#n)
    });
    // Names looked up: every event type's, then the former names of renamed ones (`renamed_from:`).
    let lookup_names: Vec<&str> = events
        .iter()
        .map(|(_, e)| e.name.as_str())
        .chain(
            events
                .iter()
                .flat_map(|(_, e)| e.renamed_from.iter().map(String::as_str)),
        )
        .collect();
    let name_lookup = super::name_table::lookup(&lookup_names);
    let catalogue = events.iter().map(|(s, e)| {
        // Short names: every section's items are re-exported here (`pub use <section>::*`).
        let event = format_ident!("{}", e.rust_name);
        let (name, former, section) = (&e.name, &e.renamed_from, &s.feature);
        let payloads = e.versions.iter().map(|v| {
            let payload = format_ident!("{}", v.payload.rust_name);
            // A payload compiled per type (the traffic profile's) is read by its own code.
            if model.compiled.payload(v) {
                quote!(PayloadRow::compiled::<#payload, #event>())
            } else {
                quote!(PayloadRow::of::<#payload, #event>())
            }
        });
        quote! {
            #[cfg(feature = #section)]
            EventRow {
                name: #name,
                former_names: &[#(#former),*],
                section: #section,
                versions: #event::VERSIONS,
                payloads: &[#(#payloads),*],
            },
        }
    });
    let sections = sections_const(model);
    let schema_id_base = crate::naming::SCHEMA_ID_BASE;
    quote! {
        #![doc = " Event payloads: a module per catalogue section (each behind a cargo feature of the same name), and"]
        #![doc = " [`Event`], [`EventType`] and [`EventKind`] to decode any payload by (event type, version)."]
        // Without any section, no `EventKind` can exist and the decoding code is unreachable.
        #![cfg_attr(not(any(#(#any_feature),*)), allow(unused_variables, unused_mut, unreachable_code, unused_imports))]

        mod catalogue;
        mod decode;
        pub use decode::{DecodeError, EventKind, PayloadError, PayloadErrorKind, PayloadValidator, UnknownEventType, json_path_at};
        mod routing;
        pub use routing::{PayloadVersion, TypedEvent};
        #[allow(unused_imports, reason = "a build without any section has no event type")]
        pub(crate) use routing::version_enum;
        use ::energy_api_core::catalogue::{EventRow, PayloadRow};

        #(#modules)*

        #sections

        /// The base of the `$id` of every version's JSON Schema (`generated/schemas/`): a version's is
        /// this, then `energy_api_core::bus::event_schema_path` (`events/<type>.<version>.json`). On the
        /// bus it is the CloudEvents `dataschema` of each event.
        pub const JSON_SCHEMA_ID_BASE: &str = #schema_id_base;

        ::energy_api_core::event_enum! {
            owned;
            #(#rows)*
        }

        #name_lookup

        /// The catalogue: a row per event type compiled in, in the order of [`EventType`] (an event
        /// type's row is at `event_type as usize`), with a row per payload version in it. What
        /// `EventType` says of an event type, the table of a payload and the making of an event from it
        /// are lookups here (see `energy_api_core::catalogue`).
        #[allow(deprecated, reason = "deprecated payload versions are still decoded")]
        static CATALOGUE: &[EventRow<Event>] = &[#(#catalogue)*];
    }
}

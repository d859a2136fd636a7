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
                let tokens = struct_tokens(&v.payload, Home::Types, false, &quote!());
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

/// The events of the catalogue as the enums over them (`EventType`, `Event`, `EventRef`) list them, in
/// order: each one's `#[cfg(feature = …)]`, Rust name and variant doc; and `feature = …` for every
/// section, for the `any(…)` of a build with at least one.
pub(super) struct EventVariants {
    pub(super) cfgs: Vec<TokenStream>,
    pub(super) names: Vec<proc_macro2::Ident>,
    pub(super) docs: Vec<String>,
    pub(super) any_feature: Vec<TokenStream>,
}

impl EventVariants {
    pub(super) fn of(model: &Model) -> Self {
        let events: Vec<(&Section, &EventType)> = model.events().collect();
        EventVariants {
            cfgs: events
                .iter()
                .map(|(s, _)| {
                    let f = &s.feature;
                    quote!(#[cfg(feature = #f)])
                })
                .collect(),
            names: events
                .iter()
                .map(|(_, e)| format_ident!("{}", e.rust_name))
                .collect(),
            docs: events
                .iter()
                .map(|(_, e)| format!(" `{}`.", e.name))
                .collect(),
            any_feature: model
                .sections
                .iter()
                .map(|s| {
                    let f = &s.feature;
                    quote!(feature = #f)
                })
                .collect(),
        }
    }

    /// `event_type()` and `version()` of an enum with a variant per event holding its payload (`Event`,
    /// `EventRef<'_>`), and `Serialize` as that payload. `none_compiled` is the match arm of a build
    /// without any section, when the enum has no variant of an event.
    pub(super) fn payload_enum_impls(
        &self,
        ty: TokenStream,
        none_compiled: TokenStream,
    ) -> TokenStream {
        let (cfgs, names) = (&self.cfgs, &self.names);
        quote! {
            impl #ty {
                /// The event's type.
                pub fn event_type(&self) -> EventType {
                    match self {
                        #(#cfgs Self::#names(_) => EventType::#names,)*
                        #none_compiled
                    }
                }

                /// The payload version.
                pub fn version(&self) -> &'static str {
                    match self {
                        #(#cfgs Self::#names(e) => e.version(),)*
                        #none_compiled
                    }
                }
            }

            /// Serializes as the payload alone, exactly as the platform sends it.
            impl ::serde::Serialize for #ty {
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                    match self {
                        #(#cfgs Self::#names(e) => e.serialize(serializer),)*
                        #none_compiled
                    }
                }
            }
        }
    }
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
    let variants = EventVariants::of(model);
    let (cfgs, names, variant_docs, any_feature) = (
        &variants.cfgs,
        &variants.names,
        &variants.docs,
        &variants.any_feature,
    );
    let paths: Vec<TokenStream> = events
        .iter()
        .map(|(s, e)| {
            let m = format_ident!("{}", s.module);
            let n = format_ident!("{}", e.rust_name);
            quote!(#m::#n)
        })
        .collect();
    let strs: Vec<&str> = events.iter().map(|(_, e)| e.name.as_str()).collect();
    // Names looked up: every event type's, then the former names of renamed ones (`renamed_from:`),
    // each with the event type it now is.
    let former: Vec<(&str, &Section, &EventType)> = events
        .iter()
        .flat_map(|(s, e)| e.renamed_from.iter().map(move |r| (r.as_str(), *s, *e)))
        .collect();
    let lookup_names: Vec<&str> = strs
        .iter()
        .copied()
        .chain(former.iter().map(|(r, _, _)| *r))
        .collect();
    let name_lookup = super::name_table::lookup(&lookup_names);
    let count = proc_macro2::Literal::usize_unsuffixed(lookup_names.len());
    let rows = events.iter().zip(cfgs).map(|((s, e), cfg)| {
        // Short names: every section's items are re-exported here (`pub use <section>::*`).
        let event = format_ident!("{}", e.rust_name);
        let (name, former, section) = (&e.name, &e.renamed_from, &s.feature);
        let payloads = e.versions.iter().map(|v| {
            let payload = format_ident!("{}", v.payload.rust_name);
            quote!(PayloadRow::of::<#payload, #event>())
        });
        quote! {
            #cfg
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
    // With every section's feature off `Event` has no variant, and a `match` on `&Event` needs an arm.
    let event_impls = variants.payload_enum_impls(
        quote!(Event),
        quote!(#[cfg(not(any(#(#any_feature),*)))] _ => match *self {},),
    );
    quote! {
        #![doc = " Event payloads: a module per catalogue section (each behind a cargo feature of the same name), and"]
        #![doc = " [`Event`], [`EventType`] and [`EventKind`] to decode any payload by (event type, version)."]
        // Without any section, no `EventKind` can exist and the decoding code is unreachable.
        #![cfg_attr(not(any(#(#any_feature),*)), allow(unused_variables, unused_mut, unreachable_code))]

        mod decode;
        pub use decode::{DecodeError, EventKind, PayloadError, PayloadErrorKind, PayloadValidator, UnknownEventType, json_path_at};
        mod routing;
        pub use routing::{PayloadVersion, TypedEvent};
        use ::energy_api_core::catalogue::{EventRow, PayloadRow};

        #(#modules)*

        #sections

        /// The base of the `$id` of every version's JSON Schema (`generated/schemas/`): a version's is
        /// this, then `energy_api_core::bus::event_schema_path` (`events/<type>.<version>.json`). On the
        /// bus it is the CloudEvents `dataschema` of each event.
        pub const JSON_SCHEMA_ID_BASE: &str = #schema_id_base;

        /// An event type of the catalogue, without a payload.
        ///
        /// Its variants are in name order; their numeric values (an `as` cast) are not part of the API:
        /// they change when event types are added, and with the crate's features.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum EventType {
            #(#cfgs #[doc = #variant_docs] #names,)*
        }

        impl EventType {
            /// Every event type compiled in (see the crate's features), by name.
            pub const ALL: &'static [EventType] = &[#(#cfgs EventType::#names,)*];

            /// The event type as it appears on the bus.
            pub const fn as_str(self) -> &'static str {
                self.row().name
            }

            /// Its payload versions, oldest first.
            pub const fn versions(self) -> &'static [&'static str] {
                self.row().versions
            }

            /// The catalogue section (and cargo feature) it belongs to.
            pub const fn section(self) -> &'static str {
                self.row().section
            }

            /// Its row of the catalogue.
            const fn row(self) -> &'static EventRow<Event> {
                &CATALOGUE[self as usize]
            }

            /// This event type in payload version `version`, if that version exists.
            pub fn kind(self, version: &str) -> ::std::option::Option<EventKind> {
                let index = self.versions().iter().position(|v| *v == version)?;
                ::std::option::Option::Some(EventKind { event_type: self, version: u8::try_from(index).ok()? })
            }
        }

        #name_lookup

        /// The catalogue: a row per event type compiled in, in the order of [`EventType`] (an event
        /// type's row is at `event_type as usize`), with a row per payload version in it. What
        /// `EventType` says of an event type, the table of a payload and the making of an event from it
        /// are lookups here (see `energy_api_core::catalogue`).
        #[allow(deprecated, reason = "deprecated payload versions are still decoded")]
        static CATALOGUE: &[EventRow<Event>] = &[#(#rows)*];

        /// The event type of each name of `EVENT_TYPE_NAMES`, if its section is compiled in: filled at
        /// compile time from the catalogue's names and former names. An array rather than a `match`: a
        /// load, where a `match` is an indirect jump mispredicted on a mixed stream.
        static EVENT_TYPES_BY_INDEX: [::std::option::Option<EventType>; #count] = {
            use ::energy_api_core::catalogue::index_of;
            let mut by_index = [::std::option::Option::None; #count];
            // Both lists are in the catalogue's order (the names, then the former names): each name is
            // looked for from where the one before it was found.
            let (mut name_at, mut former_at) = (0, 0);
            let mut t = 0;
            while t < CATALOGUE.len() {
                let row = &CATALOGUE[t];
                let event_type = ::std::option::Option::Some(EventType::ALL[t]);
                name_at = index_of(&EVENT_TYPE_NAMES, row.name, name_at);
                by_index[name_at] = event_type;
                let mut f = 0;
                while f < row.former_names.len() {
                    former_at = index_of(&EVENT_TYPE_NAMES, row.former_names[f], former_at);
                    by_index[former_at] = event_type;
                    f += 1;
                }
                t += 1;
            }
            by_index
        };

        impl ::std::str::FromStr for EventType {
            type Err = UnknownEventType;
            fn from_str(s: &str) -> ::std::result::Result<Self, Self::Err> {
                event_type_index(s)
                    .and_then(|index| EVENT_TYPES_BY_INDEX[index])
                    .ok_or_else(|| UnknownEventType(s.to_owned()))
            }
        }

        /// An event: its type, payload version and payload.
        ///
        /// Serializes as the payload alone, exactly as the platform sends it.
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum Event {
            #(#cfgs #[doc = #variant_docs] #names(#paths),)*
        }

        #event_impls

        impl EventKind {
            /// The row of this kind's payload in the catalogue.
            fn payload_row(self) -> &'static PayloadRow<Event> {
                &self.event_type.row().payloads[usize::from(self.version)]
            }

            /// The table of this kind's payload: what every decoder of it reads (each field's JSON
            /// name and shape; `energy events drift` compares what producers send with it).
            pub fn table(self) -> &'static ::energy_api_core::table::StructTable {
                self.payload_row().table
            }

            /// The event of this kind from the fields its table read; `Stop` only if the table and the
            /// struct disagree (see `energy_api_core::table::FromFields::build`).
            fn event_of(
                self,
                fields: &mut ::energy_api_core::table::Fields<'_>,
            ) -> ::std::result::Result<Event, ::energy_api_core::read::Stop> {
                (self.payload_row().build)(fields)
            }

            /// Reads a payload of this kind with the fast reader ([`energy_api_core::read`]): it stops
            /// where it is not sure, and [`EventKind::decode`] then decodes the same text with serde.
            pub fn read(
                self,
                reader: &mut ::energy_api_core::read::Reader<'_>,
            ) -> ::std::result::Result<Event, ::energy_api_core::read::Stop> {
                let mut fields = ::energy_api_core::table::Fields::of(self.table());
                ::energy_api_core::table::read(reader, self.table(), ::energy_api_core::table::Mode::Owned, &mut fields)?;
                self.event_of(&mut fields)
            }
        }

        impl<'de> ::serde::de::DeserializeSeed<'de> for EventKind {
            type Value = Event;
            fn deserialize<D: ::serde::Deserializer<'de>>(self, deserializer: D) -> ::std::result::Result<Event, D::Error> {
                let mut fields = ::energy_api_core::table::deserialize_object(deserializer, self.table(), ::energy_api_core::table::Mode::Owned)?;
                self.event_of(&mut fields)
                    .map_err(|_| <D::Error as ::serde::de::Error>::custom(::energy_api_core::table::MISMATCH))
            }
        }

    }
}

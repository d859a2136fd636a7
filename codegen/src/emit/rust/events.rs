//! `src/events/`: payload structs and version enums per section, and the `Event` enum over all of them.

use super::{Home, doc_attrs, inner_doc_attrs, struct_tokens};
use crate::model::{EventType, EventVersion, Model, Section};
use crate::views::{VersionView, version_views};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeSet;

/// `src/events/mod.rs` and one `src/events/<section>.rs` per section.
pub(super) fn files(model: &Model) -> Vec<(String, TokenStream)> {
    let mut files = vec![("src/events/mod.rs".to_owned(), mod_rs(model))];
    // Payloads that are a shared type as a whole could make two events ask for the same conversion.
    let mut conversions = BTreeSet::new();
    for section in &model.sections {
        files.push((
            format!("src/events/{}.rs", section.module),
            section_rs(section, &mut conversions),
        ));
    }
    files
}

fn section_rs(section: &Section, conversions: &mut BTreeSet<(String, String)>) -> TokenStream {
    let doc = inner_doc_attrs(&format!(
        "Events of the catalogue section \"{}\".\n\n{}",
        section.title, section.doc
    ));
    let items = section.events.iter().map(|e| {
        let structs = e.versions.iter().map(|v| match &v.alias_of {
            Some(shared) => {
                let doc = doc_attrs(&v.payload.doc);
                let name = format_ident!("{}", v.payload.rust_name);
                let target = format_ident!("{}", shared.rust_name);
                quote! { #doc pub type #name = crate::types::#target; }
            }
            None => struct_tokens(&v.payload, Home::Types),
        });
        let enum_ = version_enum(section, e);
        let routing = routing_impls(section, e);
        let views = version_views(e);
        let conversions = views.iter().filter_map(|view| view_impl(view, conversions));
        quote! { #(#structs)* #enum_ #routing #(#conversions)* }
    });
    quote! {
        #doc
        #(#items)*
    }
}

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
    let labels: Vec<&str> = e.versions.iter().map(|v| v.label.as_str()).collect();
    let variants: Vec<_> = e
        .versions
        .iter()
        .map(|v| format_ident!("{}", v.variant))
        .collect();
    let payloads: Vec<_> = e
        .versions
        .iter()
        .map(|v| format_ident!("{}", v.payload.rust_name))
        .collect();
    let variant_docs = e
        .versions
        .iter()
        .map(|v| format!(" Payload version `{}`.", v.label));
    let indices = (0..e.versions.len()).map(|i| u8::try_from(i).unwrap_or(u8::MAX));
    let last = variants.len() - 1;
    let (init, last_variant, last_payload) = (&variants[..last], &variants[last], &payloads[last]);
    let init_payloads = &payloads[..last];
    let decode_last = quote!(<#last_payload as ::serde::Deserialize>::deserialize(deserializer).map(Self::#last_variant));
    // `index` is always valid (an `EventKind` is only made for a known version); the last arm takes the rest.
    let dispatch = if last == 0 {
        quote! { let _ = index; #decode_last }
    } else {
        quote! {
            match index {
                #(#indices => <#init_payloads as ::serde::Deserialize>::deserialize(deserializer).map(Self::#init),)*
                _ => #decode_last,
            }
        }
    };
    quote! {
        #doc
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum #name {
            #(#[doc = #variant_docs] #variants(#payloads),)*
        }

        impl #name {
            /// The event type.
            pub const EVENT_TYPE: &'static str = #event_type;
            /// The payload versions, oldest first.
            pub const VERSIONS: &'static [&'static str] = &[#(#labels),*];

            /// The payload version of this value.
            pub fn version(&self) -> &'static str {
                match self {
                    #(Self::#variants(_) => #labels,)*
                }
            }

            /// Deserializes the payload of the version at `index` in [`Self::VERSIONS`].
            pub(crate) fn deserialize_version<'de, D: ::serde::Deserializer<'de>>(
                index: u8,
                deserializer: D,
            ) -> ::std::result::Result<Self, D::Error> {
                #dispatch
            }
        }

        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                match self {
                    #(Self::#variants(payload) => payload.serialize(serializer),)*
                }
            }
        }

        #(
            impl ::std::convert::From<#payloads> for #name {
                fn from(payload: #payloads) -> Self {
                    Self::#variants(payload)
                }
            }
        )*
    }
}

/// The Rust type of a version's payload: the shared type itself when the payload is one as a whole.
fn payload_type(v: &EventVersion) -> TokenStream {
    match &v.alias_of {
        Some(shared) => {
            let name = format_ident!("{}", shared.rust_name);
            quote!(crate::types::#name)
        }
        None => {
            let name = format_ident!("{}", v.payload.rust_name);
            quote!(#name)
        }
    }
}

/// `TypedEvent` for the version enum, `From<enum> for Event`, and `PayloadVersion` for each payload.
fn routing_impls(section: &Section, e: &EventType) -> TokenStream {
    let name = format_ident!("{}", e.rust_name);
    // With a single event type compiled in, `Event` has one variant and the fallback arm is unreachable.
    let lone = (section.events.len() == 1).then(|| quote!(#[allow(unreachable_patterns)]));
    let views = version_views(e);
    let versions = e.versions.iter().map(|v| {
        let payload = payload_type(v);
        let label = &v.label;
        let variant = format_ident!("{}", v.variant);
        let exact = if e.versions.len() == 1 {
            quote! { let #name::#variant(payload) = event; ::std::result::Result::Ok(payload) }
        } else {
            quote! {
                match event {
                    #name::#variant(payload) => ::std::result::Result::Ok(payload),
                    other => ::std::result::Result::Err(other),
                }
            }
        };
        let newer: Vec<_> = views
            .iter()
            .filter(|view| view.older.label == v.label)
            .map(|view| format_ident!("{}", view.newer.variant))
            .collect();
        let view_of = (!newer.is_empty()).then(|| {
            let all_covered = newer.len() + 1 == e.versions.len();
            let rest = (!all_covered).then(|| quote!(other => ::std::result::Result::Err(other),));
            quote! {
                fn view_of(event: #name) -> ::std::result::Result<Self, #name> {
                    match event {
                        #name::#variant(payload) => ::std::result::Result::Ok(payload),
                        #(#name::#newer(payload) => ::std::result::Result::Ok(payload.into()),)*
                        #rest
                    }
                }
            }
        });
        quote! {
            impl crate::events::PayloadVersion<#name> for #payload {
                const VERSION: &'static str = #label;
                fn from_versions(event: #name) -> ::std::result::Result<Self, #name> {
                    #exact
                }
                #view_of
            }
        }
    });
    quote! {
        impl crate::events::TypedEvent for #name {
            const TYPE: crate::events::EventType = crate::events::EventType::#name;
            #lone
            fn from_event(event: crate::events::Event) -> ::std::result::Result<Self, crate::events::Event> {
                match event {
                    crate::events::Event::#name(e) => ::std::result::Result::Ok(e),
                    other => ::std::result::Result::Err(other),
                }
            }
        }

        impl ::std::convert::From<#name> for crate::events::Event {
            fn from(event: #name) -> Self {
                Self::#name(event)
            }
        }

        #(#versions)*
    }
}

/// `From<newer> for older` of a version view, unless that conversion was already written.
fn view_impl(
    view: &VersionView<'_>,
    written: &mut BTreeSet<(String, String)>,
) -> Option<TokenStream> {
    let newer = payload_type(view.newer);
    let older = payload_type(view.older);
    if !written.insert((newer.to_string(), older.to_string()))
        || newer.to_string() == older.to_string()
    {
        return None;
    }
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
        let id = super::ident(&f.field.rust_name);
        if f.wrap_in_some {
            quote!(#id: ::std::option::Option::Some(newer.#id))
        } else {
            quote!(#id: newer.#id)
        }
    });
    Some(quote! {
        #[doc = #doc]
        impl ::std::convert::From<#newer> for #older {
            fn from(newer: #newer) -> Self {
                Self { #(#fields,)* }
            }
        }
    })
}

fn mod_rs(model: &Model) -> TokenStream {
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
    let cfgs: Vec<TokenStream> = events
        .iter()
        .map(|(s, _)| {
            let f = &s.feature;
            quote!(#[cfg(feature = #f)])
        })
        .collect();
    let names: Vec<_> = events
        .iter()
        .map(|(_, e)| format_ident!("{}", e.rust_name))
        .collect();
    let paths: Vec<TokenStream> = events
        .iter()
        .map(|(s, e)| {
            let m = format_ident!("{}", s.module);
            let n = format_ident!("{}", e.rust_name);
            quote!(#m::#n)
        })
        .collect();
    let strs: Vec<&str> = events.iter().map(|(_, e)| e.name.as_str()).collect();
    let features: Vec<&str> = events.iter().map(|(s, _)| s.feature.as_str()).collect();
    let variant_docs: Vec<String> = events
        .iter()
        .map(|(_, e)| format!(" `{}`.", e.name))
        .collect();
    let support = support();
    quote! {
        #![doc = " Event payloads: a module per catalogue section (each behind a cargo feature of the same name), and"]
        #![doc = " [`Event`], [`EventType`] and [`EventKind`] to decode any payload by (event type, version)."]

        #(#modules)*

        /// An event type of the catalogue, without a payload.
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
                match self {
                    #(#cfgs Self::#names => #strs,)*
                }
            }

            /// Its payload versions, oldest first.
            pub const fn versions(self) -> &'static [&'static str] {
                match self {
                    #(#cfgs Self::#names => #paths::VERSIONS,)*
                }
            }

            /// The catalogue section (and cargo feature) it belongs to.
            pub const fn section(self) -> &'static str {
                match self {
                    #(#cfgs Self::#names => #features,)*
                }
            }

            /// This event type in payload version `version`, if that version exists.
            pub fn kind(self, version: &str) -> ::std::option::Option<EventKind> {
                let index = self.versions().iter().position(|v| *v == version)?;
                ::std::option::Option::Some(EventKind { event_type: self, version: u8::try_from(index).ok()? })
            }
        }

        impl ::std::str::FromStr for EventType {
            type Err = UnknownEventType;
            fn from_str(s: &str) -> ::std::result::Result<Self, Self::Err> {
                match s {
                    #(#cfgs #strs => ::std::result::Result::Ok(Self::#names),)*
                    _ => ::std::result::Result::Err(UnknownEventType(s.to_owned())),
                }
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

        impl Event {
            /// The event's type.
            pub fn event_type(&self) -> EventType {
                match self {
                    #(#cfgs Self::#names(_) => EventType::#names,)*
                }
            }

            /// The payload version.
            pub fn version(&self) -> &'static str {
                match self {
                    #(#cfgs Self::#names(e) => e.version(),)*
                }
            }
        }

        impl ::serde::Serialize for Event {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                match self {
                    #(#cfgs Self::#names(e) => e.serialize(serializer),)*
                }
            }
        }

        impl<'de> ::serde::de::DeserializeSeed<'de> for EventKind {
            type Value = Event;
            fn deserialize<D: ::serde::Deserializer<'de>>(self, deserializer: D) -> ::std::result::Result<Event, D::Error> {
                match self.event_type {
                    #(#cfgs EventType::#names => #paths::deserialize_version(self.version, deserializer).map(Event::#names),)*
                }
            }
        }

        #support
    }
}

/// Code of the `events` module that does not depend on the schema.
fn support() -> TokenStream {
    quote! {
        impl ::std::fmt::Display for EventType {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for EventType {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        /// One event type in all its payload versions (its version enum, such as `AgreementUpdated`), so that
        /// events can be routed by type without matching on every variant of [`Event`].
        pub trait TypedEvent: ::std::marker::Sized + ::std::convert::Into<Event> {
            /// The event type (the version enum's `EVENT_TYPE` is its name).
            const TYPE: EventType;

            /// The event as this type, or the event unchanged when it is of another type.
            // The error is the event given back, as large as it is; boxing it would cost an allocation.
            #[allow(clippy::result_large_err)]
            fn from_event(event: Event) -> ::std::result::Result<Self, Event>;
        }

        /// The payload of one version of the event type `E` (such as `AgreementUpdatedV1` of `AgreementUpdated`).
        pub trait PayloadVersion<E: TypedEvent>: ::std::marker::Sized + ::std::convert::Into<E> {
            /// The payload version.
            const VERSION: &'static str;

            /// The payload when `event` is in this version, or the event unchanged.
            #[allow(clippy::result_large_err)]
            fn from_versions(event: E) -> ::std::result::Result<Self, E>;

            /// The payload when `event` is in this version, or in a later version that contains every field of
            /// this one (converted by its `From` impl, a version view); otherwise the event unchanged.
            #[allow(clippy::result_large_err)]
            fn view_of(event: E) -> ::std::result::Result<Self, E> {
                Self::from_versions(event)
            }
        }

        /// A name that is not a known event type.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct UnknownEventType(pub ::std::string::String);

        impl ::std::fmt::Display for UnknownEventType {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "unknown event type `{}`", self.0)
            }
        }

        impl ::std::error::Error for UnknownEventType {}

        /// A known (event type, payload version) pair.
        ///
        /// It is a [`DeserializeSeed`](::serde::de::DeserializeSeed) of [`Event`], so a payload can be decoded
        /// straight from any serde deserializer (from inside an envelope, say) without an intermediate value.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct EventKind {
            event_type: EventType,
            version: u8,
        }

        impl EventKind {
            /// The pair for `event_type` and `version`, or why there is none.
            pub fn new(event_type: &str, version: &str) -> ::std::result::Result<Self, DecodeError> {
                let parsed: EventType = event_type
                    .parse()
                    .map_err(|_| DecodeError::UnknownEventType { event_type: event_type.to_owned() })?;
                parsed.kind(version).ok_or_else(|| DecodeError::UnknownVersion {
                    event_type: parsed,
                    version: version.to_owned(),
                })
            }

            /// The event type.
            pub fn event_type(self) -> EventType {
                self.event_type
            }

            /// The payload version.
            pub fn version(self) -> &'static str {
                self.event_type.versions()[usize::from(self.version)]
            }

            /// Decodes a JSON payload of this type and version.
            pub fn decode(self, payload: &[u8]) -> ::std::result::Result<Event, DecodeError> {
                let mut de = ::serde_json::Deserializer::from_slice(payload);
                let decoded = ::serde::de::DeserializeSeed::deserialize(self, &mut de).and_then(|e| de.end().map(|()| e));
                decoded.map_err(|_| DecodeError::Payload(self.locate_error(payload)))
            }

            /// Decodes the payload again, tracking the path, to say where and how it is wrong.
            ///
            /// Decoding runs without path tracking (it costs time on every event); this runs only after a failure.
            pub fn locate_error(self, payload: &[u8]) -> PayloadError {
                let mut track = ::serde_path_to_error::Track::new();
                let mut de = ::serde_json::Deserializer::from_slice(payload);
                let result = ::serde::de::DeserializeSeed::deserialize(
                    self,
                    ::serde_path_to_error::Deserializer::new(&mut de, &mut track),
                )
                .and_then(|_| de.end());
                let error = match result {
                    ::std::result::Result::Err(e) => e,
                    ::std::result::Result::Ok(()) => ::serde::de::Error::custom("payload decodes only when its path is tracked"),
                };
                PayloadError::from_json(self, &track.path(), &error)
            }
        }

        /// Why a payload could not be decoded.
        #[derive(Debug, Clone, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum DecodeError {
            /// The event type is not in the catalogue (or its feature is off).
            UnknownEventType {
                /// The event type as given.
                event_type: ::std::string::String,
            },
            /// The event type is known, the version is not.
            UnknownVersion {
                /// The event type.
                event_type: EventType,
                /// The version as given.
                version: ::std::string::String,
            },
            /// The payload does not match its version's shape.
            Payload(PayloadError),
        }

        impl ::std::fmt::Display for DecodeError {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                match self {
                    Self::UnknownEventType { event_type } => write!(f, "unknown event type `{event_type}`"),
                    Self::UnknownVersion { event_type, version } => write!(
                        f,
                        "unknown version `{version}` of event type `{event_type}` (known: {})",
                        event_type.versions().join(", ")
                    ),
                    Self::Payload(e) => e.fmt(f),
                }
            }
        }

        impl ::std::error::Error for DecodeError {}

        /// What is wrong with a payload.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum PayloadErrorKind {
            /// Not well-formed JSON, or cut short.
            Syntax,
            /// A required field is absent.
            MissingField,
            /// A value has the wrong JSON type (a string where a number belongs, say).
            InvalidType,
            /// A value has the right type but is out of range (an integer beyond i64, say).
            InvalidValue,
            /// The same field appears twice in one object.
            DuplicateField,
            /// A field the schema does not list (only when a caller asks for strict decoding).
            UnknownField,
            /// Anything else.
            Other,
        }

        /// A payload that does not match its version's shape: where, what, and the JSON position.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct PayloadError {
            /// The event type.
            pub event_type: EventType,
            /// The payload version.
            pub version: &'static str,
            /// What is wrong.
            pub kind: PayloadErrorKind,
            /// JSON path of the bad field inside the payload, such as `ledger.account.number` or
            /// `supply_points[0].market_name`; empty for the payload itself.
            pub path: ::std::string::String,
            /// A description of the problem.
            pub message: ::std::string::String,
            /// Line in the payload (1-based; 0 when unknown).
            pub line: usize,
            /// Column in the payload (1-based; 0 when unknown).
            pub column: usize,
        }

        impl PayloadError {
            /// Builds the error from a JSON error and the path where it happened.
            pub fn from_json(kind: EventKind, path: &::serde_path_to_error::Path, error: &::serde_json::Error) -> Self {
                let text = error.to_string();
                let message = match text.rfind(" at line ") {
                    ::std::option::Option::Some(i) if error.line() > 0 => text[..i].to_owned(),
                    _ => text,
                };
                let mut path = path.to_string();
                if path == "." {
                    path.clear();
                }
                let backticked = |prefix: &str| {
                    message
                        .strip_prefix(prefix)
                        .and_then(|rest| rest.split('`').next())
                        .map(::std::borrow::ToOwned::to_owned)
                };
                let error_kind = match error.classify() {
                    ::serde_json::error::Category::Syntax | ::serde_json::error::Category::Eof => PayloadErrorKind::Syntax,
                    ::serde_json::error::Category::Io => PayloadErrorKind::Other,
                    ::serde_json::error::Category::Data => {
                        if let ::std::option::Option::Some(field) = backticked("missing field `") {
                            if !path.is_empty() {
                                path.push('.');
                            }
                            path.push_str(&field);
                            PayloadErrorKind::MissingField
                        } else if message.starts_with("invalid type") {
                            PayloadErrorKind::InvalidType
                        } else if message.starts_with("invalid value") || message.starts_with("invalid length") {
                            PayloadErrorKind::InvalidValue
                        } else if message.starts_with("duplicate field") {
                            PayloadErrorKind::DuplicateField
                        } else if message.starts_with("unknown field") {
                            PayloadErrorKind::UnknownField
                        } else {
                            PayloadErrorKind::Other
                        }
                    }
                };
                PayloadError {
                    event_type: kind.event_type(),
                    version: kind.version(),
                    kind: error_kind,
                    path,
                    message,
                    line: error.line(),
                    column: error.column(),
                }
            }
        }

        impl ::std::fmt::Display for PayloadError {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "`{}` {} payload", self.event_type, self.version)?;
                if !self.path.is_empty() {
                    write!(f, ", at `{}`", self.path)?;
                }
                write!(f, ": {}", self.message)?;
                if self.line > 0 {
                    write!(f, " (line {}, column {})", self.line, self.column)?;
                }
                ::std::result::Result::Ok(())
            }
        }

        impl ::std::error::Error for PayloadError {}

        impl Event {
            /// Decodes a JSON payload of `event_type` in `version`.
            ///
            /// Unknown fields are ignored. The error says whether the type or version is unknown, or where the
            /// payload does not match its shape.
            pub fn decode(event_type: &str, version: &str, payload: &[u8]) -> ::std::result::Result<Self, DecodeError> {
                EventKind::new(event_type, version)?.decode(payload)
            }

            /// The payload as JSON bytes.
            pub fn to_payload_json(&self) -> ::std::vec::Vec<u8> {
                // Serializing these types cannot fail: every map key is a string.
                ::serde_json::to_vec(self).unwrap_or_default()
            }

            /// The (event type, version) pair of this event.
            pub fn kind(&self) -> EventKind {
                let event_type = self.event_type();
                let version = self.version();
                let index = event_type.versions().iter().position(|v| *v == version).unwrap_or(0);
                EventKind { event_type, version: u8::try_from(index).unwrap_or(0) }
            }
        }
    }
}

//! `src/borrowed/`: the borrowed views of event payloads (the generated crate's cargo feature `borrowed`),
//! a module tree beside the owned one: `borrowed::types` (the shared types), `borrowed::events::<section>`
//! (a twin of every payload type whose strings ([`CowStr`]) and free-form objects ([`RawObject`]) point
//! into the input instead of being copied out of it, and a version enum per event type over them), and
//! `borrowed::EventRef` over all.
//!
//! A type with neither (integers and booleans only) needs no view: the borrowed module re-exports the
//! owned type. Decoding a view accepts exactly what decoding the owned type accepts (the field types
//! promise it; `api-core`'s agreement test holds them to it), and its errors are the owned decoder's:
//! a failure is explained by decoding again (`EventKind::locate_error`).
//!
//! A view is `Debug` and `Serialize`, not `Clone` or `PartialEq`: it is read where it was decoded, and
//! those two impls of 575 views were 8 % of the every-feature build (BENCHMARKS.md section 21); the
//! owned types have them.
//!
//! [`CowStr`]: energy_api_core::CowStr
//! [`RawObject`]: energy_api_core::RawObject

use super::structs::{
    Home, doc_attrs, field_doc, ident, inner_doc_attrs, shared_type_cfgs, table_impl,
};
use crate::model::{EventType, EventVersion, Format, Model, Section, Struct, Type, TypeId};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeSet;

/// The cargo feature that compiles the views.
pub(super) const FEATURE: &str = "borrowed";

/// Which shared types need a view of their own (they hold, directly or through other shared types, a
/// string or a free-form object). Every other type is its own view.
#[derive(Hash)]
pub(super) struct Borrowing {
    shared: BTreeSet<String>,
}

impl Borrowing {
    pub(super) fn of(model: &Model) -> Self {
        Self {
            shared: crate::borrowing::shared_views(model),
        }
    }

    /// Whether the view of `s` borrows (and so is a type of its own, with a lifetime).
    fn borrows(&self, s: &Struct) -> bool {
        crate::borrowing::fields_borrow(&self.shared, s)
    }

    /// Whether the view of a payload version borrows.
    fn version_borrows(&self, v: &EventVersion) -> bool {
        match &v.alias_of {
            Some(shared) => self.shared.contains(&shared.name),
            None => self.borrows(&v.payload),
        }
    }

    /// Whether the view of an event type's version enum borrows.
    fn event_borrows(&self, e: &EventType) -> bool {
        e.versions.iter().any(|v| self.version_borrows(v))
    }

    /// The Rust type of a field's value in a view, without the `Option` of an optional field.
    fn field_type(&self, ty: &Type, format: Option<Format>, boxed: bool) -> TokenStream {
        let inner = match ty {
            Type::Str if format == Some(Format::DateTime) => quote!(::jiff::Timestamp),
            Type::Str => quote!(::energy_api_core::CowStr<'a>),
            Type::Int => quote!(i64),
            Type::Num => quote!(f64),
            Type::Bool => quote!(bool),
            Type::Obj => quote!(::energy_api_core::RawObject<'a>),
            Type::Array(inner) => {
                let inner = self.field_type(inner, None, false);
                quote!(::std::vec::Vec<#inner>)
            }
            Type::Map(value) => {
                let value = self.field_type(value, None, false);
                quote!(::std::collections::BTreeMap<::energy_api_core::CowStr<'a>, #value>)
            }
            Type::Named(r) => {
                let name = format_ident!("{}", r.name);
                match r.id {
                    TypeId::Shared(_) if self.shared.contains(&r.name) => {
                        quote!(crate::borrowed::types::#name<'a>)
                    }
                    TypeId::Shared(_) => quote!(crate::types::#name),
                    // Event payloads refer only to shared types.
                    TypeId::Resource(_) => quote!(crate::rest::#name),
                }
            }
            // Event payloads are not generic.
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

    /// The view of a struct: a struct with a lifetime when it borrows, else a re-export of `owned`; every
    /// item under `cfg` (the owned type's).
    fn view_struct(
        &self,
        s: &Struct,
        nested: bool,
        owned: TokenStream,
        deprecated: Option<&str>,
        cfg: &TokenStream,
    ) -> TokenStream {
        let name = format_ident!("{}", s.rust_name);
        if !self.borrows(s) {
            return quote! { #cfg pub use #owned; };
        }
        let doc = doc_attrs(&format!(
            "The borrowed view of [`{0}`]({1}): its strings and free-form objects point into the input.",
            s.rust_name,
            owned.to_string().replace(' ', "")
        ));
        let deprecated = deprecated.map(|note| quote!(#[deprecated(note = #note)]));
        let fields = s.fields.iter().map(|f| {
            let doc = doc_attrs(&field_doc(f));
            let id = ident(&f.rust_name);
            let value = self.field_type(&f.ty, f.format, f.boxed);
            let ty = if f.is_option() {
                quote!(::std::option::Option<#value>)
            } else {
                value
            };
            quote! { #doc pub #id: #ty, }
        });
        let additional = s.incomplete.then(|| {
            quote! {
                /// Fields the schema does not list, kept as they came: each as its JSON text.
                pub additional_fields: ::energy_api_core::Unlisted,
            }
        });
        let deserialize = table_impl(
            s,
            quote!(#name<'a>),
            Some(&owned),
            nested,
            Home::Types,
            &BTreeSet::new(),
        );
        quote! {
            #doc
            #deprecated
            #cfg
            #[derive(Debug)]
            #[non_exhaustive]
            pub struct #name<'a> {
                #(#fields)*
                #additional
            }

            #cfg
            #deserialize
        }
    }

    /// `src/borrowed/types.rs`: the views of the shared types.
    pub(super) fn types_file(&self, model: &Model) -> TokenStream {
        let cfgs = shared_type_cfgs(model);
        let views = model.shared_types.iter().map(|t| {
            let name = format_ident!("{}", t.rust_name);
            self.view_struct(t, true, quote!(crate::types::#name), None, &cfgs[&t.name])
        });
        quote! {
            #![doc = " Borrowed views of the shared payload types (cargo feature `borrowed`): strings and free-form"]
            #![doc = " objects point into the input. A type with neither is re-exported as it is."]
            #(#views)*
        }
    }

    /// `src/borrowed/events/<section>.rs`: the views of a section's payloads and version enums.
    pub(super) fn section_file(&self, section: &Section) -> TokenStream {
        let mut doc = inner_doc_attrs(&format!(
            "Borrowed views of the payloads of \"{}\" (cargo feature `borrowed`): strings and free-form \
             objects point into the input. A payload with neither is re-exported as it is.",
            section.title
        ));
        if section
            .events
            .iter()
            .flat_map(|e| &e.versions)
            .any(|v| v.deprecated.is_some())
        {
            doc.extend(quote! {
                #![allow(deprecated, reason = "deprecated payload versions are still decoded")]
            });
        }
        let module = format_ident!("{}", section.module);
        let owned = quote!(crate::events::#module);
        let items = section.events.iter().map(|e| {
            let payloads = e.versions.iter().map(|v| {
                let name = format_ident!("{}", v.payload.rust_name);
                match &v.alias_of {
                    Some(shared) if self.shared.contains(&shared.name) => {
                        let target = format_ident!("{}", shared.name);
                        let doc = doc_attrs(&v.payload.doc);
                        quote! { #doc pub type #name<'a> = crate::borrowed::types::#target<'a>; }
                    }
                    Some(_) => quote! { pub use #owned::#name; },
                    None => {
                        let note = v
                            .deprecated
                            .as_ref()
                            .map(|d| format!("sunset {}", d.sunset));
                        self.view_struct(
                            &v.payload,
                            false,
                            quote!(#owned::#name),
                            note.as_deref(),
                            &quote!(),
                        )
                    }
                }
            });
            let enum_ = self.version_enum(e, &owned);
            quote! { #(#payloads)* #enum_ }
        });
        quote! {
            #doc
            #(#items)*
        }
    }

    /// The version enum of an event type's views, or a re-export of the owned enum when none borrows.
    fn version_enum(&self, e: &EventType, owned: &TokenStream) -> TokenStream {
        let name = format_ident!("{}", e.rust_name);
        if !self.event_borrows(e) {
            return quote! { pub use #owned::#name; };
        }
        let doc = doc_attrs(&format!(
            "The borrowed view of [`{0}`]({1}::{0}): event type `{2}` in each of its payload versions.",
            e.rust_name,
            owned.to_string().replace(' ', ""),
            e.name
        ));
        let versions = e.versions.iter().map(|v| {
            let (variant, payload) = (
                format_ident!("{}", v.variant),
                format_ident!("{}", v.payload.rust_name),
            );
            let lifetime = self.version_borrows(v).then(|| quote!(<'a>));
            let (label, variant_doc) = (&v.label, format!(" Payload version `{}`.", v.label));
            quote! {
                #[doc = #variant_doc]
                #[version = #label]
                #variant(#payload #lifetime),
            }
        });
        // The template's `version_enum!` in its borrowed form (`templates/events/routing.rs`).
        quote! {
            crate::events::version_enum! {
                #doc
                pub enum #name<'a> {
                    #(#versions)*
                }
            }
        }
    }

    /// `src/borrowed/mod.rs`: the module tree of the views, `EventRef` over every event type's views (one
    /// row each of `energy_api_core::event_enum!`) and `VIEWS`, a function per payload version making its
    /// view (the fixed code of decoding is the template `borrowed/decode.rs`).
    pub(super) fn events_file(&self, model: &Model) -> TokenStream {
        let any_feature = super::events::any_feature(model);
        let rows = super::events::event_rows(model, |s, e| {
            let (m, n) = (
                format_ident!("{}", s.module),
                format_ident!("{}", e.rust_name),
            );
            if self.event_borrows(e) {
                quote!(events::#m::#n<'a>)
            } else {
                quote!(crate::events::#m::#n)
            }
        });
        // A row per event type (its views, a function per version), as `CATALOGUE` has for `Event`.
        let views = model.events().map(|(s, e)| {
            // Short names: `events` re-exports every section's items.
            let event = format_ident!("{}", e.rust_name);
            let feature = &s.feature;
            let views = e.versions.iter().map(|v| {
                let variant = format_ident!("{}", v.variant);
                quote!(view_row!(EventRef::#event, events::#event::#variant))
            });
            quote!(#[cfg(feature = #feature)] &[#(#views),*],)
        });
        let sections = model.sections.iter().map(|s| {
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
        quote! {
            #![doc = " Borrowed views of event payloads (cargo feature `borrowed`): the payload types of [`events`] and"]
            #![doc = " [`types`] again, with strings ([`CowStr`](energy_api_core::CowStr)) and free-form objects"]
            #![doc = " ([`RawObject`](energy_api_core::RawObject)) that point into the input instead of being copied out"]
            #![doc = " of it, and [`EventRef`] to decode any payload as one."]
            #![doc = ""]
            #![doc = " A view accepts exactly the payloads its owned type accepts, with the same errors; a type that"]
            #![doc = " holds no string or object is its own view, re-exported here."]
            #![doc = ""]
            #![doc = " A view is read where it was decoded: it is `Debug` and `Serialize` (written to any format), not"]
            #![doc = " `Clone` or `PartialEq`. To keep an event or compare events, decode the owned type ([`crate::Event`])."]
            // Without any section, no `EventKind` can exist: the decoding code is unreachable and `VIEWS` empty.
            #![cfg_attr(not(any(#(#any_feature),*)), allow(unused_variables, unused_mut, unreachable_code, unused_imports))]

            mod decode;
            pub use decode::BorrowedPayload;
            pub mod types;

            /// Borrowed views of the event payloads, by catalogue section.
            pub mod events {
                #(#sections)*
            }

            use crate::events::EventType;

            ::energy_api_core::event_enum! {
                borrowed<'a>, uninhabited_unless any(#(#any_feature),*);
                #(#rows)*
            }

            /// The views of the catalogue: for each event type compiled in, in the order of [`EventType`], a
            /// function per payload version making its view (the tables are the owned payloads': the
            /// catalogue's, `EventKind::table`). A function each (`view_row!`), naming its version's variant
            /// and its event's.
            #[allow(deprecated, reason = "deprecated payload versions are still decoded")]
            static VIEWS: &[&[decode::ViewOf]] = {
                use ::energy_api_core::view_row;
                &[#(#views)*]
            };
        }
    }
}

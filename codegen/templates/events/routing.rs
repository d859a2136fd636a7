//! Routing by event type and payload version without matching on every variant of [`Event`].
//!
//! This file is the same for every schema; the generator copies it from `codegen/templates/`. The
//! generator implements both traits for every event type and payload version.

use super::{Event, EventType};

/// One event type in all its payload versions (its version enum, such as `AgreementUpdated`), so that
/// events can be routed by type without matching on every variant of [`Event`].
pub trait TypedEvent: Sized + Into<Event> {
    /// The event type (the version enum's `EVENT_TYPE` is its name).
    const TYPE: EventType;

    /// The event as this type, or the event unchanged when it is of another type.
    // The error is the event given back, as large as it is; boxing it would cost an allocation.
    #[allow(clippy::result_large_err)]
    fn from_event(event: Event) -> Result<Self, Event>;
}

/// The payload of one version of the event type `E` (such as `AgreementUpdatedV1` of `AgreementUpdated`).
pub trait PayloadVersion<E: TypedEvent>: Sized + Into<E> {
    /// The payload version.
    const VERSION: &'static str;

    /// The payload when `event` is in this version, or the event unchanged.
    #[allow(clippy::result_large_err)]
    fn from_versions(event: E) -> Result<Self, E>;

    /// The payload when `event` is in this version, or in a later version that contains every field of
    /// this one (converted by its `From` impl, a version view); otherwise the event unchanged.
    #[allow(clippy::result_large_err)]
    fn view_of(event: E) -> Result<Self, E> {
        Self::from_versions(event)
    }
}

/// The version enum of an event type, with its impls: `EVENT_TYPE`, `VERSIONS` and `version()`,
/// `Serialize` (as the payload), `From` each payload, [`TypedEvent`], `From<enum> for Event`, and
/// [`PayloadVersion`] for each payload (with the version views of the newer versions named by
/// `#[views(..)]`, converted by their `From` impls).
///
/// The borrowed form (`pub enum AgreementUpdated<'a> { … }`, no `#[event_type]`) writes the version
/// enum of an event type's borrowed views (feature `borrowed`): `version()` and `Serialize` only, as a
/// view is read where it was decoded.
///
/// Written once here rather than for each of the catalogue's event types: the section modules give
/// each enum as data (its name on the bus, each version's label and payload type).
#[allow(
    unused_macros,
    reason = "a build without any section has no event type"
)]
macro_rules! version_enum {
    (
        $(#[doc = $doc:expr])*
        #[event_type = $event_type:literal]
        pub enum $name:ident {
            $(
                $(#[doc = $variant_doc:expr])*
                #[version = $label:literal]
                $(#[views($($newer:ident),*)])?
                $variant:ident($payload:ty $(,)?),
            )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[doc = $variant_doc])* $variant($payload),)*
        }

        impl $name {
            /// The event type.
            pub const EVENT_TYPE: &'static str = $event_type;

            /// The payload versions, oldest first.
            pub const VERSIONS: &'static [&'static str] = &[$($label),*];

            /// The payload version of this value.
            pub fn version(&self) -> &'static str {
                match self {
                    $(Self::$variant(_) => $label,)*
                }
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                match self {
                    $(Self::$variant(payload) => payload.serialize(serializer),)*
                }
            }
        }

        $(
            impl ::std::convert::From<$payload> for $name {
                fn from(payload: $payload) -> Self {
                    Self::$variant(payload)
                }
            }
        )*

        impl crate::events::TypedEvent for $name {
            const TYPE: crate::events::EventType = crate::events::EventType::$name;

            // A build with one event type compiled in has nothing else to give back. Inline, as the
            // other conversions: made in the crate that routes by this type, not for every type here.
            #[allow(unreachable_patterns)]
            #[inline]
            fn from_event(
                event: crate::events::Event,
            ) -> ::std::result::Result<Self, crate::events::Event> {
                match event {
                    crate::events::Event::$name(e) => ::std::result::Result::Ok(e),
                    other => ::std::result::Result::Err(other),
                }
            }
        }

        impl ::std::convert::From<$name> for crate::events::Event {
            fn from(event: $name) -> Self {
                Self::$name(event)
            }
        }

        $(
            impl crate::events::PayloadVersion<$name> for $payload {
                const VERSION: &'static str = $label;

                // An event type with one version has nothing else to give back.
                #[allow(unreachable_patterns)]
                #[inline]
                fn from_versions(event: $name) -> ::std::result::Result<Self, $name> {
                    match event {
                        $name::$variant(payload) => ::std::result::Result::Ok(payload),
                        other => ::std::result::Result::Err(other),
                    }
                }

                $(
                    #[allow(unreachable_patterns)]
                    #[inline]
                    fn view_of(event: $name) -> ::std::result::Result<Self, $name> {
                        match event {
                            $name::$variant(payload) => ::std::result::Result::Ok(payload),
                            $($name::$newer(payload) => ::std::result::Result::Ok(payload.into()),)*
                            other => ::std::result::Result::Err(other),
                        }
                    }
                )?
            }
        )*
    };
    (
        $(#[doc = $doc:expr])*
        pub enum $name:ident<$a:lifetime $(,)?> {
            $(
                $(#[doc = $variant_doc:expr])*
                #[version = $label:literal]
                $variant:ident($payload:ty $(,)?),
            )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug)]
        #[non_exhaustive]
        pub enum $name<$a> {
            $($(#[doc = $variant_doc])* $variant($payload),)*
        }

        impl ::serde::Serialize for $name<'_> {
            fn serialize<S: ::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                match self {
                    $(Self::$variant(payload) => payload.serialize(serializer),)*
                }
            }
        }

        impl<$a> $name<$a> {
            /// The payload version of this value.
            pub fn version(&self) -> &'static str {
                match self {
                    $(Self::$variant(_) => $label,)*
                }
            }
        }
    };
}
#[allow(
    unused_imports,
    reason = "a build without any section has no event type"
)]
pub(crate) use version_enum;

//! Generated code that does not depend on the schema: decoding errors and the `Endpoint` trait.

use proc_macro2::TokenStream;
use quote::quote;

/// `src/events/decode.rs`: decoding and its errors, the same for every schema.
pub(super) fn events_decode() -> TokenStream {
    quote! {
        #![doc = " Decoding payloads by (event type, version), and what can go wrong."]

        use super::{Event, EventType};

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
            pub(crate) event_type: EventType,
            pub(crate) version: u8,
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

            /// Decodes the payload again to say where and how it is wrong.
            ///
            /// The JSON path is found from the error's position in the payload (see [`json_path_at`]), not by
            /// tracking the path while decoding: path tracking would instantiate a second deserializer for
            /// every payload type, doubling this crate's code, to serve only the failures.
            pub fn locate_error(self, payload: &[u8]) -> PayloadError {
                let mut de = ::serde_json::Deserializer::from_slice(payload);
                let result = ::serde::de::DeserializeSeed::deserialize(self, &mut de).and_then(|_| de.end());
                let error = match result {
                    ::std::result::Result::Err(e) => e,
                    ::std::result::Result::Ok(()) => ::serde::de::Error::custom("the payload decodes"),
                };
                PayloadError::from_json(self, payload, &error)
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
            /// Builds the error from a JSON error of decoding `payload`.
            pub fn from_json(kind: EventKind, payload: &[u8], error: &::serde_json::Error) -> Self {
                let text = error.to_string();
                let message = match text.rfind(" at line ") {
                    ::std::option::Option::Some(i) if error.line() > 0 => text[..i].to_owned(),
                    _ => text,
                };
                let mut path = if error.line() > 0 {
                    json_path_at(payload, byte_offset(payload, error.line(), error.column()))
                } else {
                    ::std::string::String::new()
                };
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

        /// The byte offset of serde_json's (line, column) position: the last byte it read.
        fn byte_offset(json: &[u8], line: usize, column: usize) -> usize {
            let mut line_start = 0;
            let mut lines = 1;
            while lines < line {
                match json[line_start..].iter().position(|&b| b == b'\n') {
                    ::std::option::Option::Some(i) => line_start += i + 1,
                    ::std::option::Option::None => break,
                }
                lines += 1;
            }
            (line_start + column.saturating_sub(1)).min(json.len())
        }

        /// One open container while [`json_path_at`] scans.
        enum Open {
            Object { key: ::std::option::Option<::std::string::String>, in_value: bool },
            Array { index: usize },
        }

        /// The JSON path of the value at byte `offset` of `json`: `ledger.account.number`,
        /// `supply_points[0].market_name`; empty for the top level.
        ///
        /// At a closing `}` or `]` the path is the container being closed (a missing field is reported
        /// there). Works on any bytes: malformed JSON gives the path up to where it breaks.
        pub fn json_path_at(json: &[u8], offset: usize) -> ::std::string::String {
            let end = offset.min(json.len());
            let mut open: ::std::vec::Vec<Open> = ::std::vec::Vec::new();
            let mut i = 0;
            while i < end {
                match json[i] {
                    b'{' => open.push(Open::Object { key: ::std::option::Option::None, in_value: false }),
                    b'[' => open.push(Open::Array { index: 0 }),
                    b'}' | b']' => {
                        open.pop();
                    }
                    b',' => match open.last_mut() {
                        ::std::option::Option::Some(Open::Array { index }) => *index += 1,
                        ::std::option::Option::Some(Open::Object { in_value, .. }) => *in_value = false,
                        ::std::option::Option::None => {}
                    },
                    b':' => {
                        if let ::std::option::Option::Some(Open::Object { in_value, .. }) = open.last_mut() {
                            *in_value = true;
                        }
                    }
                    b'"' => {
                        let start = i;
                        i += 1;
                        while i < json.len() && json[i] != b'"' {
                            i += if json[i] == b'\\' { 2 } else { 1 };
                        }
                        if let ::std::option::Option::Some(Open::Object { key, in_value: false }) = open.last_mut() {
                            let quoted = &json[start..(i + 1).min(json.len())];
                            *key = ::std::option::Option::Some(
                                ::serde_json::from_slice::<::std::string::String>(quoted)
                                    .unwrap_or_else(|_| ::std::string::String::from_utf8_lossy(&quoted[1..]).into_owned()),
                            );
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            let closing = json.get(end).is_some_and(|b| matches!(b, b'}' | b']'));
            let shown = if closing { open.len().saturating_sub(1) } else { open.len() };
            let mut path = ::std::string::String::new();
            for frame in &open[..shown] {
                match frame {
                    Open::Object { key: ::std::option::Option::Some(key), .. } => {
                        if !path.is_empty() {
                            path.push('.');
                        }
                        path.push_str(key);
                    }
                    Open::Object { key: ::std::option::Option::None, .. } => {}
                    Open::Array { index } => {
                        path.push('[');
                        path.push_str(&index.to_string());
                        path.push(']');
                    }
                }
            }
            path
        }

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

/// `src/rest/endpoint.rs`: the `Endpoint` trait every request type implements, the same for every schema.
pub(super) fn rest_endpoint() -> TokenStream {
    quote! {
        #![doc = " The `Endpoint` trait that every request type implements, and its helpers."]

        /// An HTTP method.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Method {
            /// `GET`.
            Get,
            /// `POST`.
            Post,
            /// `PUT`.
            Put,
            /// `PATCH`.
            Patch,
            /// `DELETE`.
            Delete,
        }

        impl Method {
            /// The method as sent on the wire.
            pub const fn as_str(self) -> &'static str {
                match self {
                    Self::Get => "GET",
                    Self::Post => "POST",
                    Self::Put => "PUT",
                    Self::Patch => "PATCH",
                    Self::Delete => "DELETE",
                }
            }
        }

        /// A request to one endpoint: it knows its method, path, query and response type.
        ///
        /// A client drives any endpoint through this trait, so that no endpoint's rules are written twice.
        pub trait Endpoint {
            /// The JSON body of a successful response.
            type Response: ::serde::de::DeserializeOwned;
            /// The HTTP method.
            const METHOD: Method;
            /// The path with `{parameter}` placeholders, relative to the base URL.
            const PATH_TEMPLATE: &'static str;
            /// The operation's name in the schema (and its `operationId` in OpenAPI).
            const OPERATION: &'static str;
            /// Whether the endpoint needs credentials.
            const AUTH_REQUIRED: bool;
            /// The path with its parameters filled in and percent-encoded, relative to the base URL.
            fn path(&self) -> ::std::string::String;
            /// The query parameters that are set, in schema order, not yet percent-encoded.
            fn query(&self) -> ::std::vec::Vec<(&'static str, ::std::string::String)>;
        }

        /// Appends `value` as one path segment: every byte but RFC 3986's unreserved characters is
        /// percent-encoded, so that a `/` or `?` in a code cannot change the request.
        pub(crate) fn push_path_segment(path: &mut ::std::string::String, value: &str) {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            for &b in value.as_bytes() {
                if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                    path.push(char::from(b));
                } else {
                    path.push('%');
                    path.push(char::from(HEX[usize::from(b >> 4)]));
                    path.push(char::from(HEX[usize::from(b & 0xF)]));
                }
            }
        }
    }
}

/// `src/de.rs`: the pieces every generated `Deserialize` shares, the same for every schema.
pub(super) fn de() -> TokenStream {
    quote! {
        #![doc = " Shared pieces of the generated `Deserialize` impls: one field-name lookup for every struct."]
        #![allow(dead_code, reason = "a schema, or a set of features, may not need every piece")]

                /// Reads a map key as the index of a known field name; an unknown name is `None` (and not kept).
        ///
        /// Keys usually arrive in the order the schema lists them, so the field after the last one found is
        /// tried first: a whole object is then read with one comparison per key.
        pub(crate) struct Key<'h> {
            pub(crate) fields: &'static [&'static str],
            pub(crate) next: &'h mut usize,
        }

        impl Key<'_> {
            fn find(self, name: &[u8]) -> ::std::option::Option<usize> {
                let found = match self.fields.get(*self.next) {
                    ::std::option::Option::Some(expected) if expected.as_bytes() == name => ::std::option::Option::Some(*self.next),
                    _ => self.fields.iter().position(|known| known.as_bytes() == name),
                };
                if let ::std::option::Option::Some(i) = found {
                    *self.next = i + 1;
                }
                found
            }
        }

        impl<'de> ::serde::de::DeserializeSeed<'de> for Key<'_> {
            type Value = ::std::option::Option<usize>;
            fn deserialize<D: ::serde::Deserializer<'de>>(self, deserializer: D) -> ::std::result::Result<Self::Value, D::Error> {
                deserializer.deserialize_identifier(self)
            }
        }

        impl<'de> ::serde::de::Visitor<'de> for Key<'_> {
            type Value = ::std::option::Option<usize>;
            fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: ::serde::de::Error>(self, name: &str) -> ::std::result::Result<Self::Value, E> {
                ::std::result::Result::Ok(self.find(name.as_bytes()))
            }
            fn visit_bytes<E: ::serde::de::Error>(self, name: &[u8]) -> ::std::result::Result<Self::Value, E> {
                ::std::result::Result::Ok(self.find(name))
            }
        }

        /// Reads a map key as the index of a known field name, or the name itself when unknown (for the
        /// `additional_fields` of an incomplete struct).
                pub(crate) struct KeyOrName(pub(crate) &'static [&'static str]);


        impl<'de> ::serde::de::DeserializeSeed<'de> for KeyOrName {
            type Value = ::std::result::Result<usize, ::std::string::String>;
            fn deserialize<D: ::serde::Deserializer<'de>>(self, deserializer: D) -> ::std::result::Result<Self::Value, D::Error> {
                deserializer.deserialize_identifier(self)
            }
        }

        impl<'de> ::serde::de::Visitor<'de> for KeyOrName {
            type Value = ::std::result::Result<usize, ::std::string::String>;
            fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: ::serde::de::Error>(self, name: &str) -> ::std::result::Result<Self::Value, E> {
                ::std::result::Result::Ok(self.0.iter().position(|known| *known == name).ok_or_else(|| name.to_owned()))
            }
        }

        /// Reads the value of a field into its slot; a field seen twice is an error, as with serde_derive.
        pub(crate) fn set<'de, A: ::serde::de::MapAccess<'de>, T: ::serde::Deserialize<'de>>(
            slot: &mut ::std::option::Option<T>,
            map: &mut A,
            name: &'static str,
        ) -> ::std::result::Result<(), A::Error> {
            if slot.is_some() {
                return ::std::result::Result::Err(<A::Error as ::serde::de::Error>::duplicate_field(name));
            }
            *slot = ::std::option::Option::Some(map.next_value()?);
            ::std::result::Result::Ok(())
        }

        /// The value of a required field, or the "missing field" error.
        pub(crate) fn required<T, E: ::serde::de::Error>(slot: ::std::option::Option<T>, name: &'static str) -> ::std::result::Result<T, E> {
            slot.ok_or_else(|| E::missing_field(name))
        }
    }
}

/// `src/events/routing.rs`: the traits that let events be routed by type and version, the same for every
/// schema.
pub(super) fn events_routing() -> TokenStream {
    quote! {
        #![doc = " Routing by event type and payload version without matching on every variant of [`Event`]."]

        use super::{Event, EventType};

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
    }
}

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
                let text = utf8(self, payload).map_err(DecodeError::Payload)?;
                let mut de = ::serde_json::Deserializer::from_str(text);
                let decoded = ::serde::de::DeserializeSeed::deserialize(self, &mut de).and_then(|e| de.end().map(|()| e));
                decoded.map_err(|_| DecodeError::Payload(self.locate_error(payload)))
            }

            /// Decodes the payload again to say where and how it is wrong.
            ///
            /// The JSON path is found from the error's position in the payload (see [`json_path_at`]), not by
            /// tracking the path while decoding: path tracking would instantiate a second deserializer for
            /// every payload type, doubling this crate's code, to serve only the failures.
            pub fn locate_error(self, payload: &[u8]) -> PayloadError {
                let text = match utf8(self, payload) {
                    ::std::result::Result::Ok(text) => text,
                    ::std::result::Result::Err(e) => return e,
                };
                let mut de = ::serde_json::Deserializer::from_str(text);
                let result = ::serde::de::DeserializeSeed::deserialize(self, &mut de).and_then(|_| de.end());
                let error = match result {
                    ::std::result::Result::Err(e) => e,
                    ::std::result::Result::Ok(()) => ::serde::de::Error::custom("the payload decodes"),
                };
                PayloadError::from_json(self, payload, &error)
            }
        }

        /// The payload as text. JSON is UTF-8: checking it once, for the whole payload, lets serde_json read
        /// every string without checking it again (the largest single cost of decoding short strings).
        fn utf8(kind: EventKind, payload: &[u8]) -> ::std::result::Result<&str, PayloadError> {
            ::std::str::from_utf8(payload).map_err(|e| {
                let at = e.valid_up_to();
                let line = 1 + payload[..at].iter().filter(|&&b| b == b'\n').count();
                let line_start = payload[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                PayloadError {
                    event_type: kind.event_type(),
                    version: kind.version(),
                    kind: PayloadErrorKind::Syntax,
                    path: json_path_at(payload, at),
                    message: ::std::format!("invalid UTF-8 at byte {at}"),
                    line,
                    column: at - line_start + 1,
                }
            })
        }

        impl EventKind {
            /// A seed that checks a payload of this kind without building it (see [`PayloadValidator`]).
            pub fn validator(self) -> PayloadValidator {
                PayloadValidator(self)
            }

            /// Checks a JSON payload of this kind without building it: the verdict of [`EventKind::decode`],
            /// without allocating. A failure is explained by decoding, so the error is the same too.
            pub fn validate(self, payload: &[u8]) -> ::std::result::Result<(), DecodeError> {
                let text = utf8(self, payload).map_err(DecodeError::Payload)?;
                let mut de = ::serde_json::Deserializer::from_str(text);
                let checked = ::serde::de::DeserializeSeed::deserialize(self.validator(), &mut de).and_then(|()| de.end());
                checked.map_err(|_| DecodeError::Payload(self.locate_error(payload)))
            }
        }

        /// Checks a payload of one kind without building it: a [`DeserializeSeed`](::serde::de::DeserializeSeed)
        /// whose value is `()`.
        ///
        /// It accepts exactly what decoding accepts, but allocates nothing: strings are checked in place,
        /// nothing is kept. For validating streams, where only the verdict matters.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct PayloadValidator(EventKind);

        impl<'de> ::serde::de::DeserializeSeed<'de> for PayloadValidator {
            type Value = ();
            fn deserialize<D: ::serde::Deserializer<'de>>(self, deserializer: D) -> ::std::result::Result<(), D::Error> {
                crate::shape::check_struct(self.0.shape(), deserializer)
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
                                                // A key counts once its string ends at or before the offset (a repeated key is
                        // reported at its closing quote); a fault inside a key belongs to its object.
                        if i <= end
                            && i < json.len()
                            && let ::std::option::Option::Some(Open::Object { key, in_value: false }) = open.last_mut()
                        {
                            let quoted = &json[start..=i];
                            *key = ::std::option::Option::Some(
                                ::serde_json::from_slice::<::std::string::String>(quoted)
                                    .unwrap_or_else(|_| ::std::string::String::from_utf8_lossy(&quoted[1..quoted.len() - 1]).into_owned()),
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
            // Inline, so that the JSON serializer of every payload type (a thousand functions) is
            // compiled only in the crates that call this, not in every build of this crate.
            #[inline]
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

        /// Appends `value` as one path segment, percent-encoded per RFC 3986: every byte but the
        /// unreserved characters is encoded, so that a `/` or `?` in a code cannot change the request;
        /// and the dots of a value that is exactly `.` or `..` are encoded too (`%2E`, `%2E%2E`), since
        /// as a segment those mean "this folder" and "the parent folder" (RFC 3986, 5.2.4) and a
        /// resolver would remove them, taking the request to another endpoint.
        ///
        /// An empty value gives an empty segment, and WHATWG URL parsers (browsers, the `url` crate)
        /// read `%2E` as a dot too: a client should refuse those values before sending (the
        /// `energy-runtime` clients do).
        pub(crate) fn push_path_segment(path: &mut ::std::string::String, value: &str) {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            let dot_segment = value == "." || value == "..";
            for &b in value.as_bytes() {
                let unreserved = b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~');
                if unreserved && !dot_segment {
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

        /// The value of an optional field: absent and `null` are both `None`.
        pub(crate) fn optional<T, E: ::serde::de::Error>(
            slot: ::std::option::Option<::std::option::Option<T>>,
            _name: &'static str,
        ) -> ::std::result::Result<::std::option::Option<T>, E> {
            ::std::result::Result::Ok(slot.flatten())
        }

        /// `Deserialize` for a struct whose fields are all listed: one map visitor that finds each key's
        /// field with [`Key`], reads its value once, and checks the required ones are present. Each field is
        /// `(index, required|optional, rust_name, "json name")`.
        #[allow(unused_macros, reason = "a schema may have no struct of this kind")]
        macro_rules! deserialize_struct {
            ($name:ident, $expecting:literal, [$(($index:literal, $mode:ident, $field:ident, $json:literal)),* $(,)?]) => {
                impl<'de> ::serde::Deserialize<'de> for $name {
                    fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                        const FIELDS: &[&str] = &[$($json),*];
                        struct Visitor;
                        impl<'de> ::serde::de::Visitor<'de> for Visitor {
                            type Value = $name;
                            fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                                f.write_str($expecting)
                            }
                            fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> ::std::result::Result<$name, A::Error> {
                                // Each slot's type is inferred from the struct's field it fills.
                                $(let mut $field = ::std::option::Option::None;)*
                                let mut next = 0;
                                while let ::std::option::Option::Some(key) =
                                    ::serde::de::MapAccess::next_key_seed(&mut map, $crate::de::Key { fields: FIELDS, next: &mut next })?
                                {
                                    match key {
                                        $(::std::option::Option::Some($index) => $crate::de::set(&mut $field, &mut map, FIELDS[$index])?,)*
                                        _ => {
                                            ::serde::de::MapAccess::next_value::<::serde::de::IgnoredAny>(&mut map)?;
                                        }
                                    }
                                }
                                ::std::result::Result::Ok($name { $($field: $crate::de::$mode($field, FIELDS[$index])?,)* })
                            }
                        }
                        deserializer.deserialize_struct($expecting, FIELDS, Visitor)
                    }
                }
            };
        }
                #[allow(unused_imports, reason = "a schema may have no struct of this kind")]
        pub(crate) use deserialize_struct;

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

/// `src/shape.rs`: checking a payload against its shape without building it, the same for every schema.
pub(super) fn shape() -> TokenStream {
    quote! {
        #![doc = " Checking payloads against their shape without building them: no allocation, the same verdict."]
        #![doc = ""]
        #![doc = " The generator writes each struct's shape as static data (`crate::shapes`); one generic checker"]
        #![doc = " walks it. It accepts exactly what the generated `Deserialize` impls accept, so that a check and"]
        #![doc = " a decode of the same bytes always agree; errors are then explained by decoding (see"]
        #![doc = " [`EventKind::validate`](crate::EventKind::validate))."]
        #![allow(dead_code, reason = "a schema, or a set of features, may not need every shape")]

        /// The shape of a value.
        #[derive(Debug)]
        pub(crate) enum Shape {
            /// A string.
            Str,
            /// An integer that fits `i64`.
            Int,
            /// A number (integers too).
            Num,
            /// A boolean.
            Bool,
            /// A free-form JSON object (or `null`, read as an empty object, as `serde_json::Map` does).
            Obj,
            /// An array of values of one shape.
            Array(&'static Shape),
            /// A struct.
            Struct(&'static StructShape),
            /// `null`, or a value of the shape.
            Optional(&'static Shape),
        }

        /// The shape of a struct.
        #[derive(Debug)]
        pub(crate) struct StructShape {
            /// As serde names it in messages: `struct Ledger`.
            pub(crate) name: &'static str,
            /// JSON field names, in declared order.
            pub(crate) fields: &'static [&'static str],
            /// The shape of each field.
            pub(crate) shapes: &'static [Shape],
            /// Whether each field is required.
            pub(crate) required: &'static [bool],
            /// Unlisted fields are kept (as `serde_json::Value`s), not skipped.
            pub(crate) incomplete: bool,
        }

        /// Checks a value of a shape, keeping nothing.
        #[derive(Clone, Copy)]
        pub(crate) struct Check(pub(crate) &'static Shape);

        impl<'de> ::serde::de::DeserializeSeed<'de> for Check {
            type Value = ();
            fn deserialize<D: ::serde::Deserializer<'de>>(self, deserializer: D) -> ::std::result::Result<(), D::Error> {
                match self.0 {
                    Shape::Str => deserializer.deserialize_str(Scalar(Shape::Str)),
                    Shape::Int => deserializer.deserialize_i64(Scalar(Shape::Int)),
                    Shape::Num => deserializer.deserialize_f64(Scalar(Shape::Num)),
                    Shape::Bool => deserializer.deserialize_bool(Scalar(Shape::Bool)),
                    Shape::Obj => deserializer.deserialize_map(Object),
                    Shape::Array(item) => deserializer.deserialize_seq(Array(item)),
                    Shape::Struct(shape) => deserializer.deserialize_struct(shape.name, shape.fields, StructCheck(shape)),
                    Shape::Optional(inner) => deserializer.deserialize_option(Optional(inner)),
                }
            }
        }

        /// A scalar of the shape given.
        struct Scalar(Shape);

        impl<'de> ::serde::de::Visitor<'de> for Scalar {
            type Value = ();
            fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(match self.0 {
                    Shape::Str => "a string",
                    Shape::Int => "i64",
                    Shape::Num => "f64",
                    _ => "a boolean",
                })
            }
            fn visit_str<E: ::serde::de::Error>(self, v: &str) -> ::std::result::Result<(), E> {
                match self.0 {
                    Shape::Str => ::std::result::Result::Ok(()),
                    _ => ::std::result::Result::Err(E::invalid_type(::serde::de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_bool<E: ::serde::de::Error>(self, v: bool) -> ::std::result::Result<(), E> {
                match self.0 {
                    Shape::Bool => ::std::result::Result::Ok(()),
                    _ => ::std::result::Result::Err(E::invalid_type(::serde::de::Unexpected::Bool(v), &self)),
                }
            }
            fn visit_i64<E: ::serde::de::Error>(self, v: i64) -> ::std::result::Result<(), E> {
                match self.0 {
                    Shape::Int | Shape::Num => ::std::result::Result::Ok(()),
                    _ => ::std::result::Result::Err(E::invalid_type(::serde::de::Unexpected::Signed(v), &self)),
                }
            }
            fn visit_u64<E: ::serde::de::Error>(self, v: u64) -> ::std::result::Result<(), E> {
                match self.0 {
                    Shape::Num => ::std::result::Result::Ok(()),
                    Shape::Int if i64::try_from(v).is_ok() => ::std::result::Result::Ok(()),
                    Shape::Int => ::std::result::Result::Err(E::invalid_value(::serde::de::Unexpected::Unsigned(v), &self)),
                    _ => ::std::result::Result::Err(E::invalid_type(::serde::de::Unexpected::Unsigned(v), &self)),
                }
            }
            fn visit_f64<E: ::serde::de::Error>(self, v: f64) -> ::std::result::Result<(), E> {
                match self.0 {
                    Shape::Num => ::std::result::Result::Ok(()),
                    _ => ::std::result::Result::Err(E::invalid_type(::serde::de::Unexpected::Float(v), &self)),
                }
            }
        }

        /// `null` or a value of the inner shape, as `Option<T>` reads.
        struct Optional(&'static Shape);

        impl<'de> ::serde::de::Visitor<'de> for Optional {
            type Value = ();
            fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str("option")
            }
            fn visit_none<E: ::serde::de::Error>(self) -> ::std::result::Result<(), E> {
                ::std::result::Result::Ok(())
            }
            fn visit_unit<E: ::serde::de::Error>(self) -> ::std::result::Result<(), E> {
                ::std::result::Result::Ok(())
            }
            fn visit_some<D: ::serde::Deserializer<'de>>(self, deserializer: D) -> ::std::result::Result<(), D::Error> {
                ::serde::de::DeserializeSeed::deserialize(Check(self.0), deserializer)
            }
        }

        /// An array whose items have one shape.
        struct Array(&'static Shape);

        impl<'de> ::serde::de::Visitor<'de> for Array {
            type Value = ();
            fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: ::serde::de::SeqAccess<'de>>(self, mut seq: A) -> ::std::result::Result<(), A::Error> {
                while seq.next_element_seed(Check(self.0))?.is_some() {}
                ::std::result::Result::Ok(())
            }
        }

        /// A free-form object, checked as `serde_json::Map<String, Value>` reads it.
        struct Object;

        impl<'de> ::serde::de::Visitor<'de> for Object {
            type Value = ();
            fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_unit<E: ::serde::de::Error>(self) -> ::std::result::Result<(), E> {
                ::std::result::Result::Ok(())
            }
            fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> ::std::result::Result<(), A::Error> {
                while map.next_key_seed(Check(&Shape::Str))?.is_some() {
                    map.next_value_seed(AnyValue)?;
                }
                ::std::result::Result::Ok(())
            }
        }

        /// Any JSON value, checked as `serde_json::Value` reads it (numbers in range, strings valid).
        #[derive(Clone, Copy)]
        struct AnyValue;

        impl<'de> ::serde::de::DeserializeSeed<'de> for AnyValue {
            type Value = ();
            fn deserialize<D: ::serde::Deserializer<'de>>(self, deserializer: D) -> ::std::result::Result<(), D::Error> {
                deserializer.deserialize_any(self)
            }
        }

        impl<'de> ::serde::de::Visitor<'de> for AnyValue {
            type Value = ();
            fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str("any valid JSON value")
            }
            fn visit_bool<E: ::serde::de::Error>(self, _: bool) -> ::std::result::Result<(), E> {
                ::std::result::Result::Ok(())
            }
            fn visit_i64<E: ::serde::de::Error>(self, _: i64) -> ::std::result::Result<(), E> {
                ::std::result::Result::Ok(())
            }
            fn visit_u64<E: ::serde::de::Error>(self, _: u64) -> ::std::result::Result<(), E> {
                ::std::result::Result::Ok(())
            }
            fn visit_f64<E: ::serde::de::Error>(self, _: f64) -> ::std::result::Result<(), E> {
                ::std::result::Result::Ok(())
            }
            fn visit_str<E: ::serde::de::Error>(self, _: &str) -> ::std::result::Result<(), E> {
                ::std::result::Result::Ok(())
            }
            fn visit_unit<E: ::serde::de::Error>(self) -> ::std::result::Result<(), E> {
                ::std::result::Result::Ok(())
            }
            fn visit_none<E: ::serde::de::Error>(self) -> ::std::result::Result<(), E> {
                ::std::result::Result::Ok(())
            }
            fn visit_some<D: ::serde::Deserializer<'de>>(self, deserializer: D) -> ::std::result::Result<(), D::Error> {
                deserializer.deserialize_any(self)
            }
            fn visit_seq<A: ::serde::de::SeqAccess<'de>>(self, mut seq: A) -> ::std::result::Result<(), A::Error> {
                while seq.next_element_seed(self)?.is_some() {}
                ::std::result::Result::Ok(())
            }
            fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> ::std::result::Result<(), A::Error> {
                while map.next_key_seed(Check(&Shape::Str))?.is_some() {
                    map.next_value_seed(self)?;
                }
                ::std::result::Result::Ok(())
            }
        }

        /// A struct: known fields checked by shape, each at most once, the required ones present.
        struct StructCheck(&'static StructShape);

        impl<'de> ::serde::de::Visitor<'de> for StructCheck {
            type Value = ();
            fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.0.name)
            }
            fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> ::std::result::Result<(), A::Error> {
                let shape = self.0;
                let mut seen = Seen::new(shape.fields.len());
                let mut next = 0;
                while let ::std::option::Option::Some(key) =
                    map.next_key_seed(crate::de::Key { fields: shape.fields, next: &mut next })?
                {
                    match key {
                        ::std::option::Option::Some(i) => {
                            if !seen.insert(i) {
                                return ::std::result::Result::Err(<A::Error as ::serde::de::Error>::duplicate_field(shape.fields[i]));
                            }
                            map.next_value_seed(Check(&shape.shapes[i]))?;
                        }
                        ::std::option::Option::None if shape.incomplete => map.next_value_seed(AnyValue)?,
                        ::std::option::Option::None => {
                            map.next_value::<::serde::de::IgnoredAny>()?;
                        }
                    }
                }
                for (i, required) in shape.required.iter().enumerate() {
                    if *required && !seen.contains(i) {
                        return ::std::result::Result::Err(<A::Error as ::serde::de::Error>::missing_field(shape.fields[i]));
                    }
                }
                ::std::result::Result::Ok(())
            }
        }

        /// Checks a struct of `shape` read from `deserializer`.
        pub(crate) fn check_struct<'de, D: ::serde::Deserializer<'de>>(
            shape: &'static StructShape,
            deserializer: D,
        ) -> ::std::result::Result<(), D::Error> {
            deserializer.deserialize_struct(shape.name, shape.fields, StructCheck(shape))
        }

        /// Which fields were seen: bits for up to 128 fields, without allocating.
        enum Seen {
            Bits(u128),
            Many(::std::vec::Vec<bool>),
        }

        impl Seen {
            fn new(fields: usize) -> Self {
                if fields <= 128 { Seen::Bits(0) } else { Seen::Many(::std::vec![false; fields]) }
            }
            /// Marks field `i`; false when it was seen already.
            fn insert(&mut self, i: usize) -> bool {
                match self {
                    Seen::Bits(bits) => {
                        let bit = 1u128 << i;
                        let fresh = *bits & bit == 0;
                        *bits |= bit;
                        fresh
                    }
                    Seen::Many(seen) => !::std::mem::replace(&mut seen[i], true),
                }
            }
            fn contains(&self, i: usize) -> bool {
                match self {
                    Seen::Bits(bits) => *bits & (1u128 << i) != 0,
                    Seen::Many(seen) => seen[i],
                }
            }
        }
    }
}

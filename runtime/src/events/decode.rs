//! [`Decoder`]: envelopes (or type, version and payload from elsewhere) to typed or raw events.

use super::envelope::{Decoded, EnvelopeFields, KnownEvent, Metadata, MetadataTexts, RawEvent};
use super::error::{ErrorKind, EventError};
use super::fast;
use super::visit::{self, Body, Keep, KeepEvent, KeepKind, Payload, Trace, kind_of};
use energy_api::{EventKind, EventType};
use energy_api_core::json::{byte_offset, json_path_at, message_of};
use energy_api_core::read::Reader;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// Decodes events, with the caller's choices: how unknown types and versions are treated, whether
/// unlisted payload fields are errors, and the envelope's field names.
///
/// ```
/// use energy_runtime::events::{Decoded, Decoder};
///
/// let line = br#"{"event_type": "agreement.revoked", "version": "v2", "id": "evt-1",
///                 "payload": {"agreement_id": 7, "account_number": "A-1B2C3D4E"}}"#;
/// let Decoded::Known(known) = Decoder::new().decode(line)? else { unreachable!() };
/// assert_eq!(known.event.event_type().as_str(), "agreement.revoked");
/// assert_eq!(known.metadata.get_str("id").as_deref(), Some("evt-1"));
/// # Ok::<(), energy_runtime::events::EventError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Decoder {
    fields: EnvelopeFields,
    /// Whether the fields' names are plain JSON strings (no `"`, `\\` or control characters): the fast
    /// reader finds them in place then, once per line (the default names are).
    plain_fields: bool,
    strict: bool,
    reject_unknown: bool,
}

impl Default for Decoder {
    fn default() -> Self {
        let fields = EnvelopeFields::default();
        Decoder {
            plain_fields: plain_fields(&fields),
            fields,
            strict: false,
            reject_unknown: false,
        }
    }
}

/// Whether the envelope's names are plain JSON strings, which the fast reader finds in place.
fn plain_fields(fields: &EnvelopeFields) -> bool {
    energy_api_core::read::plain_names(&[&fields.event_type, &fields.version, &fields.payload])
}

/// The result of [`Decoder::validate`]: what the event is, without keeping its payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked<'a> {
    /// A known type and version whose payload matches its shape.
    Known(EventKind),
    /// An unknown type or version (when the decoder accepts them), as given.
    Unknown {
        /// The event type as given.
        event_type: Cow<'a, str>,
        /// The version as given.
        version: Cow<'a, str>,
    },
}

impl Checked<'_> {
    /// The event type.
    pub fn event_type(&self) -> &str {
        match self {
            Checked::Known(kind) => kind.event_type().as_str(),
            Checked::Unknown { event_type, .. } => event_type,
        }
    }

    /// The payload version.
    pub fn version(&self) -> &str {
        match self {
            Checked::Known(kind) => kind.version(),
            Checked::Unknown { version, .. } => version,
        }
    }
}

/// An envelope read and its payload decoded (what `K` keeps of it), still borrowing the input.
struct Read<'a, T> {
    event_type: Cow<'a, str>,
    version: Cow<'a, str>,
    content: Content<'a, T>,
    /// The envelope's other fields, each as its JSON text (checked).
    metadata: MetadataTexts<'a>,
}

enum Content<'a, T> {
    Known(T),
    Unknown(&'a RawValue),
}

impl Decoder {
    /// The default decoder: default envelope, unknown types and versions kept raw, unlisted fields ignored.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reports payload fields the schema does not list as [`ErrorKind::UnknownField`] (fields of payloads
    /// the schema marks incomplete excepted: those are kept in `additional_fields`).
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Makes unknown event types and versions errors ([`ErrorKind::UnknownEventType`],
    /// [`ErrorKind::UnknownVersion`]) instead of [`Decoded::Unknown`] events.
    pub fn reject_unknown(mut self, reject: bool) -> Self {
        self.reject_unknown = reject;
        self
    }

    /// Reads envelopes whose fields have these names.
    pub fn envelope_fields(mut self, fields: EnvelopeFields) -> Self {
        self.plain_fields = plain_fields(&fields);
        self.fields = fields;
        self
    }

    /// The envelope's field names.
    pub fn fields(&self) -> &EnvelopeFields {
        &self.fields
    }

    /// Decodes one JSON envelope.
    pub fn decode(&self, input: &[u8]) -> Result<Decoded, EventError> {
        let read = self.read::<KeepEvent>(input)?;
        let metadata = Metadata::of_texts(read.metadata);
        Ok(match read.content {
            Content::Known(event) => Decoded::Known(KnownEvent { event, metadata }),
            Content::Unknown(payload) => Decoded::Unknown(RawEvent {
                event_type: read.event_type.into_owned(),
                version: read.version.into_owned(),
                payload: payload.to_owned(),
                metadata,
            }),
        })
    }

    /// Decodes one JSON envelope as [`Decoder::decode`] does (the same events, the same errors), into a
    /// borrowed view: the payload's strings, the metadata and an unknown payload point into `input`.
    ///
    /// ```
    /// use energy_runtime::events::{DecodedRef, Decoder};
    ///
    /// let line = br#"{"event_type": "agreement.revoked", "version": "v2", "id": "evt-1",
    ///                 "payload": {"agreement_id": 7, "account_number": "A-1B2C3D4E"}}"#;
    /// let DecodedRef::Known(known) = Decoder::new().decode_borrowed(line)? else { unreachable!() };
    /// let energy_api::EventRef::AgreementRevoked(
    ///     energy_api::borrowed::events::AgreementRevoked::V2(revoked),
    /// ) = &*known.event
    /// else {
    ///     unreachable!()
    /// };
    /// assert_eq!(revoked.account_number, "A-1B2C3D4E");
    /// assert!(revoked.account_number.is_borrowed());
    /// assert_eq!(known.metadata.get_str("id").as_deref(), Some("evt-1"));
    /// # Ok::<(), energy_runtime::events::EventError>(())
    /// ```
    #[cfg(feature = "borrowed")]
    pub fn decode_borrowed<'a>(
        &self,
        input: &'a [u8],
    ) -> Result<super::DecodedRef<'a>, EventError> {
        use super::borrowed::{DecodedRef, KnownEventRef, MetadataRef, RawEventRef};
        let read = self.read::<visit::KeepView>(input)?;
        let metadata = MetadataRef(read.metadata);
        Ok(match read.content {
            Content::Known(event) => DecodedRef::Known(KnownEventRef { event, metadata }),
            Content::Unknown(payload) => DecodedRef::Unknown(RawEventRef {
                event_type: read.event_type,
                version: read.version,
                payload,
                metadata,
            }),
        })
    }

    /// Checks one JSON envelope as [`Decoder::decode`] does, keeping nothing but the type and version.
    pub fn validate<'a>(&self, input: &'a [u8]) -> Result<Checked<'a>, EventError> {
        let read = self.read::<KeepKind>(input)?;
        Ok(match read.content {
            Content::Known(kind) => Checked::Known(kind),
            Content::Unknown(_) => Checked::Unknown {
                event_type: read.event_type,
                version: read.version,
            },
        })
    }

    /// Decodes an event whose type and version travel outside the payload (message headers, say).
    ///
    /// Errors name payload fields from the envelope's payload field (`payload.ledger.account.number`), and
    /// offsets count from the payload's first byte.
    pub fn decode_parts(
        &self,
        event_type: &str,
        version: &str,
        payload: &[u8],
        metadata: Metadata,
    ) -> Result<Decoded, EventError> {
        Ok(
            match self.parts::<KeepEvent>(event_type, version, payload)? {
                Content::Known(event) => Decoded::Known(KnownEvent { event, metadata }),
                Content::Unknown(payload) => Decoded::Unknown(RawEvent {
                    event_type: event_type.to_owned(),
                    version: version.to_owned(),
                    payload: payload.to_owned(),
                    metadata,
                }),
            },
        )
    }

    /// Checks an event whose type and version travel outside the payload as [`Decoder::decode_parts`]
    /// does (the same verdict, the same errors), keeping nothing: what a publisher runs before sending.
    pub fn validate_parts<'a>(
        &self,
        event_type: &'a str,
        version: &'a str,
        payload: &[u8],
    ) -> Result<Checked<'a>, EventError> {
        Ok(
            match self.parts::<KeepKind>(event_type, version, payload)? {
                Content::Known(kind) => Checked::Known(kind),
                Content::Unknown(_) => Checked::Unknown {
                    event_type: Cow::Borrowed(event_type),
                    version: Cow::Borrowed(version),
                },
            },
        )
    }

    /// A payload given apart from its type and version, read as `K` keeps it.
    fn parts<'p, K: Keep>(
        &self,
        event_type: &str,
        version: &str,
        payload: &'p [u8],
    ) -> Result<Content<'p, K::Kept<'p>>, EventError> {
        let Some(kind) = kind_of(event_type, version) else {
            self.check_unknown(event_type, version)?;
            let raw = serde_json::from_slice::<&RawValue>(payload)
                .map_err(|e| self.json_error(payload, &e))
                .and_then(|raw| {
                    check_depth(payload, raw.get(), &self.fields.payload)?;
                    Ok(raw)
                })
                .map_err(|e| e.of(Some(event_type), Some(version)))?;
            return Ok(Content::Unknown(raw));
        };
        let text = std::str::from_utf8(payload).map_err(|e| {
            EventError::new(
                ErrorKind::MalformedJson,
                &*self.fields.payload,
                "invalid UTF-8 in the payload",
            )
            .at_offset(Some(e.valid_up_to()))
            .of(Some(event_type), Some(version))
        })?;
        let kept = self.payload::<K>(kind, text, 0)?;
        check_nesting(payload, &self.fields.payload)
            .map_err(|e| e.of(Some(event_type), Some(version)))?;
        Ok(Content::Known(kept))
    }

    /// Reads an envelope, in one pass when the type and version come before the payload.
    fn read<'a, K: Keep>(&self, input: &'a [u8]) -> Result<Read<'a, K::Kept<'a>>, EventError> {
        // JSON is UTF-8: one check of the whole line lets serde_json read every string without checking
        // it again, which is the largest single cost of reading short strings.
        let text =
            std::str::from_utf8(input).map_err(|e| self.invalid_utf8(input, e.valid_up_to()))?;
        // The fast reader first; where it stops, the serde reader reads the line again and decides.
        // What the fast reader reads nests less deeply than the limit checked below.
        if K::FAST
            && !self.strict
            && self.plain_fields
            && let Ok(body) = fast::read_envelope::<K>(text, &self.fields)
        {
            return Ok(Read {
                event_type: body.event_type,
                version: body.version,
                content: Content::Known(body.payload),
                metadata: body.metadata,
            });
        }
        let mut trace = Trace::default();
        let body =
            match visit::read_envelope::<K>(text, &self.fields, self.strict, true, &mut trace) {
                Ok(body) => body,
                Err(error) => return Err(self.explain(text, &error)),
            };
        let Body {
            event_type,
            version,
            payload,
            metadata,
            ignored,
        } = body;
        // Raw values are skipped without a depth limit; hold them to the one decoding applies.
        for (key, value) in &metadata {
            check_depth(input, value, key).map_err(|e| e.of(Some(&event_type), Some(&version)))?;
        }
        let content = match payload {
            Payload::Decoded(kept) => {
                self.check_ignored(&event_type, &version, ignored)?;
                check_nesting(input, &self.fields.payload)
                    .map_err(|e| e.of(Some(&event_type), Some(&version)))?;
                Content::Known(kept)
            }
            Payload::Raw(raw) => match kind_of(&event_type, &version) {
                Some(kind) => {
                    let kept = self.payload::<K>(kind, raw.get(), offset_in(input, raw.get()))?;
                    check_nesting(input, &self.fields.payload)
                        .map_err(|e| e.of(Some(&event_type), Some(&version)))?;
                    Content::Known(kept)
                }
                None => {
                    self.check_unknown(&event_type, &version)?;
                    check_depth(input, raw.get(), &self.fields.payload)
                        .map_err(|e| e.of(Some(&event_type), Some(&version)))?;
                    Content::Unknown(raw)
                }
            },
        };
        Ok(Read {
            event_type,
            version,
            content,
            metadata,
        })
    }

    /// Reads a payload known to be of `kind`, starting at `base_offset` of the input, keeping what `K` keeps.
    fn payload<'a, K: Keep>(
        &self,
        kind: EventKind,
        text: &'a str,
        base_offset: usize,
    ) -> Result<K::Kept<'a>, EventError> {
        if K::FAST
            && !self.strict
            && let Ok(kept) = Reader::whole(text, |reader| K::read_fast(kind, reader))
        {
            return Ok(kept);
        }
        match visit::decode_payload::<K>(kind, text, self.strict) {
            Ok((kept, ignored)) => {
                self.check_ignored(kind.event_type().as_str(), kind.version(), ignored)?;
                Ok(kept)
            }
            Err(_) => Err(EventError::from_payload(
                kind.locate_error(text.as_bytes()),
                &self.fields.payload,
                text,
                base_offset,
            )),
        }
    }

    /// Why one pass over `input` failed with `error`: the envelope is read again with the payload raw,
    /// then the payload on its own, to locate the fault in it.
    fn explain(&self, text: &str, error: &serde_json::Error) -> EventError {
        let input = text.as_bytes();
        let mut trace = Trace::default();
        let body =
            visit::read_envelope::<KeepKind>(text, &self.fields, self.strict, false, &mut trace);
        match body {
            Err(second) => self.envelope_error(input, &trace, &second),
            Ok(Body {
                payload: Payload::Raw(raw),
                ..
            }) => match trace.kind() {
                Some(kind) => {
                    match self.payload::<KeepKind>(kind, raw.get(), offset_in(input, raw.get())) {
                        Err(payload_error) => payload_error,
                        // Not reproduced (cannot happen: the same bytes are decoded the same way).
                        Ok(_) => self.envelope_error(input, &trace, error),
                    }
                }
                None => self.envelope_error(input, &trace, error),
            },
            Ok(_) => self.envelope_error(input, &trace, error),
        }
    }

    /// A line that is not UTF-8, at its first invalid byte; the type and version are read, when they
    /// can be, from the line with the invalid bytes replaced.
    fn invalid_utf8(&self, input: &[u8], at: usize) -> EventError {
        let lossy = String::from_utf8_lossy(input);
        let mut trace = Trace::default();
        let _ = visit::read_envelope::<KeepKind>(&lossy, &self.fields, false, false, &mut trace);
        EventError::new(
            ErrorKind::MalformedJson,
            json_path_at(input, at),
            format!("invalid UTF-8 at byte {at}"),
        )
        .at_offset(Some(at))
        .of(trace.event_type.as_deref(), trace.version.as_deref())
    }

    /// An error of the envelope, from what the reader recorded.
    fn envelope_error(
        &self,
        input: &[u8],
        trace: &Trace<'_>,
        error: &serde_json::Error,
    ) -> EventError {
        let base = match &trace.problem {
            Some(problem) => EventError::new(problem.kind, &*problem.path, &*problem.message),
            None => {
                let kind = match error.classify() {
                    serde_json::error::Category::Data => ErrorKind::BadEnvelope,
                    _ => ErrorKind::MalformedJson,
                };
                EventError::new(kind, trace.key.as_deref().unwrap_or(""), message_of(error))
            }
        };
        base.at_offset(byte_offset(input, error.line(), error.column()))
            .of(trace.event_type.as_deref(), trace.version.as_deref())
    }

    /// A JSON error of a payload given apart from its envelope.
    fn json_error(&self, payload: &[u8], error: &serde_json::Error) -> EventError {
        EventError::new(
            ErrorKind::MalformedJson,
            &*self.fields.payload,
            message_of(error),
        )
        .at_offset(byte_offset(payload, error.line(), error.column()))
    }

    /// An error for an unknown type or version, when the caller asked for one.
    fn check_unknown(&self, event_type: &str, version: &str) -> Result<(), EventError> {
        if !self.reject_unknown {
            return Ok(());
        }
        let error = match event_type.parse::<EventType>() {
            Ok(known) => EventError::new(
                ErrorKind::UnknownVersion,
                &*self.fields.version,
                format!(
                    "unknown version `{version}` of event type `{event_type}` (known: {})",
                    known.versions().join(", ")
                ),
            ),
            Err(_) => EventError::new(
                ErrorKind::UnknownEventType,
                &*self.fields.event_type,
                format!("unknown event type `{event_type}`"),
            ),
        };
        Err(error.of(Some(event_type), Some(version)))
    }

    /// In strict mode, an error for the first of the payload's unlisted fields.
    fn check_ignored(
        &self,
        event_type: &str,
        version: &str,
        ignored: Vec<String>,
    ) -> Result<(), EventError> {
        let Some(first) = ignored.first() else {
            return Ok(());
        };
        let mut message = format!(
            "unknown field `{}`",
            first.rsplit('.').next().unwrap_or(first)
        );
        if ignored.len() > 1 {
            message.push_str(&format!(
                " ({} unknown fields: {})",
                ignored.len(),
                ignored.join(", ")
            ));
        }
        let path = format!("{}.{first}", self.fields.payload);
        Err(EventError::new(ErrorKind::UnknownField, path, message)
            .of(Some(event_type), Some(version)))
    }
}

/// How deep decoding nests at most (serde_json's limit), for raw values too.
const MAX_DEPTH: usize = 128;

// A line the fast reader reads needs no depth check (see `fast::read_envelope`).
const _: () = assert!(energy_api_core::read::MAX_DEPTH < MAX_DEPTH);

/// An error if `raw` (a slice of `input`, the value of `field`) nests deeper than decoding allows.
fn check_depth(input: &[u8], raw: &str, field: &str) -> Result<(), EventError> {
    if !raw.starts_with(['[', '{']) {
        return Ok(());
    }
    match too_deep_at(raw.as_bytes()) {
        None => Ok(()),
        Some(i) => Err(recursion_limit(field, offset_in(input, raw) + i)),
    }
}

/// An error if a line that decoded nests deeper than decoding allows anywhere: a payload's listed
/// fields are held to the limit as they are decoded, but fields the schema does not list are
/// skipped, and serde_json skips a value without a depth limit. `field` names the payload field.
///
/// A line with at most [`MAX_DEPTH`] opening brackets cannot nest deeper, and is only counted
/// (memchr): the byte-by-byte scan is for the rare line with more.
fn check_nesting(input: &[u8], field: &str) -> Result<(), EventError> {
    if memchr::memchr2_iter(b'[', b'{', input)
        .nth(MAX_DEPTH)
        .is_none()
    {
        return Ok(());
    }
    match too_deep_at(input) {
        None => Ok(()),
        Some(i) => Err(recursion_limit(field, i)),
    }
}

/// Whether a line nests deeper than decoding allows anywhere (the check of [`check_nesting`], for
/// `crate::drift`, whose verdicts on lines are `validate`'s).
pub(crate) fn nests_too_deep(input: &[u8]) -> bool {
    check_nesting(input, "").is_err()
}

fn recursion_limit(field: &str, offset: usize) -> EventError {
    EventError::new(ErrorKind::MalformedJson, field, "recursion limit exceeded")
        .at_offset(Some(offset))
}

/// Where JSON `text` first nests deeper than [`MAX_DEPTH`], if it does.
fn too_deep_at(text: &[u8]) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &byte) in text.iter().enumerate() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(i);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Where `raw` (a slice of `input`) starts in it.
fn offset_in(input: &[u8], raw: &str) -> usize {
    raw.as_ptr().addr().saturating_sub(input.as_ptr().addr())
}

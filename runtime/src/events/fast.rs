//! The fast path of reading an envelope, with the fast reader of [`energy_api_core::read`]: for the usual
//! line (type and version before the payload, a known kind, keys without escapes), read straight into
//! the event without serde's visitors.
//!
//! It stops wherever it is not sure, and never accepts what the serde reader ([`super::visit`]) refuses:
//! the decoder then reads the line again with that reader, which gives the event or the error as
//! before. Strict decoding (which collects unlisted fields) always takes the serde reader.

use super::envelope::{EnvelopeFields, MetadataTexts};
use super::visit::{Keep, kind_of, repeated_key};
use energy_api_core::read::{Member, Reader, Stop};
use std::borrow::Cow;

/// An envelope read by the fast reader.
pub(crate) struct FastBody<'a, T> {
    pub event_type: Cow<'a, str>,
    pub version: Cow<'a, str>,
    /// What `K` keeps of the payload.
    pub payload: T,
    /// The other top-level fields, in order, each as its JSON text (checked).
    pub metadata: MetadataTexts<'a>,
}

/// Reads one envelope from `input` keeping what `K` keeps of its payload, or stops.
///
/// Everything in a line it reads nests at most [`energy_api_core::read::MAX_DEPTH`] deep, below the
/// decoder's limit, skipped values included (it stops on a line that nests deeper), so such a line
/// needs no depth check.
pub(crate) fn read_envelope<'a, K: Keep>(
    input: &'a str,
    fields: &EnvelopeFields,
) -> Result<FastBody<'a, K::Kept<'a>>, Stop> {
    // The envelope's three names, found in place as a payload's fields are: the caller reads an
    // envelope here only when they are plain JSON strings (`energy_api_core::read::plain_names`), as
    // the default ones are.
    let names = [&*fields.event_type, &*fields.version, &*fields.payload];
    let mut reader = Reader::new(input);
    let mut members = reader.object()?;
    let mut event_type: Option<Cow<'a, str>> = None;
    let mut version: Option<Cow<'a, str>> = None;
    let mut payload = None;
    let mut metadata = MetadataTexts::new();
    let mut next = 0;
    while let Some(member) = members.next_field(&mut reader, &names, &[], &[], &mut next)? {
        match member {
            Member::Field(0) => fill(&mut event_type, reader.string()?)?,
            Member::Field(1) => fill(&mut version, reader.string()?)?,
            Member::Field(_) => {
                // A payload before its type and version, or of an unknown kind, is the serde reader's.
                let kind = kind_of(
                    event_type.as_deref().ok_or(Stop)?,
                    version.as_deref().ok_or(Stop)?,
                )
                .ok_or(Stop)?;
                fill(&mut payload, K::read_fast(kind, &mut reader)?)?;
            }
            Member::Other(key) => metadata.push((key, reader.skip()?)),
        }
    }
    reader.end()?;
    // The reader skips an ignored value at any depth, as serde does; the decoder holds a whole line to
    // its limit, which the serde reader's path checks.
    if reader.deepest_skipped() > energy_api_core::read::MAX_DEPTH {
        return Err(Stop);
    }
    if repeated_key(&metadata).is_some() {
        return Err(Stop);
    }
    Ok(FastBody {
        event_type: event_type.ok_or(Stop)?,
        version: version.ok_or(Stop)?,
        payload: payload.ok_or(Stop)?,
        metadata,
    })
}

/// Fills a field read once; a second one stops the reader.
fn fill<T>(slot: &mut Option<T>, value: T) -> Result<(), Stop> {
    if slot.is_some() {
        return Err(Stop);
    }
    *slot = Some(value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::visit::{KeepEvent, Payload, Trace, read_envelope as serde_envelope};

    const LINE: &str = r#"{"event_type": "agreement.revoked", "version": "v2", "id": "evt-91", "trace": {"hops": [1, 2.5, null]}, "payload": {"agreement_id": 88213, "account_number": "A-1B2C3D4E"}}"#;

    #[test]
    fn reads_the_usual_line_as_the_serde_reader_does() {
        let fields = EnvelopeFields::default();
        let Ok(fast) = read_envelope::<KeepEvent>(LINE, &fields) else {
            panic!("the fast reader stopped on {LINE}");
        };
        let serde = serde_envelope::<KeepEvent>(LINE, &fields, false, true, &mut Trace::default())
            .expect("the line decodes");
        assert_eq!(
            (&fast.event_type, &fast.version),
            (&serde.event_type, &serde.version)
        );
        let Payload::Decoded(serde_event) = serde.payload else {
            panic!("the serde reader decodes the payload in the same pass");
        };
        assert_eq!(fast.payload, serde_event);
        let texts = |metadata: &[(Cow<'_, str>, &str)]| -> Vec<(String, String)> {
            metadata
                .iter()
                .map(|(k, v)| (k.to_string(), (*v).to_owned()))
                .collect()
        };
        assert_eq!(texts(&fast.metadata), texts(&serde.metadata));
        assert_eq!(texts(&fast.metadata)[1].1, r#"{"hops": [1, 2.5, null]}"#);
    }

    #[test]
    fn stops_where_the_serde_reader_must_decide() {
        let fields = EnvelopeFields::default();
        for line in [
            // The payload first, or of an unknown kind.
            r#"{"payload": {"agreement_id": 1, "account_number": "A"}, "event_type": "agreement.revoked", "version": "v2"}"#,
            r#"{"event_type": "agreement.exploded", "version": "v1", "payload": {}}"#,
            // Repeated fields, of the envelope and of the metadata.
            r#"{"event_type": "agreement.revoked", "event_type": "agreement.revoked", "version": "v2", "payload": {"agreement_id": 1, "account_number": "A"}}"#,
            r#"{"id": 1, "id": 2, "event_type": "agreement.revoked", "version": "v2", "payload": {"agreement_id": 1, "account_number": "A"}}"#,
            // A missing field, a wrong type, trailing text.
            r#"{"event_type": "agreement.revoked", "version": "v2", "payload": {"agreement_id": 1}}"#,
            r#"{"event_type": "agreement.revoked", "version": "v2", "payload": {"agreement_id": "1", "account_number": "A"}}"#,
            r#"{"event_type": "agreement.revoked", "version": "v2", "payload": {"agreement_id": 1, "account_number": "A"}} x"#,
            r#"{"event_type": "agreement.revoked", "version": "v2"}"#,
        ] {
            assert!(
                read_envelope::<KeepEvent>(line, &fields).is_err(),
                "the fast reader read {line}"
            );
        }
        // An escaped key is decoded, as serde decodes it.
        let escaped = r#"{"event_\u0074ype": "agreement.revoked", "version": "v2", "payload": {"agreement_id": 1, "account_number": "A"}}"#;
        let fast = read_envelope::<KeepEvent>(escaped, &fields).expect("reads an escaped key");
        assert_eq!(fast.event_type, "agreement.revoked");
    }
}

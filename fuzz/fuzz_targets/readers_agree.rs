//! Any bytes as a payload of any known (type, version): every reader of its table agrees (issue 24).
//! The fast reader takes exactly what serde's reading of the same table takes, to the same value, owned
//! and borrowed; the owned decoder, the borrowed view and the allocation-free check give the same serde
//! error; `decode`, `decode_borrowed` and `validate` the same located error (kind, JSON path).
//!
//! And in a second format (issue 29): what decodes is written to MessagePack, structs as maps and as
//! arrays, by the generated type and by its derived twin (`energy-twin`), to the same bytes, which both
//! read back to the values they wrote.
#![no_main]

use energy_api::{Event, EventKind, EventRef, EventType};
use energy_twin::{Pair, Type};
use energy_api_core::read::Reader;
use libfuzzer_sys::fuzz_target;
use serde::de::DeserializeSeed;

/// A serde reading's error: whether it is about the data (a wrong type, a missing field: the same
/// message from every reader of one table) or about the text (syntax, end of input), and its message.
type SerdeError = (bool, String);

fn serde_read<'de, S: DeserializeSeed<'de>>(
    seed: S,
    text: &'de str,
) -> Result<S::Value, SerdeError> {
    let error = |e: serde_json::Error| {
        (
            e.classify() == serde_json::error::Category::Data,
            e.to_string(),
        )
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let value = seed.deserialize(&mut de).map_err(error)?;
    de.end().map(|()| value).map_err(error)
}

/// The serde readings agree on the verdict, and on the error where both are about the data (its
/// position aside: the borrowed view reads a free-form object whole, as raw text, before it can refuse
/// what is not an object, so it reports the end of that value where `Map` reports its start). Where the
/// text is wrong inside a free-form object, serde_json words it as its own derives over `Map` (the owned
/// struct, the check) and over `&RawValue` (the borrowed view) do, and they differ: a control character
/// reported one byte apart, "trailing comma" against "expected value", or a `Map` refusing a non-object
/// at once where a raw value is read whole first and fails on its syntax further on. The public
/// decoders' located errors (kind, path, message) are compared exactly above.
fn same_serde_error(owned: Option<&SerdeError>, other: Option<&SerdeError>) -> bool {
    match (owned, other) {
        (Some((true, owned)), Some((true, other))) => {
            let without_position =
                |m: &str| m.rsplit_once(" at line ").map_or(m, |(m, _)| m).to_owned();
            without_position(owned) == without_position(other)
        }
        (owned, other) => owned.is_some() == other.is_some(),
    }
}

/// A payload that decoded, in MessagePack: written by the generated type and by its twin, named
/// (structs as maps) and compact (as arrays), the same bytes or the same failure, read back by both to
/// the same outcome and the same value.
struct MessagePack<'a>(&'a str);

impl Pair for MessagePack<'_> {
    type Output = ();
    fn pair<Ours: Type, Twin: Type>(self) {
        let ours: Ours = serde_json::from_str(self.0).expect("what decodes is read by serde too");
        let Ok(twin) = serde_json::from_str::<Twin>(self.0) else {
            // The twin holds kept members as `serde_json::Value`s, which cannot hold a number such as
            // `1e400`: one kept as text. Outside JSON, ours writes such a member as a value too.
            assert!(rmp_serde::to_vec_named(&ours).is_err(), "only the twin refuses {}", self.0);
            return;
        };
        for named in [true, false] {
            let (ours_bytes, twin_bytes) = if named {
                (rmp_serde::to_vec_named(&ours), rmp_serde::to_vec_named(&twin))
            } else {
                (rmp_serde::to_vec(&ours), rmp_serde::to_vec(&twin))
            };
            let (ours_bytes, twin_bytes) = (ours_bytes.ok(), twin_bytes.ok());
            assert_eq!(ours_bytes, twin_bytes, "MessagePack (named: {named}) of {}", self.0);
            let Some(bytes) = ours_bytes else { continue };
            let ours_back = rmp_serde::from_slice::<Ours>(&bytes);
            let twin_back = rmp_serde::from_slice::<Twin>(&bytes);
            assert_eq!(ours_back.is_ok(), twin_back.is_ok(), "read back (named: {named}): {}", self.0);
            // Both read back the same value, which is the value written for both or for neither (an
            // optional field skipped in a compact array shifts the fields after it, for both alike).
            if let (Ok(ours_back), Ok(twin_back)) = (ours_back, twin_back) {
                assert_eq!(
                    serde_json::to_value(&ours_back).ok(),
                    serde_json::to_value(&twin_back).ok(),
                    "read back (named: {named}): {}",
                    self.0
                );
                assert_eq!(ours_back == ours, twin_back == twin, "read back (named: {named})");
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    // Two bytes choose the event type, one the version; the rest is the payload (as `event_decode`).
    let [low, high, version_byte, payload @ ..] = data else {
        return;
    };
    let all = EventType::ALL;
    let event_type = all[usize::from(u16::from_le_bytes([*low, *high])) % all.len()];
    let versions = event_type.versions();
    let version = versions[usize::from(*version_byte) % versions.len()];
    let kind = EventKind::new(event_type.as_str(), version).expect("a catalogue pair");

    let decoded = Event::decode(event_type.as_str(), version, payload).map_err(|e| e.to_string());
    let view = EventRef::decode(event_type.as_str(), version, payload).map_err(|e| e.to_string());
    let checked = kind.validate(payload).map_err(|e| e.to_string());
    assert_eq!(
        decoded.as_ref().err(),
        view.as_ref().err(),
        "decode vs decode_borrowed"
    );
    assert_eq!(
        decoded.as_ref().err(),
        checked.as_ref().err(),
        "decode vs validate"
    );
    if let (Ok(event), Ok(view)) = (&decoded, &view) {
        let back = serde_json::to_value(event).expect("events serialise");
        assert_eq!(back, serde_json::to_value(view).expect("views serialise"));
        if let Ok(text) = std::str::from_utf8(payload) {
            energy_twin::payload_pair(event_type.as_str(), version, MessagePack(text))
                .expect("every version has a twin");
        }
    }

    let Ok(text) = std::str::from_utf8(payload) else {
        return;
    };
    let owned = serde_read(kind, text);
    let borrowed = serde_read(kind.borrowed(), text);
    let check = serde_read(kind.validator(), text);
    assert!(
        same_serde_error(owned.as_ref().err(), borrowed.as_ref().err()),
        "serde: owned {owned:?} vs borrowed {borrowed:?}"
    );
    assert!(
        same_serde_error(owned.as_ref().err(), check.as_ref().err()),
        "serde: owned {owned:?} vs check {check:?}"
    );
    match (Reader::whole(text, |r| kind.read(r)), &owned) {
        (Ok(fast), Ok(serde)) => assert_eq!(&fast, serde, "fast vs serde value"),
        (Err(_), Err(_)) => {}
        (fast, serde) => panic!("fast reader {fast:?}, serde {serde:?}"),
    }
    // Views are not `PartialEq`: compared by their `Debug` text, which shows every field.
    match (Reader::whole(text, |r| kind.read_borrowed(r)), &borrowed) {
        (Ok(fast), Ok(serde)) => assert_eq!(
            format!("{fast:?}"),
            format!("{serde:?}"),
            "fast vs serde view"
        ),
        (Err(_), Err(_)) => {}
        (fast, serde) => panic!("fast reader (borrowed) {fast:?}, serde {serde:?}"),
    }
});

//! Any bytes as a payload of any known (type, version): `Event::decode` returns a value or a typed error,
//! never panics, and a decoded event re-serialises to JSON that decodes to the same event.
#![no_main]

use energy_api::{Event, EventType};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Two bytes choose the event type, one the version; the rest is the payload.
    let [low, high, version_byte, payload @ ..] = data else {
        return;
    };
    let all = EventType::ALL;
    let event_type = all[usize::from(u16::from_le_bytes([*low, *high])) % all.len()];
    let versions = event_type.versions();
    let version = versions[usize::from(*version_byte) % versions.len()];

    if let Ok(event) = Event::decode(event_type.as_str(), version, payload) {
        let json = event.to_payload_json();
        let again = Event::decode(event_type.as_str(), version, &json)
            .expect("re-serialised payload decodes");
        assert_eq!(event, again);
    }
});

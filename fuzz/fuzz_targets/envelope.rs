//! Any bytes as one line of an event stream: the runtime's decoder, lenient and strict, and its
//! validation path either decode or return a typed error, never panic, and agree on which lines are valid;
//! an unknown event writes back an envelope that decodes to the same unknown event.
#![no_main]

use energy_runtime::events::{Decoded, Decoder};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|line: &[u8]| {
    let lenient = Decoder::new();
    let strict = Decoder::new().strict(true).reject_unknown(true);
    let decoded = lenient.decode(line);
    assert_eq!(
        decoded.is_ok(),
        lenient.validate(line).is_ok(),
        "decode and validate agree"
    );
    if strict.decode(line).is_ok() {
        assert!(
            decoded.is_ok(),
            "what strict mode accepts, lenient mode accepts"
        );
    }
    if let Ok(unknown @ Decoded::Unknown(_)) = decoded {
        let again = unknown.to_envelope_json(lenient.fields());
        let round = lenient
            .decode(again.as_bytes())
            .expect("a written-back envelope decodes");
        assert_eq!(round.event_type(), unknown.event_type());
    }
});

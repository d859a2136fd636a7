//! The hash of an event type's name, for the generated lookup table of `EventType::from_str`.

/// The hash of an event type's name: the name's length and three 8-byte windows (the first, the middle
/// and the last bytes; the whole name zero-padded when shorter than 8), mixed by rotate-xor-multiply with
/// FxHash's multiplier.
///
/// A fixed number of windows rather than every word: no loop whose trip count varies with the name, which
/// a mixed stream would mispredict; names alike in all three windows cost one probe more. The generator
/// fills the table with this function, and the generated crate probes it with the same one.
#[inline]
pub fn name_hash(name: &[u8]) -> u64 {
    let mix = |hash: u64, word: [u8; 8]| {
        (hash.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(0x517c_c1b7_2722_0a95)
    };
    let hash = name.len() as u64;
    if name.len() < 8 {
        let mut word = [0u8; 8];
        word[..name.len()].copy_from_slice(name);
        return mix(hash, word);
    }
    let last = name.len() - 8;
    let window = |start: usize| name[start..start + 8].try_into().unwrap_or_default();
    mix(mix(mix(hash, window(0)), window(last / 2)), window(last))
}

#[cfg(test)]
mod tests {
    use super::name_hash;

    #[test]
    fn the_hash_reads_the_length_and_the_first_middle_and_last_bytes() {
        // 24 bytes: the three windows are bytes 0..8, 8..16 and 16..24.
        let name = *b"meterpoint.gas.read.sent";
        let changed_at = |i: usize| {
            let mut other = name;
            other[i] ^= 1;
            name_hash(&other)
        };
        for i in [0, 7, 8, 15, 16, 23] {
            assert_ne!(name_hash(&name), changed_at(i), "byte {i} is read");
        }
        assert_ne!(name_hash(b"abcdefgh"), name_hash(b"abcdefgh\0"));
        assert_ne!(name_hash(b""), name_hash(b"\0"));
        assert_ne!(name_hash(b"account"), name_hash(b"accounT"));
    }
}

/// The hash of an event type's name, for the lookup table of `EventType::from_str`: the name's length
/// and three 8-byte windows (the first, the middle and the last bytes; the whole name zero-padded when
/// shorter than 8), mixed by rotate-xor-multiply with FxHash's multiplier. A fixed number of windows
/// rather than every word: no loop whose trip count varies with the name, which a mixed stream would
/// mispredict; names alike in all three windows cost one probe more. The generator fills the table
/// with this function and emits this same source into the generated crate.
fn name_hash(name: &[u8]) -> u64 {
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

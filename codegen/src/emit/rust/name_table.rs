//! The lookup of an event type by name (`EventType::from_str`): a hash table built by the generator.
//!
//! A `match` on 274 strings compiles to a chain of comparisons tried in turn (~20 ns a lookup, growing
//! with the catalogue); a table of slots addressed by a word-at-a-time hash of the name needs one hash,
//! about one probe and one string comparison, whatever the catalogue's size. The generator fills the
//! table (open addressing, linear probing, at most half full) and emits the same hash function into
//! the crate; the lookup tests of every event type catch any drift between the two.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// The multiplier of the hash (FxHash's): odd, with bits spread, so the high bits mix every input bit.
const MULTIPLIER: u64 = 0x517c_c1b7_2722_0a95;

/// The hash of a name: its length and three 8-byte windows (the first, the middle and the last bytes;
/// the name zero-padded when shorter than 8), mixed by rotate-xor-multiply. A fixed number of words
/// rather than all of them: no loop whose length varies with the name, which a mixed stream would
/// mispredict; names alike in all three windows only cost a probe more. Mirrored by the emitted
/// `name_hash`.
fn name_hash(name: &[u8]) -> u64 {
    let mix = |hash: u64, word: [u8; 8]| {
        (hash.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(MULTIPLIER)
    };
    let hash = name.len() as u64;
    match name.len().checked_sub(8) {
        Some(last) => {
            let window = |start: usize| name[start..start + 8].try_into().unwrap_or_default();
            mix(mix(mix(hash, window(0)), window(last / 2)), window(last))
        }
        None => {
            let mut word = [0u8; 8];
            word[..name.len()].copy_from_slice(name);
            mix(hash, word)
        }
    }
}

/// The slots of the table for `names`: `1 + index` of the name in a slot, `0` for an empty one. Its
/// length is a power of two at least twice the number of names, so that probes stay short and every
/// probe sequence reaches an empty slot.
fn slots(names: &[&str]) -> (u32, Vec<usize>) {
    let bits = (names.len() * 2)
        .next_power_of_two()
        .trailing_zeros()
        .max(4);
    let mask = (1usize << bits) - 1;
    let mut slots = vec![0usize; 1 << bits];
    for (index, name) in names.iter().enumerate() {
        let mut slot = (name_hash(name.as_bytes()) >> (64 - bits)) as usize;
        while slots[slot] != 0 {
            slot = (slot + 1) & mask;
        }
        slots[slot] = index + 1;
    }
    (bits, slots)
}

/// The items of the table: `EVENT_TYPE_NAMES`, `EVENT_TYPE_SLOTS`, `name_hash` and
/// `event_type_index(s: &str) -> Option<usize>`, the index in `names` of the name equal to `s`.
pub(super) fn lookup(names: &[&str]) -> TokenStream {
    let (bits, slots) = slots(names);
    let count = Literal::usize_unsuffixed(names.len());
    let size = Literal::usize_unsuffixed(slots.len());
    let mask = Literal::usize_unsuffixed(slots.len() - 1);
    // The smallest integer type that holds `1 + index`, to keep the table small in the cache.
    let (entry, values): (TokenStream, Vec<Literal>) = if names.len() < usize::from(u16::MAX) {
        let values = slots.iter().map(|s| Literal::u16_unsuffixed(*s as u16));
        (quote!(u16), values.collect())
    } else {
        let values = slots.iter().map(|s| Literal::u32_unsuffixed(*s as u32));
        (quote!(u32), values.collect())
    };
    let shift = Literal::u32_unsuffixed(64 - bits);
    let multiplier = Literal::u64_unsuffixed(MULTIPLIER);
    quote! {
        /// Every event type's name, in declaration order (sections not compiled in included).
        const EVENT_TYPE_NAMES: [&str; #count] = [#(#names),*];

        /// Hash table over [`EVENT_TYPE_NAMES`] filled by the generator: `1 + index` of a name, `0`
        /// for an empty slot (open addressing, linear probing, at most half full).
        static EVENT_TYPE_SLOTS: [#entry; #size] = [#(#values),*];

        /// The slot a name hashes to: its length and three 8-byte windows (the first, the middle and
        /// the last bytes; the name zero-padded when shorter than 8), mixed by rotate-xor-multiply;
        /// the same function as the generator's.
        fn name_hash(name: &[u8]) -> usize {
            let mix = |hash: u64, word: [u8; 8]| (hash.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(#multiplier);
            let hash = name.len() as u64;
            let hash = match name.len().checked_sub(8) {
                ::std::option::Option::Some(last) => {
                    let window = |start: usize| name[start..start + 8].try_into().unwrap_or_default();
                    mix(mix(mix(hash, window(0)), window(last / 2)), window(last))
                }
                ::std::option::Option::None => {
                    let mut word = [0u8; 8];
                    word[..name.len()].copy_from_slice(name);
                    mix(hash, word)
                }
            };
            (hash >> #shift) as usize
        }

        /// The index in [`EVENT_TYPE_NAMES`] of `s`, if it is an event type's name.
        fn event_type_index(s: &str) -> ::std::option::Option<usize> {
            let mut slot = name_hash(s.as_bytes());
            loop {
                let index = usize::from(EVENT_TYPE_SLOTS[slot]).checked_sub(1)?;
                if EVENT_TYPE_NAMES[index] == s {
                    return ::std::option::Option::Some(index);
                }
                slot = (slot + 1) & #mask;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_a_slot_and_the_table_is_at_most_half_full() {
        let names: Vec<String> = (0..1000)
            .map(|i| format!("section.event_{i}.updated"))
            .collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let (bits, slots) = slots(&names);
        assert_eq!(slots.len(), 1 << bits);
        assert!(slots.len() >= 2 * names.len());
        let mut filled: Vec<usize> = slots.iter().copied().filter(|s| *s != 0).collect();
        filled.sort_unstable();
        assert_eq!(filled, (1..=names.len()).collect::<Vec<_>>());
    }

    #[test]
    fn the_hash_reads_the_length_and_the_first_middle_and_last_bytes() {
        assert_ne!(name_hash(b"account.created"), name_hash(b"account.createe"));
        assert_ne!(name_hash(b"abcdefgh"), name_hash(b"abcdefgh\0"));
        assert_ne!(
            name_hash(b"meter.gas.read.x.sent"),
            name_hash(b"meter.gas.read.y.sent")
        );
        assert_ne!(name_hash(b""), name_hash(b"\0"));
    }
}

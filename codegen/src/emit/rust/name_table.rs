//! The lookup of an event type by name (`EventType::from_str`): a hash table built by the generator.
//!
//! A `match` on 274 strings compiles to a jump on the length and then comparisons, mispredicted on a
//! mixed stream and growing with the catalogue; a table of slots addressed by a hash of the name needs
//! one hash, about one probe and one string comparison, whatever the catalogue's size. The generator
//! fills the table (open addressing, linear probing, at most half full) with
//! `energy_api_core::name_hash`, and the generated crate probes it with that same function.

use energy_api_core::name_hash;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// The slots of the table for `names`: `1 + index` of the name in a slot, `0` for an empty one. Its
/// length is a power of two at least twice the number of names, so that probes stay short and every
/// probe sequence reaches an empty slot; a name's first slot is the top bits of its hash.
fn slots(names: &[&str]) -> Vec<usize> {
    let size = (names.len() * 2).next_power_of_two().max(16);
    let mut slots = vec![0usize; size];
    for (index, name) in names.iter().enumerate() {
        let mut slot = (name_hash(name.as_bytes()) >> shift(size)) as usize;
        while slots[slot] != 0 {
            slot = (slot + 1) % size;
        }
        slots[slot] = index + 1;
    }
    slots
}

/// How far a hash is shifted right to keep the bits that address a table of `size` slots.
fn shift(size: usize) -> u32 {
    64 - size.trailing_zeros()
}

/// The items of the table: `EVENT_TYPE_NAMES`, `EVENT_TYPE_SLOTS` and
/// `event_type_index(s: &str) -> Option<usize>`, the index in `names` of the name equal to `s`.
pub(super) fn lookup(names: &[&str]) -> TokenStream {
    let slots = slots(names);
    let count = Literal::usize_unsuffixed(names.len());
    let size = Literal::usize_unsuffixed(slots.len());
    let mask = Literal::usize_unsuffixed(slots.len() - 1);
    let shift = Literal::u32_unsuffixed(shift(slots.len()));
    // The smallest integer type that holds `1 + index`, to keep the table small in the cache.
    let entry = if names.len() < usize::from(u16::MAX) {
        quote!(u16)
    } else {
        quote!(u32)
    };
    let values = slots.iter().map(|s| Literal::usize_unsuffixed(*s));
    quote! {
        /// Every event type's name, in declaration order (sections not compiled in included).
        const EVENT_TYPE_NAMES: [&str; #count] = [#(#names),*];

        /// Hash table over [`EVENT_TYPE_NAMES`] filled by the generator: `1 + index` of a name, `0`
        /// for an empty slot (open addressing, linear probing, at most half full).
        static EVENT_TYPE_SLOTS: [#entry; #size] = [#(#values),*];

        /// The index in [`EVENT_TYPE_NAMES`] of `s`, if it is an event type's name.
        fn event_type_index(s: &str) -> ::std::option::Option<usize> {
            let mut slot = (::energy_api_core::name_hash(s.as_bytes()) >> #shift) as usize;
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
        let slots = slots(&names);
        assert!(slots.len().is_power_of_two());
        assert!(slots.len() >= 2 * names.len());
        let mut filled: Vec<usize> = slots.iter().copied().filter(|s| *s != 0).collect();
        filled.sort_unstable();
        assert_eq!(filled, (1..=names.len()).collect::<Vec<_>>());
    }
}

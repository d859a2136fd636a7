//! The derived twin of `energy-api`: the same types with `#[derive(Serialize, Deserialize)]` and the
//! serde attributes that say what the generated impls do, written by the generator in this crate's build
//! script from the same schema (`energy_codegen::emit::derived_twin`). The reference of the comparisons
//! in every serde format (`tests/formats.rs`) and of the speed figures (`tests/benches/event_decoding.rs`).
//!
//! Kept members of an incomplete type are `serde_json::Value`s here (a derive cannot hold a raw JSON
//! text in other formats); everything else has the generated type's Rust type.
#![forbid(unsafe_code)]

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt::Debug;

/// What both sides of a pair are: values with serde, compared and printed.
pub trait Type: Serialize + DeserializeOwned + Debug + Clone + PartialEq + 'static {}

impl<T: Serialize + DeserializeOwned + Debug + Clone + PartialEq + 'static> Type for T {}

/// Called with a generated type and its twin (`payload_pair`, `shared_pair`, `resource_pair`).
pub trait Pair {
    /// What the call gives.
    type Output;
    /// Called with `Ours`, the generated type, and `Twin`, its derived twin.
    fn pair<Ours: Type, Twin: Type>(self) -> Self::Output;
}

include!(concat!(env!("OUT_DIR"), "/twin.rs"));

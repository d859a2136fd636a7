//! The hand-written runtime of the energy platform's interface, built on the generated [`energy_api`] crate.
#![forbid(unsafe_code)]

pub use energy_api;

#[cfg(feature = "bus")]
pub mod bus;
pub mod events;
pub mod rest;
pub mod text;

//! The hand-written runtime of the energy platform's interface, built on the generated [`energy_api`] crate:
//!
//! - [`events`]: decoding, validating and routing event envelopes (a JSON line each), owned or borrowed;
//! - [`drift`]: what producers really send compared with the catalogue, over a whole stream;
//! - [`rest`] (feature `rest`, default): typed REST clients, blocking (feature `blocking`, default) and
//!   async (feature `async`); with `default-features = false` the crate is events only;
//! - [`bus`] (feature `bus`): publishing and consuming the catalogue's events on NATS JetStream, with
//!   secured connections, dead letters, metrics, health and trace context;
//! - [`text`]: text from the network made safe for a terminal.
//!
//! The `energy` command-line tool is the `energy-cli` crate, on this one.
#![forbid(unsafe_code)]

pub use energy_api;

#[cfg(feature = "bus")]
pub mod bus;
pub mod drift;
pub mod events;
#[cfg(feature = "rest")]
pub mod rest;
pub mod text;

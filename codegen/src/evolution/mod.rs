//! Schema evolution: what a change to the interface does to the people reading it.
//!
//! Two models of the interface (the published baseline, or the schema at a git revision, against the
//! working tree) are compared by wire shape, so that refactors that change nothing on the wire
//! (`extends` instead of written-out fields, fields moved into a shared type, a type renamed) report
//! nothing. Every change is judged in two directions, as schema registries name them:
//!
//! - **forward**: a consumer built on the old schema reads payloads written under the new one;
//! - **backward**: a consumer built on the new schema reads payloads written under the old one (replays,
//!   retained and retried events);
//! - **full**: both.
//!
//! Judged under the generated decoder's default, which ignores members it does not list; a strict reader
//! (`energy events validate --strict`) also rejects members it does not know, which each finding notes.
//! REST responses are read by clients like events; request parameters are written by clients, the
//! opposite direction.
//!
//! This module sees models only (no files, no YAML, no output): a finding names the items it is about,
//! and the caller says where they are written. Below the emitters (which publish [`classify()`]'s table)
//! and the reader (which checks waivers' rule ids); the command on top, `cargo xtask compat`, is
//! `publication`.
//!
//! - `rules`: the rules, their ids and semver bumps;
//! - `finding`: what a comparison finds, and the items it points at;
//! - `published`: which items a baseline publishes;
//! - `diff`: the comparison of two models;
//! - `counterexample`: a payload that proves a break, checked by the decoder's own shape checker;
//! - `consumers`: the consuming teams' contracts: who a finding breaks, what each contract reads;
//! - `classify`: every version of an event type against every earlier one (for the documents).

mod classify;
mod consumers;
mod counterexample;
mod diff;
mod finding;
mod published;
mod rules;

pub use classify::{Compatibility, VersionPair, classify};
pub(crate) use consumers::{Missing, Unresolved, apply as apply_consumers, readers, references};
pub(crate) use diff::compare;
pub(crate) use diff::notation;
pub(crate) use finding::Item;
pub use finding::{Counterexample, Finding, Place, Severity, Subject, Verdict};
pub(crate) use published::{PublishedKeys, published_keys};
pub use rules::{Bump, Rule};

//! The `energy-api` crate: Rust types with serde impls for every shared type, event payload and REST resource.
//!
//! This hub lists the crate's files and writes the few that are its frame (`lib.rs`, `types.rs`,
//! `documents.rs`, `Cargo.toml`); each child writes its own files, the structs with the toolbox of
//! `structs.rs`. A child imports its siblings, never the hub.

mod borrowed;
mod construct;
mod events;
mod format;
mod name_table;
mod readme;
mod rest;
mod server;
mod structs;
pub(crate) mod twin;
mod typing;

pub use format::FormatCache;

use crate::model::Model;
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};
use structs::{Home, shared_type_cfgs, struct_tokens};

/// A generated Rust file: built from the model and formatted on its own, so files can be made in parallel.
enum Job {
    Lib,
    Types,
    /// `src/events/mod.rs`.
    EventsMod,
    /// `src/events/<section>.rs`, by index into the model's sections.
    EventsSection(usize),
    Rest,
    /// `src/rest/server.rs`.
    Server,
    Documents,
    /// `src/borrowed/mod.rs`.
    BorrowedMod,
    /// `src/borrowed/types.rs`.
    BorrowedTypes,
    /// `src/borrowed/events/<section>.rs`, by index into the model's sections.
    BorrowedSection(usize),
}

/// What each release of the generated crate changed, for its users: the same for every schema (the
/// releases are the generator's), kept as the template `codegen/templates/CHANGELOG.md`.
const CHANGELOG: &str = include_str!("../../../templates/CHANGELOG.md");

/// Files that are the same for every schema but name generated types: copied as they are from
/// `codegen/templates/`, where they are compiled and tested (`codegen/tests/templates.rs`).
const TEMPLATES: [(&str, &str); 4] = [
    (
        "src/events/catalogue.rs",
        include_str!("../../../templates/events/catalogue.rs"),
    ),
    (
        "src/events/decode.rs",
        include_str!("../../../templates/events/decode.rs"),
    ),
    (
        "src/events/routing.rs",
        include_str!("../../../templates/events/routing.rs"),
    ),
    (
        "src/borrowed/decode.rs",
        include_str!("../../../templates/borrowed/decode.rs"),
    ),
];

impl Job {
    fn run(
        &self,
        model: &Model,
        views: &[BTreeSet<(String, String)>],
        borrowing: &borrowed::Borrowing,
        formatter: &format::Formatter,
    ) -> Result<(String, String), String> {
        // A section's files are most of the crate, and each is made from its section alone (and from
        // what the arguments name): when those are as in an earlier run, the file is taken from the
        // cache without building its tokens.
        let (path, tokens) = match self {
            Job::EventsSection(i) => {
                let (section, views) = (&model.sections[*i], &views[*i]);
                let path = format!("src/events/{}.rs", section.module);
                // The profile decides which of its payloads are compiled per type.
                let compiled = &model.compiled;
                let formatted = formatter.format_from(&path, (section, views, compiled), || {
                    events::section_rs(section, views, compiled)
                })?;
                return Ok((path, formatted));
            }
            Job::BorrowedSection(i) => {
                let section = &model.sections[*i];
                let path = format!("src/borrowed/events/{}.rs", section.module);
                let formatted = formatter.format_from(&path, (section, borrowing), || {
                    borrowing.section_file(section)
                })?;
                return Ok((path, formatted));
            }
            Job::Lib => ("src/lib.rs".to_owned(), lib_rs(model)),
            Job::Types => ("src/types.rs".to_owned(), types_rs(model)),
            Job::EventsMod => ("src/events/mod.rs".to_owned(), events::mod_rs(model)),
            Job::Rest => ("src/rest/mod.rs".to_owned(), rest::file(model)),
            Job::Server => (
                "src/rest/server.rs".to_owned(),
                model
                    .rest
                    .as_ref()
                    .map(|rest| server::file(model, rest))
                    .unwrap_or_default(),
            ),
            Job::Documents => ("src/documents.rs".to_owned(), documents_rs(model)),
            Job::BorrowedMod => (
                "src/borrowed/mod.rs".to_owned(),
                borrowing.events_file(model),
            ),
            Job::BorrowedTypes => (
                "src/borrowed/types.rs".to_owned(),
                borrowing.types_file(model),
            ),
        };
        let formatted = formatter.format(&path, tokens)?;
        Ok((path, formatted))
    }
}

/// Every Rust file of the crate, and its `Cargo.toml`, by path relative to the crate.
///
/// Building and formatting the files is most of the generator's time; the files are independent, so they
/// are made on one thread per core, and what the `cache` holds from earlier runs is not made again: every
/// file, when the model is the one of the last run; else each file whose tokens are the same. The result
/// depends neither on which thread made what nor on the cache.
pub fn emit(
    model: &Model,
    cache: Option<&FormatCache>,
) -> Result<BTreeMap<String, String>, String> {
    let formatter = format::Formatter::new(cache, model);
    let mut files = match formatter.earlier_run() {
        Some(files) => files,
        None => formatted_files(model, &formatter)?,
    };
    formatter.finish();
    files.insert("Cargo.toml".to_owned(), cargo_toml(model));
    files.insert("README.md".to_owned(), readme::readme(model));
    files.insert(
        "CHANGELOG.md".to_owned(),
        format!("<!-- {} -->\n{CHANGELOG}", crate::emit::header_text()),
    );
    files.insert(
        "rustfmt.toml".to_owned(),
        format!(
            "{}# The generator formats this crate (prettyplease); `cargo fmt` leaves it alone.\ndisable_all_formatting = true\n",
            crate::emit::header("#")
        ),
    );
    for (path, template) in TEMPLATES {
        files.insert(
            path.to_owned(),
            format!("{}{template}", crate::emit::header("//")),
        );
    }
    Ok(files)
}

/// The Rust files built from the model and formatted, on one thread per core.
fn formatted_files(
    model: &Model,
    formatter: &format::Formatter,
) -> Result<BTreeMap<String, String>, String> {
    let mut jobs = vec![Job::Lib, Job::Types];
    jobs.push(Job::EventsMod);
    jobs.extend((0..model.sections.len()).map(Job::EventsSection));
    jobs.push(Job::Rest);
    if model.rest.is_some() {
        jobs.push(Job::Server);
    }
    jobs.push(Job::Documents);
    jobs.extend([Job::BorrowedMod, Job::BorrowedTypes]);
    jobs.extend((0..model.sections.len()).map(Job::BorrowedSection));
    let views = events::view_owners(model);
    let borrowing = borrowed::Borrowing::of(model);
    crate::parallel::map_in_order(&jobs, |job| job.run(model, &views, &borrowing, formatter))
        .into_iter()
        .collect()
}

/// The crate's features beside the sections', on by default: a team that reads one domain of events turns
/// them off with the default features.
pub const CRATE_FEATURES: [&str; 2] = ["rest", "documents"];

/// The crate's manifest. Self-contained (nothing inherited from a workspace), so that a team can vendor
/// the crate or publish it to its own registry, together with `energy-api-core`, which it expects as the
/// sibling folder `api-core` (a path dependency that `cargo package` turns into the version).
fn cargo_toml(model: &Model) -> String {
    let features: Vec<&str> = model.sections.iter().map(|s| s.feature.as_str()).collect();
    let mut out = crate::emit::header("#");
    out.push_str(&format!(
        r#"[package]
name = "energy-api"
version = "{version}"
description = "Types of the energy supply platform's interface: every REST resource and every event payload, with serde."
edition = "2024"
rust-version = "1.95"
license = "MIT OR Apache-2.0"
readme = "README.md"
documentation = "https://docs.rs/energy-api"
keywords = ["energy", "events", "serde", "openapi", "asyncapi"]
categories = ["api-bindings", "encoding"]
include = ["/src", "/openapi.yaml", "/asyncapi.yaml", "/schemas", "/README.md", "/CHANGELOG.md"]

# One feature per section of the events catalogue, and the REST types and the documents, all on by
# default: a team that reads one domain compiles only its payloads and the shared types they use
# (`default-features = false, features = ["billing"]`).
[features]
"#,
        version = readme::CRATE_VERSION
    ));
    let quoted: Vec<String> = CRATE_FEATURES
        .iter()
        .chain(&features)
        .map(|f| format!("\"{f}\""))
        .collect();
    out.push_str(&format!("default = [{}]\n", quoted.join(", ")));
    out.push_str(
        "# The REST resources and endpoint request types (`rest`).\nrest = []\n\
         # The OpenAPI and AsyncAPI documents as string constants (`documents`).\ndocuments = []\n\
         # The serving side of the REST API (`rest::server`): the operations' rows and parameters, a response\n\
         # enum per operation, the handlers' trait `Api`. Off by default; the `energy-server` crate serves it.\n\
         server = [\"rest\", \"energy-api-core/server\"]\n",
    );
    for f in &features {
        out.push_str(&format!("{f} = []\n"));
    }
    out.push_str(&format!(
        "# Borrowed views of the event payloads (`borrowed::EventRef`): strings point into the input. Off by\n\
         # default: it doubles the payload code the crate compiles.\n{} = []\n",
        borrowed::FEATURE
    ));
    out.push_str(&format!(
        r#"
[dependencies]
# `jiff`: the tables of REST resources read their `date-time` fields as `jiff::Timestamp`.
energy-api-core = {{ version = "{core}", path = "../api-core", features = ["jiff"] }}
jiff = {{ version = "0.2", features = ["serde"] }}
serde = {{ version = "1", features = ["derive"] }}
# `float_roundtrip`: the default parser can misread a price such as `1.0455` by one unit in the last place.
serde_json = {{ version = "1", features = ["float_roundtrip"] }}

[lints.rust]
unsafe_code = "forbid"
missing_docs = "warn"

[lints.clippy]
all = {{ level = "warn", priority = -1 }}
"#,
        core = energy_api_core::VERSION
    ));
    out
}

fn lib_rs(model: &Model) -> TokenStream {
    let counts = format!(
        " Generated from {} shared payload types, {} event types in {} payload versions across {} sections, \
         and {} REST resources with {} endpoints.",
        model.shared_types.len(),
        model.sections.iter().map(|s| s.events.len()).sum::<usize>(),
        model.version_count(),
        model.sections.len(),
        model.rest.as_ref().map_or(0, |r| r.resources.len()),
        model.rest.as_ref().map_or(0, |r| r.endpoints.len()),
    );
    let reexport = if model.rest.is_some() {
        quote!(
            #[cfg(feature = "documents")]
            pub use documents::{ASYNCAPI_YAML, OPENAPI_YAML};
        )
    } else {
        quote!(
            #[cfg(feature = "documents")]
            pub use documents::ASYNCAPI_YAML;
        )
    };
    quote! {
        // The README is the front page: what the crate holds, how to read and to produce events (its
        // examples are doctests), its features.
        #![doc = include_str!("../README.md")]
        #![doc = ""]
        #![doc = #counts]
        #![forbid(unsafe_code)]

        pub mod types;
        pub mod events;
        #[cfg(feature = "rest")]
        pub mod rest;

        #[cfg(feature = "documents")]
        pub mod documents;
        #[cfg(feature = "borrowed")]
        pub mod borrowed;

        pub use events::{DecodeError, Event, EventKind, EventType, PayloadError, PayloadErrorKind};
        #[cfg(feature = "borrowed")]
        pub use borrowed::EventRef;
        pub use ::energy_api_core::{RawJson, Unlisted};
        #reexport
    }
}

/// `src/documents.rs`: the OpenAPI and AsyncAPI documents, embedded, so that a service can serve them.
fn documents_rs(model: &Model) -> TokenStream {
    let asyncapi_path = format!("../{}", crate::emit::asyncapi::PATH);
    let openapi_path = format!("../{}", crate::emit::openapi::PATH);
    let openapi = model.rest.is_some().then(|| {
        quote! {
            /// The REST API as an OpenAPI 3.1.0 document (YAML), as in `openapi.yaml`.
            pub const OPENAPI_YAML: &str = include_str!(#openapi_path);
        }
    });
    quote! {
        #![doc = " The interface's documents, generated from the same model as the Rust types, embedded as text."]
        #openapi
        /// The events catalogue as an AsyncAPI 3.0.0 document (YAML), as in `asyncapi.yaml`.
        pub const ASYNCAPI_YAML: &str = include_str!(#asyncapi_path);
    }
}

fn types_rs(model: &Model) -> TokenStream {
    let cfgs = shared_type_cfgs(model);
    let structs = model.shared_types.iter().map(|s| {
        let compiled = model.compiled.shared_types.contains(&s.name);
        struct_tokens(
            s,
            Home::Types,
            true,
            &BTreeSet::new(),
            &cfgs[&s.name],
            compiled,
        )
    });
    quote! {
        #![doc = " Payload types shared by several events (the catalogue's \"Shared payload types\"). Each is"]
        #![doc = " compiled with the sections whose events use it; one that no event uses, always."]
        #(#structs)*
    }
}

//! The invariants `docs/ARCHITECTURE.md` states about the code's shape, each held here by reading the
//! sources (a grep is enough): a claim the code contradicts fails a test, not only a reader.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The runtime's bus, `energy-api-core`'s steps, the command-line tool's files.
#[path = "architecture/shapes.rs"]
mod shapes;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `.rs` files under `dir`, recursively, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// A source without its unit tests (`#[cfg(test)]` and what follows it), which may build models.
fn without_tests(text: &str) -> &str {
    text.split("#[cfg(test)]").next().unwrap_or(text)
}

/// The names that follow `prefix` in `text` (`super::` → `schema`, `tree`, …), with those of grouped
/// imports (`use super::{a, b::c}` → `a`, `b`).
fn names_after(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in text.match_indices(prefix) {
        let rest = &text[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for item in group.split(',') {
                let first = item.trim().split("::").next().unwrap_or("").trim();
                if !first.is_empty() {
                    names.insert(first.to_owned());
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                names.insert(name);
            }
        }
    }
    names
}

/// "One direction of flow … emitters read only the model": nothing under `emit/` names the YAML, the
/// AST, the reader, the checker or the pipeline (its unit tests may); the one emitter that does not
/// read the model, `schema_format.rs`, reads the reader's key lists; only the format cache touches files.
#[test]
fn emitters_read_only_the_model() {
    let emit = root().join("codegen/src/emit");
    let forbidden = [
        "crate::ast",
        "crate::yaml",
        "crate::load",
        "crate::check",
        "crate::source",
        "crate::diag",
        "crate::publication",
        "crate::pipeline",
        "crate::build_",
        "crate::read",
    ];
    let mut found = Vec::new();
    for file in rust_files(&emit) {
        let name = file.strip_prefix(&emit).unwrap().display().to_string();
        let text = read(&file);
        let code = without_tests(&text);
        for word in forbidden {
            let allowed = name == "schema_format.rs" && word == "crate::read";
            if code.contains(word) && !allowed {
                found.push(format!("emit/{name} names `{word}`"));
            }
        }
        if code.contains("std::fs") && name != "rust/format.rs" {
            found.push(format!("emit/{name} touches files"));
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// "No other emitter imports another": an emitter names the shared modules (`schema`, `tree`, `bus`)
/// and the pairs the map lists, which must read the same in two outputs.
#[test]
fn no_emitter_imports_another_but_the_listed_pairs() {
    let emit = root().join("codegen/src/emit");
    let shared = ["schema", "tree", "bus", "mod"];
    let emitters: BTreeSet<String> = std::fs::read_dir(&emit)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let stem = p.file_stem()?.to_str()?.to_owned();
            (p.is_dir() || p.extension().is_some_and(|e| e == "rs")).then_some(stem)
        })
        .filter(|stem| !shared.contains(&stem.as_str()))
        .collect();
    assert!(emitters.contains("rust") && emitters.contains("asyncapi"));
    // (emitter, what it imports): what must read the same in both.
    let allowed: BTreeSet<(&str, &str)> = [
        // Its `$ref`s point into the producer's document: its path and channel keys.
        ("consumers", "asyncapi"),
        // A message's compatibility table, the same text as in COMPATIBILITY.md.
        ("asyncapi", "compatibility"),
        // `documents.rs` embeds the two documents from their paths.
        ("rust", "asyncapi"),
        ("rust", "openapi"),
    ]
    .into();
    let mut found = Vec::new();
    for emitter in &emitters {
        let files = if emit.join(emitter).is_dir() {
            rust_files(&emit.join(emitter))
        } else {
            vec![emit.join(format!("{emitter}.rs"))]
        };
        for file in files {
            let text = read(&file);
            let code = without_tests(&text);
            let mut named = names_after(code, "crate::emit::");
            if !emit.join(emitter).is_dir() {
                named.extend(names_after(code, "super::"));
            }
            for other in named.intersection(&emitters) {
                if other != emitter && !allowed.contains(&(emitter.as_str(), other.as_str())) {
                    found.push(format!("{} imports the emitter `{other}`", file.display()));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The Rust emitter's children take their toolbox from `structs.rs` and import each other, never the hub
/// (`emit/rust/mod.rs`), which only lists the files and writes the crate's frame.
#[test]
fn the_rust_emitters_children_import_siblings_not_the_hub() {
    let dir = root().join("codegen/src/emit/rust");
    let hub = read(&dir.join("mod.rs"));
    let hub_items: BTreeSet<String> = hub
        .lines()
        .filter_map(|line| {
            let line = line.trim_start().trim_start_matches("pub(crate) ");
            let line = line.trim_start_matches("pub ");
            ["fn ", "const ", "struct ", "enum ", "static ", "type "]
                .iter()
                .find_map(|kind| line.strip_prefix(kind))
                .map(|rest| {
                    rest.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect()
                })
        })
        .collect();
    assert!(hub_items.contains("emit") && hub_items.contains("lib_rs"));
    let siblings: BTreeSet<String> = rust_files(&dir)
        .iter()
        .filter_map(|p| Some(p.file_stem()?.to_str()?.to_owned()))
        .filter(|stem| stem != "mod")
        .collect();
    let mut found = Vec::new();
    for file in rust_files(&dir) {
        if file.ends_with("mod.rs") {
            continue;
        }
        let text = read(&file);
        for line in without_tests(&text).lines() {
            let line = line.trim();
            for name in names_after(line, "super::") {
                let imports_hub = if line.starts_with("use ") {
                    !siblings.contains(&name)
                } else {
                    hub_items.contains(&name)
                };
                if imports_hub {
                    found.push(format!("{}: `{line}`", file.display()));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// "Fixed code is ordinary Rust": every template the generator copies is compiled and tested by
/// `codegen/tests/templates.rs` (through a `#[path]` module, so `cargo fmt` formats it too), and every
/// template file is copied.
#[test]
fn every_template_is_copied_compiled_and_tested() {
    let templates = root().join("codegen/templates");
    let hub = read(&root().join("codegen/src/emit/rust/mod.rs"));
    let tests = read(&root().join("codegen/tests/templates.rs"));
    let files = rust_files(&templates);
    assert!(!files.is_empty());
    for file in files {
        let name = file.strip_prefix(&templates).unwrap().display().to_string();
        assert!(
            hub.contains(&format!("include_str!(\"../../../templates/{name}\")")),
            "the generator does not copy templates/{name}"
        );
        assert!(
            tests.contains(&format!("#[path = \"../templates/{name}\"]")),
            "codegen/tests/templates.rs does not compile templates/{name}"
        );
    }
}

/// "What may import what": the workspace's crates on each other, as the map draws it.
#[test]
fn crates_depend_only_as_the_map_draws() {
    let expected: BTreeMap<&str, &[&str]> = [
        ("api-core", &[][..]),
        ("generated", &["energy-api-core"][..]),
        (
            "runtime",
            &["energy-api", "energy-api-core", "dev:energy-testkit"][..],
        ),
        (
            "server",
            &["energy-api", "dev:energy-runtime", "dev:energy-testkit"][..],
        ),
        (
            "cli",
            &[
                "energy-api",
                "energy-runtime",
                "energy-server",
                "energy-codegen",
                "dev:energy-runtime",
                "dev:energy-testkit",
            ][..],
        ),
        ("xtask", &["energy-codegen", "dev:energy-testkit"][..]),
        ("codegen", &["energy-api-core", "dev:energy-testkit"][..]),
        ("tests/twin", &["energy-api", "build:energy-codegen"][..]),
        ("testkit", &[][..]),
    ]
    .into();
    for (krate, deps) in expected {
        let manifest = read(&root().join(krate).join("Cargo.toml"));
        let mut section = String::new();
        let mut found = BTreeSet::new();
        for line in manifest.lines() {
            if line.starts_with('[') {
                section = line.to_owned();
            } else if line.starts_with("energy-") {
                let name: String = line
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '-')
                    .collect();
                let prefix = match section.as_str() {
                    "[dependencies]" => "",
                    "[dev-dependencies]" => "dev:",
                    "[build-dependencies]" => "build:",
                    other => panic!("{krate}/Cargo.toml: a workspace crate in {other}"),
                };
                found.insert(format!("{prefix}{name}"));
            }
        }
        let expected: BTreeSet<String> = deps.iter().map(|d| (*d).to_owned()).collect();
        assert_eq!(
            found, expected,
            "{krate}/Cargo.toml: its workspace dependencies differ from docs/ARCHITECTURE.md's \"What may import what\""
        );
    }
    // Nothing depends on the command-line tool, xtask or the cross-crate tests.
    for krate in [
        "api-core",
        "generated",
        "runtime",
        "server",
        "codegen",
        "testkit",
        "tests/twin",
    ] {
        let manifest = read(&root().join(krate).join("Cargo.toml"));
        for leaf in ["energy-cli", "xtask", "energy-tests"] {
            assert!(
                !manifest.lines().any(|l| l.starts_with(leaf)),
                "{krate} depends on {leaf}"
            );
        }
    }
}

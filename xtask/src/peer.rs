//! `cargo xtask bench --peer`: our generator beside a peer, cargo-typify (oxidecomputer/typify, the
//! JSON-Schema-to-Rust generator), on the same 336 payload types (48 shared types, 288 event versions).
//!
//! The peer reads one JSON Schema document, so the per-file schemas of `generated/schemas/` are combined
//! into one (every event version and shared type a definition, every `$ref` made local). cargo-typify is
//! pinned and installed into `<target>/peer-tools/`; its output becomes a crate of its own in
//! `<target>/peer-crate/`. Measured: generation (the whole process of each tool, alternately) and clean
//! debug builds of each crate (alternately, in a target folder each), as medians and ratios ours/peer.

use crate::measure::{CleanBuild, cargo, command_line, median, run_step, section_features};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The pinned peer: the latest cargo-typify release (0.9 was never published; 0.10 is an alpha).
pub(crate) const TYPIFY_VERSION: &str = "0.8.0";

/// The peer crate's package name.
const PEER_PACKAGE: &str = "typify-peer";

/// Runs of each generator, alternately (at least this many, or `--runs` if more).
const MIN_GENERATION_RUNS: usize = 5;

/// Targets as ours/peer ratios: generation (issue 16); then those of issue 24: compile with the default
/// features, with every feature, of one section against the peer's whole crate (the peer has no
/// per-section split), and `cargo check` with the default features.
const TARGET_GENERATION: f64 = 0.10;
const TARGET_COMPILE_DEFAULT: f64 = 0.5;
const TARGET_COMPILE_ALL: f64 = 0.8;
const TARGET_COMPILE_SECTION: f64 = 0.10;
const TARGET_CHECK: f64 = 0.5;

/// Measures both generators and both crates, and prints the table for BENCHMARKS.md.
pub(crate) fn compare(root: &Path, runs: usize) -> Result<(), String> {
    let target = crate::paths::target_dir(root);
    let typify = install_typify(&target.join("peer-tools"))?;

    let peer_dir = target.join("peer-crate");
    crate::files::create_dir(&peer_dir.join("src"))?;
    let ours = build_our_generator(root, &target)?;
    // Our --check first: the schemas the peer reads must be what the schema generates today.
    run_step(
        "checking that generated/ is up to date (run `cargo xtask codegen` if not)",
        ours.command(),
    )?;

    let schemas = root.join("generated").join("schemas");
    let combined = combined_schema(&read_schema_documents(&schemas)?)?;
    let definitions = combined["definitions"].as_object().map_or(0, Map::len);
    let combined_path = peer_dir.join("schema.json");
    write_if_changed(&combined_path, &to_json_text(&combined)?)?;
    let peer_source = peer_dir.join("src").join("lib.rs");
    let peer_gen = Generator::typify(&typify, &combined_path, &peer_source, &peer_dir);
    run_step("cargo-typify on the combined schema", peer_gen.command())?;
    let source = std::fs::read_to_string(&peer_source).map_err(|e| {
        format!(
            "cannot read cargo-typify's output {}: {e}",
            peer_source.display()
        )
    })?;
    write_if_changed(&peer_dir.join("Cargo.toml"), &peer_manifest(&source))?;
    copy_workspace_lock(root, &peer_dir)?;
    eprintln!(
        "peer: {definitions} definitions in {}; cargo-typify {TYPIFY_VERSION} wrote {} lines, {} top-level types, to {}",
        combined_path.display(),
        source.lines().count(),
        top_level_types(&source),
        peer_source.display()
    );

    let generation_runs = runs.max(MIN_GENERATION_RUNS);
    eprintln!("timing generation: {generation_runs} runs of each, alternately");
    let edited = EditedSchema::copy(root, &target.join("peer-edit"), &ours.executable())?;
    let (mut ours_gen, mut ours_first, mut ours_edit, mut peer_gen_times) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let format_cache = crate::codegen::format_cache_dir(root);
    for run in 0..generation_runs {
        peer_gen_times.push(peer_gen.time("cargo-typify on the combined schema")?);
        // Without the cache of formatted files (a first run, or the first after the generator changed),
        // then with it (every later run: the files of an unchanged schema are not formatted again).
        let _ = std::fs::remove_dir_all(&format_cache);
        ours_first.push(ours.time("our generator (xtask codegen --check), empty cache")?);
        ours_gen.push(ours.time("our generator (xtask codegen --check)")?);
        // An author's loop: one description edited, then `xtask codegen` (which writes what changed).
        edited.edit(run)?;
        ours_edit.push(
            edited
                .generator
                .time("our generator after an edit (xtask codegen)")?,
        );
    }

    let compile = compile_rounds(root, &target, &peer_dir, runs)?;

    let date = crate::compat::today_utc();
    let nproc = std::thread::available_parallelism().map_or(0, usize::from);
    let rustc = tool_version(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned()))?;
    println!(
        "## Peer comparison: our generator and `energy-api` beside cargo-typify {TYPIFY_VERSION}"
    );
    println!();
    println!("- {date} (UTC); nproc {nproc}; {rustc}");
    println!(
        "- the same {definitions} payload types (event versions and shared types; one combined schema \
         for the peer)"
    );
    println!(
        "- generation: each tool's whole process, wall clock, median of {generation_runs}, alternately: \
         ours `xtask codegen --check` (release; every output, compared with generated/) with its cache of \
         formatted files emptied, then as run again, the peer `cargo-typify typify schema.json` (its \
         defaults: types and builders, formatted, written)"
    );
    println!(
        "- compile: a clean debug build of the crate alone (dependencies built, CARGO_INCREMENTAL=0), \
         median of {runs} {}, each the peer's crate, then energy-api with its default features (every \
         section, `rest`, `documents`), with all features (adding `borrowed`), then `cargo check` of each \
         crate (default features), then energy-api with each section's feature alone; a section is set \
         against the peer's whole crate, which has no per-section split",
        if runs == 1 { "round" } else { "rounds" }
    );
    println!();
    println!("| what | ours (s) | peer (s) | ours / peer | target | |");
    println!("|---|---|---|---|---|---|");
    let row = |what: &str, ours: &[Duration], peer: &[Duration], target: f64| {
        let (ours, peer) = (median(ours), median(peer));
        let ratio = ours.as_secs_f64() / peer.as_secs_f64().max(f64::MIN_POSITIVE);
        let verdict = if ratio <= target {
            "met"
        } else {
            "**not met**"
        };
        println!(
            "| {what} | {:.3} | {:.3} | {ratio:.3} | ≤ {target:.2} | {verdict} |",
            ours.as_secs_f64(),
            peer.as_secs_f64()
        );
    };
    row(
        "generation, first run (no formatted file cached)",
        &ours_first,
        &peer_gen_times,
        TARGET_GENERATION,
    );
    row(
        "generation after an edit of one event's description (the other sections' files cached)",
        &ours_edit,
        &peer_gen_times,
        TARGET_GENERATION,
    );
    row(
        "generation, run again (schema unchanged: no Rust file built)",
        &ours_gen,
        &peer_gen_times,
        TARGET_GENERATION,
    );
    row(
        "compile, default features (every section, `rest`, `documents`)",
        &compile.ours_default,
        &compile.peer,
        TARGET_COMPILE_DEFAULT,
    );
    row(
        "compile, all features (the default ones and `borrowed`)",
        &compile.ours_all,
        &compile.peer,
        TARGET_COMPILE_ALL,
    );
    row(
        "`cargo check`, default features",
        &compile.ours_check,
        &compile.peer_check,
        TARGET_CHECK,
    );
    for (section, times) in &compile.ours_sections {
        row(
            &format!("compile, `{section}` alone"),
            times,
            &compile.peer,
            TARGET_COMPILE_SECTION,
        );
    }
    Ok(())
}

/// Installs cargo-typify at [`TYPIFY_VERSION`] into `tools` (`cargo install --locked --root`), unless
/// that version is there already; gives the executable.
fn install_typify(tools: &Path) -> Result<PathBuf, String> {
    let executable = tools.join("bin").join("cargo-typify");
    if installed_version(tools).as_deref() == Some(TYPIFY_VERSION) && executable.is_file() {
        return Ok(executable);
    }
    let mut install = Command::new(cargo());
    install
        .args(["install", "--locked", "--quiet", "--root"])
        .arg(tools)
        .args(["cargo-typify", "--version", &format!("={TYPIFY_VERSION}")])
        // Built in cargo's own temporary folder, not in the target folder this xtask runs with.
        .env_remove("CARGO_TARGET_DIR");
    eprintln!(
        "installing cargo-typify {TYPIFY_VERSION} (a few minutes, once): {}",
        command_line(&install)
    );
    run_step("installing cargo-typify", install)?;
    match installed_version(tools) {
        Some(v) if v == TYPIFY_VERSION && executable.is_file() => Ok(executable),
        other => Err(format!(
            "installing cargo-typify: after `cargo install`, {} holds {} instead of cargo-typify {TYPIFY_VERSION}",
            tools.display(),
            other.map_or("nothing".to_owned(), |v| format!("version {v}"))
        )),
    }
}

/// The version of cargo-typify that `cargo install` recorded in `tools/.crates2.json`, if any.
fn installed_version(tools: &Path) -> Option<String> {
    let text = std::fs::read_to_string(tools.join(".crates2.json")).ok()?;
    let record: Value = serde_json::from_str(&text).ok()?;
    record["installs"].as_object()?.keys().find_map(|key| {
        // "cargo-typify 0.8.0 (registry+https://github.com/rust-lang/crates.io-index)"
        let mut words = key.split(' ');
        (words.next() == Some("cargo-typify"))
            .then(|| words.next().map(str::to_owned))
            .flatten()
    })
}

/// Builds our generator (release) and gives the command `codegen --check` of it.
fn build_our_generator(root: &Path, target: &Path) -> Result<Generator, String> {
    let mut build = Command::new(cargo());
    build
        .current_dir(root)
        .args(["build", "--quiet", "--release", "-p", "xtask"]);
    run_step("building our generator (release)", build)?;
    let mut check = Command::new(target.join("release").join("xtask"));
    check
        .args(["codegen", "--check"])
        .current_dir(root)
        // Located from the folder it runs in, as when a developer runs it.
        .env_remove("CARGO_MANIFEST_DIR");
    Ok(Generator { command: check })
}

/// A copy of the schema and of `generated/` in which one description is edited before each run, as an
/// author edits and regenerates.
struct EditedSchema {
    file: PathBuf,
    original: String,
    /// The description line edited: its text, which the edit extends.
    line: String,
    generator: Generator,
}

impl EditedSchema {
    /// Copies `schema/` and `generated/` into `dir` and makes a first `codegen` there with `xtask` (our
    /// generator's executable).
    fn copy(root: &Path, dir: &Path, xtask: &Path) -> Result<EditedSchema, String> {
        let _ = std::fs::remove_dir_all(dir);
        for folder in ["schema", "generated"] {
            crate::files::copy_dir(&root.join(folder), &dir.join(folder))?;
        }
        let file = dir.join("schema").join("events").join("billing.yaml");
        let original = crate::files::read_text(&file)?;
        // A one-line description of a field or version, plain (not quoted, not a block).
        let line = original
            .lines()
            .find(|l| {
                l.trim_start()
                    .strip_prefix("description: ")
                    .is_some_and(|v| l.starts_with(' ') && !v.starts_with(['"', '\'', '>', '|']))
            })
            .ok_or_else(|| format!("no plain one-line description in {}", file.display()))?
            .to_owned();
        let mut command = Command::new(xtask);
        command
            .arg("codegen")
            .arg("--schema")
            .arg(dir.join("schema"))
            .arg("--out")
            .arg(dir.join("generated"))
            .current_dir(root)
            .env_remove("CARGO_MANIFEST_DIR");
        let generator = Generator { command };
        run_step("our generator on a copy of the schema", generator.command())?;
        Ok(EditedSchema {
            file,
            original,
            line,
            generator,
        })
    }

    /// Makes the `run`th edit: the description reads differently from every earlier run's.
    fn edit(&self, run: usize) -> Result<(), String> {
        let edited = self
            .original
            .replacen(&self.line, &format!("{} (edit {run})", self.line), 1);
        crate::files::write(&self.file, &edited)
    }
}

/// A generator's command, run again and again.
struct Generator {
    command: Command,
}

impl Generator {
    /// `cargo-typify typify SCHEMA --output SOURCE`, with the tool's defaults (builders included).
    fn typify(executable: &Path, schema: &Path, source: &Path, dir: &Path) -> Generator {
        let mut command = Command::new(executable);
        command
            .arg("typify")
            .arg(schema)
            .arg("--output")
            .arg(source)
            .current_dir(dir);
        Generator { command }
    }

    /// The executable it runs.
    fn executable(&self) -> PathBuf {
        PathBuf::from(self.command.get_program())
    }

    /// A copy of the command.
    fn command(&self) -> Command {
        let mut copy = Command::new(self.command.get_program());
        copy.args(self.command.get_args());
        if let Some(dir) = self.command.get_current_dir() {
            copy.current_dir(dir);
        }
        for (key, value) in self.command.get_envs() {
            match value {
                Some(value) => copy.env(key, value),
                None => copy.env_remove(key),
            };
        }
        copy
    }

    /// The wall-clock time of one run (failing if the run fails).
    fn time(&self, what: &str) -> Result<Duration, String> {
        let started = Instant::now();
        run_step(what, self.command())?;
        Ok(started.elapsed())
    }
}

/// Clean debug builds of both crates, in rounds.
struct CompileTimes {
    peer: Vec<Duration>,
    peer_check: Vec<Duration>,
    ours_check: Vec<Duration>,
    ours_default: Vec<Duration>,
    ours_all: Vec<Duration>,
    ours_sections: Vec<(String, Vec<Duration>)>,
}

/// `runs` rounds, each: the peer's crate, then `energy-api` with its default features, with all, then
/// `cargo check` of each, then `energy-api` with each section's feature alone; every build clean (`cargo clean -p`), dependencies built before the first round.
fn compile_rounds(
    root: &Path,
    target: &Path,
    peer_dir: &Path,
    runs: usize,
) -> Result<CompileTimes, String> {
    let manifest = root.join("generated").join("Cargo.toml");
    let sections = section_features(root)?;
    let ours = CleanBuild::new(&manifest, "energy-api", &target.join("bench-compile"));
    let peer = CleanBuild::new(
        &peer_dir.join("Cargo.toml"),
        PEER_PACKAGE,
        &target.join("bench-compile-peer"),
    );
    ours.prepare()?;
    peer.prepare()?;
    let mut times = CompileTimes {
        peer: Vec::new(),
        peer_check: Vec::new(),
        ours_check: Vec::new(),
        ours_default: Vec::new(),
        ours_all: Vec::new(),
        ours_sections: sections.iter().map(|s| (s.clone(), Vec::new())).collect(),
    };
    for round in 1..=runs {
        eprintln!("compile round {round} of {runs}");
        times.peer.push(peer.time(&[])?);
        times.ours_default.push(ours.time(&[])?);
        times.ours_all.push(ours.time(&["--all-features"])?);
        times.peer_check.push(peer.time_check(&[])?);
        times.ours_check.push(ours.time_check(&[])?);
        for (section, section_times) in &mut times.ours_sections {
            section_times.push(ours.time(&["--no-default-features", "--features", section])?);
        }
    }
    Ok(times)
}

/// The peer crate's manifest: a workspace of its own, with what cargo-typify's output uses.
fn peer_manifest(source: &str) -> String {
    let mut manifest = format!(
        "# Written by `cargo xtask bench --peer`: cargo-typify {TYPIFY_VERSION}'s output for the payload types.\n\
         [package]\n\
         name = \"{PEER_PACKAGE}\"\n\
         version = \"0.0.0\"\n\
         edition = \"2021\"\n\
         publish = false\n\
         \n\
         [lib]\n\
         path = \"src/lib.rs\"\n\
         \n\
         [dependencies]\n\
         serde = {{ version = \"1\", features = [\"derive\"] }}\n\
         serde_json = \"1\"\n"
    );
    // Formats and patterns bring in these; the real schema has none today, but a schema change must
    // not break the bench.
    for (path, dependency) in [
        (
            "::chrono::",
            "chrono = { version = \"0.4\", features = [\"serde\"] }\n",
        ),
        (
            "::uuid::",
            "uuid = { version = \"1\", features = [\"serde\"] }\n",
        ),
        ("::regress::", "regress = \"0.12\"\n"),
    ] {
        if source.contains(path) {
            manifest.push_str(dependency);
        }
    }
    manifest.push_str("\n[workspace]\n");
    manifest
}

/// Copies the workspace's lock file beside the peer's manifest (once), so that the dependencies both
/// crates share (serde, serde_json) resolve to the same versions; cargo drops the rest.
fn copy_workspace_lock(root: &Path, peer_dir: &Path) -> Result<(), String> {
    let lock = peer_dir.join("Cargo.lock");
    if lock.exists() {
        return Ok(());
    }
    std::fs::copy(root.join("Cargo.lock"), &lock)
        .map(|_| ())
        .map_err(|e| format!("cannot copy Cargo.lock to {}: {e}", lock.display()))
}

/// Top-level `pub struct` and `pub enum` items of a Rust source (the builders are in a module).
fn top_level_types(source: &str) -> usize {
    source
        .lines()
        .filter(|l| l.starts_with("pub struct ") || l.starts_with("pub enum "))
        .count()
}

/// The first line of `PROGRAM --version`.
fn tool_version(program: String) -> Result<String, String> {
    let mut command = Command::new(program);
    command.arg("--version");
    let output = run_step("reading the compiler's version", command)?;
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned())
}

/// Writes `text` to `path` unless it holds exactly that already.
fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read(path).ok().as_deref() == Some(text.as_bytes()) {
        return Ok(());
    }
    crate::files::write(path, text)
}

/// Pretty JSON text with a final newline.
fn to_json_text(value: &Value) -> Result<String, String> {
    serde_json::to_string_pretty(value)
        .map(|text| text + "\n")
        .map_err(|e| format!("cannot write the combined schema as JSON: {e}"))
}

/// Every `*.json` file under `schemas/events/` and `schemas/types/`, parsed, with its path, sorted by
/// path.
fn read_schema_documents(schemas: &Path) -> Result<Vec<(PathBuf, Value)>, String> {
    let mut documents = Vec::new();
    for folder in ["events", "types"] {
        let dir = schemas.join(folder);
        let entries =
            std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry
                .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
                .path();
            if path.extension().is_some_and(|e| e == "json") {
                let text = crate::files::read_text(&path)?;
                let value = serde_json::from_str(&text)
                    .map_err(|e| format!("{}: not JSON: {e}", path.display()))?;
                documents.push((path, value));
            }
        }
    }
    documents.sort_by(|a, b| a.0.cmp(&b.0));
    if documents.is_empty() {
        return Err(format!(
            "no JSON Schemas in {}/events or /types: run `cargo xtask codegen`",
            schemas.display()
        ));
    }
    Ok(documents)
}

/// One JSON Schema (draft-07, the dialect cargo-typify reads) whose `definitions` are the given
/// documents, each named by its `title`, sorted by name, without `$id`, `$schema` and `$comment`, its
/// `$ref`s (resolved against its `$id`) made `#/definitions/NAME`. Fails on a document without `$id`
/// or `title`, two documents with one name or one `$id`, and a `$ref` to no document or into one.
fn combined_schema(documents: &[(PathBuf, Value)]) -> Result<Value, String> {
    let mut names_by_id: BTreeMap<String, String> = BTreeMap::new();
    let mut bases = Vec::with_capacity(documents.len());
    let mut paths_by_name: BTreeMap<String, &Path> = BTreeMap::new();
    for (path, document) in documents {
        let field = |key: &str| {
            document[key].as_str().ok_or_else(|| {
                format!(
                    "{}: no `{key}` string; every schema needs one to be a definition",
                    path.display()
                )
            })
        };
        let (id, name) = (field("$id")?, field("title")?);
        let base = url::Url::parse(id).map_err(|e| {
            format!(
                "{}: `$id` {id:?} is not an absolute URL: {e}",
                path.display()
            )
        })?;
        if let Some(other) = paths_by_name.insert(name.to_owned(), path) {
            return Err(format!(
                "{} and {} have the same title {name:?}, so one definition name",
                other.display(),
                path.display()
            ));
        }
        if names_by_id
            .insert(base.as_str().to_owned(), name.to_owned())
            .is_some()
        {
            return Err(format!("{}: `$id` {id:?} is not unique", path.display()));
        }
        bases.push((name, base));
    }
    let mut definitions = BTreeMap::new();
    for ((path, document), (name, base)) in documents.iter().zip(bases) {
        let mut definition = document.clone();
        if let Value::Object(keywords) = &mut definition {
            for key in ["$id", "$schema", "$comment"] {
                keywords.remove(key);
            }
        }
        localize_refs(&mut definition, &base, &names_by_id)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        definitions.insert(name.to_owned(), definition);
    }
    let mut root = Map::new();
    root.insert(
        "$schema".to_owned(),
        Value::from("http://json-schema.org/draft-07/schema#"),
    );
    root.insert(
        "$comment".to_owned(),
        Value::from(
            "Written by `cargo xtask bench --peer`: every event version and shared type of \
             generated/schemas/, for cargo-typify.",
        ),
    );
    root.insert(
        "definitions".to_owned(),
        Value::Object(definitions.into_iter().collect()),
    );
    Ok(Value::Object(root))
}

/// Rewrites every `$ref` string under `value` to `#/definitions/NAME` of the document it resolves to.
fn localize_refs(
    value: &mut Value,
    base: &url::Url,
    names_by_id: &BTreeMap<String, String>,
) -> Result<(), String> {
    match value {
        Value::Object(keywords) => {
            for (key, child) in keywords.iter_mut() {
                match child {
                    Value::String(reference) if key == "$ref" => {
                        *reference = local_ref(reference, base, names_by_id)?;
                    }
                    Value::String(_) if key == "$id" => {
                        return Err("an `$id` inside a schema is not supported".to_owned());
                    }
                    _ => localize_refs(child, base, names_by_id)?,
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                localize_refs(item, base, names_by_id)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// The local reference for a `$ref` to a whole document.
fn local_ref(
    reference: &str,
    base: &url::Url,
    names_by_id: &BTreeMap<String, String>,
) -> Result<String, String> {
    let target = base
        .join(reference)
        .map_err(|e| format!("`$ref` {reference:?} is not a URI reference: {e}"))?;
    if target.fragment().is_some_and(|f| !f.is_empty()) {
        return Err(format!(
            "`$ref` {reference:?} points into a document; only references to whole documents are supported"
        ));
    }
    let mut id = target;
    id.set_fragment(None);
    match names_by_id.get(id.as_str()) {
        Some(name) => Ok(format!("#/definitions/{name}")),
        None => Err(format!(
            "`$ref` {reference:?} resolves to {id}, which is no schema's `$id`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn real(relative: &str) -> (PathBuf, Value) {
        let path = crate::paths::compiled_workspace()
            .join("generated/schemas")
            .join(relative);
        let text = std::fs::read_to_string(&path).expect("a real schema of generated/");
        (path, serde_json::from_str(&text).expect("JSON"))
    }

    /// Every `$ref` under `value`.
    fn refs(value: &Value, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    match child {
                        Value::String(s) if key == "$ref" => found.push(s.clone()),
                        _ => refs(child, found),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|i| refs(i, found)),
            _ => {}
        }
    }

    #[test]
    fn real_schemas_combine_into_local_definitions_deterministically() {
        // An event version referring to `Ledger` (`../types/Ledger.json`), which refers to
        // `BillingAccount` (`BillingAccount.json`, relative to the types folder).
        let documents = vec![
            real("events/billing.ledger.entry_posted.v1.json"),
            real("types/BillingAccount.json"),
            real("types/Ledger.json"),
        ];
        let combined = combined_schema(&documents).expect("combines");
        let definitions = combined["definitions"].as_object().expect("definitions");
        let names: Vec<&str> = definitions.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            ["BillingAccount", "BillingLedgerEntryPostedV1", "Ledger"]
        );
        let mut found = Vec::new();
        refs(&combined, &mut found);
        found.sort();
        assert_eq!(
            found,
            ["#/definitions/BillingAccount", "#/definitions/Ledger"]
        );
        for definition in definitions.values() {
            for key in ["$id", "$schema", "$comment"] {
                assert!(definition.get(key).is_none(), "{key} left in {definition}");
            }
        }
        // The same bytes whatever order the files come in.
        let mut reversed = documents.clone();
        reversed.reverse();
        let again = combined_schema(&reversed).expect("combines");
        assert_eq!(to_json_text(&combined), to_json_text(&again));
    }

    #[test]
    fn the_whole_real_set_leaves_no_external_reference() {
        let schemas = crate::paths::compiled_workspace().join("generated/schemas");
        let documents = read_schema_documents(&schemas).expect("reads");
        let combined = combined_schema(&documents).expect("combines");
        let definitions = combined["definitions"].as_object().expect("definitions");
        assert_eq!(definitions.len(), documents.len());
        let mut found = Vec::new();
        refs(&combined, &mut found);
        assert!(!found.is_empty());
        for reference in found {
            let name = reference
                .strip_prefix("#/definitions/")
                .unwrap_or_else(|| panic!("external reference {reference}"));
            assert!(
                definitions.contains_key(name),
                "{reference} has no definition"
            );
        }
    }

    #[test]
    fn a_reference_to_a_missing_document_is_an_error_naming_it() {
        // `Ledger` refers to `BillingAccount`, which is left out.
        let documents = vec![real("types/Ledger.json")];
        let error = combined_schema(&documents).expect_err("a dangling reference");
        assert!(error.contains("Ledger.json"), "{error}");
        assert!(
            error.contains("\"BillingAccount.json\" resolves to https://schemas.energy-platform.example/types/BillingAccount.json"),
            "{error}"
        );
    }

    #[test]
    fn the_peer_manifest_has_what_the_output_uses() {
        let plain = peer_manifest("pub struct A { pub b: ::serde_json::Value }");
        assert!(plain.contains("serde_json = \"1\"") && !plain.contains("chrono"));
        let dated =
            peer_manifest("pub struct A { pub at: ::chrono::DateTime<::chrono::offset::Utc> }");
        assert!(dated.contains("chrono = "), "{dated}");
    }
}

//! The cache of formatted Rust files (`FormatCache`): the output is the same with or without it; a run
//! from an unchanged model takes every Rust file through the model's index, a run from a changed model
//! takes each file whose tokens are unchanged; what the cache cannot trust (a damaged entry, an index
//! naming a missing entry, another build's entries, files the schema no longer makes) is made again,
//! never used.

use energy_codegen::{FormatCache, Model, emit_all};
use std::collections::BTreeMap;
use std::path::Path;

fn real_model() -> Model {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema");
    energy_codegen::build_model(&schema).unwrap_or_else(|f| panic!("{}", f.render(false)))
}

/// The files of the cache folder whose names end in `.extension`, by name.
fn cached(dir: &Path, extension: &str) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .expect("the cache folder exists after a run")
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == extension))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (
                name,
                std::fs::read_to_string(&path).expect("an entry is text"),
            )
        })
        .collect()
}

/// The model's index (`path<TAB>entry` lines): its file name and its lines.
fn index(dir: &Path) -> (String, Vec<(String, String)>) {
    let indexes = cached(dir, "run");
    assert_eq!(indexes.len(), 1, "one index, of the last run's model");
    let (name, text) = indexes.into_iter().next().unwrap();
    let lines = text
        .lines()
        .map(|l| {
            let (path, entry) = l.split_once('\t').expect("path<TAB>entry");
            (path.to_owned(), entry.to_owned())
        })
        .collect();
    (name, lines)
}

/// Generated Rust files that are formatted (the templates, `codegen/templates/<dir>/<file>.rs` copied
/// to `src/<dir>/<file>.rs`, are copied as they are).
fn formatted_rust_files(files: &BTreeMap<String, String>) -> Vec<&String> {
    let templates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
    let copied: Vec<String> = std::fs::read_dir(&templates)
        .unwrap()
        .map(|dir| dir.unwrap().path())
        .filter(|dir| dir.is_dir())
        .flat_map(|dir| {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            std::fs::read_dir(&dir).unwrap().map(move |file| {
                let file = file.unwrap().file_name().to_string_lossy().into_owned();
                format!("src/{name}/{file}")
            })
        })
        .collect();
    assert!(copied.contains(&"src/events/decode.rs".to_owned()));
    files
        .keys()
        .filter(|p| p.ends_with(".rs") && !copied.contains(p))
        .collect()
}

#[test]
fn the_output_is_the_same_with_a_cache_cold_and_warm() {
    let model = real_model();
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    let cache = FormatCache::new(&cache_dir, "build 1");
    let uncached = emit_all(&model, None).unwrap();
    let cold = emit_all(&model, Some(&cache)).unwrap();
    let warm = emit_all(&model, Some(&cache)).unwrap();
    assert!(uncached == cold, "a cold cache changes the output");
    assert!(uncached == warm, "a warm cache changes the output");
    let formatted = formatted_rust_files(&uncached);
    assert_eq!(cached(&cache_dir, "rs").len(), formatted.len());
    let (_, lines) = index(&cache_dir);
    let indexed: Vec<&String> = lines.iter().map(|(path, _)| path).collect();
    assert_eq!(indexed, formatted, "the index names every formatted file");
}

#[test]
fn a_changed_model_takes_unchanged_files_from_the_cache_and_not_damaged_ones() {
    let model = real_model();
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    let cache = FormatCache::new(&cache_dir, "build 1");
    let expected = emit_all(&model, Some(&cache)).unwrap();
    let stored = cached(&cache_dir, "rs");
    // Without the index, as after an edit of the schema: the entries are found by the tokens' hash.
    let (index_name, _) = index(&cache_dir);
    std::fs::remove_file(cache_dir.join(&index_name)).unwrap();

    // Proof that they are read: one intact entry copied under every name shows in every Rust file.
    let (_, sample) = stored.iter().next().unwrap();
    let (checksum, sample_file) = sample.split_once('\n').unwrap();
    for name in stored.keys() {
        std::fs::write(cache_dir.join(name), sample).unwrap();
    }
    let from_cache = emit_all(&model, Some(&cache)).unwrap();
    let showing_sample = from_cache.values().filter(|f| *f == sample_file).count();
    assert_eq!(
        showing_sample,
        stored.len(),
        "every Rust file came from the cache"
    );

    // A damaged entry (its text no longer matches its checksum) is not used: the file is formatted again.
    std::fs::remove_file(cache_dir.join(&index_name)).unwrap();
    for name in stored.keys() {
        let damaged = format!("{checksum}\nfn damaged() {{}}\n");
        std::fs::write(cache_dir.join(name), damaged).unwrap();
    }
    let reformatted = emit_all(&model, Some(&cache)).unwrap();
    assert!(
        reformatted == expected,
        "a damaged entry reached the output"
    );
    assert!(
        cached(&cache_dir, "rs") == stored,
        "the damaged entries were not rewritten"
    );
}

#[test]
fn an_unchanged_model_takes_every_file_through_its_index_unless_an_entry_is_missing() {
    let model = real_model();
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    let cache = FormatCache::new(&cache_dir, "build 1");
    let expected = emit_all(&model, Some(&cache)).unwrap();
    let (index_name, lines) = index(&cache_dir);

    // Proof that the index is read (and not the tokens' hashes): pointed at one entry for every path,
    // it makes every Rust file that entry's file.
    let one_entry = &lines[0].1;
    let redirected: String = lines
        .iter()
        .map(|(path, _)| format!("{path}\t{one_entry}\n"))
        .collect();
    std::fs::write(cache_dir.join(&index_name), redirected).unwrap();
    let through_index = emit_all(&model, Some(&cache)).unwrap();
    let first_file = &expected[&lines[0].0];
    let showing_it = through_index.values().filter(|f| *f == first_file).count();
    assert_eq!(
        showing_it,
        lines.len(),
        "every Rust file came through the index"
    );

    // An index that names a missing entry is not used: the files are made again, and the index rewritten.
    std::fs::write(cache_dir.join(&index_name), "src/lib.rs\tmissing.rs\n").unwrap();
    let remade = emit_all(&model, Some(&cache)).unwrap();
    assert!(
        remade == expected,
        "an index naming a missing entry reached the output"
    );
    assert_eq!(
        index(&cache_dir).1,
        lines,
        "the index is written again whole"
    );
}

#[test]
fn another_build_does_not_read_the_entries_and_stale_entries_are_removed() {
    let model = real_model();
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    emit_all(&model, Some(&FormatCache::new(&cache_dir, "build 1"))).unwrap();
    let first = cached(&cache_dir, "rs");
    let (first_index, _) = index(&cache_dir);
    std::fs::write(cache_dir.join("leftover.rs.123.tmp"), "half an entry").unwrap();

    let expected = emit_all(&model, None).unwrap();
    let second = emit_all(&model, Some(&FormatCache::new(&cache_dir, "build 2"))).unwrap();
    assert!(second == expected);
    let after = cached(&cache_dir, "rs");
    assert_eq!(
        after.len(),
        first.len(),
        "one build's entries are kept, not two"
    );
    assert!(
        after.keys().all(|name| !first.contains_key(name)),
        "an entry of another build survived (or was named alike)"
    );
    assert_ne!(
        index(&cache_dir).0,
        first_index,
        "the other build's index survived"
    );
    assert!(!cache_dir.join("leftover.rs.123.tmp").exists());
}

/// A section's files are taken from the cache by a hash of the section (and of what else they are made
/// from), without building their tokens: an edit must make exactly the files it changes again, and the
/// result must be what a run without a cache makes. Edits of a section, of a shared type that sections
/// use, and of a name that other sections refer to.
#[test]
fn after_an_edit_the_cached_run_makes_what_an_uncached_run_makes() {
    let model = real_model();
    let dir = tempfile::tempdir().unwrap();
    let cache = FormatCache::new(dir.path().join("cache"), "build 1");
    let before = emit_all(&model, Some(&cache)).unwrap();

    let mut described = model.clone();
    let section = &mut described.sections[0];
    let module = section.module.clone();
    section.events[0].versions[0].payload.fields[0].description = Some("Edited.".to_owned());

    let mut shared_changed = model.clone();
    let shared = &mut shared_changed.shared_types[0];
    let mut added = shared.fields[0].clone();
    added.name = "added_field".to_owned();
    added.rust_name = "added_field".to_owned();
    shared.fields.push(added);

    let mut renamed = model.clone();
    let version = &mut renamed.sections[1].events[0].versions[0];
    version.payload.rust_name = format!("{}Renamed", version.payload.rust_name);

    for (what, edited) in [
        ("a field's description", &described),
        ("a shared type's fields", &shared_changed),
        ("a payload's Rust name", &renamed),
    ] {
        let cached = emit_all(edited, Some(&cache)).unwrap();
        let uncached = emit_all(edited, None).unwrap();
        for (path, text) in &uncached {
            assert!(
                cached.get(path) == Some(text),
                "after an edit of {what}, the cache gave another {path}"
            );
        }
        assert_eq!(cached.len(), uncached.len());
        // And back: the files of the model before the edit, from the cache again.
        assert!(emit_all(&model, Some(&cache)).unwrap() == before);
    }

    // The description is in the section's files only (and the documents), not in other sections'.
    let after = emit_all(&described, None).unwrap();
    let changed: Vec<&String> = formatted_rust_files(&before)
        .into_iter()
        .filter(|path| before[*path] != after[*path])
        .collect();
    assert_eq!(
        changed,
        [
            &format!("src/borrowed/events/{module}.rs"),
            &format!("src/events/{module}.rs")
        ]
    );
}

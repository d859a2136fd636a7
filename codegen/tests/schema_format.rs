//! The JSON Schemas of the schema format (`generated/schema-format/`), with which editors complete and
//! check `schema/*.yaml` while the author types, agree with the generator's reader: every schema file and
//! every valid fixture schema follows them, each names its JSON Schema in its first line, the mistakes of
//! a file's shape in the mistake catalogue are caught by them, and their keys are the reader's.

use energy_codegen::emit::schema_format::keys;
use energy_codegen::emit::schema_format::{self, FileKind};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The mistakes of the catalogue (`tests/fixtures/mistakes/`) that the JSON Schemas reject: those of
/// one file's shape (keys, kinds of values, required keys, enumerated values, name patterns).
const REJECTED: &[&str] = &[
    "array-of-two-types",
    "auth-required-without-scheme",
    "auth-typo",
    "contract-named-unlike-its-file",
    "empty-file",
    "evolution-keys",
    "extends-malformed",
    "flow-mapping-comma",
    "format-on-number",
    "invalid-field-name",
    "invalid-version-label",
    "malformed-type",
    "missing-description",
    "missing-versions",
    "name-and-names",
    "nullable-in-event",
    "payload-with-fields",
    "several-mistakes",
    "unknown-field-key",
    "unknown-format",
    "unknown-key-typo",
    "unknown-top-level-key",
    "version-without-fields",
];

/// The mistakes before any JSON Schema applies: text that is no YAML document, or no JSON value (a key
/// that is not a string), which the editor's YAML parser reports; or no schema file at all.
const NOT_A_SCHEMA_FILE: &[&str] = &[
    "alias-bomb",
    "deep-nesting",
    "duplicate-key",
    "duplicate-type",
    "empty-schema-folder",
    "invalid-key",
    "missing-schema-folder",
    "not-utf8",
    "tabs",
    "unexpected-file",
    "yaml-mapping-in-scalar",
    "yaml-syntax",
    "yml-extension",
];

fn schema_of(kind: FileKind) -> Value {
    let path = energy_testkit::generated_dir().join(schema_format::path(kind));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("JSON")
}

fn validator(kind: FileKind) -> jsonschema::Validator {
    jsonschema::draft7::new(&schema_of(kind)).unwrap_or_else(|e| panic!("{kind:?}: {e}"))
}

/// The files under `dir`, by path relative to it, sorted.
fn files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                // The published baseline (`published.lock`) lives beside the schema files.
                let relative = path.strip_prefix(dir).expect("under dir");
                found.push((relative.to_string_lossy().replace('\\', "/"), path));
            }
        }
    }
    found.sort();
    found
}

/// The JSON Schema's errors on a schema file; `None` when it is not a schema file or not YAML.
fn errors(relative: &str, path: &Path) -> Option<Vec<String>> {
    let kind = schema_format::kind_of(relative)?;
    let text = std::fs::read_to_string(path).ok()?;
    let value: Value = serde_saphyr::from_str(&text).ok()?;
    let found = validator(kind)
        .iter_errors(&value)
        .map(|e| format!("{relative} at `{}`: {e}", e.instance_path()))
        .collect();
    Some(found)
}

#[test]
fn the_json_schemas_are_valid_draft_07() {
    let meta = jsonschema::draft7::meta::validator();
    for (kind, _, _) in schema_format::FILES {
        let problems: Vec<String> = meta
            .iter_errors(&schema_of(kind))
            .map(|e| e.to_string())
            .collect();
        assert!(problems.is_empty(), "{kind:?}: {problems:?}");
    }
}

#[test]
fn every_schema_file_follows_the_format_and_names_its_json_schema() {
    let dir = energy_testkit::schema_dir();
    let mut checked = 0;
    for (relative, path) in files(&dir) {
        let text = std::fs::read_to_string(&path).expect("readable");
        let modeline = schema_format::modeline(&relative)
            .unwrap_or_else(|| panic!("{relative} is not a schema file"));
        assert_eq!(text.lines().next(), Some(modeline.as_str()), "{relative}");
        let target = modeline.split("$schema=").nth(1).expect("a path");
        let folder = path.parent().expect("a folder");
        assert!(folder.join(target).is_file(), "{relative}: {target} exists");
        let found = errors(&relative, &path).expect("a YAML schema file");
        assert!(found.is_empty(), "{}", found.join("\n"));
        checked += 1;
    }
    assert_eq!(
        checked,
        2 + 20 + 3,
        "types.yaml, rest.yaml, the 20 sections and the 3 example contracts"
    );
}

#[test]
fn every_fixture_schema_follows_the_format() {
    let root = energy_testkit::generator_fixture("schemas");
    let mut checked = 0;
    for (relative, path) in files(&root) {
        let Some((_, inside)) = relative.split_once('/') else {
            continue;
        };
        if let Some(found) = errors(inside, &path) {
            assert!(found.is_empty(), "{relative}: {}", found.join("\n"));
            checked += 1;
        }
    }
    assert!(checked >= 15, "{checked} fixture files");
}

/// Each mistake of the catalogue: rejected by the JSON Schemas when it is one of a file's shape,
/// accepted when only the whole schema shows it (an unknown type, a cycle, a collision), and out of
/// their reach when the file is not YAML or not a schema file.
#[test]
fn the_mistakes_of_a_files_shape_are_caught_while_typing() {
    let root = energy_testkit::generator_fixture("mistakes");
    let mut outcomes: BTreeMap<String, &str> = BTreeMap::new();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("mistakes")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    for case in cases {
        let name = case
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        let mut rejected = false;
        let mut unreadable = files(&case).is_empty();
        for (relative, path) in files(&case) {
            match errors(&relative, &path) {
                Some(found) => rejected |= !found.is_empty(),
                None => unreadable = true,
            }
        }
        let outcome = match (rejected, unreadable) {
            (true, _) => "rejected",
            (false, true) => "not a schema file",
            (false, false) => "accepted",
        };
        // The generator finds every one of them.
        assert!(
            energy_codegen::build_model(&case).is_err(),
            "{name} is a mistake"
        );
        outcomes.insert(name, outcome);
    }
    let with = |outcome: &str| -> BTreeSet<&str> {
        outcomes
            .iter()
            .filter(|(_, o)| **o == outcome)
            .map(|(n, _)| n.as_str())
            .collect()
    };
    assert_eq!(with("rejected"), REJECTED.iter().copied().collect());
    assert_eq!(
        with("not a schema file"),
        NOT_A_SCHEMA_FILE.iter().copied().collect()
    );
    assert!(with("accepted").len() >= 20, "{outcomes:#?}");
}

/// The keys of every mapping of the JSON Schemas are one of the reader's lists, and every list of the
/// reader is a mapping of the JSON Schemas.
#[test]
fn the_json_schemas_have_exactly_the_readers_keys() {
    let lists: Vec<&[&str]> = vec![
        keys::TYPES_FILE,
        keys::SECTION_FILE,
        keys::REST_FILE,
        keys::AUTH_SCHEME,
        keys::ENDPOINT,
        keys::BASE,
        keys::TYPE,
        keys::RESOURCE,
        keys::EVENT,
        keys::VERSION,
        keys::REST_FIELD,
        keys::PARAMETER,
        keys::EVENT_FIELD,
        keys::CONSUMER_FILE,
        keys::READS,
    ];
    let mut seen: BTreeSet<Vec<String>> = BTreeSet::new();
    for (kind, _, _) in schema_format::FILES {
        let schema = schema_of(kind);
        let mut mappings = vec![&schema];
        mappings.extend(
            schema["definitions"]
                .as_object()
                .expect("definitions")
                .values(),
        );
        for mapping in mappings {
            if mapping["additionalProperties"] != Value::Bool(false) {
                continue;
            }
            let names: Vec<String> = mapping["properties"]
                .as_object()
                .expect("properties")
                .keys()
                .cloned()
                .collect();
            let mut sorted = names.clone();
            sorted.sort();
            let known = lists.iter().any(|l| {
                let mut l: Vec<String> = l.iter().map(|k| (*k).to_owned()).collect();
                l.sort();
                l == sorted
            });
            assert!(known, "{kind:?}: keys {names:?} are no list of the reader");
            seen.insert(sorted);
        }
    }
    for list in lists {
        let mut l: Vec<String> = list.iter().map(|k| (*k).to_owned()).collect();
        l.sort();
        assert!(
            seen.contains(&l),
            "the reader's keys {list:?} are in no JSON Schema"
        );
    }
}

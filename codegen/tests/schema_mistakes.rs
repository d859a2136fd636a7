//! The catalogue of schema mistakes (`tests/fixtures/mistakes/<mistake>/`): each is located, explained,
//! and snapshotted as the user sees it; every run reports all mistakes, sorted by place.

use energy_codegen::Code;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Codes no committed fixture can show, each with the reason; tested otherwise.
const WITHOUT_FIXTURE: &[(Code, &str)] = &[
    (
        Code::Io,
        "needs a file the OS refuses to read, which a checkout cannot hold (see `unreadable_files_are_reported`)",
    ),
    (
        Code::FileTooLarge,
        "needs a file over 8 MiB (see `oversized_files_are_refused_before_parsing`)",
    ),
];

fn mistakes() -> Vec<(String, PathBuf)> {
    let root = energy_testkit::generator_fixture("mistakes");
    let mut cases: Vec<(String, PathBuf)> = std::fs::read_dir(&root)
        .expect("mistakes folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let schema = if name == "missing-schema-folder" {
                p.join("schema")
            } else {
                p
            };
            (name, schema)
        })
        .collect();
    cases.sort();
    cases
}

#[test]
fn every_mistake_is_reported_with_its_place() {
    let cases = mistakes();
    let mut codes = BTreeSet::new();
    for (name, schema) in cases {
        let failure = match energy_codegen::build_model(&schema) {
            Ok(_) => panic!("{name}: the mistake was not reported"),
            Err(f) => f,
        };
        for d in &failure.diagnostics.0 {
            codes.insert(d.code);
            assert!(
                d.primary.is_some() || d.file.is_some(),
                "{name}: `{}` says where",
                d.message
            );
        }
        let rendered = failure.render(false);
        insta::with_settings!({snapshot_path => "snapshots/mistakes", prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(name, rendered);
        });
    }
    let missing: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| !codes.contains(c) && !WITHOUT_FIXTURE.iter().any(|(w, _)| w == *c))
        .map(|c| c.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "every kind of mistake has a fixture in tests/fixtures/mistakes/; these have none: {missing:?}"
    );
}

#[test]
fn all_mistakes_of_a_run_are_reported_in_order() {
    let failure = energy_codegen::build_model(&energy_testkit::generator_fixture(
        "mistakes/several-mistakes",
    ))
    .unwrap_err();
    let places: Vec<(String, u32)> = failure
        .diagnostics
        .0
        .iter()
        .map(|d| {
            let l = d.primary.as_ref().expect("located");
            (
                failure.sources.file(l.span.file).display_path.clone(),
                l.span.start,
            )
        })
        .collect();
    assert_eq!(places.len(), 3, "{}", failure.render(false));
    let mut sorted = places.clone();
    sorted.sort();
    assert_eq!(places, sorted, "sorted by file and place");
}

#[test]
fn json_diagnostics_are_one_object_per_line() {
    let failure =
        energy_codegen::build_model(&energy_testkit::generator_fixture("mistakes/unknown-type"))
            .unwrap_err();
    let lines: Vec<serde_json::Value> = failure
        .to_json_lines()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON object per line"))
        .collect();
    assert_eq!(lines.len(), 1);
    let d = &lines[0];
    assert_eq!(d["code"], "unknown-type");
    assert_eq!(
        d["file"],
        "tests/fixtures/mistakes/unknown-type/events/a.yaml"
    );
    assert_eq!(
        (
            d["primary"]["line"].as_u64(),
            d["primary"]["column"].as_u64()
        ),
        (Some(7), Some(26))
    );
    assert_eq!(d["help"], "did you mean `Ledger`?");
    assert!(d["rendered"].as_str().unwrap().contains("^^^^^"));
}

/// Hostile input ends with a clear error, not an exhausted machine.
#[test]
fn oversized_files_are_refused_before_parsing() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("types:\n");
    while text.len() <= energy_codegen::MAX_FILE_BYTES {
        text.push_str(
            "  # padding padding padding padding padding padding padding padding padding padding\n",
        );
    }
    std::fs::write(dir.path().join("types.yaml"), text).unwrap();
    let failure = energy_codegen::build_model(dir.path()).unwrap_err();
    assert_eq!(failure.diagnostics.0[0].code, Code::FileTooLarge);
}

#[test]
fn rust_keywords_as_field_names_are_not_mistakes() {
    let model = energy_codegen::build_model(&energy_testkit::generator_fixture("schemas/keywords"))
        .expect("valid");
    let fields: Vec<&str> = model.sections[0].events[0].versions[0]
        .payload
        .fields
        .iter()
        .map(|f| f.rust_name.as_str())
        .collect();
    assert_eq!(
        fields,
        [
            "r#type", "r#match", "r#ref", "self_", "r#async", "r#fn", "crate_", "r#loop"
        ]
    );
}

//! The generator on small purpose-made schemas (`tests/fixtures/schemas/<feature>/`): its output is
//! snapshotted (a 30-line fixture's output is a specification), and every fixture's crate compiles
//! without warnings.

mod support;

use std::path::{Path, PathBuf};

fn fixture_schemas() -> Vec<(String, PathBuf)> {
    let mut dirs: Vec<(String, PathBuf)> =
        std::fs::read_dir(energy_testkit::generator_fixture("schemas"))
            .expect("fixture folder")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
            .collect();
    dirs.sort();
    dirs
}

/// Generated files that are the same for every schema (copied from `codegen/templates/`, and tested
/// there): not snapshotted.
const SCHEMA_INDEPENDENT: &[&str] = &[
    "src/borrowed/decode.rs",
    "src/events/decode.rs",
    "src/events/routing.rs",
];

/// The generated Rust files of a fixture (and its manifest), by path.
fn rust_output(dir: &Path) -> Vec<(String, String)> {
    let files = energy_codegen::generate(dir, None)
        .unwrap_or_else(|f| panic!("{}: {}", dir.display(), f.render(false)));
    files
        .into_iter()
        .filter(|(path, _)| path.ends_with(".rs") || path.as_str() == "Cargo.toml")
        .filter(|(path, _)| !SCHEMA_INDEPENDENT.contains(&path.as_str()))
        .collect()
}

/// A snapshot per generated file (`snapshots/rust/<fixture>/<path>.snap`, `/` in the path written as
/// `__`), so that a change to one emitter rewrites the snapshots of the files it writes, not every
/// fixture's whole crate.
#[test]
fn generated_rust_matches_snapshots() {
    let fixtures = fixture_schemas();
    assert!(fixtures.len() >= 8, "every feature has its fixture");
    for (name, dir) in fixtures {
        let snapshot_path = format!("snapshots/rust/{name}");
        for (path, contents) in rust_output(&dir) {
            insta::with_settings!({snapshot_path => &snapshot_path, prepend_module_to_snapshot => false}, {
                insta::assert_snapshot!(path.replace('/', "__"), contents);
            });
        }
    }
}

/// Generates every fixture into a scratch workspace beside the real one and builds it with warnings
/// denied, reusing the workspace's dependency versions.
#[test]
fn fixture_crates_compile_without_warnings() {
    let root = energy_testkit::workspace();
    let scratch = root.join("target").join("fixture-crates");
    let mut members = Vec::new();
    for (name, dir) in fixture_schemas() {
        let files = energy_codegen::generate(&dir, None)
            .unwrap_or_else(|f| panic!("{name}: {}", f.render(false)));
        support::write_scratch_crate(&scratch, &format!("fixture-{name}"), files);
        members.push(format!("\"fixture-{name}\""));
    }
    support::check_scratch_workspace(&scratch, &members);
}

/// The real crate builds with any set of section features (none, one, or all), with or without the
/// borrowed views.
#[test]
fn energy_api_compiles_with_any_features() {
    let manifest = energy_testkit::generated_dir().join("Cargo.toml");
    let manifest = manifest.to_string_lossy();
    for features in [
        &["--no-default-features"][..],
        &["--no-default-features", "--features", "billing"],
        &["--no-default-features", "--features", "borrowed"],
        &["--no-default-features", "--features", "billing,borrowed"],
    ] {
        let mut args = vec!["--manifest-path", manifest.as_ref()];
        args.extend(features);
        support::cargo_check(&energy_testkit::workspace(), &args);
    }
}

/// A team vendors the generated crate (with `energy-api-core`, its sibling folder) or publishes both to
/// its registry: copied out of this workspace, the crate builds on its own manifest, and packaging it
/// finds nothing missing in its metadata.
#[test]
fn the_generated_crate_builds_and_packages_outside_the_workspace() {
    let root = energy_testkit::workspace();
    let outside = tempfile::tempdir().expect("a folder outside the workspace");
    for folder in ["generated", "api-core"] {
        energy_testkit::copy_tree(&root.join(folder), &outside.path().join(folder));
    }
    let vendored = outside.path().join("generated");
    // The workspace's lock file pins the same dependency versions (cargo drops what is not needed).
    std::fs::copy(root.join("Cargo.lock"), vendored.join("Cargo.lock")).expect("lock copied");
    support::cargo_check(
        &vendored,
        &["--no-default-features", "--features", "billing"],
    );
    // Publishing: the two crates are packaged together (the generated one names the other by version).
    std::fs::write(
        outside.path().join("Cargo.toml"),
        "[workspace]\nresolver = \"3\"\nmembers = [\"api-core\", \"generated\"]\n",
    )
    .expect("publishing workspace written");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = std::process::Command::new(&cargo)
        .current_dir(outside.path())
        .args(["package", "--no-verify", "--offline", "--allow-dirty"])
        .args(["-p", "energy-api-core", "-p", "energy-api"])
        .env(
            "CARGO_TARGET_DIR",
            root.join("target").join("scratch-package"),
        )
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "`cargo package`:\n{stderr}");
    assert!(
        !stderr.contains("warning"),
        "`cargo package` warns:\n{stderr}"
    );
    assert_eq!(stderr.matches("Packaged ").count(), 2, "{stderr}");
}

/// Former names work in a generated crate: an event under its type's former name decodes as the renamed
/// type, a field under its former name decodes into the renamed field (in a payload and in a shared type),
/// and the deprecated version still decodes, warning only code that names it.
#[test]
fn former_names_decode_in_a_generated_crate() {
    scratch_test(
        "docs-evolution",
        "evolution",
        "former_names",
        r##"//! Former names, read by the generated decoder.
use evolution::events::{MeterRead, MeterReadV2};
use evolution::{Event, EventType};

#[test]
fn former_names_are_read() {
    assert_eq!("meter.reading_taken".parse::<EventType>(), Ok(EventType::MeterRead));
    let payload = br#"{"meter_point": "7512345606", "reading": 12.5, "meter": {"serial_number": "S1"}}"#;
    let event = Event::decode("meter.reading_taken", "v2", payload).expect("decodes");
    let Event::MeterRead(MeterRead::V2(MeterReadV2 { mprn, meter, .. })) = &event else {
        panic!("{event:?}")
    };
    assert_eq!((mprn.as_str(), meter.serial.as_str()), ("7512345606", "S1"));
    assert_eq!(event.event_type().as_str(), "meter.read");
    // Written back under the new names.
    let json = String::from_utf8(event.to_payload_json()).unwrap();
    assert!(json.contains("\"mprn\"") && json.contains("\"serial\""), "{json}");
    // Both names at once is a repeated field.
    let both = br#"{"mprn": "1", "meter_point": "2", "reading": 1.0, "meter": {"serial": "S"}}"#;
    assert!(Event::decode("meter.read", "v2", both).unwrap_err().to_string().contains("duplicate field `mprn`"));
    // The deprecated version still decodes; validation agrees.
    assert!(Event::decode("meter.read", "v1", br#"{"mprn": "1", "reading": 3}"#).is_ok());
    let kind = evolution::EventKind::new("meter.reading_taken", "v2").unwrap();
    assert_eq!(kind.validate(payload), Ok(()));
}
"##,
    );
}

/// A REST resource that holds a free-form one reads it by its table, as a free-form object.
#[test]
fn a_resource_holding_a_free_form_one_is_read_and_written_by_its_table() {
    scratch_test(
        "rest-optional-nullable",
        "sealed",
        "free_form",
        r##"//! A free-form resource held by another.
use sealed::rest::{Sealed, Secret};

#[test]
fn the_free_form_field_is_read_whole_and_written_back() {
    let json = r#"{"secret":{"pin":"0000","tries":[1,2]},"source":"vault"}"#;
    let sealed: Sealed = serde_json::from_str(json).expect("decodes");
    let Secret(secret) = &sealed.secret;
    assert_eq!(secret["pin"], "0000");
    assert_eq!(sealed.source, "vault");
    assert_eq!(serde_json::to_string(&sealed).unwrap(), json);
    let wrong = serde_json::from_str::<Sealed>(r#"{"secret":"0000","source":"vault"}"#).unwrap_err();
    assert!(wrong.to_string().starts_with("invalid type: string \"0000\", expected a map"), "{wrong}");
    let missing = serde_json::from_str::<Sealed>(r#"{"source":"vault"}"#).unwrap_err();
    assert!(missing.to_string().starts_with("missing field `secret`"), "{missing}");
}
"##,
    );
}

/// Generates the fixture schema `fixture` as the crate `name` in a scratch workspace, adds `source` as
/// its integration test `test`, and runs it (warnings denied).
fn scratch_test(fixture: &str, name: &str, test: &str, source: &str) {
    let output = scratch_cargo(fixture, name, test, source, |_| {}, &["test"]);
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Generates the fixture schema `fixture` as the crate `name` in a scratch workspace, lets `edit`
/// change its files (as an author editing generated code by hand would), adds `source` as its
/// integration test `test`, and runs `cargo <command> --test <test>` there (warnings denied).
fn scratch_cargo(
    fixture: &str,
    name: &str,
    test: &str,
    source: &str,
    edit: impl FnOnce(&mut std::collections::BTreeMap<String, String>),
    command: &[&str],
) -> std::process::Output {
    let root = energy_testkit::workspace();
    let scratch = root.join("target").join(format!("{name}-crate"));
    let mut files = energy_codegen::generate(
        &energy_testkit::generator_fixture(&format!("schemas/{fixture}")),
        None,
    )
    .unwrap_or_else(|f| panic!("{}", f.render(false)));
    edit(&mut files);
    support::write_scratch_crate(&scratch, name, files);
    std::fs::create_dir_all(scratch.join(format!("{name}/tests"))).unwrap();
    std::fs::write(scratch.join(format!("{name}/tests/{test}.rs")), source).unwrap();
    std::fs::write(
        scratch.join("Cargo.toml"),
        format!("[workspace]\nresolver = \"3\"\nmembers = [\"{name}\"]\n"),
    )
    .unwrap();
    std::fs::copy(root.join("Cargo.lock"), scratch.join("Cargo.lock")).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    std::process::Command::new(cargo)
        .current_dir(&scratch)
        .args(command)
        .args(["--offline", "--quiet", "--test", test])
        .env("RUSTFLAGS", "-D warnings")
        .env(
            "CARGO_TARGET_DIR",
            root.join("target").join("scratch-check"),
        )
        .output()
        .expect("cargo runs")
}

/// A row of a table whose shape is not its field's does not compile in the crate's own tests (where
/// `table_struct!` checks each row against its field's Rust type), and a library build is not slowed
/// by the check.
#[test]
fn a_row_that_contradicts_its_field_does_not_compile_in_the_crates_tests() {
    let source = "//! Nothing to run: the crate's tests compile its checks.\n";
    let edit = |files: &mut std::collections::BTreeMap<String, String>| {
        let meters = files
            .get_mut("src/events/meters.rs")
            .expect("the fixture has a meters section");
        *meters = meters.replacen("        mprn: Str,", "        mprn: Int,", 1);
    };
    let tests = scratch_cargo(
        "docs-evolution",
        "contradicted",
        "nothing",
        source,
        edit,
        &["test", "--lib", "--no-run"],
    );
    let stderr = String::from_utf8_lossy(&tests.stderr);
    assert!(
        !tests.status.success(),
        "the crate's tests compile a contradicted row: {stderr}"
    );
    assert!(
        stderr.contains("does not state its field's shape"),
        "the check names the row's struct: {stderr}"
    );
    let library = scratch_cargo(
        "docs-evolution",
        "contradicted",
        "nothing",
        source,
        edit,
        &["build", "--lib"],
    );
    assert!(
        library.status.success(),
        "a library build does not run the checks: {}",
        String::from_utf8_lossy(&library.stderr)
    );
}

/// Every payload type of every fixture reads and writes the same whichever path it takes: each fixture
/// is generated twice, as it is (every type on its table) and with a traffic profile naming every
/// version (every type compiled per type: serde's derives, the fast reader's code of its own), and the
/// same probes (`fixtures/both-ways/probe.rs`: each payload as sent, each member to two levels removed
/// or replaced by every kind of JSON value, unknown and repeated members, truncated text, an array) go
/// through `Event::decode`, the fast reader, `validate` and the type's own serde in both crates. Every
/// line of the two results must be the same: values written back, errors with their JSON path and
/// position, where the fast reader stops.
#[test]
fn every_fixture_type_reads_and_writes_the_same_compiled_or_by_its_table() {
    let root = energy_testkit::workspace();
    let scratch = root.join("target").join("both-ways");
    let probe = std::fs::read_to_string(energy_testkit::generator_fixture("both-ways/probe.rs"))
        .expect("the probe source");
    let copies = tempfile::tempdir().expect("a temporary folder");
    let mut members = Vec::new();
    let mut outputs = Vec::new();
    for (name, dir) in fixture_schemas() {
        if !dir.join("events").is_dir() {
            continue;
        }
        let model = energy_codegen::build_model(&dir)
            .unwrap_or_else(|f| panic!("{name}: {}", f.render(false)));
        // Every version, once each: a profile asking for all of them.
        let counts: Vec<(String, String, u64)> = model
            .events()
            .flat_map(|(_, e)| {
                e.versions
                    .iter()
                    .map(|v| (e.name.clone(), v.label.clone(), 1))
            })
            .collect();
        let profile = energy_codegen::profile::Profile::choose(&counts, 1.0, None);
        assert_eq!(
            profile.versions.len(),
            counts.len(),
            "{name}: every version profiled"
        );
        let profiled = copies.path().join(&name);
        energy_testkit::copy_tree(&dir, &profiled);
        std::fs::write(
            profiled.join(energy_codegen::profile::PROFILE_FILE),
            profile.render("the both-ways test"),
        )
        .expect("profile written");
        let own_arms: String = model
            .events()
            .flat_map(|(_, e)| {
                e.versions.iter().map(move |v| {
                    format!(
                        "        ({:?}, {:?}) => own::<events::{}>(text),\n",
                        e.name, v.label, v.payload.rust_name
                    )
                })
            })
            .collect();
        for (way, schema) in [("table", &dir), ("compiled", &profiled)] {
            let files = energy_codegen::generate(schema, None)
                .unwrap_or_else(|f| panic!("{name} ({way}): {}", f.render(false)));
            let compiled_rows = files
                .get("src/events/mod.rs")
                .map_or(0, |m| m.matches("PayloadRow::compiled").count());
            // Every version compiled, but those whose payload keeps unlisted members or is in a cycle
            // of types (they stay on their table: the `incomplete` fixture's crate is the same both
            // ways).
            let compilable = model
                .events()
                .flat_map(|(_, e)| &e.versions)
                .filter(|v| !v.payload.incomplete && !v.payload.fields.iter().any(|f| f.boxed))
                .count();
            let expected = if way == "table" { 0 } else { compilable };
            assert_eq!(compiled_rows, expected, "{name} ({way}): versions compiled");
            let krate = format!("both-{name}-{way}").replace('-', "_");
            support::write_scratch_crate(&scratch, &krate, files);
            let out = scratch.join(format!("{krate}.probes"));
            let _ = std::fs::remove_file(&out);
            let source = format!(
                "{probe}\n\
                 use {krate}::{{Event, EventKind, EventType, events}};\n\
                 const PROBE_OUT: &str = {:?};\n\
                 #[allow(deprecated, reason = \"deprecated versions are probed too\")]\n\
                 fn own_read(event_type: &str, version: &str, text: &str) -> String {{\n\
                 \x20   match (event_type, version) {{\n{own_arms}        _ => unreachable!(),\n    }}\n}}\n",
                out.display().to_string()
            );
            std::fs::create_dir_all(scratch.join(format!("{krate}/tests"))).expect("tests folder");
            std::fs::write(scratch.join(format!("{krate}/tests/probes.rs")), source)
                .expect("probe test written");
            members.push(format!("\"{krate}\""));
            outputs.push((name.clone(), way, out));
        }
    }
    std::fs::write(
        scratch.join("Cargo.toml"),
        format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n",
            members.join(", ")
        ),
    )
    .expect("scratch workspace written");
    std::fs::copy(root.join("Cargo.lock"), scratch.join("Cargo.lock")).expect("lock file copied");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = std::process::Command::new(cargo)
        .current_dir(&scratch)
        .args([
            "test",
            "--workspace",
            "--offline",
            "--quiet",
            "--test",
            "probes",
        ])
        .env("RUSTFLAGS", "-D warnings")
        .env(
            "CARGO_TARGET_DIR",
            root.join("target").join("scratch-check"),
        )
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(outputs.len() >= 16, "every fixture with events, both ways");
    for pair in outputs.chunks(2) {
        let [(name, _, table), (_, _, compiled)] = pair else {
            unreachable!("outputs come in pairs")
        };
        let read = |path: &PathBuf| std::fs::read_to_string(path).expect("the probes ran");
        let (table, compiled) = (read(table), read(compiled));
        // The probes cover both verdicts and the fast reader's stops.
        assert!(
            table.contains("decode: ok")
                && table.contains("decode: error")
                && table.contains("fast: stop"),
            "{name}: the probes are not varied enough"
        );
        for (a, b) in table.lines().zip(compiled.lines()) {
            assert_eq!(
                a, b,
                "{name}: a type reads differently compiled and by its table"
            );
        }
        assert_eq!(table.lines().count(), compiled.lines().count(), "{name}");
    }
}

//! The wire formats event teams share types in (issue 45): Avro (`generated/avro/`), Protobuf
//! (`generated/proto/`) and the self-contained JSON Schemas (`generated/schemas-bundled/`).
//!
//! - Every payload of the catalogue (samples with every optional field and with none, and every golden
//!   case) is read from JSON by the generated type and by its derived twin, written as Avro binary
//!   through `apache-avro`'s serde support against its `.avsc` (`energy_api_core::avro`), and read back:
//!   both write the same bytes, each reads them back to what the JSON decode gave, and each reads the
//!   other's;
//! - the official Python tools then judge the same payloads (`tools/validators/wire_formats.py`, in the
//!   venv `cargo xtask test` installs): `fastavro` writes each against the `.avsc` and must write the
//!   crate's bytes, and read them back; `protoc` (grpcio-tools) compiles every `.proto` and each payload
//!   goes JSON → Protobuf binary → JSON through the `protobuf` runtime's `json_format` and comes back
//!   equal; `dataclasses-avroschema` makes a dataclass of every `.avsc`, which writes the crate's bytes;
//! - each self-contained JSON Schema accepts every payload of its version and refuses what the linked
//!   form refuses (every required field removed, every field retyped).

use energy_api_core::avro::{from_avro, to_avro};
use energy_codegen::emit::{avro, jsonschema as json_schema_files, protobuf};
use energy_twin::{Pair, Type};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn model() -> energy_codegen::Model {
    energy_codegen::build_model(&energy_tests::schema_dir()).expect("the real schema builds")
}

/// The Python of the tools' venv, which `cargo xtask test` installs from
/// `tools/validators/requirements.txt` before the workspace's tests.
fn python() -> PathBuf {
    let python = energy_tests::workspace_root().join("tools/validators/.venv/bin/python");
    assert!(
        python.is_file(),
        "{} is missing: run `cargo xtask test` (which installs the pinned tools into tools/validators/.venv)",
        python.display()
    );
    python
}

/// Runs `wire_formats.py` with `args`; its report, or a failure with its output.
fn run_script(args: &[&str]) -> String {
    let root = energy_tests::workspace_root();
    let output = Command::new(python())
        .arg(root.join("tools/validators/wire_formats.py"))
        .args(args)
        .env("GENERATED_DIR", root.join("generated"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "wire_formats.py {args:?}:\n{text}");
    text
}

/// One payload's round trip through Avro, by the generated type and by its twin.
struct AvroRoundTrip<'a> {
    json: &'a str,
    schema: &'a apache_avro::Schema,
}

/// What a round trip gives: the payload as the crate decodes it and the bytes it writes, or what failed.
type Outcome = Result<(Value, Vec<u8>), String>;

impl Pair for AvroRoundTrip<'_> {
    type Output = Outcome;

    fn pair<Ours: Type, Twin: Type>(self) -> Outcome {
        let ours: Ours = serde_json::from_str(self.json).map_err(|e| format!("JSON: {e}"))?;
        let twin: Twin = serde_json::from_str(self.json).map_err(|e| format!("twin JSON: {e}"))?;
        let decoded = serde_json::to_value(&ours).map_err(|e| e.to_string())?;
        let bytes = to_avro(&ours, self.schema).map_err(|e| format!("written: {e}"))?;
        let twin_bytes = to_avro(&twin, self.schema).map_err(|e| format!("twin written: {e}"))?;
        if bytes != twin_bytes {
            return Err(format!(
                "ours writes {bytes:02x?}, the twin {twin_bytes:02x?}"
            ));
        }
        let back: Ours = from_avro(&bytes, self.schema).map_err(|e| format!("read: {e}"))?;
        let back = serde_json::to_value(&back).map_err(|e| e.to_string())?;
        if back != decoded {
            return Err(format!(
                "read back as {back}, decoded from JSON as {decoded}"
            ));
        }
        let twin_back: Twin =
            from_avro(&bytes, self.schema).map_err(|e| format!("twin read: {e}"))?;
        if twin_back != twin {
            return Err(format!(
                "the twin reads our bytes as {twin_back:?}, not {twin:?}"
            ));
        }
        Ok((decoded, bytes))
    }
}

/// The `.avsc` of every version, parsed by `apache-avro`, by id.
fn avro_schemas(model: &energy_codegen::Model) -> BTreeMap<String, (String, apache_avro::Schema)> {
    let generated = energy_tests::generated_dir();
    let mut out = BTreeMap::new();
    for (_, event) in model.events() {
        for v in &event.versions {
            let path = avro::path(v);
            let text = std::fs::read_to_string(generated.join(&path))
                .unwrap_or_else(|e| panic!("{path}: {e}"));
            let schema = apache_avro::Schema::parse_str(&text)
                .unwrap_or_else(|e| panic!("{path} does not parse: {e}"));
            out.insert(v.id.clone(), (path, schema));
        }
    }
    out
}

/// The Python module and message of each version's Protobuf message, by id.
fn proto_messages(model: &energy_codegen::Model) -> BTreeMap<String, (String, String)> {
    let mut out = BTreeMap::new();
    for section in &model.sections {
        let path = protobuf::section_path(section);
        let module = path
            .strip_prefix("proto/")
            .unwrap_or(&path)
            .trim_end_matches(".proto")
            .replace('/', ".")
            + "_pb2";
        for event in &section.events {
            for v in &event.versions {
                let message = protobuf::message_name(&v.payload.rust_name);
                out.insert(v.id.clone(), (module.clone(), message));
            }
        }
    }
    out
}

#[test]
fn every_payload_reads_and_writes_avro_and_protobuf_as_the_official_tools_do() {
    let model = model();
    let schemas = avro_schemas(&model);
    let messages = proto_messages(&model);
    let mut corpus = String::new();
    let mut failures = Vec::new();
    let mut count = 0;
    for payload in energy_tests::catalogue_payloads(&model) {
        let id = format!("{}.{}", payload.event_type, payload.version);
        let (path, schema) = &schemas[&id];
        let json = payload.value.to_string();
        let outcome = energy_twin::payload_pair(
            &payload.event_type,
            &payload.version,
            AvroRoundTrip {
                json: &json,
                schema,
            },
        );
        let (decoded, bytes) = match outcome {
            Some(Ok(done)) => done,
            Some(Err(e)) => {
                failures.push(format!("{}: {e}", payload.label));
                continue;
            }
            None => panic!("{id}: no type in the twin"),
        };
        count += 1;
        let hex = bytes.iter().fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        });
        let (module, message) = &messages[&id];
        let line = serde_json::json!({
            "label": payload.label,
            "avsc": path,
            "json": decoded,
            "avro": hex,
            "proto_module": module,
            "proto_message": message,
        });
        corpus.push_str(&line.to_string());
        corpus.push('\n');
    }
    assert!(
        failures.is_empty(),
        "{} of {} payloads differ through Avro:\n{}",
        failures.len(),
        count + failures.len(),
        failures.join("\n")
    );
    assert!(count >= 2 * model.version_count(), "{count} payloads");

    let work = tempfile::tempdir().expect("a temporary folder");
    let corpus_path = work.path().join("corpus.jsonl");
    std::fs::write(&corpus_path, corpus).expect("the corpus is written");
    let corpus_arg = corpus_path.to_string_lossy().into_owned();
    let generated = energy_tests::generated_dir();
    let avro_report = run_script(&["avro", &corpus_arg]);
    assert!(
        avro_report.contains(&format!("{count} payloads, 0 differ")),
        "{avro_report}"
    );
    let proto_out = work.path().join("proto-python");
    let proto_report = run_script(&[
        "proto",
        &corpus_arg,
        &generated.join(protobuf::DIR).to_string_lossy(),
        &proto_out.to_string_lossy(),
    ]);
    assert!(
        proto_report.contains(&format!("{count} payloads, 0 differ")),
        "{proto_report}"
    );
    let dataclasses = run_script(&[
        "dataclasses",
        &generated.join(avro::DIR).to_string_lossy(),
        &work.path().join("dataclasses").to_string_lossy(),
        &corpus_arg,
    ]);
    assert!(
        dataclasses.contains(&format!("{count} payloads, 0 differ")),
        "{dataclasses}"
    );
    eprintln!("{avro_report}{proto_report}{dataclasses}");
}

/// A validator of one JSON Schema file, alone: no other file is registered, so a reference outside it
/// cannot resolve.
fn alone(path: &Path) -> jsonschema::Validator {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let schema: Value = serde_json::from_str(&text).expect("JSON");
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap_or_else(|e| panic!("{} does not stand alone: {e}", path.display()))
}

/// Every way to break a payload the linked schemas are tested with: each member removed, each member
/// replaced by a value of another JSON type.
fn mutations(payload: &Value) -> Vec<(String, Value)> {
    let Value::Object(members) = payload else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for name in members.keys() {
        let mut removed = members.clone();
        removed.remove(name);
        out.push((format!("without {name}"), Value::Object(removed)));
        for other in [
            Value::Bool(true),
            Value::from("text"),
            Value::Array(Vec::new()),
        ] {
            let mut retyped = members.clone();
            retyped.insert(name.clone(), other.clone());
            out.push((format!("{name} = {other}"), Value::Object(retyped)));
        }
    }
    out
}

#[test]
fn self_contained_json_schemas_judge_as_the_linked_ones() {
    let model = model();
    let generated = energy_tests::generated_dir();
    let linked = energy_tests::generated_schema_files();
    let mut validators = BTreeMap::new();
    for (_, event) in model.events() {
        for v in &event.versions {
            let bundled = generated.join(json_schema_files::bundled_path(v));
            let text = std::fs::read_to_string(&bundled).expect("readable");
            let outside = text
                .split("\"$ref\": \"")
                .skip(1)
                .any(|rest| !rest.starts_with("#/$defs/"));
            assert!(!outside, "{}: refers outside itself", bundled.display());
            validators.insert(
                v.id.clone(),
                (
                    alone(&bundled),
                    linked.validator(&format!("schemas/events/{}.json", v.id)),
                ),
            );
        }
    }
    let (mut accepted, mut compared) = (0, 0);
    for payload in energy_tests::catalogue_payloads(&model) {
        let id = format!("{}.{}", payload.event_type, payload.version);
        let (bundled, linked) = &validators[&id];
        assert!(
            bundled.is_valid(&payload.value),
            "{}: refused by the self-contained schema",
            payload.label
        );
        accepted += 1;
        for (what, mutated) in mutations(&payload.value) {
            compared += 1;
            assert_eq!(
                bundled.is_valid(&mutated),
                linked.is_valid(&mutated),
                "{} {what}: the self-contained and the linked schema disagree",
                payload.label
            );
        }
    }
    eprintln!(
        "self-contained JSON Schemas: {accepted} payloads accepted, {compared} mutations judged as the linked form"
    );
}

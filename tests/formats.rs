//! Every generated type in every serde format its derived twin supports (issue 29).
//!
//! The twin (`energy-twin`, written by the generator: the same types with `#[derive(Serialize,
//! Deserialize)]`) is the specification. Every payload of the catalogue (samples and golden cases),
//! every shared type and every REST resource (samples and the real responses of
//! `tests/fixtures/real-responses/`) is read from JSON by both and written and read back in each
//! format, and both must have the same outcome: written by both or by neither, read back by both or by
//! neither, to equal values, each also reading what the other wrote. `serde_assert` then compares what
//! each writes to a serializer (the same tokens) and what each asks of a deserializer (both read the
//! twin's tokens, strictly and with `deserialize_any` allowed).
//!
//! The table it prints (`cargo test -p energy-tests --test formats -- --nocapture`) is the one of
//! BENCHMARKS.md and the README.

use energy_codegen::{Optionals, resource_value, struct_value};
use energy_twin::{Pair, Type};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// A serde format, as a user would call it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Format {
    /// `serde_json::to_vec` / `from_slice`.
    Json,
    /// `serde_json::to_value` / `from_value`.
    JsonValue,
    /// `rmp_serde::to_vec_named` / `from_slice`: structs as maps.
    MessagePackNamed,
    /// `rmp_serde::to_vec` / `from_slice`: structs as arrays.
    MessagePackCompact,
    /// `ciborium::into_writer` / `from_reader`.
    Cbor,
    /// `bincode::serialize` / `deserialize` (1.x).
    Bincode,
    /// `postcard::to_allocvec` / `from_bytes`.
    Postcard,
    /// `serde_norway::to_string` / `from_slice`.
    Yaml,
}

const FORMATS: [Format; 8] = [
    Format::Json,
    Format::JsonValue,
    Format::MessagePackNamed,
    Format::MessagePackCompact,
    Format::Cbor,
    Format::Bincode,
    Format::Postcard,
    Format::Yaml,
];

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Json => "JSON (`serde_json::to_vec` / `from_slice`)",
            Format::JsonValue => "`serde_json::to_value` / `from_value`",
            Format::MessagePackNamed => "MessagePack, maps (`rmp_serde::to_vec_named`)",
            Format::MessagePackCompact => {
                "MessagePack, compact (`rmp_serde::to_vec`: structs as arrays)"
            }
            Format::Cbor => "CBOR (`ciborium`)",
            Format::Bincode => "bincode 1",
            Format::Postcard => "postcard",
            Format::Yaml => "YAML (`serde_norway`)",
        })
    }
}

impl Format {
    fn write<T: Serialize>(self, value: &T) -> Result<Vec<u8>, String> {
        let e = |e: &dyn fmt::Display| e.to_string();
        match self {
            Format::Json => serde_json::to_vec(value).map_err(|x| e(&x)),
            Format::JsonValue => serde_json::to_value(value)
                .map_err(|x| e(&x))
                .and_then(|v| serde_json::to_vec(&v).map_err(|x| e(&x))),
            Format::MessagePackNamed => rmp_serde::to_vec_named(value).map_err(|x| e(&x)),
            Format::MessagePackCompact => rmp_serde::to_vec(value).map_err(|x| e(&x)),
            Format::Cbor => {
                let mut out = Vec::new();
                ciborium::into_writer(value, &mut out)
                    .map(|()| out)
                    .map_err(|x| e(&x))
            }
            Format::Bincode => bincode::serialize(value).map_err(|x| e(&x)),
            Format::Postcard => postcard::to_allocvec(value).map_err(|x| e(&x)),
            Format::Yaml => serde_norway::to_string(value)
                .map(String::into_bytes)
                .map_err(|x| e(&x)),
        }
    }

    fn read<T: DeserializeOwned>(self, bytes: &[u8]) -> Result<T, String> {
        let e = |e: &dyn fmt::Display| e.to_string();
        match self {
            Format::Json => serde_json::from_slice(bytes).map_err(|x| e(&x)),
            Format::JsonValue => serde_json::from_slice::<Value>(bytes)
                .map_err(|x| e(&x))
                .and_then(|v| serde_json::from_value(v).map_err(|x| e(&x))),
            Format::MessagePackNamed | Format::MessagePackCompact => {
                rmp_serde::from_slice(bytes).map_err(|x| e(&x))
            }
            Format::Cbor => ciborium::from_reader(bytes).map_err(|x| e(&x)),
            Format::Bincode => bincode::deserialize(bytes).map_err(|x| e(&x)),
            Format::Postcard => postcard::from_bytes(bytes).map_err(|x| e(&x)),
            Format::Yaml => serde_norway::from_slice(bytes).map_err(|x| e(&x)),
        }
    }
}

/// What became of a value written and read back in a format.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// Written, read back, equal to what was written.
    RoundTrip,
    /// Not written.
    WriteFails(String),
    /// Written, not read back.
    ReadFails(String),
    /// Read back to a different value.
    Differs,
}

impl Outcome {
    fn same_kind(&self, other: &Outcome) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }
}

fn round_trip<T: Type>(format: Format, value: &T) -> (Outcome, Option<Vec<u8>>) {
    match format.write(value) {
        Err(e) => (Outcome::WriteFails(e), None),
        Ok(bytes) => match format.read::<T>(&bytes) {
            Err(e) => (Outcome::ReadFails(e), Some(bytes)),
            Ok(back) if back == *value => (Outcome::RoundTrip, Some(bytes)),
            Ok(_) => (Outcome::Differs, Some(bytes)),
        },
    }
}

/// The outcome of one value in one format, by each impl.
#[derive(Debug)]
struct Row {
    format: Format,
    ours: Outcome,
    twin: Outcome,
}

/// Compares a generated type with its twin on one JSON value; the rows of each format, or what
/// differs.
struct Compare<'a> {
    json: &'a str,
    label: &'a str,
}

impl Pair for Compare<'_> {
    type Output = (Vec<Row>, Vec<String>);

    fn pair<Ours: Type, Twin: Type>(self) -> Self::Output {
        let label = self.label;
        let mut differences = Vec::new();
        let (ours, twin) = match (
            serde_json::from_str::<Ours>(self.json),
            serde_json::from_str::<Twin>(self.json),
        ) {
            (Ok(ours), Ok(twin)) => (ours, twin),
            (ours, twin) => {
                let message = format!(
                    "{label}: not read from JSON by both: ours {:?}, the twin {:?}",
                    ours.map(|_| "a value"),
                    twin.map(|_| "a value")
                );
                return (Vec::new(), vec![message]);
            }
        };
        // The same value is written.
        let (ours_value, twin_value) = (serde_json::to_value(&ours), serde_json::to_value(&twin));
        if ours_value.as_ref().ok() != twin_value.as_ref().ok() {
            differences.push(format!(
                "{label}: written as JSON values, ours {ours_value:?}, the twin {twin_value:?}"
            ));
        }
        let mut rows = Vec::new();
        for format in FORMATS {
            let (ours_outcome, ours_bytes) = round_trip(format, &ours);
            let (twin_outcome, twin_bytes) = round_trip(format, &twin);
            if !ours_outcome.same_kind(&twin_outcome) {
                differences.push(format!(
                    "{label}, {format}: ours {ours_outcome:?}, the twin {twin_outcome:?}"
                ));
            }
            if let (Some(o), Some(t)) = (&ours_bytes, &twin_bytes)
                && o != t
            {
                differences.push(format!(
                    "{label}, {format}: ours writes {} bytes, the twin {} bytes, not the same",
                    o.len(),
                    t.len()
                ));
            }
            // Each reads what the other wrote, as it reads what it wrote itself.
            if let Some(t) = &twin_bytes {
                let crossed = format.read::<Ours>(t);
                let agrees = match (&crossed, &twin_outcome) {
                    (Ok(back), Outcome::RoundTrip) => *back == ours,
                    (Err(_), Outcome::ReadFails(_)) => true,
                    _ => false,
                };
                if !agrees {
                    differences.push(format!(
                        "{label}, {format}: ours reading the twin's bytes gives {:?}; the twin reading them: {twin_outcome:?}",
                        crossed.map(|_| "a value")
                    ));
                }
            }
            if let Some(o) = &ours_bytes {
                let crossed = format.read::<Twin>(o);
                let agrees = match (&crossed, &ours_outcome) {
                    (Ok(back), Outcome::RoundTrip) => *back == twin,
                    (Err(_), Outcome::ReadFails(_)) => true,
                    _ => false,
                };
                if !agrees {
                    differences.push(format!(
                        "{label}, {format}: the twin reading our bytes gives {:?}; ours reading them: {ours_outcome:?}",
                        crossed.map(|_| "a value")
                    ));
                }
            }
            rows.push(Row {
                format,
                ours: ours_outcome,
                twin: twin_outcome,
            });
        }
        differences.extend(tokens_agree(&ours, &twin, label));
        (rows, differences)
    }
}

/// The newtype struct in which a kept unlisted member (`RawJson`) is written to formats other than
/// JSON, around the value it holds; the twin holds that value (`serde_json::Value`) bare.
const KEPT_MEMBER: &str = "$serde_json::private::RawValue";

/// `serde_assert`: what each writes to a serializer, and what each asks of a deserializer (each reads
/// the other's tokens, with `deserialize_any` refused, as a format that is not self-describing refuses
/// it, and allowed), to the same outcome and value.
///
/// The one difference: a kept unlisted member is a newtype struct around its value (how serde_json
/// hands raw text over, and how the value is asked for), where the twin's `serde_json::Value` is the
/// value bare. So where ours writes such newtype tokens, the tokens are compared without them, and each
/// reads its own tokens.
fn tokens_agree<Ours: Type, Twin: Type>(ours: &Ours, twin: &Twin, label: &str) -> Vec<String> {
    let mut differences = Vec::new();
    let serializer = serde_assert::Serializer::builder().build();
    let (ours_tokens, twin_tokens) = (ours.serialize(&serializer), twin.serialize(&serializer));
    let (Ok(ours_tokens), Ok(twin_tokens)) = (ours_tokens, twin_tokens) else {
        return vec![format!("{label}: serde_assert could not record a side")];
    };
    let ours_tokens: Vec<serde_assert::Token> = ours_tokens.into_iter().collect();
    let twin_tokens: Vec<serde_assert::Token> = twin_tokens.into_iter().collect();
    let kept = |t: &serde_assert::Token| matches!(t, serde_assert::Token::NewtypeStruct { name } if *name == KEPT_MEMBER);
    let keeps_members = ours_tokens.iter().any(kept);
    let ours_bare: Vec<&serde_assert::Token> = ours_tokens.iter().filter(|t| !kept(t)).collect();
    if format!("{ours_bare:?}") != format!("{:?}", twin_tokens.iter().collect::<Vec<_>>()) {
        differences.push(format!(
            "{label}: written tokens differ:\n  ours {ours_bare:?}\n  twin {twin_tokens:?}"
        ));
    }
    for self_describing in [false, true] {
        let read = |tokens: &Vec<serde_assert::Token>| {
            serde_assert::Deserializer::builder(tokens.clone())
                .self_describing(self_describing)
                .build()
        };
        let source = if keeps_members {
            &ours_tokens
        } else {
            &twin_tokens
        };
        let ours_back = Ours::deserialize(&mut read(source));
        let twin_back = Twin::deserialize(&mut read(&twin_tokens));
        let agrees = match (&ours_back, &twin_back) {
            (Ok(o), Ok(t)) => o == ours && t == twin,
            (Err(o), Err(t)) => o.to_string() == t.to_string(),
            _ => false,
        };
        if !agrees {
            differences.push(format!(
                "{label}: reading tokens (self-describing: {self_describing}), ours {:?}, the twin {:?}",
                ours_back.map(|_| "a value"),
                twin_back.map(|_| "a value")
            ));
        }
    }
    differences
}

/// The outcomes of every case, by format and side, and every difference from the twin.
struct Tally {
    cases: usize,
    ours: BTreeMap<Format, usize>,
    twin: BTreeMap<Format, usize>,
    differences: Vec<String>,
}

impl Tally {
    fn new() -> Self {
        Tally {
            cases: 0,
            ours: BTreeMap::new(),
            twin: BTreeMap::new(),
            differences: Vec::new(),
        }
    }

    fn add(&mut self, label: &str, result: Option<(Vec<Row>, Vec<String>)>) {
        self.cases += 1;
        match result {
            None => self.differences.push(format!("{label}: no twin")),
            Some((rows, differences)) => {
                self.differences.extend(differences);
                for row in rows {
                    *self.ours.entry(row.format).or_default() +=
                        usize::from(row.ours == Outcome::RoundTrip);
                    *self.twin.entry(row.format).or_default() +=
                        usize::from(row.twin == Outcome::RoundTrip);
                }
            }
        }
    }

    fn table(&self, what: &str) -> String {
        let mut out = format!(
            "| round trip of {} {what} | ours | derived twin |\n|---|---|---|\n",
            self.cases
        );
        for format in FORMATS {
            let (o, t) = (
                self.ours.get(&format).copied().unwrap_or(0),
                self.twin.get(&format).copied().unwrap_or(0),
            );
            let same = if o == t { " (= derived twin)" } else { "" };
            out.push_str(&format!("| {format} | {o}{same} | {t} |\n"));
        }
        out
    }

    fn check(self, what: &str) {
        println!("{}", self.table(what));
        let count = self.differences.len();
        let shown: Vec<&String> = self.differences.iter().take(40).collect();
        assert!(
            self.differences.is_empty(),
            "{count} differences from the derived twin, the first:\n{}",
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

fn model() -> energy_codegen::Model {
    energy_codegen::build_model(&energy_tests::schema_dir()).expect("the real schema builds")
}

#[test]
fn every_payload_is_what_its_derived_twin_is_in_every_format() {
    let model = model();
    let mut tally = Tally::new();
    for payload in energy_tests::catalogue_payloads(&model) {
        let json = payload.value.to_string();
        let result = energy_twin::payload_pair(
            &payload.event_type,
            &payload.version,
            Compare {
                json: &json,
                label: &payload.label,
            },
        );
        tally.add(&payload.label, result);
    }
    tally.check("payloads (samples and golden cases)");
}

#[test]
fn every_shared_type_is_what_its_derived_twin_is_in_every_format() {
    let model = model();
    let mut tally = Tally::new();
    for shared in &model.shared_types {
        for optionals in [Optionals::All, Optionals::None] {
            let json = struct_value(&model, shared, optionals, 0).to_string();
            let label = format!("{} sample {optionals:?}", shared.name);
            let result = energy_twin::shared_pair(
                &shared.name,
                Compare {
                    json: &json,
                    label: &label,
                },
            );
            tally.add(&label, result);
        }
    }
    tally.check("shared types (samples)");
}

#[test]
fn every_rest_resource_is_what_its_derived_twin_is_in_every_format() {
    let model = model();
    let rest = model.rest.as_ref().expect("the real schema has a REST API");
    let mut tally = Tally::new();
    let mut types: Vec<(
        String,
        &energy_codegen::Struct,
        Option<&energy_codegen::Type>,
    )> = Vec::new();
    for resource in rest.resources.iter().filter(|r| r.generic.is_none()) {
        types.push((resource.name.clone(), resource, None));
    }
    for endpoint in &rest.endpoints {
        if let energy_codegen::Type::Named(r) = &endpoint.response
            && let Some(arg) = &r.arg
        {
            let key = energy_codegen::emit::twin_resource_key(&endpoint.response);
            types.push((key, model.named(r.id), Some(arg)));
        }
    }
    types.sort_by(|a, b| a.0.cmp(&b.0));
    types.dedup_by(|a, b| a.0 == b.0);
    assert_eq!(
        types.iter().map(|t| t.0.as_str()).collect::<Vec<_>>(),
        energy_twin::RESOURCES,
        "every resource type of the twin is compared"
    );
    for (key, resource, arg) in &types {
        for optionals in [Optionals::All, Optionals::None] {
            let json = resource_value(&model, resource, *arg, optionals).to_string();
            let label = format!("{key} sample {optionals:?}");
            let result = energy_twin::resource_pair(
                key,
                Compare {
                    json: &json,
                    label: &label,
                },
            );
            tally.add(&label, result);
        }
    }
    // The real responses, each as every type that reads it.
    let dir = energy_tests::fixture("real-responses");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the real responses")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut read = 0;
    for path in files {
        let json = std::fs::read_to_string(&path).expect("readable");
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        for key in energy_twin::RESOURCES {
            let label = format!("{} as {key}", name.as_deref().unwrap_or_default());
            let reads = energy_twin::resource_pair(key, Reads(&json)).unwrap_or(false);
            if reads {
                read += 1;
                let result = energy_twin::resource_pair(
                    key,
                    Compare {
                        json: &json,
                        label: &label,
                    },
                );
                tally.add(&label, result);
            }
        }
    }
    assert!(
        read >= 14,
        "every real response is read as its type ({read})"
    );
    tally.check("REST resources (samples and real responses)");
}

/// Whether both sides read a JSON text.
struct Reads<'a>(&'a str);

impl Pair for Reads<'_> {
    type Output = bool;
    fn pair<Ours: Type, Twin: Type>(self) -> bool {
        serde_json::from_str::<Ours>(self.0).is_ok() && serde_json::from_str::<Twin>(self.0).is_ok()
    }
}

/// A struct's sample as serde's derive writes it to a format that writes structs as sequences: its
/// fields' values in declared order; with `nested`, the structs in its fields too (and not itself).
fn as_sequence(
    model: &energy_codegen::Model,
    s: &energy_codegen::Struct,
    value: &Value,
    nested: bool,
) -> Value {
    use energy_codegen::Type;
    let fields = s.fields.iter().map(|f| {
        let member = value.get(&f.name).cloned().unwrap_or(Value::Null);
        match (&f.ty, &member) {
            (Type::Named(r), Value::Object(_)) if nested => {
                as_sequence(model, model.named(r.id), &member, false)
            }
            _ => member,
        }
    });
    if nested {
        let mut object = value.clone();
        for (f, v) in s.fields.iter().zip(fields) {
            if let Some(slot) = object.get_mut(&f.name) {
                *slot = v;
            }
        }
        object
    } else {
        Value::Array(fields.collect())
    }
}

/// Reads a payload written as a sequence through serde, ours and the twin: both read it, to the value
/// of the object (`Ok(true)`), or both refuse it with the same error (`Ok(false)`: a struct that keeps
/// unlisted members is read from a map only, as the derive reads one with a flattened field).
struct ReadsSequence<'a> {
    object: &'a str,
    sequence: &'a str,
}

impl Pair for ReadsSequence<'_> {
    type Output = Result<bool, String>;
    fn pair<Ours: Type, Twin: Type>(self) -> Result<bool, String> {
        let from_object: Ours = serde_json::from_str(self.object).map_err(|e| e.to_string())?;
        let ours = serde_json::from_str::<Ours>(self.sequence).map_err(|e| e.to_string());
        let twin = serde_json::from_str::<Twin>(self.sequence).map_err(|e| e.to_string());
        match (ours, twin) {
            (Ok(ours), Ok(_)) if ours == from_object => Ok(true),
            (Err(ours), Err(twin)) if ours == twin => Ok(false),
            (ours, twin) => Err(format!(
                "ours {:?}, the twin {:?}",
                ours.map(|_| "a value"),
                twin.map(|_| "a value")
            )),
        }
    }
}

/// serde's derive reads a struct written as a sequence, so the payload types do too; the decoders do not:
/// `Event::decode`, `EventRef::decode` and `validate` keep refusing a payload, or a struct in it, written
/// as an array (an array is not an event), at the place the shape checker names.
#[test]
fn the_decoders_refuse_a_payload_written_as_an_array_which_serde_reads() {
    use energy_codegen::event_payload;
    let model = model();
    let (mut top, mut inner) = (0, 0);
    for (_, event) in model.events() {
        for version in event.versions.iter().filter(|v| v.alias_of.is_none()) {
            let sample = event_payload(&model, version, Optionals::All);
            let object = sample.to_string();
            let kind = energy_api::EventKind::new(&event.name, &version.label).expect("known");
            for nested in [false, true] {
                let sequence = as_sequence(&model, &version.payload, &sample, nested);
                if sequence == sample {
                    continue;
                }
                let text = sequence.to_string();
                let read = energy_twin::payload_pair(
                    &event.name,
                    &version.label,
                    ReadsSequence {
                        object: &object,
                        sequence: &text,
                    },
                )
                .expect("a twin");
                let read_by_serde =
                    read.unwrap_or_else(|e| panic!("{} as {text}: {e}", version.id));
                assert_eq!(
                    read_by_serde,
                    !version.payload.incomplete || nested,
                    "{} as {text}",
                    version.id
                );
                let decoded =
                    energy_api::Event::decode(&event.name, &version.label, text.as_bytes());
                let Err(energy_api::DecodeError::Payload(error)) = decoded else {
                    panic!("{}: Event::decode took an array: {text}", version.id);
                };
                assert!(
                    error
                        .message
                        .starts_with("invalid type: sequence, expected struct "),
                    "{}: {error}",
                    version.id
                );
                assert!(kind.validate(text.as_bytes()).is_err(), "{}", version.id);
                assert!(
                    kind.decode_borrowed(text.as_bytes()).is_err(),
                    "{}",
                    version.id
                );
                if nested {
                    assert!(!error.path.is_empty(), "{}: {error}", version.id);
                    inner += 1;
                } else {
                    assert_eq!(error.path, "", "{}", version.id);
                    top += 1;
                }
            }
        }
    }
    assert!(
        top > 250 && inner > 20,
        "{top} payloads, {inner} with nested structs"
    );
}

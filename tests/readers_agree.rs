//! The readers of one table agree (issue 24), on every golden payload and every held sample of the real
//! catalogue, and on each of them broken and respelled at every depth:
//!
//! - the fast reader (`EventKind::read`, `read_borrowed`) takes exactly what serde's reading of the same
//!   table takes (`EventKind` and `BorrowedPayload` as serde seeds), to the same value: it no longer
//!   hands escaped keys, 19-digit integers, exponents or deep unknown members back to serde;
//! - the owned decoder, the borrowed view and the allocation-free check give the same verdict and the
//!   same serde error (message, line and column), and `decode`, `decode_borrowed` and `validate` the same
//!   located error (kind and JSON path);
//! - what decodes writes back the same JSON from the owned value and from the view;
//! - each payload type's own `Deserialize` (serde's derive where the traffic profile,
//!   `schema/traffic.profile`, compiles the type per type) takes what its table takes, to the same
//!   value, and refuses the rest with the same error: so a type reads the same whichever path it takes.
//!
//! That serde's reading of a table is what a derived `Deserialize` does is held by
//! `api-core/tests/shape_agrees.rs`, its differential tests against `#[derive(Deserialize)]`.

use energy_api::{Event, EventKind, EventRef};
use energy_api_core::read::Reader;
use energy_codegen::{Optionals, event_payload};
use serde::de::DeserializeSeed;
use serde_json::{Map, Value};

/// A payload to read, and what it is (for messages).
struct Case {
    kind: EventKind,
    label: String,
    text: String,
}

/// Every golden case and every sample, as the platform sends them.
fn payloads() -> Vec<(EventKind, String, Value)> {
    let model =
        energy_codegen::build_model(&energy_tests::schema_dir()).expect("the real schema builds");
    let mut out = Vec::new();
    for (_, event) in model.events() {
        for version in &event.versions {
            let kind = EventKind::new(&event.name, &version.label).expect("a known version");
            for optionals in [Optionals::All, Optionals::None] {
                let sample = event_payload(&model, version, optionals);
                out.push((kind, format!("{} sample {optionals:?}", version.id), sample));
            }
        }
    }
    let dir = energy_tests::workspace_root().join(energy_codegen::compat::GOLDEN_DIR);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a folder entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    for path in files {
        let id = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some((event_type, version)) = id.rsplit_once('.') else {
            panic!("{id}: a golden file is named <type>.<version>");
        };
        // A version since retired has golden payloads but no kind: nothing reads it any more.
        let Ok(kind) = EventKind::new(event_type, version) else {
            continue;
        };
        let text = std::fs::read_to_string(&path).expect("readable");
        let file: Value = serde_json::from_str(&text).expect("a golden file is JSON");
        let Some(Value::Object(cases)) = file.get("cases") else {
            panic!("{id}: no cases");
        };
        for (name, payload) in cases {
            out.push((kind, format!("{id} golden {name}"), payload.clone()));
        }
    }
    out
}

/// Stands for raw JSON text in a value, replaced in its serialisation.
const MARK: &str = "\u{1}RAW\u{1}";

/// What a value at some place is replaced by: JSON text, so that numbers serde_json would never write
/// (`-0`, `1e400`, 19 and 20 digits) and escapes are among them.
const REPLACEMENTS: &[&str] = &[
    "12345",
    "\"wrong\"",
    "null",
    "true",
    "[]",
    "{}",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "-0",
    "1.5e3",
    "1e400",
    r#""caf\u00e9 \"q\"""#,
    r#""\ud800""#,
    r#"{"free": [1, {"form": null}], "n": 1e400}"#,
];

/// The payload written with `at` (a path of member names and indexes) replaced by `raw`, or removed.
fn replaced(payload: &Value, at: &[Step], raw: Option<&str>) -> String {
    let mut copy = payload.clone();
    let mut node = &mut copy;
    for (i, step) in at.iter().enumerate() {
        let last = i + 1 == at.len();
        match (step, node) {
            (Step::Key(k), Value::Object(map)) if last && raw.is_none() => {
                map.remove(k);
                return copy.to_string();
            }
            (Step::Key(k), Value::Object(map)) => node = map.get_mut(k).expect("a path found"),
            (Step::Index(n), Value::Array(items)) => node = &mut items[*n],
            _ => unreachable!("paths come from the value"),
        }
    }
    if let Some(raw) = raw {
        *node = Value::from(MARK);
        let marked = serde_json::to_string(&Value::from(MARK)).expect("a string");
        copy.to_string().replacen(&marked, raw, 1)
    } else {
        copy.to_string()
    }
}

#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// Every place in a value, as paths.
fn places(value: &Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                at.push(Step::Key(k.clone()));
                out.push(at.clone());
                places(v, at, out);
                at.pop();
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                at.push(Step::Index(i));
                out.push(at.clone());
                places(v, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

/// An object written with every member name escaped (`\u0061` for `a`), every object at every depth.
fn escaped_keys(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let members: Vec<String> = map
                .iter()
                .map(|(k, v)| {
                    let mut chars = k.chars();
                    let first = chars.next().map_or(String::new(), |c| {
                        format!("\\u{:04x}{}", u32::from(c), chars.as_str())
                    });
                    format!("\"{first}\":{}", escaped_keys(v))
                })
                .collect();
            format!("{{{}}}", members.join(","))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(escaped_keys).collect();
            format!("[{}]", items.join(","))
        }
        other => other.to_string(),
    }
}

/// The payload's own text, and the same payload respelled and broken in every way the readers must
/// agree on.
fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for (kind, label, payload) in payloads() {
        let mut push = |what: String, text: String| {
            out.push(Case {
                kind,
                label: format!("{label}: {what}"),
                text,
            })
        };
        let text = payload.to_string();
        push("as sent".into(), text.clone());
        push(
            "pretty".into(),
            serde_json::to_string_pretty(&payload).expect("a value"),
        );
        push("keys escaped".into(), escaped_keys(&payload));
        if let Value::Object(map) = &payload {
            // A repeated member (serde refuses a repeated field), a deep unknown one (skipped), a deep
            // one past serde's limit (refused), and not an object at all.
            if let Some((k, v)) = map.iter().next() {
                push(
                    format!("{k} repeated"),
                    format!("{{\"{k}\":{v},{}", &text[1..]),
                );
            }
            for levels in [100, 126, 200] {
                let deep = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
                let mut members = Map::new();
                members.insert("x_unlisted".into(), Value::from(MARK));
                let mut with = map.clone();
                with.extend(members);
                let marked = serde_json::to_string(&Value::from(MARK)).expect("a string");
                push(
                    format!("unknown member {levels} deep"),
                    Value::Object(with).to_string().replacen(&marked, &deep, 1),
                );
            }
        }
        push("an array".into(), format!("[{payload}]"));
        push("truncated".into(), {
            let mut half = text.len() / 2;
            while !text.is_char_boundary(half) {
                half -= 1;
            }
            text[..half].to_owned()
        });
        // Each key's opening quote replaced (the fast reader compares an expected key past its
        // quote: `cargo xtask fuzz` found it accepting `,*name"`).
        for (at, _) in text.match_indices(",\"").chain(text.match_indices("{\"")) {
            let mut broken = text.clone();
            broken.replace_range(at + 1..at + 2, "*");
            push(format!("the key quote at byte {} replaced", at + 1), broken);
        }
        let mut at = Vec::new();
        let mut found = Vec::new();
        places(&payload, &mut at, &mut found);
        for place in &found {
            let name = place
                .iter()
                .map(|s| match s {
                    Step::Key(k) => format!(".{k}"),
                    Step::Index(i) => format!("[{i}]"),
                })
                .collect::<String>();
            if matches!(place.last(), Some(Step::Key(_))) {
                push(format!("{name} removed"), replaced(&payload, place, None));
            }
            for raw in REPLACEMENTS {
                push(
                    format!("{name} = {raw}"),
                    replaced(&payload, place, Some(raw)),
                );
            }
        }
    }
    out
}

/// A payload type's own `Deserialize` (serde's derive where the traffic profile compiles the type per
/// type, its table's elsewhere), the value written back as JSON text.
type OwnRead = fn(&str) -> Result<String, String>;

/// Makes a payload type's [`OwnRead`].
struct OwnReader;

impl energy_twin::Pair for OwnReader {
    type Output = OwnRead;
    fn pair<Ours: energy_twin::Type, Twin: energy_twin::Type>(self) -> OwnRead {
        |text| {
            serde_json::from_str::<Ours>(text)
                .map(|value| serde_json::to_string(&value).expect("a payload writes as JSON"))
                .map_err(|e| e.to_string())
        }
    }
}

/// Reads `text` whole with a serde seed.
fn serde_read<'de, S: DeserializeSeed<'de>>(
    seed: S,
    text: &'de str,
) -> Result<S::Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = seed.deserialize(&mut de)?;
    de.end().map(|()| value)
}

#[test]
fn every_reader_of_a_table_agrees_on_every_held_payload() {
    let cases = cases();
    let mut failures = Vec::new();
    let (mut accepted, mut refused) = (0, 0);
    let mut own_reads = std::collections::HashMap::new();
    for case in &cases {
        let (kind, text) = (case.kind, case.text.as_str());
        let mut fail = |what: String| failures.push(format!("{}: {what}", case.label));
        let own_read = *own_reads.entry(kind).or_insert_with(|| {
            energy_twin::payload_pair(kind.event_type().as_str(), kind.version(), OwnReader)
                .expect("every version has its types")
        });

        let owned = serde_read(kind, text);
        let view = serde_read(kind.borrowed(), text);
        let checked = serde_read(kind.validator(), text);
        let fast = Reader::whole(text, |r| kind.read(r));
        let fast_view = Reader::whole(text, |r| kind.read_borrowed(r));

        // One verdict, one serde error. The view's free-form objects are taken whole and then
        // checked, so serde places an error in one after the object rather than in it: the view's
        // message is compared without its position (its public error, below, is located like the
        // others).
        let errors = [
            owned.as_ref().err().map(ToString::to_string),
            checked.as_ref().err().map(ToString::to_string),
        ];
        let unplaced = |e: &serde_json::Error| {
            let text = e.to_string();
            text.split(" at line ")
                .next()
                .unwrap_or_default()
                .to_owned()
        };
        if errors[0] != errors[1]
            || owned.as_ref().err().map(unplaced) != view.as_ref().err().map(unplaced)
        {
            fail(format!(
                "owned, borrowed and check disagree: {errors:?}, borrowed {:?}",
                view.as_ref().err().map(ToString::to_string)
            ));
        }
        // The payload type's own `Deserialize` (derived for a type the traffic profile compiles)
        // takes what its table takes, to the same value, and refuses the rest with the same error.
        // Not for an array where a struct belongs (the payload, or a member replaced by `[]`): a
        // struct's `Deserialize` reads one in field order, as serde's derive does, where the decoders
        // read objects only (`tests/formats.rs` holds that difference).
        if !text.trim_start().starts_with('[') && !case.label.ends_with(" = []") {
            let by_table = owned
                .as_ref()
                .map(|event| serde_json::to_string(event).expect("an event writes as JSON"))
                .map_err(ToString::to_string);
            let by_type = own_read(text);
            if by_table != by_type {
                fail(format!(
                    "its own Deserialize {by_type:?}, its table {by_table:?}"
                ));
            }
        }
        // The fast reader takes exactly what serde takes, to the same value.
        match (&fast, &owned) {
            (Ok(fast), Ok(serde)) if fast == serde => {}
            (Err(_), Err(_)) => {}
            (fast, serde) => fail(format!("fast reader {fast:?}, serde {serde:?}")),
        }
        // Views are not `PartialEq`: compared by their `Debug` text, which shows every field.
        match (&fast_view, &view) {
            (Ok(fast), Ok(serde)) if format!("{fast:?}") == format!("{serde:?}") => {}
            (Err(_), Err(_)) => {}
            (fast, serde) => fail(format!("fast reader (borrowed) {fast:?}, serde {serde:?}")),
        }
        // The public decoders: the same located error, the same JSON back.
        let bytes = text.as_bytes();
        let decoded = Event::decode(kind.event_type().as_str(), kind.version(), bytes);
        let decoded_view = EventRef::decode(kind.event_type().as_str(), kind.version(), bytes);
        let validated = kind.validate(bytes);
        match (&decoded, &decoded_view, &validated) {
            (Ok(event), Ok(view), Ok(())) => {
                accepted += 1;
                // The same JSON (a view writes its free-form objects as they were spelled, so the
                // texts are compared as values, unless both are too deep for a `Value`).
                let back = serde_json::to_string(event).expect("events serialise");
                let view_back = serde_json::to_string(view).expect("views serialise");
                let as_value = |text: &str| serde_json::from_str::<Value>(text).ok();
                let same = match (as_value(&back), as_value(&view_back)) {
                    (Some(a), Some(b)) => a == b,
                    (None, None) => back == view_back,
                    _ => false,
                };
                if !same {
                    fail(format!("written back: {back} != {view_back}"));
                }
            }
            (Err(a), Err(b), Err(c)) => {
                refused += 1;
                let (a, b, c) = (a.to_string(), b.to_string(), c.to_string());
                if a != b || a != c {
                    fail(format!("located errors disagree: {a} | {b} | {c}"));
                }
            }
            (a, b, c) => fail(format!(
                "verdicts disagree: decode {:?}, decode_borrowed {:?}, validate {:?}",
                a.as_ref().err(),
                b.as_ref().err(),
                c.as_ref().err()
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    // Both verdicts are well represented: the cases are not all broken, nor all fine.
    assert!(
        accepted > 10_000 && refused > 10_000,
        "{accepted} accepted, {refused} refused"
    );
}

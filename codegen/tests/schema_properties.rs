//! Property tests: random valid schemas (shared types with cycles, bases, `extends`, keyword field names,
//! prelude type names, `1.0.0` versions, incomplete payloads) always build a model and emit; emission is
//! deterministic; and a sample of them compiles without warnings.

mod support;

use energy_codegen::{Optionals, event_payload};
use proptest::prelude::*;

use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::fmt::Write as _;

/// Field names, including Rust keywords and names that are not snake_case-identical to any other.
const FIELD_NAMES: &[&str] = &[
    "id",
    "type",
    "match",
    "ref",
    "self",
    "crate",
    "async",
    "account_number",
    "amount",
    "valid_from",
    "value",
    "readings",
    "parent",
    "is_active",
    "score",
    "loop",
    "super",
    "tags",
    "payload",
    "kind",
];
/// Type names, including ones that shadow the prelude.
const TYPE_NAMES: &[&str] = &[
    "Ledger", "Option", "Result", "Box", "String", "Vec", "Meter", "Node",
];

#[derive(Debug, Clone)]
struct GenField {
    name: &'static str,
    optional: bool,
    /// 0..4: built-ins; 5: array of a built-in; 6: named type; 7: array of a named type.
    shape: u8,
    builtin: u8,
    target: usize,
}

#[derive(Debug, Clone)]
struct GenSchema {
    types: Vec<Vec<GenField>>,
    events: Vec<(Vec<Vec<GenField>>, bool, bool)>,
}

fn field() -> impl Strategy<Value = GenField> {
    (
        0..FIELD_NAMES.len(),
        any::<bool>(),
        0u8..8,
        0u8..5,
        0usize..8,
    )
        .prop_map(|(n, optional, shape, builtin, target)| GenField {
            name: FIELD_NAMES[n],
            optional,
            shape,
            builtin,
            target,
        })
}

fn fields() -> impl Strategy<Value = Vec<GenField>> {
    proptest::collection::vec(field(), 1..6).prop_map(|mut fs| {
        let mut seen = std::collections::BTreeSet::new();
        fs.retain(|f| seen.insert(f.name));
        fs
    })
}

fn schema() -> impl Strategy<Value = GenSchema> {
    let types = proptest::collection::vec(fields(), 1..TYPE_NAMES.len());
    let events = proptest::collection::vec(
        (
            proptest::collection::vec(fields(), 1..4),
            any::<bool>(),
            any::<bool>(),
        ),
        1..6,
    );
    (types, events).prop_map(|(types, events)| GenSchema { types, events })
}

fn type_expr(f: &GenField, types: usize, owner: Option<usize>) -> String {
    const BUILTINS: [&str; 5] = ["str", "int", "num", "bool", "obj"];
    let named = |target: usize| {
        // A required reference only goes to an earlier type, so no cycle is made of required fields.
        let limit = match owner {
            Some(o) if !f.optional && f.shape == 6 => o,
            _ => types,
        };
        (limit > 0).then(|| TYPE_NAMES[target % limit].to_owned())
    };
    let builtin = BUILTINS[usize::from(f.builtin)].to_owned();
    match f.shape {
        5 => format!("[{builtin}]"),
        6 => named(f.target).unwrap_or(builtin),
        7 => named(f.target).map_or(format!("[{builtin}]"), |n| format!("[{n}]")),
        _ => builtin,
    }
}

fn fields_yaml(fields: &[GenField], types: usize, owner: Option<usize>, indent: &str) -> String {
    let mut out = String::new();
    for f in fields {
        let marker = if f.optional { "?" } else { "" };
        writeln!(
            out,
            "{indent}{}{marker}: \"{}\"",
            f.name,
            type_expr(f, types, owner)
        )
        .unwrap();
    }
    out
}

fn render(s: &GenSchema) -> Vec<(String, String)> {
    let mut types = String::from("types:\n");
    for (i, fields) in s.types.iter().enumerate() {
        write!(
            types,
            "  {}:\n    description: Type {i}.\n    fields:\n",
            TYPE_NAMES[i]
        )
        .unwrap();
        types.push_str(&fields_yaml(fields, s.types.len(), Some(i), "      "));
    }
    let mut events = String::from("section: Random\ndescription: Random events.\nevents:\n");
    for (i, (versions, semver, incomplete)) in s.events.iter().enumerate() {
        write!(
            events,
            "  - name: domain.thing-{i}.happened\n    versions:\n"
        )
        .unwrap();
        if *semver {
            write!(
                events,
                "      1.0.0:\n        incomplete: {incomplete}\n        fields:\n"
            )
            .unwrap();
            events.push_str(&fields_yaml(
                &versions[0],
                s.types.len(),
                None,
                "          ",
            ));
        }
        for (v, fields) in versions.iter().enumerate() {
            writeln!(events, "      v{}:", v + 1).unwrap();
            // Each later version extends the previous one with the fields it does not have yet.
            let own: Vec<GenField> = if v == 0 {
                fields.clone()
            } else {
                let earlier: Vec<&str> = versions[..v].iter().flatten().map(|f| f.name).collect();
                events.push_str(&format!("        extends: v{v}\n"));
                fields
                    .iter()
                    .filter(|f| !earlier.contains(&f.name))
                    .cloned()
                    .collect()
            };
            events.push_str("        fields:\n");
            if own.is_empty() {
                // A field of its own, named per version: each version in a chain may need one.
                writeln!(events, "          extra_field_v{}: int", v + 1).unwrap();
            } else {
                events.push_str(&fields_yaml(&own, s.types.len(), None, "          "));
            }
        }
    }
    vec![
        ("types.yaml".to_owned(), types),
        ("events/random.yaml".to_owned(), events),
    ]
}

fn generate(files: &[(String, String)]) -> std::collections::BTreeMap<String, String> {
    let inputs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_bytes()))
        .collect();
    let model = energy_codegen::build_model_in_memory(&inputs).unwrap_or_else(|f| {
        panic!(
            "valid random schema rejected:\n{}\n{files:#?}",
            f.render(false)
        )
    });
    energy_codegen::emit_all(&model, None).expect("a valid model emits")
}

proptest! {
    #![proptest_config(Config { cases: 64, failure_persistence: None, ..Config::default() })]

        #[test]
    fn random_schemas_build_and_emit_deterministically(s in schema()) {
        let files = render(&s);
        let first = generate(&files);
        prop_assert_eq!(&first, &generate(&files));
        prop_assert!(first.contains_key("src/events/random.rs"));
    }

    /// The documents of random schemas are valid, and agree with the model: every JSON Schema file (one
    /// per version, one per shared type) is a valid draft 2020-12 schema (checked against the
    /// meta-schema), and the model's sample payloads of each version (optional fields present and
    /// absent) validate against its file, with the `$ref`s to the shared types' files resolved by `$id`.
    #[test]
    fn random_schemas_emit_valid_json_schemas(s in schema()) {
        let files = render(&s);
        let inputs: Vec<(&str, &[u8])> = files.iter().map(|(p, c)| (p.as_str(), c.as_bytes())).collect();
        let model = energy_codegen::build_model_in_memory(&inputs).expect("valid random schema");
        let emitted = energy_codegen::emit_all(&model, None).expect("emits");
        let meta = jsonschema::draft202012::meta::validator();
        for (path, text) in emitted.iter().filter(|(p, _)| p.starts_with("schemas/")) {
            let schema: serde_json::Value = serde_json::from_str(text).expect("JSON");
            let problems: Vec<String> = meta.iter_errors(&schema).map(|e| e.to_string()).collect();
            prop_assert!(problems.is_empty(), "{path} is not a valid schema: {problems:?}");
        }
        let schema_files = energy_testkit::SchemaFiles::new(&emitted, energy_codegen::emit::jsonschema::id);
        for (_, event) in model.events() {
            for version in &event.versions {
                let path = energy_codegen::emit::jsonschema::path(version);
                prop_assert!(emitted.contains_key(&path), "{path} is emitted");
                let validator = schema_files.validator(&path);
                for optionals in [Optionals::All, Optionals::None] {
                    let sample = event_payload(&model, version, optionals);
                    let errors: Vec<String> = validator.iter_errors(&sample).map(|e| e.to_string()).collect();
                    prop_assert!(errors.is_empty(), "{path}: {sample} is rejected: {errors:?}");
                }
            }
        }
    }
}

/// A bounded sample (fixed seed, so CI is reproducible) of random schemas, generated into one scratch
/// workspace and built with warnings denied.
#[test]
fn sampled_random_schemas_compile() {
    let root = energy_testkit::workspace();
    let scratch = root.join("target").join("random-schema-crates");
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let mut members = Vec::new();
    for i in 0..6 {
        let s = schema().new_tree(&mut runner).expect("a value").current();
        support::write_scratch_crate(&scratch, &format!("random-{i}"), generate(&render(&s)));
        members.push(format!("\"random-{i}\""));
    }
    support::check_scratch_workspace(&scratch, &members);
}

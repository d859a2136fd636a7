//! Generation speed: the full run (load, check, every emitter, formatted; no disk writes) on the real
//! schema, and on synthetic catalogues of 1×, 10× and 100× its size to show the time per event version
//! does not grow (no quadratic step). `cargo bench -p energy-codegen`; figures in BENCHMARKS.md.
#![allow(missing_docs)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use energy_testkit::copy_tree;
use std::hint::black_box;
use std::path::Path;

/// The allocator `cargo xtask codegen` runs on (see `xtask/src/main.rs`), so that the figures are the
/// tool's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn schema_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema")
}

/// The real schema's files, then `factor - 1` renamed copies of every section (event types and bases
/// prefixed, so that every copy is a distinct section with distinct events).
fn synthetic(factor: usize) -> Vec<(String, Vec<u8>)> {
    let dir = schema_dir();
    let model = energy_codegen::build_model(&dir).expect("real schema");
    let mut events: Vec<String> = model.events().map(|(_, e)| e.name.clone()).collect();
    // Longest first, so that a name is never replaced inside a longer one.
    events.sort_by_key(|e| std::cmp::Reverse(e.len()));
    let bases = ["FlexDevice", "UB", "DB", "CB", "JB", "IB", "MB"];
    let mut files = vec![
        (
            "types.yaml".to_owned(),
            std::fs::read(dir.join("types.yaml")).expect("types"),
        ),
        (
            "rest.yaml".to_owned(),
            std::fs::read(dir.join("rest.yaml")).expect("rest"),
        ),
    ];
    let mut sections: Vec<_> = std::fs::read_dir(dir.join("events"))
        .expect("events")
        .map(|e| e.expect("entry").path())
        .collect();
    sections.sort();
    for copy in 0..factor {
        for path in &sections {
            let stem = path.file_stem().expect("stem").to_string_lossy();
            let mut text = std::fs::read_to_string(path).expect("section");
            if copy > 0 {
                for event in &events {
                    text = replace_token(&text, event, &format!("copy{copy}.{event}"));
                }
                for base in bases {
                    text = replace_token(&text, base, &format!("{base}{copy}"));
                }
            }
            let name = if copy == 0 {
                format!("events/{stem}.yaml")
            } else {
                format!("events/{stem}-copy{copy}.yaml")
            };
            files.push((name, text.into_bytes()));
        }
    }
    files
}

/// Replaces `token` where it stands alone (not inside a longer event name or word).
fn replace_token(text: &str, token: &str, with: &str) -> String {
    let part_of_name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(token) {
        let before = rest[..i].chars().next_back().or(out.chars().next_back());
        let after = rest[i + token.len()..].chars().next();
        let alone = !before.is_some_and(part_of_name)
            && !after.is_some_and(|c| {
                part_of_name(c) && c != '.'
                    || c == '.'
                        && rest[i + token.len() + 1..]
                            .starts_with(|c: char| c.is_ascii_alphanumeric())
            });
        out.push_str(&rest[..i]);
        out.push_str(if alone { with } else { token });
        rest = &rest[i + token.len()..];
    }
    out.push_str(rest);
    out
}

fn generate(files: &[(String, Vec<u8>)]) -> usize {
    let inputs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_slice()))
        .collect();
    let model = energy_codegen::build_model_in_memory(&inputs)
        .unwrap_or_else(|f| panic!("{}", f.render(false)));
    energy_codegen::emit_all(&model, None).expect("emits").len()
}

fn real_schema(c: &mut Criterion) {
    let dir = schema_dir();
    c.bench_function("generate/real-schema", |b| {
        b.iter(|| {
            let model = energy_codegen::build_model(black_box(&dir)).expect("valid");
            energy_codegen::emit_all(&model, None).expect("emits").len()
        })
    });
}

fn scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate/scaling");
    group.sample_size(10);
    for factor in [1, 10, 100] {
        let files = synthetic(factor);
        let versions = 288 * factor;
        // Sanity: the synthetic catalogue really has factor × the versions.
        let inputs: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(p, c)| (p.as_str(), c.as_slice()))
            .collect();
        let model = energy_codegen::build_model_in_memory(&inputs)
            .unwrap_or_else(|f| panic!("{}", f.render(false)));
        assert_eq!(model.version_count(), versions);
        group.throughput(Throughput::Elements(versions as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{factor}x")),
            &files,
            |b, files| b.iter(|| generate(black_box(files))),
        );
    }
    group.finish();
}

/// The whole-catalogue compatibility check, as `cargo xtask compat` runs it: the schema and the
/// published baseline read, every published item compared (a clean run, and one with a published
/// version broken, which also builds counterexamples).
fn compat(c: &mut Criterion) {
    let dir = schema_dir();
    let lock = dir.join(energy_codegen::compat::LOCK_FILE);
    let today = "2026-11-23";
    c.bench_function("compat/real-schema", |b| {
        b.iter(|| {
            let baseline = energy_codegen::compat::Baseline::Lock(&lock);
            let report = energy_codegen::compat::check(
                black_box(&dir),
                baseline,
                today,
                energy_codegen::compat::Readers::Anyone,
            )
            .unwrap_or_else(|f| panic!("{}", f.render(false)));
            assert_eq!(report.errors(), 0);
        })
    });
    let broken = tempfile::tempdir().expect("a scratch folder");
    copy_tree(&dir, broken.path());
    let section = broken.path().join("events/agreements-and-approvals.yaml");
    let text = std::fs::read_to_string(&section).expect("the section");
    let text = text.replace("{account_number: str}", "{account_id: str}");
    std::fs::write(&section, text).expect("written");
    c.bench_function("compat/real-schema-broken", |b| {
        b.iter(|| {
            let baseline = energy_codegen::compat::Baseline::Lock(&lock);
            let report = energy_codegen::compat::check(
                black_box(broken.path()),
                baseline,
                today,
                energy_codegen::compat::Readers::Anyone,
            )
            .unwrap_or_else(|f| panic!("{}", f.render(false)));
            assert!(report.errors() > 0);
        })
    });
}

criterion_group!(benches, real_schema, scaling, compat);
criterion_main!(benches);

use energy_api::EventKind;
use energy_codegen::samples::{Optionals, event_payload};
use serde::de::IgnoredAny;
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let model = energy_codegen::build_model(&energy_tests::schema_dir()).unwrap();
    let mut items = Vec::new();
    for (_, e) in model.events() {
        for v in &e.versions {
            for o in [Optionals::All, Optionals::None] {
                let kind = EventKind::new(&e.name, &v.label).unwrap();
                items.push((
                    kind,
                    serde_json::to_vec(&event_payload(&model, v, o)).unwrap(),
                ));
            }
        }
    }
    let bytes: usize = items.iter().map(|(_, p)| p.len()).sum::<usize>() * 200;
    let only = std::env::args().nth(1);
    let rounds: usize = std::env::args()
        .nth(2)
        .and_then(|r| r.parse().ok())
        .unwrap_or(200);
    let bytes: usize = items.iter().map(|(_, p)| p.len()).sum::<usize>() * rounds;
    let time = |name: &str, f: &dyn Fn(EventKind, &[u8]) -> bool| {
        if only.as_deref().is_some_and(|o| o != name) {
            return;
        }
        let mut best = f64::MAX;
        for _ in 0..if only.is_some() { 1 } else { 5 } {
            let t = Instant::now();
            for _ in 0..rounds {
                for (k, p) in &items {
                    assert!(f(*k, black_box(p)));
                }
            }
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!("{name}: {:.0} MB/s", bytes as f64 / 1048576.0 / best);
    };
    time("IgnoredAny", &|_, p| {
        serde_json::from_slice::<IgnoredAny>(p).is_ok()
    });
    time("Value", &|_, p| {
        serde_json::from_slice::<serde_json::Value>(p).is_ok()
    });
    time("EventKind::decode", &|k, p| k.decode(p).is_ok());
}

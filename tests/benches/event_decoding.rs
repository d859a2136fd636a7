//! Throughput of decoding a stream of envelopes covering every event version, by approach, relative to
//! the floor (`serde_json::from_slice::<IgnoredAny>`, parsing only), best of 7 rounds with the approaches
//! interleaved in each. Run with
//! `cargo bench -p energy-tests --bench event_decoding [-- MEGABYTES] [WORD…]` (default 50 MB; words keep
//! only the approaches whose name contains one); figures go to `BENCHMARKS.md`, never into test
//! assertions. Also prints the time of the (type, version) dispatch, `EventKind::new`.
//!
//! Then, without words or with the word `streams` (only it then, 20 MB a stream by default), the same
//! on every stream users send (`streams.rs`: uniform, Zipf-skewed, three hot types, flat, nested; each
//! also with every optional field present; and `untuned`, payloads made from the tables): reading and
//! writing the payload structs through serde and `EventKind::decode` beside their derived twin
//! (`energy-twin`, read by serde_json and by sonic-rs) and `serde_json::Value`, then
//! `Decoder::decode` and the borrowed view on the stream's envelopes, and a table of the targets with
//! a column per stream. A stream's name on the command line (`zipf`, `nested`) runs only the streams
//! of that name; `twin`, as before the streams, the uniform ones. Members come as `serde_json::Value`
//! writes them (sorted) or, with `in-schema-order`, as the generated types and the twin write them.
//!
//! With `count` (`cargo bench -p energy-tests --bench event_decoding -- count`), each path of the
//! targets runs once, untimed, over small fixed streams, for `cargo xtask bench --check` to count its
//! instructions under callgrind.
//!
//! With `--write-envelopes PATH` and one stream's name (`streams zipf --write-envelopes zipf.ndjson
//! 20`; `every-optional` for its variant), the stream's envelopes are written to `PATH`, one a line,
//! instead of measured.
#![forbid(unsafe_code)]

#[path = "event_decoding/streams.rs"]
mod streams;

use energy_api::EventKind;
use energy_codegen::{Optionals, event_payload};
use energy_runtime::events::Decoder;
use serde::de::IgnoredAny;
use serde_json::json;
use serde_json::value::RawValue;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// With `--features mimalloc`, every approach runs on mimalloc instead of the system allocator.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The envelope with the payload as a borrowed slice, nothing else (the extent of the payload found).
#[derive(serde::Deserialize)]
struct RawEnvelope<'a> {
    #[serde(borrow)]
    event_type: &'a str,
    #[serde(borrow)]
    version: &'a str,
    #[serde(borrow)]
    payload: &'a RawValue,
}

fn stream(megabytes: usize, payload_first: bool) -> Vec<String> {
    let model = match energy_codegen::build_model(&energy_tests::schema_dir()) {
        Ok(model) => model,
        Err(failure) => panic!("{}", failure.render(false)),
    };
    let mut lines = Vec::new();
    for (_, event) in model.events() {
        for version in &event.versions {
            for optionals in [Optionals::All, Optionals::None] {
                let head = format!(
                    r#""event_type":{},"version":{},"id":"evt-{:06}","occurred_at":"2024-03-01T09:30:00Z""#,
                    json!(event.name),
                    json!(version.label),
                    lines.len()
                );
                let payload = format!(r#""payload":{}"#, event_payload(&model, version, optionals));
                lines.push(if payload_first {
                    format!("{{{payload},{head}}}")
                } else {
                    format!("{{{head},{payload}}}")
                });
            }
        }
    }
    let per_cycle: usize = lines.iter().map(|l| l.len() + 1).sum();
    let cycles = (megabytes << 20).div_ceil(per_cycle);
    lines
        .iter()
        .cycle()
        .take(lines.len() * cycles)
        .cloned()
        .collect()
}

/// One approach of a table: a timed pass over its input of `bytes`, and the best pass so far.
struct Approach<'l> {
    name: &'static str,
    bytes: usize,
    pass: Box<dyn Fn() -> Duration + 'l>,
    best: Duration,
}

impl<'l> Approach<'l> {
    /// `decode` over the stream's `lines` (each pass checks that every line decodes).
    fn new(
        name: &'static str,
        lines: &'l [String],
        decode: impl Fn(&[u8]) -> bool + 'l,
    ) -> Approach<'l> {
        Approach::timed(name, lines.iter().map(|l| l.len() + 1).sum(), move || {
            let start = Instant::now();
            let ok = decode_all(lines, &decode);
            let elapsed = start.elapsed();
            assert_eq!(ok, lines.len(), "{name}: every line decodes");
            elapsed
        })
    }

    /// A pass that times itself over `bytes` of input.
    fn timed(name: &'static str, bytes: usize, pass: impl Fn() -> Duration + 'l) -> Approach<'l> {
        Approach {
            name,
            bytes,
            pass: Box::new(pass),
            best: Duration::MAX,
        }
    }
}

/// The words on the command line that name approaches: not the size, not a flag or a flag's value,
/// not a mode (`twin`, `in-schema-order`).
fn words() -> Vec<String> {
    let mut after_flag = false;
    std::env::args()
        .skip(1)
        .filter(|a| {
            // A flag's value (`--write-envelopes PATH`) is not a word.
            let is_value = std::mem::replace(&mut after_flag, a == WRITE_ENVELOPES);
            !is_value
                && a.parse::<usize>().is_err()
                && !a.starts_with('-')
                && a != "streams"
                && a != "twin"
                && a != "in-schema-order"
                && a != EVERY_OPTIONAL
                && !streams::NAMES.contains(&a.as_str())
        })
        .collect()
}

/// The size on the command line, in megabytes, or `default`.
fn megabytes(default: usize) -> usize {
    let mut after_flag = false;
    std::env::args()
        .skip(1)
        .filter(|a| !std::mem::replace(&mut after_flag, a == WRITE_ENVELOPES))
        .find_map(|a| a.parse().ok())
        .unwrap_or(default)
}

/// The flag that writes the streams' envelopes to a file instead of measuring them.
const WRITE_ENVELOPES: &str = "--write-envelopes";

/// The file `--write-envelopes` names, if given; a missing value is the user's mistake, not a panic.
fn envelopes_file() -> Result<Option<std::path::PathBuf>, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().position(|a| a == WRITE_ENVELOPES) {
        None => Ok(None),
        Some(at) => match args.get(at + 1) {
            Some(path) if !path.starts_with('-') => Ok(Some(path.into())),
            _ => Err(format!("{WRITE_ENVELOPES} needs a file to write to")),
        },
    }
}

/// The best time of each approach that ran, by name.
struct Times(Vec<(&'static str, Duration)>);

impl Times {
    fn of(&self, name: &str) -> Option<Duration> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
    }

    /// How many times faster `fast` ran than `slow`.
    fn ratio(&self, slow: &str, fast: &str) -> Option<f64> {
        Some(self.of(slow)?.as_secs_f64() / self.of(fast)?.as_secs_f64())
    }
}

/// Runs the approaches the command line's words name (all without words) in `rounds` rounds, each
/// approach once a round, and keeps the best pass of each: a slow moment of the machine (this one's
/// speed moves by a third within a minute) falls on every approach alike, not on one. Prints the table,
/// each relative to the floor when the floor (the first approach of the stream's table) ran.
fn run_interleaved(approaches: Vec<Approach<'_>>, rounds: usize) -> Times {
    let words = words();
    let mut approaches: Vec<Approach<'_>> = approaches
        .into_iter()
        .filter(|a| words.is_empty() || words.iter().any(|w| a.name.contains(w.as_str())))
        .collect();
    for _ in 0..rounds {
        for approach in &mut approaches {
            approach.best = approach.best.min((approach.pass)());
        }
    }
    let floor = approaches
        .first()
        .filter(|a| a.name == FLOOR)
        .map(|a| a.best);
    match floor {
        Some(_) => println!("| approach | throughput | relative to the floor |\n|---|---|---|"),
        None => println!("| approach | throughput |\n|---|---|"),
    }
    for approach in &approaches {
        let mb_per_s = approach.bytes as f64 / (1 << 20) as f64 / approach.best.as_secs_f64();
        match floor {
            Some(floor) => println!(
                "| {} | {mb_per_s:.0} MB/s | {:.2} |",
                approach.name,
                floor.as_secs_f64() / approach.best.as_secs_f64()
            ),
            None => println!("| {} | {mb_per_s:.0} MB/s |", approach.name),
        }
    }
    Times(approaches.iter().map(|a| (a.name, a.best)).collect())
}

/// The names in the stream's table of the parse-only floor and of the approaches the targets compare.
const FLOOR: &str = "`IgnoredAny` (the floor)";
const VALUE: &str = "`serde_json::Value`";
const OWNED: &str = "`Decoder::decode` (one pass, metadata kept)";
const BORROWED: &str = "`Decoder::decode_borrowed` (one pass, borrowed view, metadata kept)";

/// Decodes a line in two passes: the envelope with its payload as `&RawValue`, then the payload by its
/// (type, version) with `decode`.
fn two_passes(line: &[u8], decode: impl Fn(EventKind, &[u8]) -> bool) -> bool {
    serde_json::from_slice::<RawEnvelope<'_>>(line)
        .ok()
        .and_then(|e| {
            EventKind::new(e.event_type, e.version)
                .ok()
                .map(|k| (k, e.payload))
        })
        .is_some_and(|(kind, payload)| decode(kind, payload.get().as_bytes()))
}

/// Decodes every line; how many decoded. Never inlined, so that a profiler can count this alone
/// (`valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*decode_all*'`).
#[inline(never)]
fn decode_all(lines: &[String], decode: &impl Fn(&[u8]) -> bool) -> usize {
    let mut ok = 0usize;
    for line in lines {
        ok += usize::from(decode(black_box(line.as_bytes())));
    }
    ok
}

/// Nanoseconds per `EventKind::new` over every (type, version) pair of the catalogue, in a shuffled
/// order so that branch prediction cannot learn the sequence; best of 20 runs of 500 rounds.
fn dispatch() {
    const ROUNDS: usize = 500;
    let mut pairs: Vec<(String, &'static str)> = energy_api::EventType::ALL
        .iter()
        .flat_map(|t| t.versions().iter().map(|v| (t.as_str().to_owned(), *v)))
        .collect();
    // A fixed shuffle keeps runs comparable.
    streams::XorShift(0x9E37_79B9_7F4A_7C15).shuffle(&mut pairs);
    let len = pairs.len();
    let mut best = f64::MAX;
    for _ in 0..20 {
        let start = Instant::now();
        let mut found = 0usize;
        for _ in 0..ROUNDS {
            for (event_type, version) in &pairs {
                found +=
                    usize::from(EventKind::new(black_box(event_type), black_box(version)).is_ok());
            }
        }
        let elapsed = start.elapsed();
        assert_eq!(found, ROUNDS * len, "every pair dispatches");
        best = best.min(elapsed.as_nanos() as f64 / (ROUNDS * len) as f64);
    }
    println!("(type, version) dispatch, `EventKind::new` over {len} pairs: {best:.1} ns");
}

/// A payload of the catalogue with what reads and writes it, ours and the derived twin's, made once
/// (so that both sides pay the same one indirect call per payload), and its envelope.
struct Sides {
    kind: EventKind,
    event_type: String,
    every_optional: bool,
    /// See [`streams::Payload::untuned`].
    untuned: Option<usize>,
    text: String,
    envelope: String,
    ours_read: fn(&str) -> bool,
    twin_read: fn(&str) -> bool,
    twin_decode: fn(&[u8]) -> bool,
    /// The twin decoded by sonic-rs (SIMD JSON, serde-compatible): an anchor beside serde_json.
    twin_sonic: fn(&[u8]) -> bool,
    ours_write: Box<dyn Fn() -> usize>,
    twin_write: Box<dyn Fn() -> usize>,
}

fn read_json<T: serde::de::DeserializeOwned>(text: &str) -> bool {
    serde_json::from_str::<T>(text).is_ok()
}

fn decode_json<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> bool {
    serde_json::from_slice::<T>(bytes).is_ok()
}

fn decode_sonic<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> bool {
    sonic_rs::from_slice::<T>(bytes).is_ok()
}

/// Makes a payload's [`Sides`] from its generated type and its twin.
struct MakeSides<'t>(&'t str);

type SideFns = (
    fn(&str) -> bool,
    fn(&str) -> bool,
    fn(&[u8]) -> bool,
    fn(&[u8]) -> bool,
    Box<dyn Fn() -> usize>,
    Box<dyn Fn() -> usize>,
);

impl energy_twin::Pair for MakeSides<'_> {
    type Output = SideFns;
    fn pair<Ours: energy_twin::Type, Twin: energy_twin::Type>(self) -> SideFns {
        let ours: Ours = serde_json::from_str(self.0).expect("ours reads every payload");
        let twin: Twin = serde_json::from_str(self.0).expect("the twin reads every payload");
        (
            read_json::<Ours>,
            read_json::<Twin>,
            decode_json::<Twin>,
            decode_sonic::<Twin>,
            Box::new(move || serde_json::to_string(&ours).map_or(0, |s| s.len())),
            Box::new(move || serde_json::to_string(&twin).map_or(0, |s| s.len())),
        )
    }
}

/// Every sample and golden payload of the catalogue with its [`Sides`], then the payloads made for the
/// `untuned` stream ([`streams::untuned_payloads`]): members sorted (as `serde_json::Value` writes
/// them), or with `in-schema-order`, in the order of the schema (as the generated types and the
/// derived twin write them).
fn catalogue_sides() -> Vec<Sides> {
    let model = match energy_codegen::build_model(&energy_tests::schema_dir()) {
        Ok(model) => model,
        Err(failure) => panic!("{}", failure.render(false)),
    };
    let in_schema_order = std::env::args().any(|a| a == "in-schema-order");
    let catalogue = energy_tests::catalogue_payloads(&model)
        .into_iter()
        .map(|p| {
            let every_optional = p.label.ends_with("sample All");
            (p.event_type, p.version, every_optional, p.value, None)
        });
    let made = streams::untuned_payloads().into_iter().map(|m| {
        (
            m.event_type.to_owned(),
            m.version.to_owned(),
            m.every_optional,
            m.value,
            Some(m.index),
        )
    });
    catalogue
        .chain(made)
        .enumerate()
        .map(|(n, (event_type, version, every_optional, value, untuned))| {
            let kind = EventKind::new(&event_type, &version).expect("a known version");
            let written = value.to_string();
            // A made payload is checked here, where a wrong one names itself; the samples are
            // checked by the tests.
            let event = match kind.decode(written.as_bytes()) {
                Ok(event) => event,
                Err(e) => panic!("{event_type} {version}: {e}: {written}"),
            };
            let text = if in_schema_order {
                String::from_utf8(event.to_payload_json()).expect("UTF-8")
            } else {
                written
            };
            let envelope = format!(
                r#"{{"event_type":{},"version":{},"id":"evt-{n:06}","occurred_at":"2024-03-01T09:30:00Z","payload":{text}}}"#,
                json!(event_type),
                json!(version),
            );
            let (ours_read, twin_read, twin_decode, twin_sonic, ours_write, twin_write) =
                energy_twin::payload_pair(&event_type, &version, MakeSides(&text))
                    .expect("every version has a twin");
            Sides {
                kind,
                every_optional,
                untuned,
                event_type,
                text,
                envelope,
                ours_read,
                twin_read,
                twin_decode,
                twin_sonic,
                ours_write,
                twin_write,
            }
        })
        .collect()
}

/// The figures of the targets on one stream, each a ratio of times measured in one run.
#[derive(Default)]
struct Figures {
    read: Option<f64>,
    write: Option<f64>,
    fast_twin: Option<f64>,
    fast_value: Option<f64>,
    decode_value: Option<f64>,
    borrowed_floor: Option<f64>,
    fast_sonic: Option<f64>,
    read_sonic: Option<f64>,
}

/// A figure of [`Figures`].
type Figure = fn(&Figures) -> Option<f64>;

/// The rows of the summary: a name, its target (none for an anchor, reported only), and its figure.
const TARGETS: [(&str, Option<f64>, Figure); 8] = [
    ("read through serde / twin", Some(1.0), |f| f.read),
    ("write through serde / twin", Some(1.0), |f| f.write),
    ("`EventKind::decode` / twin", Some(1.5), |f| f.fast_twin),
    ("`EventKind::decode` / `Value`", Some(2.0), |f| f.fast_value),
    ("`Decoder::decode` / `Value`", Some(2.0), |f| f.decode_value),
    ("borrowed view / floor", Some(0.6), |f| f.borrowed_floor),
    ("`EventKind::decode` / sonic-rs twin", None, |f| {
        f.fast_sonic
    }),
    ("read through serde (ours) / sonic-rs twin", None, |f| {
        f.read_sonic
    }),
];

/// On each stream users send ([`streams`]), about `megabytes` long: reading and writing the payload
/// structs through serde, and `EventKind::decode`, against the derived twin (`energy-twin`: the same
/// types with serde's derives) and `serde_json::Value`; then the stream as envelopes, decoded by
/// `Decoder::decode` and its borrowed view against `Value` and the parse-only floor. Best of 9 rounds
/// each, the approaches interleaved in each round, so that a slow moment of the machine falls on all
/// of them. Ends with the targets' figures, a column per stream.
fn on_streams(megabytes: usize) {
    let distinct = catalogue_sides();
    let payloads = stream_payloads(&distinct);
    // `twin`, the word of this bench before it had streams, names the uniform ones.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .map(|a| if a == "twin" { "uniform".to_owned() } else { a })
        .filter(|a| streams::NAMES.contains(&a.as_str()))
        .collect();
    let mut summary = Vec::new();
    for stream in streams::streams(&payloads, megabytes << 20, &only) {
        let bytes: usize = stream.order.iter().map(|&i| distinct[i].text.len()).sum();
        println!(
            "\n### Stream `{}`: {}; {} payloads, {:.1} MB",
            stream.name,
            stream.about,
            stream.order.len(),
            bytes as f64 / f64::from(1 << 20)
        );
        let mut figures = against_twin(&distinct, &stream.order);
        let lines: Vec<String> = stream
            .order
            .iter()
            .map(|&i| distinct[i].envelope.clone())
            .collect();
        let decoder = Decoder::new().reject_unknown(true);
        let times = run_interleaved(
            vec![
                Approach::new(FLOOR, &lines, |l| {
                    serde_json::from_slice::<IgnoredAny>(l).is_ok()
                }),
                Approach::new(VALUE, &lines, |l| {
                    serde_json::from_slice::<serde_json::Value>(l).is_ok()
                }),
                Approach::new(OWNED, &lines, |l| decoder.decode(l).is_ok()),
                Approach::new(BORROWED, &lines, |l| decoder.decode_borrowed(l).is_ok()),
            ],
            9,
        );
        figures.decode_value = times.ratio(VALUE, OWNED);
        figures.borrowed_floor = times.ratio(FLOOR, BORROWED);
        summary.push((stream.name, figures));
    }
    println!("\n### The targets on every stream (ratios; target in brackets)\n");
    let mut header = "| target |".to_owned();
    let mut rule = "|---|".to_owned();
    for (name, _) in &summary {
        header += &format!(" {name} |");
        rule += "---|";
    }
    println!("{header}\n{rule}");
    for (target, at_least, figure) in TARGETS {
        let mut row = match at_least {
            Some(at_least) => format!("| {target} (≥ {at_least}) |"),
            None => format!("| {target} (anchor) |"),
        };
        for (_, figures) in &summary {
            row += &match (figure(figures), at_least) {
                (Some(f), Some(at_least)) if f < at_least => format!(" **{f:.2}** |"),
                (Some(f), _) => format!(" {f:.2} |"),
                (None, _) => " — |".to_owned(),
            };
        }
        println!("{row}");
    }
}

/// Reading and writing the payloads of `order` through serde, and `EventKind::decode`, against the
/// derived twin and `serde_json::Value`; the ratios of the targets.
fn against_twin(distinct: &[Sides], order: &[usize]) -> Figures {
    const READ_OURS: &str = "read, ours: `serde_json::from_str`";
    const READ_TWIN: &str = "read, derived twin: `serde_json::from_str`";
    const WRITE_OURS: &str = "write, ours: `serde_json::to_string`";
    const WRITE_TWIN: &str = "write, derived twin: `serde_json::to_string`";
    const DECODE_OURS: &str = "`EventKind::decode` (the fast reader)";
    const DECODE_TWIN: &str = "derived twin: `serde_json::from_slice`";
    const DECODE_VALUE: &str = "`serde_json::Value`: `serde_json::from_slice`";
    const DECODE_SONIC: &str = "derived twin: `sonic_rs::from_slice`";
    let each = |name, approach| over_payloads(name, distinct, order, approach);
    let times = run_interleaved(
        vec![
            each(READ_OURS, &|s| (s.ours_read)(black_box(&s.text))),
            each(READ_TWIN, &|s| (s.twin_read)(black_box(&s.text))),
            each(WRITE_OURS, &|s| (s.ours_write)() > 0),
            each(WRITE_TWIN, &|s| (s.twin_write)() > 0),
            each(DECODE_OURS, &|s| {
                s.kind.decode(black_box(s.text.as_bytes())).is_ok()
            }),
            each(DECODE_TWIN, &|s| {
                (s.twin_decode)(black_box(s.text.as_bytes()))
            }),
            each(DECODE_VALUE, &|s| {
                serde_json::from_slice::<serde_json::Value>(black_box(s.text.as_bytes())).is_ok()
            }),
            each(DECODE_SONIC, &|s| {
                (s.twin_sonic)(black_box(s.text.as_bytes()))
            }),
        ],
        9,
    );
    Figures {
        read: times.ratio(READ_TWIN, READ_OURS),
        write: times.ratio(WRITE_TWIN, WRITE_OURS),
        fast_twin: times.ratio(DECODE_TWIN, DECODE_OURS),
        fast_value: times.ratio(DECODE_VALUE, DECODE_OURS),
        fast_sonic: times.ratio(DECODE_SONIC, DECODE_OURS),
        read_sonic: times.ratio(DECODE_SONIC, READ_OURS),
        ..Figures::default()
    }
}

/// An approach of the twin's table: `approach` on the payloads of `order`, in turn.
fn over_payloads<'s>(
    name: &'static str,
    distinct: &'s [Sides],
    order: &'s [usize],
    approach: &'s dyn Fn(&Sides) -> bool,
) -> Approach<'s> {
    let bytes = order.iter().map(|&i| distinct[i].text.len()).sum::<usize>();
    Approach::timed(name, bytes, move || {
        let start = Instant::now();
        let mut ok = 0usize;
        for &i in order {
            ok += usize::from(approach(&distinct[i]));
        }
        let elapsed = start.elapsed();
        assert_eq!(ok, order.len(), "{name}: every payload is read and written");
        elapsed
    })
}

/// `--write-envelopes PATH`: the envelopes of the one stream named (its every-optional variant with
/// the word `every-optional`), one a line, as the decoders' passes read them, written to `PATH` for
/// other tools (a traffic profile made from the stream); nothing is measured.
fn write_envelopes(path: &std::path::Path) -> Result<(), String> {
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| streams::NAMES.contains(&a.as_str()))
        .collect();
    let [name] = only.as_slice() else {
        return Err(format!(
            "{WRITE_ENVELOPES} writes one stream: name one of {}",
            streams::NAMES.join(", ")
        ));
    };
    let wanted = if std::env::args().any(|a| a == EVERY_OPTIONAL) {
        format!("{name} {EVERY_OPTIONAL}")
    } else {
        name.clone()
    };
    let distinct = catalogue_sides();
    let payloads = stream_payloads(&distinct);
    let stream = streams::streams(&payloads, megabytes(20) << 20, &only)
        .into_iter()
        .find(|s| s.name == wanted)
        .ok_or_else(|| format!("no stream `{wanted}`"))?;
    let mut text = String::new();
    for &i in &stream.order {
        text.push_str(&distinct[i].envelope);
        text.push('\n');
    }
    std::fs::write(path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!(
        "wrote {} envelopes of stream `{}` ({}; {:.1} MB) to {}",
        stream.order.len(),
        stream.name,
        stream.about,
        text.len() as f64 / f64::from(1 << 20),
        path.display()
    );
    Ok(())
}

/// The word that picks a stream's every-optional variant for `--write-envelopes`.
const EVERY_OPTIONAL: &str = "every-optional";

/// The streams' view of the distinct payloads.
fn stream_payloads(distinct: &[Sides]) -> Vec<streams::Payload<'_>> {
    distinct
        .iter()
        .map(|s| {
            streams::Payload::new(
                &s.event_type,
                s.kind,
                s.text.len(),
                s.every_optional,
                s.untuned,
            )
        })
        .collect()
}

/// The streams `count` measures (not their every-optional variants).
const COUNTED_STREAMS: [&str; 6] = ["uniform", "zipf", "top3", "flat", "nested", "untuned"];

/// The size of each stream `count` measures: small, so that callgrind counts every path of every
/// stream in a few minutes.
const COUNT_KILOBYTES: usize = 1024;

/// `count`: each path of the targets once over each of [`COUNTED_STREAMS`], [`COUNT_KILOBYTES`] long,
/// untimed, for callgrind (`cargo xtask bench --check`): a pass warms the path (its first calls set
/// things up), then [`counted_pass`] runs it again, named on the standard output before it
/// (`counted: STREAM PATH`), in the order of callgrind's dumps.
fn count_paths() {
    let distinct = catalogue_sides();
    let payloads = stream_payloads(&distinct);
    let only: Vec<String> = COUNTED_STREAMS.iter().map(|s| (*s).to_owned()).collect();
    let decoder = Decoder::new().reject_unknown(true);
    for stream in streams::streams(&payloads, COUNT_KILOBYTES << 10, &only) {
        if !COUNTED_STREAMS.contains(&stream.name.as_str()) {
            continue;
        }
        let sides: Vec<&Sides> = stream.order.iter().map(|&i| &distinct[i]).collect();
        let texts = Aligned::new(sides.iter().map(|s| s.text.as_str()));
        let lines = Aligned::new(sides.iter().map(|s| s.envelope.as_str()));
        let each = || sides.iter().enumerate();
        let paths: [(&str, &dyn Fn() -> usize); 5] = [
            ("read-serde", &|| {
                each()
                    .filter(|(i, s)| (s.ours_read)(black_box(texts.get(*i))))
                    .count()
            }),
            ("write-serde", &|| {
                sides.iter().filter(|s| (s.ours_write)() > 0).count()
            }),
            ("EventKind::decode", &|| {
                each()
                    .filter(|(i, s)| s.kind.decode(black_box(texts.get(*i).as_bytes())).is_ok())
                    .count()
            }),
            ("Decoder::decode", &|| {
                (0..sides.len())
                    .filter(|&i| decoder.decode(black_box(lines.get(i).as_bytes())).is_ok())
                    .count()
            }),
            ("Decoder::decode_borrowed", &|| {
                (0..sides.len())
                    .filter(|&i| {
                        decoder
                            .decode_borrowed(black_box(lines.get(i).as_bytes()))
                            .is_ok()
                    })
                    .count()
            }),
        ];
        for (path, pass) in paths {
            let name = &stream.name;
            assert_eq!(pass(), sides.len(), "{path}: every payload of {name}");
            println!("counted: {name} {path}");
            assert_eq!(counted_pass(pass), sides.len(), "{path} on {name}");
        }
    }
}

/// Texts copied into one buffer, each starting at a multiple of 64 bytes in memory. A pass's count
/// then does not depend on where the allocator put them: the UTF-8 check and the searches for bytes
/// take other paths at other alignments, and the setup allocates in an order that changes between
/// runs (it iterates hash maps), which moved counts by up to 0.26 %.
struct Aligned {
    buffer: String,
    ranges: Vec<std::ops::Range<usize>>,
}

impl Aligned {
    fn new<'t>(texts: impl Iterator<Item = &'t str> + Clone) -> Aligned {
        const LINE: usize = 64;
        // Room for every text and its padding, so that the buffer never moves.
        let room: usize = texts.clone().map(|t| t.len() + LINE).sum();
        let mut buffer = String::with_capacity(room + LINE);
        let mut ranges = Vec::new();
        for text in texts {
            while !(buffer.as_ptr() as usize + buffer.len()).is_multiple_of(LINE) {
                buffer.push(' ');
            }
            ranges.push(buffer.len()..buffer.len() + text.len());
            buffer.push_str(text);
        }
        assert!(buffer.len() <= room + LINE, "the buffer did not move");
        Aligned { buffer, ranges }
    }

    fn get(&self, i: usize) -> &str {
        &self.buffer[self.ranges[i].clone()]
    }
}

/// One pass of a path, which callgrind counts alone (`--toggle-collect='*counted_pass*'`,
/// `--dump-after=event_decoding::counted_pass`); never inlined, so that it keeps its name.
#[inline(never)]
fn counted_pass(pass: &dyn Fn() -> usize) -> usize {
    black_box(pass())
}

fn main() -> std::process::ExitCode {
    if std::env::args().any(|a| a == "count") {
        count_paths();
        return std::process::ExitCode::SUCCESS;
    }
    match envelopes_file() {
        Ok(Some(path)) => {
            return match write_envelopes(&path) {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e}");
                    std::process::ExitCode::from(2)
                }
            };
        }
        Ok(None) => {}
        Err(e) => {
            eprintln!("error: {e}");
            return std::process::ExitCode::from(2);
        }
    }
    if std::env::args().any(|a| a == "streams" || a == "twin") {
        on_streams(megabytes(20));
        return std::process::ExitCode::SUCCESS;
    }
    decode_stream();
    if words().is_empty() {
        on_streams(20);
    }
    std::process::ExitCode::SUCCESS
}

/// The stream of envelopes, by approach, and the dispatch.
fn decode_stream() {
    dispatch();
    let megabytes = megabytes(50);
    let lines = stream(megabytes, false);
    let payload_first = stream(megabytes, true);
    let average = lines.iter().map(String::len).sum::<usize>() / lines.len();
    println!(
        "{} lines, {megabytes} MB, {average} bytes a line on average",
        lines.len()
    );
    let decoder = Decoder::new().reject_unknown(true);
    let strict = Decoder::new().reject_unknown(true).strict(true);
    let times = run_interleaved(
        vec![
            Approach::new(FLOOR, &lines, |l| {
                serde_json::from_slice::<IgnoredAny>(l).is_ok()
            }),
            Approach::new("envelope with the payload as `&RawValue`", &lines, |l| {
                serde_json::from_slice::<RawEnvelope<'_>>(l).is_ok()
            }),
            Approach::new(VALUE, &lines, |l| {
                serde_json::from_slice::<serde_json::Value>(l).is_ok()
            }),
            Approach::new(
                "two passes: `&RawValue` envelope, then `EventKind::decode`",
                &lines,
                |l| two_passes(l, |kind, payload| kind.decode(payload).is_ok()),
            ),
            Approach::new("`Decoder::validate` (one pass)", &lines, |l| {
                decoder.validate(l).is_ok()
            }),
            Approach::new(OWNED, &lines, |l| decoder.decode(l).is_ok()),
            Approach::new(BORROWED, &lines, |l| decoder.decode_borrowed(l).is_ok()),
            Approach::new(
                "two passes: `&RawValue` envelope, then `EventRef::decode`",
                &lines,
                |l| two_passes(l, |kind, payload| kind.decode_borrowed(payload).is_ok()),
            ),
            Approach::new("`Decoder::validate`, strict", &lines, |l| {
                strict.validate(l).is_ok()
            }),
            Approach::new(
                "`Decoder::validate`, payload before type and version",
                &payload_first,
                |l| decoder.validate(l).is_ok(),
            ),
        ],
        7,
    );
    // The ratios of the targets, measured in this process.
    for (name, approach) in [("owned decode", OWNED), ("borrowed decode", BORROWED)] {
        if let (Some(time), Some(value), Some(floor)) =
            (times.of(approach), times.of(VALUE), times.of(FLOOR))
        {
            println!(
                "{name}: {:.2}x `Value`, {:.2}x the floor",
                value.as_secs_f64() / time.as_secs_f64(),
                floor.as_secs_f64() / time.as_secs_f64()
            );
        }
    }
}

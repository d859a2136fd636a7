//! The streams users send, cut from the catalogue's payloads: uniform over every payload (the golden
//! mix), skewed as real traffic is (a Zipf distribution over event types, and three types making 80 %),
//! flat (payloads without a nested struct) and nested (payloads with structs in structs or arrays of
//! structs); each also with only the payloads that carry every optional field (free-form objects and
//! fractional numbers inside). Drawn with a fixed seed, so that every run measures the same stream.
//!
//! And `untuned`, traffic shaped like no sample the code was tuned on: payloads made from each
//! version's table ([`untuned_payloads`]), uniform over every version.

use energy_api::EventKind;
use energy_api_core::table::{Shape, StructTable};

/// A payload as the streams see it: its event type, its size, and what it carries.
pub struct Payload<'p> {
    /// Its event type.
    pub event_type: &'p str,
    /// The bytes of its text.
    pub len: usize,
    /// Whether it is a sample with every optional field present.
    pub every_optional: bool,
    /// Whether its struct holds a struct (in a field, an array, a map or an option).
    pub nested: bool,
    /// For a payload made for the `untuned` stream, its version's index among every version (such
    /// payloads are in no other stream).
    pub untuned: Option<usize>,
}

impl<'p> Payload<'p> {
    /// A payload of `kind`, `len` bytes long; `untuned` as [`Payload::untuned`].
    pub fn new(
        event_type: &'p str,
        kind: EventKind,
        len: usize,
        every_optional: bool,
        untuned: Option<usize>,
    ) -> Self {
        Payload {
            event_type,
            len,
            every_optional,
            nested: kind.table().shapes.iter().any(holds_struct),
            untuned,
        }
    }
}

fn holds_struct(shape: &Shape) -> bool {
    match shape {
        Shape::Struct(_) => true,
        Shape::Array(inner) | Shape::Map(inner) | Shape::Optional(inner) => holds_struct(inner),
        _ => false,
    }
}

/// One stream: its name, and the payloads it sends, by index, in order.
pub struct Stream {
    /// `uniform`, `zipf`, `top3`, `flat`, `nested`; with ` every-optional` after it for the variant.
    pub name: String,
    /// Indices into the payloads it was cut from.
    pub order: Vec<usize>,
    /// A line saying how the stream is made (which types are hot).
    pub about: String,
}

/// The streams' names, as the command line gives them to run only those.
pub const NAMES: [&str; 6] = ["uniform", "zipf", "top3", "flat", "nested", "untuned"];

/// The exponent of the Zipf distribution over event types (real traffic: s ≈ 1.1).
const ZIPF_EXPONENT: f64 = 1.1;
/// The share of the three hot types in the `top3` stream.
const TOP3_SHARE: f64 = 0.8;

/// The streams named in `only` (all when empty), each about `bytes` long.
pub fn streams(payloads: &[Payload<'_>], bytes: usize, only: &[String]) -> Vec<Stream> {
    // Event types ranked by a fixed shuffle: which types are hot is the seed's choice, not the
    // catalogue's alphabet.
    let mut types: Vec<&str> = payloads
        .iter()
        .filter(|p| p.untuned.is_none())
        .map(|p| p.event_type)
        .collect();
    types.sort_unstable();
    types.dedup();
    XorShift(0x2545_F491_4F6C_DD1D).shuffle(&mut types);
    let mut out = Vec::new();
    for every_optional in [false, true] {
        let suffix = if every_optional {
            " every-optional"
        } else {
            ""
        };
        let members: Vec<usize> = (0..payloads.len())
            .filter(|&i| payloads[i].untuned.is_none())
            .filter(|&i| !every_optional || payloads[i].every_optional)
            .collect();
        let wanted = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
        if wanted("uniform") {
            out.push(cycled(
                format!("uniform{suffix}"),
                payloads,
                &members,
                bytes,
                "every payload in turn".to_owned(),
            ));
        }
        if wanted("zipf") {
            let weight = |rank: usize| 1.0 / ((rank + 1) as f64).powf(ZIPF_EXPONENT);
            let hot = types[..3].join(", ");
            out.push(drawn(
                format!("zipf{suffix}"),
                payloads,
                &members,
                &types,
                weight,
                bytes,
                format!(
                    "Zipf s = {ZIPF_EXPONENT} over {} types; hottest: {hot}",
                    types.len()
                ),
            ));
        }
        if wanted("top3") {
            let rest = (types.len() - 3) as f64;
            let weight = |rank: usize| {
                if rank < 3 {
                    TOP3_SHARE / 3.0
                } else {
                    (1.0 - TOP3_SHARE) / rest
                }
            };
            out.push(drawn(
                format!("top3{suffix}"),
                payloads,
                &members,
                &types,
                weight,
                bytes,
                format!("80 % from {}", types[..3].join(", ")),
            ));
        }
        for (name, nested) in [("flat", false), ("nested", true)] {
            if wanted(name) {
                let subset: Vec<usize> = members
                    .iter()
                    .copied()
                    .filter(|&i| payloads[i].nested == nested)
                    .collect();
                out.push(cycled(
                    format!("{name}{suffix}"),
                    payloads,
                    &subset,
                    bytes,
                    format!(
                        "payloads {} a nested struct, in turn",
                        if nested { "with" } else { "without" }
                    ),
                ));
            }
        }
    }
    // Half of its payloads carry every optional field already: no variant.
    if only.is_empty() || only.iter().any(|o| o == "untuned") {
        out.push(untuned(payloads, bytes));
    }
    out
}

/// `members` in turn, repeated to `bytes`.
fn cycled(
    name: String,
    payloads: &[Payload<'_>],
    members: &[usize],
    bytes: usize,
    about: String,
) -> Stream {
    let per_cycle: usize = members.iter().map(|&i| payloads[i].len).sum();
    let cycles = bytes.div_ceil(per_cycle.max(1));
    let order = members
        .iter()
        .copied()
        .cycle()
        .take(members.len() * cycles)
        .collect();
    Stream {
        about: format!("{about}: {} distinct payloads", members.len()),
        name,
        order,
    }
}

/// Payloads drawn to `bytes`: an event type by the weight of its rank in `types`, then one of that
/// type's `members`, uniformly.
fn drawn(
    name: String,
    payloads: &[Payload<'_>],
    members: &[usize],
    types: &[&str],
    weight: impl Fn(usize) -> f64,
    bytes: usize,
    about: String,
) -> Stream {
    let by_type: Vec<Vec<usize>> = types
        .iter()
        .map(|t| {
            members
                .iter()
                .copied()
                .filter(|&i| payloads[i].event_type == *t)
                .collect()
        })
        .collect();
    // Cumulative weights of the types that have payloads in this stream.
    let mut cumulative = Vec::new();
    let mut total = 0.0;
    for (rank, of_type) in by_type.iter().enumerate() {
        if !of_type.is_empty() {
            total += weight(rank);
        }
        cumulative.push(total);
    }
    let mut random = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut order = Vec::new();
    let mut sent = 0;
    while sent < bytes {
        let at = random.unit() * total;
        let rank = cumulative
            .partition_point(|&c| c <= at)
            .min(types.len() - 1);
        let of_type = &by_type[rank];
        if of_type.is_empty() {
            continue;
        }
        let i = of_type[random.below(of_type.len())];
        sent += payloads[i].len;
        order.push(i);
    }
    Stream { name, order, about }
}

/// The `untuned` stream: a version drawn uniformly from every version, then one of the payloads made
/// for it, to `bytes`.
fn untuned(payloads: &[Payload<'_>], bytes: usize) -> Stream {
    let mut by_version: Vec<Vec<usize>> = Vec::new();
    for (i, p) in payloads.iter().enumerate() {
        if let Some(v) = p.untuned {
            if by_version.len() <= v {
                by_version.resize(v + 1, Vec::new());
            }
            by_version[v].push(i);
        }
    }
    let mut random = XorShift(0xD1B5_4A32_D192_ED03);
    let mut order = Vec::new();
    let mut sent = 0;
    while sent < bytes && !by_version.is_empty() {
        let of_version = &by_version[random.below(by_version.len())];
        let i = of_version[random.below(of_version.len())];
        sent += payloads[i].len;
        order.push(i);
    }
    Stream {
        name: "untuned".to_owned(),
        order,
        about: format!(
            "uniform over {} versions, payloads made from their tables ({} distinct)",
            by_version.len(),
            by_version.iter().map(Vec::len).sum::<usize>()
        ),
    }
}

/// A payload made for the `untuned` stream.
pub struct Made {
    /// Its event type.
    pub event_type: &'static str,
    /// Its version's label.
    pub version: &'static str,
    /// Its version's index among every version (see [`Payload::untuned`]).
    pub index: usize,
    /// Whether every optional field is present (else each is, with probability one half).
    pub every_optional: bool,
    /// The payload.
    pub value: serde_json::Value,
}

/// How many payloads are made for each version: half with every optional field.
const MADE_PER_VERSION: usize = 4;

/// Payloads for every version of the catalogue made from its table (seeded, so every run makes the
/// same): half with every optional field, half with each optional field present with probability one
/// half; a fifth of the strings ISO 8601 date-times, the rest short identifiers; integers from -5 to
/// 100,000; numbers with four decimals, negative and positive; free-form objects holding a nested
/// array. Traffic no sample was written for, so no path is tuned to it.
pub fn untuned_payloads() -> Vec<Made> {
    let mut random = XorShift(0xA076_1D64_78BD_642F);
    let mut out = Vec::new();
    let kinds = energy_api::EventType::ALL
        .iter()
        .flat_map(|t| t.versions().iter().map(move |v| (t.as_str(), *v)));
    for (index, (event_type, version)) in kinds.enumerate() {
        let kind = EventKind::new(event_type, version).expect("a version of the catalogue");
        for n in 0..MADE_PER_VERSION {
            let every_optional = n % 2 == 0;
            let value = made_struct(kind.table(), every_optional, &mut random);
            out.push(Made {
                event_type,
                version,
                index,
                every_optional,
                value,
            });
        }
    }
    out
}

fn made_struct(
    table: &StructTable,
    every_optional: bool,
    random: &mut XorShift,
) -> serde_json::Value {
    let mut members = serde_json::Map::new();
    for (name, shape) in table.fields.iter().zip(table.shapes) {
        let value = match shape {
            Shape::Optional(inner) => {
                if every_optional || random.below(2) == 0 {
                    made(inner, every_optional, random)
                } else {
                    continue;
                }
            }
            _ => made(shape, every_optional, random),
        };
        members.insert((*name).to_owned(), value);
    }
    serde_json::Value::Object(members)
}

fn made(shape: &Shape, every_optional: bool, random: &mut XorShift) -> serde_json::Value {
    use serde_json::Value;
    match shape {
        Shape::Str if random.below(5) == 0 => Value::String(date_time(random)),
        Shape::Str => Value::String(identifier(random)),
        Shape::Timestamp => Value::String(date_time(random)),
        Shape::Int => Value::from(random.below(100_006) as i64 - 5),
        Shape::Num => Value::from(number(random)),
        Shape::Bool => Value::Bool(random.below(2) == 0),
        Shape::Obj => {
            let nested = vec![
                Value::from(random.below(100_006) as i64 - 5),
                Value::String(identifier(random)),
                Value::from(number(random)),
            ];
            serde_json::json!({
                "source": identifier(random),
                "at": date_time(random),
                "readings": nested,
            })
        }
        Shape::Array(inner) => Value::Array(
            (0..1 + random.below(3))
                .map(|_| made(inner, every_optional, random))
                .collect(),
        ),
        Shape::Map(inner) => Value::Object(
            (0..1 + random.below(3))
                .map(|_| (identifier(random), made(inner, every_optional, random)))
                .collect(),
        ),
        Shape::Struct(table) => made_struct(table, every_optional, random),
        // A value of an optional shape inside an array or a map: present.
        Shape::Optional(inner) => made(inner, every_optional, random),
    }
}

/// An RFC 3339 date-time (a valid ISO 8601 one) between 2000 and 2039, in UTC or with an offset.
fn date_time(random: &mut XorShift) -> String {
    let offset = match random.below(3) {
        0 => "Z".to_owned(),
        1 => format!("+{:02}:00", 1 + random.below(12)),
        _ => format!("-{:02}:30", 1 + random.below(9)),
    };
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{offset}",
        2000 + random.below(40),
        1 + random.below(12),
        1 + random.below(28),
        random.below(24),
        random.below(60),
        random.below(60)
    )
}

/// A short identifier: a letter or two, a dash, and up to 10 hexadecimal digits.
fn identifier(random: &mut XorShift) -> String {
    const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
    let mut id = String::new();
    for _ in 0..1 + random.below(2) {
        id.push(char::from(LETTERS[random.below(LETTERS.len())]));
    }
    let digits = 1 + random.below(10);
    format!(
        "{id}-{:0digits$x}",
        random.next() >> (64 - 4 * digits as u32)
    )
}

/// A number with four decimals, negative or positive, up to 100,000 in size.
fn number(random: &mut XorShift) -> f64 {
    let ten_thousandths = random.below(2_000_000_001) as i64 - 1_000_000_000;
    ten_thousandths as f64 / 10_000.0
}

/// A fixed sequence of pseudo-random numbers (xorshift64): the bench's every draw and shuffle, so that
/// runs compare.
pub struct XorShift(pub u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// `items` in a fixed order (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }

    /// A number in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

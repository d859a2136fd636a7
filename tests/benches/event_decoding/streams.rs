//! The streams users send, cut from the catalogue's payloads: uniform over every payload (the golden
//! mix), skewed as real traffic is (a Zipf distribution over event types, and three types making 80 %),
//! flat (payloads without a nested struct) and nested (payloads with structs in structs or arrays of
//! structs); each also with only the payloads that carry every optional field (free-form objects and
//! fractional numbers inside). Drawn with a fixed seed, so that every run measures the same stream.

use energy_api::EventKind;
use energy_api_core::table::Shape;

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
}

impl<'p> Payload<'p> {
    /// A payload of `kind`, `len` bytes long.
    pub fn new(event_type: &'p str, kind: EventKind, len: usize, every_optional: bool) -> Self {
        Payload {
            event_type,
            len,
            every_optional,
            nested: kind.table().shapes.iter().any(holds_struct),
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
pub const NAMES: [&str; 5] = ["uniform", "zipf", "top3", "flat", "nested"];

/// The exponent of the Zipf distribution over event types (real traffic: s ≈ 1.1).
const ZIPF_EXPONENT: f64 = 1.1;
/// The share of the three hot types in the `top3` stream.
const TOP3_SHARE: f64 = 0.8;

/// The streams named in `only` (all when empty), each about `megabytes` long.
pub fn streams(payloads: &[Payload<'_>], megabytes: usize, only: &[String]) -> Vec<Stream> {
    let bytes = megabytes << 20;
    // Event types ranked by a fixed shuffle: which types are hot is the seed's choice, not the
    // catalogue's alphabet.
    let mut types: Vec<&str> = payloads.iter().map(|p| p.event_type).collect();
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

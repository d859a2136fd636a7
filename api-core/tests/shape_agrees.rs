//! The shape checker accepts exactly what the `Deserialize` impls of `deserialize_struct!` accept, and the
//! table-driven reader (`energy_api_core::table`, through `table_struct!`) decodes exactly what they
//! decode, to the same values, with the same errors (message, line, column): all are run on every
//! mutation of valid payloads (each value replaced by values of every JSON type and by
//! numbers at the edges of `i64`/`f64`, each member removed, repeated, or joined by an unknown one), and
//! on arbitrary JSON, and must give the same verdict. The borrowed views' decoding (strings and free-form
//! objects pointing into the input) must give it too. The fast reader (`energy_api_core::read`) may stop
//! where these decode, but must never read what they refuse, and reads every valid sample.

use energy_api_core::deserialize_struct;
use energy_api_core::read::{ReadJson, Reader};
use energy_api_core::shape::{Shape, StructShape, check_struct};
use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

#[derive(Debug)]
#[allow(dead_code, reason = "only decoded")]
struct Account {
    number: String,
}
deserialize_struct!(Account, "struct Account", [(0, required, number, "number")]);
static ACCOUNT: StructShape = StructShape {
    name: "struct Account",
    aliases: &[],
    fields: &["number"],
    shapes: &[Shape::Str],
    required: &[true],
    keep_unlisted: false,
};

#[derive(Debug)]
#[allow(dead_code, reason = "only decoded")]
struct Ledger {
    account: Account,
    number: String,
    id: Option<String>,
}
deserialize_struct!(
    Ledger,
    "struct Ledger",
    [
        (0, required, account, "account"),
        (1, required, number, "number"),
        (2, optional, id, "id")
    ]
);
static LEDGER: StructShape = StructShape {
    name: "struct Ledger",
    aliases: &[],
    fields: &["account", "number", "id"],
    shapes: &[
        Shape::Struct(&ACCOUNT),
        Shape::Str,
        Shape::Optional(&Shape::Str),
    ],
    required: &[true, true, false],
    keep_unlisted: false,
};

#[derive(Debug)]
#[allow(dead_code, reason = "only decoded")]
struct Entry {
    id: i64,
    amount: f64,
    is_charge: bool,
    flags: Vec<bool>,
    changes: Map<String, Value>,
    ledgers: Option<Vec<Ledger>>,
    r#type: Option<i64>,
}
deserialize_struct!(
    Entry,
    "struct Entry",
    [
        (0, required, id, "id"),
        (1, required, amount, "amount"),
        (2, required, is_charge, "is_charge"),
        (3, required, flags, "flags"),
        (4, required, changes, "changes"),
        (5, optional, ledgers, "ledgers"),
        (6, optional, r#type, "type"),
    ]
);
static ENTRY: StructShape = StructShape {
    name: "struct Entry",
    aliases: &[],
    fields: &[
        "id",
        "amount",
        "is_charge",
        "flags",
        "changes",
        "ledgers",
        "type",
    ],
    shapes: &[
        Shape::Int,
        Shape::Num,
        Shape::Bool,
        Shape::Array(&Shape::Bool),
        Shape::Obj,
        Shape::Optional(&Shape::Array(&Shape::Struct(&LEDGER))),
        Shape::Optional(&Shape::Int),
    ],
    required: &[true, true, true, true, true, false, false],
    keep_unlisted: false,
};

#[derive(Debug)]
#[allow(dead_code, reason = "only decoded")]
struct Renamed {
    account_id: String,
    note: Option<String>,
}
deserialize_struct!(
    Renamed,
    "struct Renamed",
    [
        (0, required, account_id, "account_id"),
        (1, optional, note, "note")
    ],
    aliases[("account_number", 0)]
);
static RENAMED: StructShape = StructShape {
    name: "struct Renamed",
    aliases: &[("account_number", 0)],
    fields: &["account_id", "note"],
    shapes: &[Shape::Str, Shape::Optional(&Shape::Str)],
    required: &[true, false],
    keep_unlisted: false,
};

#[derive(Debug)]
#[allow(dead_code, reason = "only decoded")]
struct Priced {
    tariffs: std::collections::BTreeMap<String, std::collections::BTreeMap<String, Account>>,
    quotes: Option<std::collections::BTreeMap<String, i64>>,
}
deserialize_struct!(
    Priced,
    "struct Priced",
    [
        (0, required, tariffs, "tariffs"),
        (1, optional, quotes, "quotes")
    ]
);
static PRICED: StructShape = StructShape {
    name: "struct Priced",
    aliases: &[],
    fields: &["tariffs", "quotes"],
    shapes: &[
        Shape::Map(&Shape::Map(&Shape::Struct(&ACCOUNT))),
        Shape::Optional(&Shape::Map(&Shape::Int)),
    ],
    required: &[true, false],
    keep_unlisted: false,
};

#[derive(Debug)]
#[allow(dead_code, reason = "only decoded")]
struct Kept {
    mprn: String,
    additional_fields: energy_api_core::Unlisted,
}
deserialize_struct!(Kept, "struct Kept", [(0, required, mprn, "mprn")], keep_unlisted_in additional_fields);
static KEPT: StructShape = StructShape {
    name: "struct Kept",
    aliases: &[],
    fields: &["mprn"],
    shapes: &[Shape::Str],
    required: &[true],
    keep_unlisted: true,
};

/// Borrowed twins of the structs above, as a generated crate's `borrowed` views write them: strings and
/// free-form objects point into the input. They must accept exactly what the owned structs accept.
mod borrowed {
    use energy_api_core::{CowStr, RawObject, Unlisted, deserialize_struct};
    use std::collections::BTreeMap;

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Account<'a> {
        number: CowStr<'a>,
    }
    deserialize_struct!(
        Account<'a>,
        "struct Account",
        [(0, required, number, "number")]
    );

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Ledger<'a> {
        account: Account<'a>,
        number: CowStr<'a>,
        id: Option<CowStr<'a>>,
    }
    deserialize_struct!(
        Ledger<'a>,
        "struct Ledger",
        [
            (0, required, account, "account"),
            (1, required, number, "number"),
            (2, optional, id, "id")
        ]
    );

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Entry<'a> {
        id: i64,
        amount: f64,
        is_charge: bool,
        flags: Vec<bool>,
        changes: RawObject<'a>,
        ledgers: Option<Vec<Ledger<'a>>>,
        r#type: Option<i64>,
    }
    deserialize_struct!(
        Entry<'a>,
        "struct Entry",
        [
            (0, required, id, "id"),
            (1, required, amount, "amount"),
            (2, required, is_charge, "is_charge"),
            (3, required, flags, "flags"),
            (4, required, changes, "changes"),
            (5, optional, ledgers, "ledgers"),
            (6, optional, r#type, "type"),
        ]
    );

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Renamed<'a> {
        account_id: CowStr<'a>,
        note: Option<CowStr<'a>>,
    }
    deserialize_struct!(
        Renamed<'a>,
        "struct Renamed",
        [
            (0, required, account_id, "account_id"),
            (1, optional, note, "note")
        ],
        aliases[("account_number", 0)]
    );

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Priced<'a> {
        tariffs: BTreeMap<CowStr<'a>, BTreeMap<CowStr<'a>, Account<'a>>>,
        quotes: Option<BTreeMap<CowStr<'a>, i64>>,
    }
    deserialize_struct!(
        Priced<'a>,
        "struct Priced",
        [
            (0, required, tariffs, "tariffs"),
            (1, optional, quotes, "quotes")
        ]
    );

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Kept<'a> {
        mprn: CowStr<'a>,
        additional_fields: Unlisted,
    }
    deserialize_struct!(Kept<'a>, "struct Kept", [(0, required, mprn, "mprn")], keep_unlisted_in additional_fields);
}

/// The same structs read by their tables (what the generator writes for payload types): owned, then
/// borrowed. Named as the reference structs, so that their `Debug` texts compare.
mod table {
    use energy_api_core::table_struct;
    use serde_json::{Map, Value};

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Account {
        number: String,
    }
    table_struct!(Account, super::ACCOUNT, Owned, [number]);

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Ledger {
        account: Account,
        number: String,
        id: Option<String>,
    }
    table_struct!(Ledger, super::LEDGER, Owned, [account, number, id]);

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Entry {
        id: i64,
        amount: f64,
        is_charge: bool,
        flags: Vec<bool>,
        changes: Map<String, Value>,
        ledgers: Option<Vec<Ledger>>,
        r#type: Option<i64>,
    }
    table_struct!(Entry, super::ENTRY, Owned, [id, amount, is_charge, flags, changes, ledgers, r#type]);

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Renamed {
        account_id: String,
        note: Option<String>,
    }
    table_struct!(Renamed, super::RENAMED, Owned, [account_id, note]);

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Priced {
        tariffs: std::collections::BTreeMap<String, std::collections::BTreeMap<String, Account>>,
        quotes: Option<std::collections::BTreeMap<String, i64>>,
    }
    table_struct!(Priced, super::PRICED, Owned, [tariffs, quotes]);

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Kept {
        mprn: String,
        additional_fields: energy_api_core::Unlisted,
    }
    table_struct!(Kept, super::KEPT, Owned, [mprn], keep_unlisted_in additional_fields);

    pub mod borrowed {
        use energy_api_core::{CowStr, RawObject, Unlisted, table_struct};
        use std::collections::BTreeMap;

        #[derive(Debug)]
        #[allow(dead_code, reason = "only decoded")]
        pub struct Account<'a> {
            number: CowStr<'a>,
        }
        table_struct!(Account<'a>, super::super::ACCOUNT, Borrowed, [number]);

        #[derive(Debug)]
        #[allow(dead_code, reason = "only decoded")]
        pub struct Ledger<'a> {
            account: Account<'a>,
            number: CowStr<'a>,
            id: Option<CowStr<'a>>,
        }
        table_struct!(Ledger<'a>, super::super::LEDGER, Borrowed, [account, number, id]);

        #[derive(Debug)]
        #[allow(dead_code, reason = "only decoded")]
        pub struct Entry<'a> {
            id: i64,
            amount: f64,
            is_charge: bool,
            flags: Vec<bool>,
            changes: RawObject<'a>,
            ledgers: Option<Vec<Ledger<'a>>>,
            r#type: Option<i64>,
        }
        table_struct!(Entry<'a>, super::super::ENTRY, Borrowed, [id, amount, is_charge, flags, changes, ledgers, r#type]);

        #[derive(Debug)]
        #[allow(dead_code, reason = "only decoded")]
        pub struct Renamed<'a> {
            account_id: CowStr<'a>,
            note: Option<CowStr<'a>>,
        }
        table_struct!(Renamed<'a>, super::super::RENAMED, Borrowed, [account_id, note]);

        #[derive(Debug)]
        #[allow(dead_code, reason = "only decoded")]
        pub struct Priced<'a> {
            tariffs: BTreeMap<CowStr<'a>, BTreeMap<CowStr<'a>, Account<'a>>>,
            quotes: Option<BTreeMap<CowStr<'a>, i64>>,
        }
        table_struct!(Priced<'a>, super::super::PRICED, Borrowed, [tariffs, quotes]);

        #[derive(Debug)]
        #[allow(dead_code, reason = "only decoded")]
        pub struct Kept<'a> {
            mprn: CowStr<'a>,
            additional_fields: Unlisted,
        }
        table_struct!(Kept<'a>, super::super::KEPT, Borrowed, [mprn], keep_unlisted_in additional_fields);
    }
}

/// The reference decode and the table's of `json`, as `Debug` texts or error messages (with their
/// line and column), and the fast reader's of the table struct when it reads: they must agree.
fn table_agrees<'a, R, T>(name: &str, json: &'a str)
where
    R: serde::Deserialize<'a> + std::fmt::Debug,
    T: serde::Deserialize<'a> + ReadJson<'a> + std::fmt::Debug,
{
    let reference = serde_json::from_str::<R>(json).map(|v| format!("{v:?}")).map_err(|e| e.to_string());
    let table = serde_json::from_str::<T>(json).map(|v| format!("{v:?}")).map_err(|e| e.to_string());
    assert_eq!(reference, table, "{name}: {json}");
    if let Ok(fast) = Reader::read_all::<T>(json) {
        assert_eq!(Ok(format!("{fast:?}")), reference, "{name}, the fast reader: {json}");
    }
}

fn assert_tables_agree(json: &str) {
    table_agrees::<Account, table::Account>("Account", json);
    table_agrees::<Ledger, table::Ledger>("Ledger", json);
    table_agrees::<Entry, table::Entry>("Entry", json);
    table_agrees::<Renamed, table::Renamed>("Renamed", json);
    table_agrees::<Priced, table::Priced>("Priced", json);
    table_agrees::<Kept, table::Kept>("Kept", json);
    table_agrees::<borrowed::Account<'_>, table::borrowed::Account<'_>>("borrowed Account", json);
    table_agrees::<borrowed::Ledger<'_>, table::borrowed::Ledger<'_>>("borrowed Ledger", json);
    table_agrees::<borrowed::Entry<'_>, table::borrowed::Entry<'_>>("borrowed Entry", json);
    table_agrees::<borrowed::Renamed<'_>, table::borrowed::Renamed<'_>>("borrowed Renamed", json);
    table_agrees::<borrowed::Priced<'_>, table::borrowed::Priced<'_>>("borrowed Priced", json);
    table_agrees::<borrowed::Kept<'_>, table::borrowed::Kept<'_>>("borrowed Kept", json);
}

/// Whether the borrowed twin decodes `json`.
fn borrowed_decodes<'a, T: serde::Deserialize<'a>>(json: &'a str) -> bool {
    serde_json::from_str::<T>(json).is_ok()
}

/// The verdicts of decoding and of checking `json`, which must be equal.
fn verdicts<T: DeserializeOwned>(shape: &'static StructShape, json: &str) -> (bool, bool) {
    let decoded = serde_json::from_str::<T>(json).is_ok();
    let mut de = serde_json::Deserializer::from_str(json);
    let checked = check_struct(shape, &mut de).and_then(|()| de.end()).is_ok();
    (decoded, checked)
}

/// Whether the fast reader reads `json` as `T`.
fn fast_reads<'a, T: ReadJson<'a>>(json: &'a str) -> bool {
    Reader::read_all::<T>(json).is_ok()
}

/// The verdicts of the fast reader on `json` for every struct, owned and borrowed, with serde's.
fn fast_verdicts(json: &str) -> Vec<(&'static str, bool, bool)> {
    vec![
        (
            "Account",
            verdicts::<Account>(&ACCOUNT, json).0,
            fast_reads::<Account>(json),
        ),
        (
            "Ledger",
            verdicts::<Ledger>(&LEDGER, json).0,
            fast_reads::<Ledger>(json),
        ),
        (
            "Entry",
            verdicts::<Entry>(&ENTRY, json).0,
            fast_reads::<Entry>(json),
        ),
        (
            "Kept",
            verdicts::<Kept>(&KEPT, json).0,
            fast_reads::<Kept>(json),
        ),
        (
            "Priced",
            verdicts::<Priced>(&PRICED, json).0,
            fast_reads::<Priced>(json),
        ),
        (
            "Renamed",
            verdicts::<Renamed>(&RENAMED, json).0,
            fast_reads::<Renamed>(json),
        ),
        (
            "borrowed Account",
            borrowed_decodes::<borrowed::Account<'_>>(json),
            fast_reads::<borrowed::Account<'_>>(json),
        ),
        (
            "borrowed Ledger",
            borrowed_decodes::<borrowed::Ledger<'_>>(json),
            fast_reads::<borrowed::Ledger<'_>>(json),
        ),
        (
            "borrowed Entry",
            borrowed_decodes::<borrowed::Entry<'_>>(json),
            fast_reads::<borrowed::Entry<'_>>(json),
        ),
        (
            "borrowed Kept",
            borrowed_decodes::<borrowed::Kept<'_>>(json),
            fast_reads::<borrowed::Kept<'_>>(json),
        ),
        (
            "borrowed Priced",
            borrowed_decodes::<borrowed::Priced<'_>>(json),
            fast_reads::<borrowed::Priced<'_>>(json),
        ),
        (
            "borrowed Renamed",
            borrowed_decodes::<borrowed::Renamed<'_>>(json),
            fast_reads::<borrowed::Renamed<'_>>(json),
        ),
    ]
}

fn assert_agree(json: &str) {
    assert_tables_agree(json);
    for (name, decoded, fast) in fast_verdicts(json) {
        assert!(
            decoded || !fast,
            "{name}: the fast reader read what serde refuses: {json}"
        );
    }
    for (name, (decoded, checked)) in [
        ("Account", verdicts::<Account>(&ACCOUNT, json)),
        ("Ledger", verdicts::<Ledger>(&LEDGER, json)),
        ("Entry", verdicts::<Entry>(&ENTRY, json)),
        ("Kept", verdicts::<Kept>(&KEPT, json)),
        ("Priced", verdicts::<Priced>(&PRICED, json)),
        ("Renamed", verdicts::<Renamed>(&RENAMED, json)),
    ] {
        assert_eq!(
            decoded, checked,
            "{name}: decode {decoded}, check {checked}: {json}"
        );
    }
    for (name, owned, borrowed) in [
        (
            "Account",
            verdicts::<Account>(&ACCOUNT, json).0,
            borrowed_decodes::<borrowed::Account<'_>>(json),
        ),
        (
            "Ledger",
            verdicts::<Ledger>(&LEDGER, json).0,
            borrowed_decodes::<borrowed::Ledger<'_>>(json),
        ),
        (
            "Entry",
            verdicts::<Entry>(&ENTRY, json).0,
            borrowed_decodes::<borrowed::Entry<'_>>(json),
        ),
        (
            "Kept",
            verdicts::<Kept>(&KEPT, json).0,
            borrowed_decodes::<borrowed::Kept<'_>>(json),
        ),
        (
            "Priced",
            verdicts::<Priced>(&PRICED, json).0,
            borrowed_decodes::<borrowed::Priced<'_>>(json),
        ),
        (
            "Renamed",
            verdicts::<Renamed>(&RENAMED, json).0,
            borrowed_decodes::<borrowed::Renamed<'_>>(json),
        ),
    ] {
        assert_eq!(
            owned, borrowed,
            "{name}: owned decode {owned}, borrowed decode {borrowed}: {json}"
        );
    }
}

/// Values every field is replaced by, as JSON text: every JSON type, and numbers at the edges.
const REPLACEMENTS: &[&str] = &[
    "null",
    "true",
    "0",
    "-1",
    "1.5",
    "12.0",
    "1e3",
    "1e400",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "\"s\"",
    "[]",
    "[1, \"a\"]",
    "[true]",
    "{}",
    "{\"number\": \"x\"}",
    "{\"a\": {\"b\": [null, 1.5, \"\\u00e9\"]}}",
];

fn valid_samples() -> Vec<Value> {
    let ledger = json!({"account": {"number": "A-1"}, "number": "L-1", "id": "7"});
    vec![
        json!({"number": "A-1B2C3D4E"}),
        ledger.clone(),
        json!({
            "id": 100037, "amount": -2.5, "is_charge": true, "flags": [true, false],
            "changes": {"email": ["a", "b"]}, "ledgers": [ledger], "type": 3
        }),
        json!({"mprn": "7512345606", "supplier": "X", "reading": {"value": 3}}),
        json!({"account_number": "A-1", "note": "renamed field under its former name"}),
        json!({"account_id": "A-1", "account_number": "A-1"}),
        json!({
            "tariffs": {"_A": {"direct_debit_monthly": {"number": "E-1R-X-A"}}, "_B": {}},
            "quotes": {"_A": 67365, "_B": -1}
        }),
    ]
}

/// Every value of `value` (the root too) with its place, as a path of keys and indices.
fn places(value: &Value, path: Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
    out.push(path.clone());
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let mut p = path.clone();
                p.push(PathStep::Key(k.clone()));
                places(v, p, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let mut p = path.clone();
                p.push(PathStep::Index(i));
                places(v, p, out);
            }
        }
        _ => {}
    }
}

#[derive(Clone)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn at<'v>(value: &'v mut Value, path: &[PathStep]) -> &'v mut Value {
    path.iter().fold(value, |v, step| match step {
        PathStep::Key(k) => &mut v[k.as_str()],
        PathStep::Index(i) => &mut v[*i],
    })
}

/// `value` as text, with `raw` in place of the value at `path`.
fn replaced(value: &Value, path: &[PathStep], raw: &str) -> String {
    const HOLE: &str = "\u{1}hole\u{1}";
    let mut copy = value.clone();
    *at(&mut copy, path) = Value::String(HOLE.to_owned());
    let text = copy.to_string();
    text.replace(&Value::String(HOLE.to_owned()).to_string(), raw)
}

#[test]
fn every_mutation_gets_the_same_verdict() {
    let mut cases = 0;
    for sample in valid_samples() {
        assert_agree(&sample.to_string());
        let mut all = Vec::new();
        places(&sample, Vec::new(), &mut all);
        for path in &all {
            for raw in REPLACEMENTS {
                assert_agree(&replaced(&sample, path, raw));
                cases += 1;
            }
            let mut copy = sample.clone();
            if let Value::Object(map) = at(&mut copy, path).clone() {
                let keys: Vec<String> = map.keys().cloned().collect();
                for key in keys {
                    // Removed.
                    let mut without = sample.clone();
                    if let Value::Object(m) = at(&mut without, path) {
                        m.remove(&key);
                    }
                    assert_agree(&without.to_string());
                    // Repeated: `{"k": v, ...}` becomes `{"k": v, "k": v, ...}`.
                    let member = format!("{}:{}", Value::String(key.clone()), map[&key]);
                    let object = Value::Object(map.clone()).to_string();
                    let twice = object.replacen(&member, &format!("{member},{member}"), 1);
                    assert_agree(&replaced(&sample, path, &twice));
                    cases += 2;
                }
                // Joined by an unknown member of every kind.
                for raw in REPLACEMENTS {
                    let object = Value::Object(map.clone()).to_string();
                    let with = format!("{{\"unlisted\":{raw},{}", &object[1..]);
                    let with = with.replace(",}", "}");
                    assert_agree(&replaced(&sample, path, &with));
                    cases += 1;
                }
            }
        }
    }
    // Each case is judged for every struct.
    assert!(cases > 700, "{cases} cases");
}

#[test]
fn the_fast_reader_reads_every_valid_sample() {
    for sample in valid_samples() {
        let json = sample.to_string();
        for (name, decoded, fast) in fast_verdicts(&json) {
            assert_eq!(fast, decoded, "{name}: {json}");
        }
    }
}

#[test]
fn malformed_and_cut_short_text_gets_the_same_verdict() {
    for json in [
        "",
        "{",
        "{\"number\": \"A-1\"",
        "{\"number\": \"A-1\"} trailing",
        "{\"number\": \"A-1\",}",
        "[\"A-1\"]",
        "{\"number\": \"\\ud800\"}",
        "{\"number\" \"A-1\"}",
    ] {
        assert_agree(json);
    }
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        prop_oneof![Just("number"), Just("account"), Just("id"), Just("x")]
            .prop_map(|s| Value::String(s.to_owned())),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("number"),
                        Just("account_id"),
                        Just("account_number"),
                        Just("account"),
                        Just("id"),
                        Just("amount"),
                        Just("flags"),
                        Just("changes"),
                        Just("mprn"),
                        Just("tariffs"),
                        Just("quotes"),
                        Just("other"),
                    ],
                    inner
                ),
                0..5
            )
            .prop_map(|members| {
                Value::Object(
                    members
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect(),
                )
            }),
        ]
    })
}

proptest! {
    #[test]
    fn arbitrary_json_gets_the_same_verdict(value in arbitrary_json()) {
        assert_agree(&value.to_string());
        for sample in valid_samples() {
            let mut all = Vec::new();
            places(&sample, Vec::new(), &mut all);
            for path in all.iter().skip(1) {
                assert_agree(&replaced(&sample, path, &value.to_string()));
            }
        }
    }
}

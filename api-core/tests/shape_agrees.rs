//! One table per struct, and everything that reads or writes it agrees with serde's derive.
//!
//! The reference structs below derive `Deserialize` (but one, see `Kept`) and `Serialize` (with the attributes the generated
//! structs had: `rename`, `skip_serializing_if`, `flatten`); their twins are read and written by their
//! tables (`table_struct!`, what the generator writes for payload types), owned and borrowed. On every
//! mutation of valid payloads (each value replaced by values of every JSON type and by numbers at the
//! edges of `i64`/`f64`, each member removed, repeated, or joined by an unknown one) and on arbitrary
//! JSON:
//! - the table decodes what the derive decodes, to the same value, and refuses what it refuses with the
//!   same error (message, line, column), a struct written as a JSON array (read by position) too, and
//!   the borrowed twins accept and refuse the same (their errors are explained by decoding the owned
//!   type again, as `EventKind::locate_error` does: a view reads a free-form object whole before it
//!   checks it);
//! - the shape checker (`energy_api_core::shape`) gives the verdict of the decoders' reading of the same
//!   table (`table::deserialize_object`: JSON objects only, no array for a struct) without keeping
//!   anything, and that reading takes nothing the derive refuses;
//! - the fast reader may stop where serde decodes, but never reads what it refuses, and what it reads
//!   is serde's value;
//! - what decodes is written back with the calls the derive makes (`serde_assert`'s tokens: struct or
//!   map, length, skipped fields, `Some`), and the borrowed twins write the same JSON.

use energy_api_core::read::{ReadJson, Reader};
use energy_api_core::shape::{StructTable, check_json_struct, check_struct};
use energy_api_core::table::{FromFields, Mode, deserialize_json_object, deserialize_object};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

#[derive(Debug, Deserialize, Serialize)]
#[allow(dead_code, reason = "only decoded")]
struct Account {
    number: String,
}

#[derive(Debug, Deserialize, Serialize)]
#[allow(dead_code, reason = "only decoded")]
struct Ledger {
    account: Account,
    number: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<String>,
}

#[derive(Debug, Deserialize, Serialize)]
#[allow(dead_code, reason = "only decoded")]
struct Entry {
    id: i64,
    amount: f64,
    is_charge: bool,
    flags: Vec<bool>,
    changes: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ledgers: Option<Vec<Ledger>>,
    /// Nullable, not optional: `null` when `None`.
    r#type: Option<i64>,
}

#[derive(Debug, Deserialize, Serialize)]
#[allow(dead_code, reason = "only decoded")]
struct Renamed {
    #[serde(alias = "account_number")]
    account_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

#[derive(Debug, Deserialize, Serialize)]
#[allow(dead_code, reason = "only decoded")]
struct Priced {
    tariffs: std::collections::BTreeMap<String, std::collections::BTreeMap<String, Account>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    quotes: Option<std::collections::BTreeMap<String, i64>>,
}

/// More fields than `table::Fields` holds in place (eight): the last three, a nested struct among
/// them, are read into its slots on the heap.
#[derive(Debug, Deserialize, Serialize)]
#[allow(dead_code, reason = "only decoded")]
struct Reading {
    account_number: String,
    agreement_id: i64,
    amount: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ends_at: Option<String>,
    is_export: bool,
    mpxn: String,
    note: Option<String>,
    rate: f64,
    register: Account,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    starts_at: Option<String>,
    units: Vec<i64>,
}

/// A generic struct (the REST API's page), of the structs above.
#[derive(Debug, Deserialize, Serialize)]
#[allow(dead_code, reason = "only decoded")]
struct Page<T> {
    count: i64,
    next: Option<String>,
    results: Vec<T>,
}

/// serde's derive cannot read members kept as their text (`#[serde(flatten)]` buffers them as values
/// first, and then refuses `RawJson`): the reference reads them by hand, as the derive reads a struct
/// with a flattened field (a map only, "duplicate field", "missing field"). Written with the derive.
#[derive(Debug, Serialize)]
#[allow(dead_code, reason = "only decoded")]
struct Kept {
    mprn: String,
    #[serde(flatten)]
    additional_fields: energy_api_core::Unlisted,
}

impl<'de> Deserialize<'de> for Kept {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeptVisitor;
        impl<'de> serde::de::Visitor<'de> for KeptVisitor {
            type Value = Kept;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("struct Kept")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Kept, A::Error> {
                use serde::de::Error;
                let mut mprn = None;
                let mut additional_fields = energy_api_core::Unlisted::new();
                while let Some(key) = map.next_key::<String>()? {
                    if key != "mprn" {
                        additional_fields.insert(key, map.next_value()?);
                    } else if mprn.is_some() {
                        return Err(A::Error::duplicate_field("mprn"));
                    } else {
                        mprn = Some(map.next_value()?);
                    }
                }
                let mprn = mprn.ok_or_else(|| A::Error::missing_field("mprn"))?;
                Ok(Kept {
                    mprn,
                    additional_fields,
                })
            }
        }
        deserializer.deserialize_map(KeptVisitor)
    }
}

/// The same structs read and written by their tables (what the generator writes for payload types):
/// owned, then borrowed. Named as the reference structs, so that their `Debug` texts and serde's
/// messages compare.
mod table {
    use energy_api_core::table_struct;
    use serde_json::{Map, Value};

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Account {
        number: String,
    }
    table_struct!(nested Account, [number: Str], by_name: [0, 1]);

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Ledger {
        account: Account,
        number: String,
        id: Option<String>,
    }
    table_struct!(
        nested Ledger,
        [account: Struct(&Account), number: Str, id: Optional(&Str) => omit_none],
        by_name: [0, 2, 3, 1],
    );

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
    table_struct!(
        Entry,
        [
            id: Int,
            amount: Num,
            is_charge: Bool,
            flags: Array(&Bool),
            changes: Obj,
            ledgers: Optional(&Array(&Struct(&Ledger))) => omit_none,
            // Nullable, not optional: `null` when `None`.
            r#type = "type": Optional(&Int),
        ],
        by_name: [1, 2, 4, 5, 0, 3, 6, 7],
    );

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Renamed {
        account_id: String,
        note: Option<String>,
    }
    table_struct!(
        Renamed,
        [account_id: Str, note: Optional(&Str) => omit_none],
        by_name: [0, 1, 2],
        aliases: ["account_number" => account_id],
    );

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Priced {
        tariffs: std::collections::BTreeMap<String, std::collections::BTreeMap<String, Account>>,
        quotes: Option<std::collections::BTreeMap<String, i64>>,
    }
    table_struct!(
        Priced,
        [
            tariffs: Map(&Map(&Struct(&Account))),
            quotes: Optional(&Map(&Int)) => omit_none,
        ],
        by_name: [1, 2, 0],
    );

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Kept {
        mprn: String,
        additional_fields: energy_api_core::Unlisted,
    }
    table_struct!(Kept, [mprn: Str], by_name: [0, 1], keep_unlisted_in additional_fields);

    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Reading {
        account_number: String,
        agreement_id: i64,
        amount: f64,
        ends_at: Option<String>,
        is_export: bool,
        mpxn: String,
        note: Option<String>,
        rate: f64,
        register: Account,
        starts_at: Option<String>,
        units: Vec<i64>,
    }
    table_struct!(
        Reading,
        [
            account_number: Str,
            agreement_id: Int,
            amount: Num,
            ends_at: Optional(&Str) => omit_none,
            is_export: Bool,
            mpxn: Str,
            // Nullable, not optional.
            note: Optional(&Str),
            rate: Num,
            register: Struct(&Account),
            starts_at: Optional(&Str) => omit_none,
            units: Array(&Int),
        ],
        by_name: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    );

    /// Its table names its parameter's: `Struct(T)`.
    #[derive(Debug)]
    #[allow(dead_code, reason = "only decoded")]
    pub struct Page<T> {
        count: i64,
        next: Option<String>,
        results: Vec<T>,
    }
    table_struct!(
        Page<T>,
        [count: Int, next: Optional(&Str), results: Array(&Struct(T))],
        by_name: [0, 1, 2, 3],
    );

    pub mod borrowed {
        use energy_api_core::{CowStr, RawObject, Unlisted, table_struct};
        use std::collections::BTreeMap;

        #[derive(Debug)]
        #[allow(dead_code, reason = "only decoded")]
        pub struct Account<'a> {
            number: CowStr<'a>,
        }
        table_struct!(nested Account<'a>, view_of super::Account, [number]);

        #[derive(Debug)]
        #[allow(dead_code, reason = "only decoded")]
        pub struct Ledger<'a> {
            account: Account<'a>,
            number: CowStr<'a>,
            id: Option<CowStr<'a>>,
        }
        table_struct!(
            nested Ledger<'a>,
            view_of super::Ledger,
            [account, number, id => omit_none]
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
        table_struct!(
            Entry<'a>,
            view_of super::Entry,
            [
                id,
                amount,
                is_charge,
                flags,
                changes,
                ledgers => omit_none,
                r#type = "type"
            ]
        );

        #[derive(Debug)]
        #[allow(dead_code, reason = "only decoded")]
        pub struct Renamed<'a> {
            account_id: CowStr<'a>,
            note: Option<CowStr<'a>>,
        }
        table_struct!(
            Renamed<'a>,
            view_of super::Renamed,
            [account_id, note => omit_none]
        );

        #[derive(Debug)]
        #[allow(dead_code, reason = "only decoded")]
        pub struct Priced<'a> {
            tariffs: BTreeMap<CowStr<'a>, BTreeMap<CowStr<'a>, Account<'a>>>,
            quotes: Option<BTreeMap<CowStr<'a>, i64>>,
        }
        table_struct!(
            Priced<'a>,
            view_of super::Priced,
            [tariffs, quotes => omit_none]
        );

        #[derive(Debug)]
        #[allow(dead_code, reason = "only decoded")]
        pub struct Reading<'a> {
            account_number: CowStr<'a>,
            agreement_id: i64,
            amount: f64,
            ends_at: Option<CowStr<'a>>,
            is_export: bool,
            mpxn: CowStr<'a>,
            note: Option<CowStr<'a>>,
            rate: f64,
            register: Account<'a>,
            starts_at: Option<CowStr<'a>>,
            units: Vec<i64>,
        }
        table_struct!(
            Reading<'a>,
            view_of super::Reading,
            [
                account_number,
                agreement_id,
                amount,
                ends_at => omit_none,
                is_export,
                mpxn,
                note,
                rate,
                register,
                starts_at => omit_none,
                units
            ]
        );

        #[derive(Debug)]
        #[allow(dead_code, reason = "only decoded")]
        pub struct Kept<'a> {
            mprn: CowStr<'a>,
            additional_fields: Unlisted,
        }
        table_struct!(Kept<'a>, view_of super::Kept, [mprn], keep_unlisted_in additional_fields);
    }
}

/// The calls serde makes when `value` is written, as `serde_assert`'s tokens (or the error: a kept
/// member holding a number `serde_json::Value` cannot hold is written as JSON text only).
fn tokens<T: Serialize>(value: &T) -> Result<String, String> {
    value
        .serialize(&serde_assert::Serializer::builder().build())
        .map(|written| format!("{written:?}"))
        .map_err(|e| e.to_string())
}

/// Everything that reads or writes `json` as the struct `R` (the derive), its owned twin `T` and its
/// borrowed twin `B` with their table `shape` agrees (see the module's documentation). Returns whether
/// serde decoded it.
fn agree<'a, R, T, B>(name: &str, shape: &'static StructTable, json: &'a str) -> bool
where
    R: Deserialize<'a> + Serialize + std::fmt::Debug,
    T: Deserialize<'a> + Serialize + ReadJson<'a> + std::fmt::Debug,
    B: Deserialize<'a> + Serialize + ReadJson<'a>,
{
    let reference = serde_json::from_str::<R>(json).map_err(|e| e.to_string());
    let owned = serde_json::from_str::<T>(json).map_err(|e| e.to_string());
    let borrowed = serde_json::from_str::<B>(json).map_err(|e| e.to_string());
    let mut checker = serde_json::Deserializer::from_str(json);
    let checked = check_struct(shape, &mut checker)
        .and_then(|()| checker.end())
        .map_err(|e| e.to_string());
    let mut objects = serde_json::Deserializer::from_str(json);
    let decoded = deserialize_object(&mut objects, shape, Mode::Owned)
        .and_then(|_| objects.end())
        .map_err(|e| e.to_string());
    // The JSON entry points that the generated decoders call: the same verdict and error as the
    // generic functions on serde_json, the text's end included.
    assert_eq!(
        check_json_struct(shape, json).map_err(|e| e.to_string()),
        checked,
        "{name}, check_json_struct: {json}"
    );
    for mode in [Mode::Owned, Mode::Borrowed] {
        let mut objects = serde_json::Deserializer::from_str(json);
        let generic = deserialize_object(&mut objects, shape, mode)
            .and_then(|_| objects.end())
            .map_err(|e| e.to_string());
        assert_eq!(
            deserialize_json_object(json, shape, mode)
                .map(|_| ())
                .map_err(|e| e.to_string()),
            generic,
            "{name}, deserialize_json_object ({mode:?}): {json}"
        );
    }
    let (checked, decoded) = (checked.is_ok(), decoded.is_ok());
    assert_eq!(decoded, checked, "{name}, the shape check: {json}");
    assert!(
        !decoded || owned.is_ok(),
        "{name}: the decoders' reading takes what the derive refuses: {json}"
    );
    match (&reference, &owned, &borrowed) {
        (Ok(r), Ok(t), Ok(b)) => {
            assert_eq!(format!("{r:?}"), format!("{t:?}"), "{name}: {json}");
            assert_eq!(tokens(r), tokens(t), "{name}, written: {json}");
            // As JSON text too, which the table's writer makes itself for serde_json's compact
            // serializer.
            assert_eq!(
                serde_json::to_string(r).map_err(|e| e.to_string()),
                serde_json::to_string(t).map_err(|e| e.to_string()),
                "{name}, written as JSON: {json}"
            );
            assert_eq!(
                serde_json::to_value(r).ok(),
                serde_json::to_value(b).ok(),
                "{name}, borrowed, written: {json}"
            );
        }
        (Err(r), Err(t), Err(_)) => assert_eq!(r, t, "{name}: {json}"),
        _ => panic!(
            "{name}: the derive {:?}, the table {:?}, borrowed {:?}: {json}",
            reference.map(|_| ()),
            owned.map(|_| ()),
            borrowed.map(|_| ())
        ),
    }
    for (which, fast) in [
        (
            "owned",
            Reader::read_all::<T>(json).map(|v| format!("{v:?}")),
        ),
        (
            "borrowed",
            Reader::read_all::<B>(json).map(|v| format!("{:?}", serde_json::to_value(&v).ok())),
        ),
    ] {
        if let Ok(fast) = fast {
            let serde = match which {
                "owned" => owned.as_ref().map(|v| format!("{v:?}")),
                _ => borrowed
                    .as_ref()
                    .map(|v| format!("{:?}", serde_json::to_value(v).ok())),
            };
            assert_eq!(
                Ok(fast),
                serde.map_err(|_| ()).map_err(|()| String::new()),
                "{name}, the fast reader ({which}) read what serde does not, or differently: {json}"
            );
        }
    }
    owned.is_ok()
}

/// For every struct: whether serde decoded `json`, and whether the fast reader read it (owned and
/// borrowed), after checking that everything agrees.
fn assert_agree(json: &str) -> Vec<(&'static str, bool, bool)> {
    use table::borrowed as b;
    vec![
        (
            "Account",
            agree::<Account, table::Account, b::Account<'_>>("Account", &table::Account, json),
            Reader::read_all::<table::Account>(json).is_ok()
                && Reader::read_all::<b::Account<'_>>(json).is_ok(),
        ),
        (
            "Ledger",
            agree::<Ledger, table::Ledger, b::Ledger<'_>>("Ledger", &table::Ledger, json),
            Reader::read_all::<table::Ledger>(json).is_ok()
                && Reader::read_all::<b::Ledger<'_>>(json).is_ok(),
        ),
        (
            "Entry",
            agree::<Entry, table::Entry, b::Entry<'_>>("Entry", &table::Entry, json),
            Reader::read_all::<table::Entry>(json).is_ok()
                && Reader::read_all::<b::Entry<'_>>(json).is_ok(),
        ),
        (
            "Renamed",
            agree::<Renamed, table::Renamed, b::Renamed<'_>>("Renamed", &table::Renamed, json),
            Reader::read_all::<table::Renamed>(json).is_ok()
                && Reader::read_all::<b::Renamed<'_>>(json).is_ok(),
        ),
        (
            "Priced",
            agree::<Priced, table::Priced, b::Priced<'_>>("Priced", &table::Priced, json),
            Reader::read_all::<table::Priced>(json).is_ok()
                && Reader::read_all::<b::Priced<'_>>(json).is_ok(),
        ),
        (
            "Reading",
            agree::<Reading, table::Reading, b::Reading<'_>>("Reading", &table::Reading, json),
            Reader::read_all::<table::Reading>(json).is_ok()
                && Reader::read_all::<b::Reading<'_>>(json).is_ok(),
        ),
        // No borrowed view of a generic struct: the owned one stands in for it.
        (
            "Page",
            agree::<Page<Account>, table::Page<table::Account>, table::Page<table::Account>>(
                "Page",
                <table::Page<table::Account> as FromFields>::TABLE,
                json,
            ),
            Reader::read_all::<table::Page<table::Account>>(json).is_ok(),
        ),
        (
            "Kept",
            agree::<Kept, table::Kept, b::Kept<'_>>("Kept", &table::Kept, json),
            Reader::read_all::<table::Kept>(json).is_ok()
                && Reader::read_all::<b::Kept<'_>>(json).is_ok(),
        ),
    ]
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
    "-9223372036854775808",
    "1E+2",
    "\"\\ud800\"",
    "{\"n\\u0075mber\": \"x\", \"a\": 1e400}",
    "\"tab\\t \\\"quoted\\\" \\\\ \\u0001 \\u001f \\u00e9 \\ud83d\\ude00 end of a longer string\"",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
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
        json!({"n\u{75}mber": "A-1", "escaped key": "\u{e9}"}),
        json!({"account_id": "A-1", "account_number": "A-1"}),
        json!({"count": 2, "next": null, "results": [{"number": "A-1"}, {"number": "A-2"}]}),
        json!({
            "account_number": "A-1B2C3D4E", "agreement_id": 88213, "amount": 12.5,
            "ends_at": "2024-04-01", "is_export": false, "mpxn": "1012345678901", "note": null,
            "rate": 0.2451, "register": {"number": "R-1"}, "starts_at": "2024-03-01",
            "units": [120, 87]
        }),
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
        for (name, decoded, fast) in assert_agree(&json) {
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

/// A string given as bytes (formats without a string type give one so): read as `String` reads it,
/// owned or borrowed, the same value or the same error as the derive.
#[test]
fn a_string_given_as_bytes_reads_as_the_derive_reads_it() {
    use serde::de::value::{Error, MapDeserializer};
    for (bytes, valid) in [(&b"A-1"[..], true), (&[b'A', 0xff][..], false)] {
        let members = || MapDeserializer::<_, Error>::new([("number", bytes)].into_iter());
        let derive = Account::deserialize(members())
            .map(|a| format!("{a:?}"))
            .map_err(|e| e.to_string());
        let owned = table::Account::deserialize(members())
            .map(|a| format!("{a:?}"))
            .map_err(|e| e.to_string());
        let borrowed = table::borrowed::Account::deserialize(members())
            .map(|a| format!("{a:?}"))
            .map_err(|e| e.to_string());
        assert_eq!(derive.is_ok(), valid, "{bytes:?}: {derive:?}");
        // The same value (the three print alike: `Account { number: "A-1" }`) or the same error.
        assert_eq!(owned, derive, "owned, {bytes:?}");
        assert_eq!(borrowed, derive, "borrowed, {bytes:?}");
    }
}

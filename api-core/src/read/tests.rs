//! Tests of [`super`]: the `read` module, beside it.

use super::*;
use proptest::prelude::*;

fn same<T>(json: &str)
where
    T: for<'a> ReadJson<'a> + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let fast = Reader::read_all::<T>(json);
    let serde = serde_json::from_str::<T>(json);
    match (fast, serde) {
        (Ok(fast), Ok(serde)) => assert_eq!(fast, serde, "{json}"),
        (Ok(fast), Err(e)) => {
            panic!("{json}: the fast reader took {fast:?}, serde refused: {e}")
        }
        (Err(Stop), _) => {}
    }
}

#[test]
fn reads_plain_values_as_serde_does() {
    // Every `i64`, its 19-digit edges too.
    for json in [
        "0",
        "7",
        "-12",
        "123456789012345678",
        " 42 ",
        "9223372036854775807",
        "-9223372036854775808",
        "1000000000000000000",
        "-999999999999999999",
    ] {
        assert_eq!(
            Reader::read_all::<i64>(json).ok(),
            Some(serde_json::from_str::<i64>(json).unwrap()),
            "{json}"
        );
    }
    for json in [
        "\"A-1\"",
        "\"caf\\u00e9\"",
        "\"tab\\t\"",
        "\"\"",
        "\"0123456789abcdef\"",
    ] {
        assert_eq!(
            Reader::read_all::<String>(json).ok(),
            serde_json::from_str(json).ok(),
            "{json}"
        );
    }
    assert_eq!(Reader::read_all::<Option<bool>>("null"), Ok(None));
    assert_eq!(Reader::read_all::<Vec<i64>>("[1, 2 ,3]"), Ok(vec![1, 2, 3]));
    assert_eq!(Reader::read_all::<Vec<i64>>("[ ]"), Ok(vec![]));
    assert_eq!(Reader::read_all::<f64>("1.5"), Ok(1.5));
    let escaped = Reader::read_all::<CowStr<'_>>(r#""a\"b""#).unwrap();
    assert_eq!((escaped.as_str(), escaped.is_borrowed()), ("a\"b", false));
    assert!(
        Reader::read_all::<CowStr<'_>>(r#""plain""#)
            .unwrap()
            .is_borrowed()
    );
}

#[test]
fn stops_where_it_is_not_sure() {
    // Where serde refuses an `i64` (or, for `-0`, reads a float): beyond its range, 20 digits and
    // more, fractions, exponents, leading zeros.
    for json in [
        "01",
        "-0",
        "1.0",
        "1e3",
        "9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "-",
        "+1",
        "1 2",
    ] {
        assert_eq!(Reader::read_all::<i64>(json), Err(Stop), "{json}");
        assert!(serde_json::from_str::<i64>(json).is_err(), "{json}");
    }
    for json in ["\"a\u{1}\"", "\"open", "7", "\"a\" \"b\""] {
        assert_eq!(Reader::read_all::<String>(json), Err(Stop), "{json:?}");
    }
    for json in ["[1,]", "[,1]", "[1 2]", "[", "{}"] {
        assert_eq!(Reader::read_all::<Vec<i64>>(json), Err(Stop), "{json}");
    }
    assert_eq!(
        Reader::read_all::<Vec<Vec<Vec<i64>>>>("[[[]]]"),
        Ok(vec![vec![vec![]]])
    );
}

/// Nesting is read as deep as serde reads it, and no deeper: 127 containers open at once.
#[test]
fn nesting_is_read_to_serde_s_limit() {
    for levels in [1, 100, 126, 127, 128, 129, 1000] {
        let deep = format!("{}{}", "[".repeat(levels), "]".repeat(levels));
        let serde = serde_json::from_str::<serde_json::Value>(&deep).is_ok();
        assert_eq!(serde, levels <= MAX_DEPTH, "serde at {levels} levels");
        let read = Reader::read_all::<Nested>(&deep);
        assert_eq!(read.is_ok(), serde, "{levels} levels");
        if let Ok(mut nested) = read {
            let mut depth = 1;
            while let Some(inner) = nested.0.into_iter().next() {
                nested = inner;
                depth += 1;
            }
            assert_eq!(depth, levels);
        }
        // A free-form object counts its nesting as serde does; a skipped value is skipped at
        // any depth, as serde skips one.
        let object = format!("{{\"a\":{}}}", &deep);
        let map = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&object);
        assert_eq!(
            Reader::read_all::<RawObject<'_>>(&object).is_ok(),
            map.is_ok(),
            "{levels}"
        );
        assert!(
            Reader::new(&deep).skip().is_ok(),
            "skipped, {levels} levels"
        );
        assert!(serde_json::from_str::<serde::de::IgnoredAny>(&deep).is_ok());
    }
    // Skipping is iterative: a million levels are skipped without exhausting the stack.
    let deep = format!("{}1{}", "[{\"a\":".repeat(500_000), "}]".repeat(500_000));
    assert!(serde_json::from_str::<serde::de::IgnoredAny>(&deep).is_ok());
    assert_eq!(Reader::new(&deep).skip().map(str::len), Ok(deep.len()));
    let unclosed = format!("{}1{}", "[{\"a\":".repeat(500_000), "}]".repeat(499_999));
    assert_eq!(Reader::new(&unclosed).skip(), Err(Stop));
}

/// How deep skipped values went is kept for callers that hold a text to a limit (the runtime).
#[test]
fn the_deepest_skipped_nesting_counts_the_containers_around_it() {
    let mut reader = Reader::new(r#"{"a": 1, "x": [[{}], []], "y": {"z": [[[]]]}}"#);
    let mut members = reader.object().expect("an object");
    while members.next_key(&mut reader).expect("a key").is_some() {
        reader.skip().expect("a value");
    }
    // The outer object (read), then `y`, `z` and three arrays (skipped).
    assert_eq!(reader.deepest_skipped(), 5);
    let mut flat = Reader::new(r#"{"a": 1, "b": "[[["}"#);
    let mut members = flat.object().expect("an object");
    while members.next_key(&mut flat).expect("a key").is_some() {
        flat.skip().expect("a value");
    }
    assert_eq!(flat.deepest_skipped(), 0);
}

/// What serde ignores it checks only so far (grammar, escapes): so does skipping.
#[test]
fn skipping_checks_what_serde_checks_of_an_ignored_value() {
    for json in [
        "1e400",
        "-1.5E+3",
        "2e-2",
        r#""caf\u00e9 \"q\" \\ \/ \b\f\n\r\t""#,
        r#"{"k\u0065y": ["\ud83d\ude00", {"": 0}]}"#,
        r#""\ud800""#,
        r#""\x""#,
        r#""\u12""#,
        "1e",
        "1.e3",
        "-",
        "[1,]",
        r#"{"a" 1}"#,
        "tru",
    ] {
        let serde = serde_json::from_str::<serde::de::IgnoredAny>(json).is_ok();
        let mut reader = Reader::new(json);
        let skipped = reader.skip().and_then(|_| reader.end()).is_ok();
        assert_eq!(skipped, serde, "{json}");
    }
}

/// A recursive type.
#[derive(Debug)]
struct Nested(Vec<Nested>);

impl<'a> ReadJson<'a> for Nested {
    fn read(reader: &mut Reader<'a>) -> Result<Self, Stop> {
        Vec::read(reader).map(Nested)
    }
}

#[test]
fn free_form_objects_are_what_a_map_accepts() {
    for json in [
        r#"{"a": [1, {"b": null}], "c": -0.5}"#,
        "null",
        "{}",
        "[1]",
        "\"x\"",
        r#"{"a": 1e400}"#,
        r#"{"a": [-1.8e308]}"#,
        r#"{"a": 1e-400, "b": -0, "c": 123456789012345678901234567890}"#,
        r#"{"a": 18446744073709551616, "b": -9223372036854775809}"#,
        r#"{"a": "\ud800"}"#,
        r#"{"\ud800": 1}"#,
        r#"{"\ud83d\ude00": "caf\u00e9", "b": {"c": ["\n"]}}"#,
        r#"{"a": "\x"}"#,
        r#"{"a" 1}"#,
        r#"{"a": 1,}"#,
        r#"{"a": 01}"#,
        r#"{"a": 1, "a": [2]}"#,
        r#"{ "a" : [ 1 , 2 ] , "b" :{ } }"#,
        r#"{"a": 1.0, "b": 1E5, "c": -0.0, "d": 0, "e": 2.5e-3, "f": 0.1e+2}"#,
        r#"{"a": 9223372036854775807, "b": -9223372036854775808, "c": 18446744073709551615}"#,
        r#"{"a": -}"#,
        r#"{"a": 1.}"#,
        r#"{"a": .5}"#,
        r#"{"a": -01}"#,
        r#"{"a": 1e}"#,
        r#"{"a": tru}"#,
        r#"{"a": nul}"#,
        r#"{"a": [1 2]}"#,
        "{\"a\": \"tab\there\"}",
    ] {
        let fast = Reader::read_all::<RawObject<'_>>(json);
        let serde = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(json);
        // Every object: the reader takes exactly what a `Map` takes, in its one pass.
        if json.starts_with('{') {
            assert_eq!(fast.is_ok(), serde.is_ok(), "{json}");
        }
        if let Ok(fast) = fast {
            assert!(serde.is_ok(), "{json}");
            assert_eq!(fast.get(), json.trim());
        }
        same::<serde_json::Map<String, serde_json::Value>>(json);
    }
}

#[test]
fn members_are_found_in_place_in_order_and_by_search_out_of_it() {
    let fields = ["id", "number", "type"];
    fn members(json: &'static str) -> Result<Vec<Member<'static>>, Stop> {
        let (fields, aliases) = (["id", "number", "type"], [("account_number", 1)]);
        let mut reader = Reader::new(json);
        let mut members = reader.object()?;
        let (mut next, mut found) = (0, Vec::new());
        while let Some(member) =
            members.next_field(&mut reader, &fields, &aliases, &[], &mut next)?
        {
            found.push(member);
            reader.skip()?;
        }
        reader.end().map(|()| found)
    }
    use Member::{Field, Other};
    assert_eq!(
        members(r#"{"id":1,"number":2,"type":3}"#),
        Ok(vec![Field(0), Field(1), Field(2)])
    );
    assert_eq!(
        members(r#"{ "type" : 3 , "id" : 1 }"#),
        Ok(vec![Field(2), Field(0)])
    );
    assert_eq!(
        members(r#"{"account_number":2,"idx":1,"i":0}"#),
        Ok(vec![Field(1), Other("idx".into()), Other("i".into())])
    );
    // A key that only starts like the expected one is not it; an escaped one is decoded first.
    assert_eq!(members(r#"{"id\u0041":1}"#), Ok(vec![Other("idA".into())]));
    assert_eq!(
        members(r#"{"n\u0075mber":1,"\u0069d":2}"#),
        Ok(vec![Field(1), Field(0)])
    );
    assert_eq!(members(r#"{"\ud800":1}"#), Err(Stop));
    assert_eq!(members(r#"{"id":1,}"#), Err(Stop));
    // The byte before an expected key must be its quote (found by `cargo xtask fuzz`).
    assert_eq!(members(r#"{"id":1,*number":2}"#), Err(Stop));
    assert_eq!(members(r#"{"id":1, *number":2}"#), Err(Stop));
    assert_eq!(
        members("{\"id\":1,\n \"number\":2}"),
        Ok(vec![Field(0), Field(1)])
    );
    assert_eq!(members(r#"{"id" 1}"#), Err(Stop));
    assert!(plain_names(&fields) && plain_names(&[]));
    assert!(!plain_names(&["a\"b"]) && !plain_names(&["a\\b"]) && !plain_names(&["a\nb"]));
}

/// Keys in name order (as `serde_json::Value` writes them) are found in place through the name
/// chain, as keys in the schema's order are; any other order by search; the same fields either way.
#[test]
fn sorted_keys_are_found_through_the_name_chain() {
    let fields = ["number", "account", "id"];
    let by_name = [1, 2, 3, 0];
    let read = |json: &'static str, by_name: &[usize]| -> Result<Vec<Member<'static>>, Stop> {
        let mut reader = Reader::new(json);
        let mut members = reader.object()?;
        let (mut next, mut found) = (0, Vec::new());
        while let Some(member) =
            members.next_field(&mut reader, &fields, &[], by_name, &mut next)?
        {
            found.push(member);
            reader.skip()?;
        }
        reader.end().map(|()| found)
    };
    use Member::Field;
    for json in [
        r#"{"account": 1, "id": 2, "number": 3}"#,
        r#"{"number": 3, "account": 1, "id": 2}"#,
        r#"{"id": 2, "number": 3, "account": 1}"#,
    ] {
        let mut with = read(json, &by_name).expect("read");
        let mut without = read(json, &[]).expect("read");
        assert_eq!(with, without, "{json}");
        with.sort_by_key(|m| format!("{m:?}"));
        without.sort_by_key(|m| format!("{m:?}"));
        assert_eq!(with, [Field(0), Field(1), Field(2)], "{json}");
    }
    // A chain that names no field (a stale hint) only costs a search.
    assert_eq!(read(r#"{"id": 2}"#, &[9, 9, 9, 9]), Ok(vec![Field(2)]));
}

#[test]
fn bytes_are_the_same_exactly_when_equal() {
    let words = [
        "",
        "a",
        "ab",
        "abc",
        "abcd",
        "abcde",
        "abcdefgh",
        "abcdefghi",
        "abcdefghijklmnop",
        "abcdefghijklmnopq",
        "account_number_of_the_ledger",
        "account_number_of_the_ledgex",
        "bccount_number_of_the_ledger",
        "abcdefgx",
        "xbcdefgh",
        "abcdefghijklmnox",
    ];
    for a in words {
        for b in words {
            assert_eq!(
                same_bytes(a.as_bytes(), b.as_bytes()),
                a == b,
                "{a:?} {b:?}"
            );
        }
    }
}

fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|n| serde_json::to_string(&n).unwrap_or_default()),
        "[ -~é\\\\\"\\x01]{0,12}".prop_map(|s| serde_json::to_string(&s).unwrap_or_default()),
        "[0-9eE.+-]{1,6}",
        Just("null".to_owned()),
        Just("true".to_owned()),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec(("[a-c]{1,2}", inner), 0..4).prop_map(|m| {
                let members: Vec<String> = m
                    .into_iter()
                    .map(|(k, v)| format!("\"{k}\": {v}"))
                    .collect();
                format!("{{{}}}", members.join(", "))
            }),
        ]
    })
}

proptest! {
    /// Wherever the fast reader gives a value, serde gives the same one.
    #[test]
    fn never_accepts_what_serde_refuses(json in json_text()) {
        same::<i64>(&json);
        same::<f64>(&json);
        same::<String>(&json);
        same::<Option<bool>>(&json);
        same::<Vec<Option<i64>>>(&json);
        same::<Vec<String>>(&json);
        same::<serde_json::Map<String, serde_json::Value>>(&json);
        // A free-form object: taken exactly where a `Map` is.
        if json.starts_with('{') {
            let map = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&json);
            prop_assert_eq!(Reader::read_all::<RawObject<'_>>(&json).is_ok(), map.is_ok(), "{}", json);
        }
        let mut reader = Reader::new(&json);
        if let Ok(text) = reader.skip() && reader.end().is_ok() {
            prop_assert!(serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok(), "{}", json);
        }
    }
}

//! Tests of [`super`]: the `text` module, beside it.

use super::*;
use proptest::prelude::*;
use serde_json::{Value, json};

fn ours<T: Serialize + ?Sized>(value: &T) -> String {
    let mut text = JsonText::new();
    value.serialize(&mut text).expect("written");
    text.as_str().expect("UTF-8").to_owned()
}

#[test]
fn writes_what_serde_json_writes() {
    let every_byte: String = (0u8..128).map(char::from).collect();
    let values = [
        json!(null),
        json!(true),
        json!([]),
        json!({}),
        json!([
            1,
            -2,
            3.5,
            1e300,
            -0.0,
            18446744073709551615u64,
            -9223372036854775808i64
        ]),
        json!({"a": {"b": [null, {"c": "d"}]}, "": "", "é": "ü\u{1F600}"}),
        json!(every_byte),
        json!("tab\there \"quoted\" back\\slash \u{7f} \u{2028}"),
    ];
    for value in values {
        assert_eq!(
            ours(&value),
            serde_json::to_string(&value).unwrap(),
            "{value}"
        );
    }
    assert_eq!(ours(&f64::NAN), "null");
    #[derive(serde::Serialize)]
    enum Variants {
        Tuple(i64, String),
        Empty(),
        Struct { a: i64 },
        Nothing {},
        Newtype(bool),
        Unit,
    }
    for v in [
        Variants::Tuple(1, "x".into()),
        Variants::Empty(),
        Variants::Struct { a: 2 },
        Variants::Nothing {},
        Variants::Newtype(true),
        Variants::Unit,
    ] {
        assert_eq!(ours(&v), serde_json::to_string(&v).unwrap());
    }
    assert_eq!(ours(&'\n'), "\"\\n\"");
    let map: std::collections::BTreeMap<i64, bool> = [(-1, true), (7, false)].into();
    assert_eq!(ours(&map), serde_json::to_string(&map).unwrap());
    let raw = crate::RawJson::from_json(r#"{ "kept" : [1e400] }"#).unwrap();
    assert_eq!(ours(&raw), r#"{ "kept" : [1e400] }"#);
}

#[test]
fn only_the_compact_serde_json_serializer_is_taken() {
    type Compact<'a> = &'a mut serde_json::Serializer<&'a mut Vec<u8>>;
    type Explicit<'a> = &'a mut serde_json::Serializer<Vec<u8>, serde_json::ser::CompactFormatter>;
    type Pretty<'a> = &'a mut serde_json::Serializer<Vec<u8>, serde_json::ser::PrettyFormatter<'a>>;
    type Nested<'a> = &'a mut serde_json::Serializer<std::io::BufWriter<&'a mut Vec<u8>>>;
    assert!(compact_json::<Compact<'_>>());
    assert!(compact_json::<Explicit<'_>>());
    assert!(compact_json::<Nested<'_>>());
    assert!(!compact_json::<Pretty<'_>>());
    assert!(!compact_json::<serde_json::value::Serializer>());
    assert!(!compact_json::<&mut JsonText>());
    assert!(writes_json_text::<Pretty<'_>>() && writes_json_text::<&mut JsonText>());
    assert!(!writes_json_text::<serde_json::value::Serializer>());
}

/// A string copied a word at a time, of every length around the word's, with a byte to escape at
/// every place and multi-byte characters cut at every place by the words: the text is `serde_json`'s.
#[test]
fn strings_of_any_length_are_copied_whole_and_escaped_at_any_place() {
    for len in 0..40 {
        let plain = "a".repeat(len);
        assert_eq!(
            ours(&plain),
            serde_json::to_string(&plain).unwrap(),
            "{len}"
        );
        for at in 0..len {
            for byte in [b'"', b'\\', 0, 0x1f, b'\n', b'~', 0x7f] {
                let mut bytes = plain.clone().into_bytes();
                bytes[at] = byte;
                let string = String::from_utf8(bytes).unwrap();
                assert_eq!(
                    ours(&string),
                    serde_json::to_string(&string).unwrap(),
                    "{len} {at} {byte}"
                );
            }
            let mut wide = plain.clone();
            wide.insert_str(at, "é😀");
            assert_eq!(
                ours(&wide),
                serde_json::to_string(&wide).unwrap(),
                "{len} {at}"
            );
        }
    }
}

#[test]
fn a_word_marks_the_bytes_json_escapes_and_no_other() {
    assert_eq!(special_bytes(u64::from_le_bytes(*b"abcdefgh")), 0);
    assert_eq!(
        special_bytes(u64::from_le_bytes(*b"\xc3\xa9 ~\x7f\xf0\x9f\x98")),
        0
    );
    assert_ne!(special_bytes(u64::from_le_bytes(*b"abc\"efgh")), 0);
    assert_ne!(special_bytes(u64::from_le_bytes(*b"abcdefg\\")), 0);
    assert_ne!(special_bytes(u64::from_le_bytes(*b"\x1fbcdefgh")), 0);
    assert_eq!(short_word(b"abc"), u64::from_le_bytes(*b"abc\0\0\0\0\0"));
    assert_eq!(short_word(b"abcdef"), u64::from_le_bytes(*b"abcdef\0\0"));
    assert_eq!(short_word(b""), 0);
}

#[test]
fn the_scan_finds_the_first_quote_escape_or_control_byte() {
    let text = "abcdefghij\"klmnop";
    assert_eq!(find_special(text.as_bytes(), 0), 10);
    assert_eq!(find_special(b"abcdefgh\\", 0), 8);
    assert_eq!(find_special(b"ab\x1fcdefghijk", 0), 2);
    assert_eq!(find_special("é\u{80}ab\"".as_bytes(), 0), 6);
    assert_eq!(find_special(b"abc", 0), 3);
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        any::<String>().prop_map(Value::String),
        "[\\x00-\\x7f]{0,20}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    /// Any JSON value is written as serde_json writes it, byte for byte.
    #[test]
    fn any_value_is_written_as_serde_json_writes_it(value in json_value()) {
        prop_assert_eq!(ours(&value), serde_json::to_string(&value).unwrap());
    }
}

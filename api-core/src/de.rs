//! The `Deserialize` impl of a REST resource that has no table ([`deserialize_struct!`](crate::deserialize_struct)):
//! an adapter over the tables' field-name lookup ([`crate::table::Key`]). A resource that holds a
//! free-form one (`type: obj`, a JSON object kept whole, which has no table) is read by it; none of the
//! platform's does, and every other REST resource, the generic page `Page<T>` too, is read by its table,
//! as the payload structs are.
//!
//! serde_derive writes a field enum, a key visitor, a map visitor and a sequence visitor for every struct;
//! the macro writes one map and one sequence visitor per struct and shares everything else. It accepts
//! and rejects what the derive would (with `#[serde(default)]` on optional fields and
//! `#[serde(flatten)]` on kept unlisted members), in every format, with the same messages ("missing
//! field", "duplicate field", "invalid length", type errors).

use serde::de::{self, MapAccess};

/// Reads the value of a field into its slot; a field seen twice is an error, as with serde_derive.
#[inline]
pub fn set<'de, A: MapAccess<'de>, T: de::Deserialize<'de>>(
    slot: &mut Option<T>,
    map: &mut A,
    name: &'static str,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(<A::Error as de::Error>::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// The value of a required field, or the "missing field" error.
#[inline]
pub fn required<T, E: de::Error>(slot: Option<T>, name: &'static str) -> Result<T, E> {
    slot.ok_or_else(|| E::missing_field(name))
}

/// The value of an optional field: absent and `null` are both `None`.
#[inline]
pub fn optional<T, E: de::Error>(
    slot: Option<Option<T>>,
    _name: &'static str,
) -> Result<Option<T>, E> {
    Ok(slot.flatten())
}

/// The value of a required field that may be `null`: in a map, absent is `None` too (as the derive reads
/// an `Option` field).
#[inline]
pub fn nullable<T, E: de::Error>(
    slot: Option<Option<T>>,
    name: &'static str,
) -> Result<Option<T>, E> {
    optional(slot, name)
}

/// The element of a required (or nullable) field of a struct written as a sequence, or the "invalid
/// length" error of the derive when the sequence ended before it.
#[inline]
pub fn required_in_seq<T, E: de::Error>(
    element: Option<T>,
    index: usize,
    expected: &crate::table::InOrder,
) -> Result<T, E> {
    element.ok_or_else(|| E::invalid_length(index, expected))
}

/// The element of an optional field of a struct written as a sequence: `None` when the sequence ended
/// before it (`#[serde(default)]`).
#[inline]
pub fn optional_in_seq<T, E: de::Error>(
    element: Option<Option<T>>,
    _index: usize,
    _expected: &crate::table::InOrder,
) -> Result<Option<T>, E> {
    Ok(element.flatten())
}

/// `Deserialize` for a generated REST resource: one map visitor that finds each key's field with
/// [`Key`](crate::table::Key), reads its value once, and checks that the required ones are present, and
/// a sequence visitor that reads the fields in declared order, as serde's derive does. (Event payloads
/// are read by their tables instead: [`table_struct!`](crate::table_struct).)
///
/// ```
/// # use energy_api_core::deserialize_struct;
/// pub struct Ledger { number: String, id: Option<String> }
/// deserialize_struct!(Ledger, "struct Ledger", [(0, required, number, "number"), (1, optional, id, "id")]);
///
/// let ledger: Ledger = serde_json::from_str(r#"{"number": "L-1", "other": 1}"#).unwrap();
/// assert_eq!((ledger.number.as_str(), ledger.id), ("L-1", None));
/// ```
///
/// Each field is `(index, required|optional|nullable, rust_name, "json name")`, in declared order
/// (`optional`: may be absent, `#[serde(default)]`; `nullable`: a required `Option`); each slot's type
/// is inferred from the struct field it fills. A struct may have one type parameter (`Page<T>`), may
/// accept former names of fields (`aliases [("old_name", index)]`: the field is read under either name,
/// and both at once is a duplicate), and may keep the members it does not list, as JSON text, in an
/// [`Unlisted`](crate::Unlisted) field (`keep_unlisted_in additional_fields`): it is then read only
/// from a map, asked for with `deserialize_map`, as the derive reads a struct with a flattened field.
#[doc(hidden)]
#[macro_export]
macro_rules! deserialize_struct {
    (
        $name:ident $(<$param:ident>)?,
        $expecting:literal,
        [$(($index:literal, $mode:ident, $field:ident, $json:literal)),* $(,)?]
        $(, aliases [$(($alias:literal, $alias_index:literal)),* $(,)?])?
        $(, keep_unlisted_in $additional:ident)? $(,)?
    ) => {
        impl<'de $(, $param: $crate::__private::serde::Deserialize<'de>)?>
            $crate::__private::serde::Deserialize<'de> for $name $(<$param>)?
        {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::std::result::Result<Self, D::Error> {
                const FIELDS: &[&str] = &[$($json),*];
                const ALIASES: &[(&str, usize)] = &[$($(($alias, $alias_index)),*)?];
                struct Visitor $(<$param>)? (::std::marker::PhantomData<fn() -> ($($param,)?)>);
                impl<'de $(, $param: $crate::__private::serde::Deserialize<'de>)?>
                    $crate::__private::serde::de::Visitor<'de> for Visitor $(<$param>)?
                {
                    type Value = $name $(<$param>)?;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        f.write_str($expecting)
                    }
                    fn visit_map<A: $crate::__private::serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> ::std::result::Result<Self::Value, A::Error> {
                        $(let mut $field = ::std::option::Option::None;)*
                        $(let mut $additional = $crate::Unlisted::new();)?
                        let mut next = 0;
                        while let ::std::option::Option::Some(key) =
                            $crate::__private::serde::de::MapAccess::next_key_seed(
                                &mut map,
                                $crate::table::Key {
                                    fields: FIELDS,
                                    aliases: ALIASES,
                                    by_name: &[],
                                    next: &mut next,
                                    keep_unknown: $crate::deserialize_struct!(@keeps $($additional)?),
                                },
                            )?
                        {
                            match key {
                                $($crate::table::FieldKey::Known($index) => {
                                    $crate::de::set(&mut $field, &mut map, FIELDS[$index])?
                                })*
                                unlisted => {
                                    $crate::deserialize_struct!(@unlisted map, unlisted $(, $additional)?)
                                }
                            }
                        }
                        ::std::result::Result::Ok($name {
                            $($field: $crate::de::$mode($field, FIELDS[$index])?,)*
                            $($additional,)?
                        })
                    }
                    fn visit_seq<A: $crate::__private::serde::de::SeqAccess<'de>>(
                        self,
                        mut seq: A,
                    ) -> ::std::result::Result<Self::Value, A::Error> {
                        $crate::deserialize_struct!(
                            @seq seq, $name, $expecting, [$(($index, $mode, $field)),*] $(, $additional)?
                        )
                    }
                }
                $crate::deserialize_struct!(
                    @ask deserializer, $name, FIELDS, Visitor(::std::marker::PhantomData) $(, $additional)?
                )
            }
        }
    };
    // The fields in declared order; a struct that keeps unlisted members is never a sequence.
    (@seq $seq:ident, $name:ident, $expecting:literal, [$(($index:literal, $mode:ident, $field:ident)),*]) => {{
        let _ = &mut $seq;
        let expected = $crate::table::InOrder {
            expecting: $expecting,
            count: FIELDS.len(),
        };
        $(let $field = $crate::deserialize_struct!(@in_seq $mode)(
            $crate::__private::serde::de::SeqAccess::next_element(&mut $seq)?,
            $index,
            &expected,
        )?;)*
        let _ = expected;
        ::std::result::Result::Ok($name { $($field,)* })
    }};
    (@seq $seq:ident, $name:ident, $expecting:literal, [$($fields:tt)*], $additional:ident) => {{
        let _ = &mut $seq;
        ::std::result::Result::Err($crate::__private::serde::de::Error::invalid_type(
            $crate::__private::serde::de::Unexpected::Seq,
            &$expecting,
        ))
    }};
    (@in_seq required) => { $crate::de::required_in_seq };
    (@in_seq nullable) => { $crate::de::required_in_seq };
    (@in_seq optional) => { $crate::de::optional_in_seq };
    (@ask $deserializer:ident, $name:ident, $fields:ident, $visitor:expr) => {
        $deserializer.deserialize_struct(::std::stringify!($name), $fields, $visitor)
    };
    (@ask $deserializer:ident, $name:ident, $fields:ident, $visitor:expr, $additional:ident) => {
        $deserializer.deserialize_map($visitor)
    };
    (@keeps) => { false };
    (@keeps $additional:ident) => { true };
    (@unlisted $map:ident, $key:ident) => {{
        let _ = $key;
        $crate::__private::serde::de::MapAccess::next_value::<
            $crate::__private::serde::de::IgnoredAny,
        >(&mut $map)?;
    }};
    (@unlisted $map:ident, $key:ident, $additional:ident) => {{
        match $key {
            $crate::table::FieldKey::Unknown(::std::option::Option::Some(name)) => {
                $additional.insert(
                    name,
                    $crate::__private::serde::de::MapAccess::next_value::<$crate::RawJson>(&mut $map)?,
                );
            }
            _ => {
                $crate::__private::serde::de::MapAccess::next_value::<
                    $crate::__private::serde::de::IgnoredAny,
                >(&mut $map)?;
            }
        }
    }};
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    /// The derive, for comparison.
    #[derive(Debug, PartialEq, Deserialize)]
    struct Derived {
        number: String,
        #[serde(rename = "type", default)]
        kind: Option<i64>,
        tags: Vec<String>,
    }

    #[derive(Debug, PartialEq)]
    struct Written {
        number: String,
        r#type: Option<i64>,
        tags: Vec<String>,
    }
    crate::deserialize_struct!(
        Written,
        "struct Written",
        [
            (0, required, number, "number"),
            (1, optional, r#type, "type"),
            (2, required, tags, "tags"),
        ]
    );

    #[derive(Debug, PartialEq)]
    struct Page<T> {
        count: i64,
        results: Vec<T>,
    }
    crate::deserialize_struct!(
        Page<T>,
        "struct Page",
        [
            (0, required, count, "count"),
            (1, required, results, "results")
        ]
    );

    #[derive(Debug, PartialEq)]
    struct Renamed {
        account_id: String,
        amount: Option<i64>,
    }
    crate::deserialize_struct!(
        Renamed,
        "struct Renamed",
        [(0, required, account_id, "account_id"), (1, optional, amount, "amount")],
        aliases [("account_number", 0), ("acct", 0)]
    );

    #[test]
    fn former_names_are_read_as_their_field() {
        for json in [
            r#"{"account_id": "A-1", "amount": 3}"#,
            r#"{"account_number": "A-1", "amount": 3}"#,
            r#"{"amount": 3, "acct": "A-1"}"#,
        ] {
            let r: Renamed = serde_json::from_str(json).unwrap();
            assert_eq!(
                (r.account_id.as_str(), r.amount),
                ("A-1", Some(3)),
                "{json}"
            );
        }
        let both =
            serde_json::from_str::<Renamed>(r#"{"account_id": "A-1", "account_number": "A-2"}"#)
                .unwrap_err();
        assert!(
            both.to_string().starts_with("duplicate field `account_id`"),
            "{both}"
        );
        let missing = serde_json::from_str::<Renamed>(r#"{"amount": 3}"#).unwrap_err();
        assert!(
            missing
                .to_string()
                .starts_with("missing field `account_id`"),
            "{missing}"
        );
    }

    /// A payload with no field (a schema may declare one): its code compiles without a warning.
    #[derive(Debug, PartialEq)]
    struct Empty {}
    crate::deserialize_struct!(Empty, "struct Empty", []);

    #[test]
    fn a_struct_without_fields_reads_any_object() {
        for json in ["{}", r#"{"note": [1, {"a": null}]}"#] {
            assert_eq!(serde_json::from_str::<Empty>(json).unwrap(), Empty {});
        }
        // As the derive reads it: an empty sequence is the struct too.
        assert_eq!(serde_json::from_str::<Empty>("[]").unwrap(), Empty {});
        assert!(serde_json::from_str::<Empty>("7").is_err());
    }

    #[derive(Debug, PartialEq)]
    struct Kept {
        mprn: String,
        additional_fields: crate::Unlisted,
    }
    crate::deserialize_struct!(Kept, "struct Kept", [(0, required, mprn, "mprn")], keep_unlisted_in additional_fields);

    fn both(json: &str) -> (Result<Derived, String>, Result<Written, String>) {
        let derived = serde_json::from_str::<Derived>(json).map_err(|e| e.to_string());
        let written = serde_json::from_str::<Written>(json).map_err(|e| e.to_string());
        (derived, written)
    }

    #[test]
    fn accepts_and_rejects_what_the_derive_does_with_its_messages() {
        for json in [
            r#"{"number": "A-1", "type": 3, "tags": ["x"]}"#,
            r#"{"tags": [], "number": "A-1"}"#,
            r#"{"number": "A-1", "type": null, "tags": [], "extra": {"deep": [1, 2]}}"#,
            r#"{"number": "A-1", "tags": []"#,
            r#"{"number": 7, "tags": []}"#,
            r#"{"number": "A-1"}"#,
            r#"{"number": "A-1", "number": "A-2", "tags": []}"#,
            r#"{"number": "A-1", "type": 1.5, "tags": []}"#,
            r#"{"number": "A-1", "type": 18446744073709551615, "tags": []}"#,
            r#"null"#,
            r#""text""#,
        ] {
            let (derived, written) = both(json);
            match (&derived, &written) {
                (Ok(d), Ok(w)) => {
                    assert_eq!(
                        (&d.number, d.kind, &d.tags),
                        (&w.number, w.r#type, &w.tags),
                        "{json}"
                    )
                }
                (Err(d), Err(w)) => assert_eq!(d.replace("Derived", "Written"), *w, "{json}"),
                _ => panic!("{json}: derive {derived:?}, macro {written:?}"),
            }
        }
    }

    /// As the derive reads it: fields in declared order, an optional one (`#[serde(default)]`) may be
    /// left off the end, a nullable one may not.
    #[test]
    fn a_struct_written_as_a_sequence_is_read_in_field_order() {
        for json in [
            r#"["A-1", 3, ["x"]]"#,
            r#"["A-1", null, []]"#,
            r#"["A-1", 3]"#,
            r#"["A-1"]"#,
            r#"[]"#,
            r#"["A-1", "3", []]"#,
        ] {
            let (derived, written) = both(json);
            match (&derived, &written) {
                (Ok(d), Ok(w)) => assert_eq!(
                    (&d.number, d.kind, &d.tags),
                    (&w.number, w.r#type, &w.tags),
                    "{json}"
                ),
                (Err(d), Err(w)) => assert_eq!(d.replace("Derived", "Written"), *w, "{json}"),
                _ => panic!("{json}: derive {derived:?}, macro {written:?}"),
            }
        }
        let short = serde_json::from_str::<Written>(r#"["A-1"]"#).unwrap_err();
        assert!(
            short
                .to_string()
                .starts_with("invalid length 2, expected struct Written with 3 elements"),
            "{short}"
        );
        // A struct that keeps unlisted members is a map only, as the derive reads one with a flattened
        // field.
        let kept = serde_json::from_str::<Kept>(r#"["1"]"#).unwrap_err();
        assert!(
            kept.to_string()
                .starts_with("invalid type: sequence, expected struct Kept"),
            "{kept}"
        );
    }

    #[test]
    fn generic_structs_decode_their_parameter() {
        let page: Page<Written> = serde_json::from_value(
            json!({"count": 1, "next": null, "results": [{"number": "A-1", "tags": []}]}),
        )
        .unwrap();
        assert_eq!(page.count, 1);
        assert_eq!(page.results[0].number, "A-1");
        let wrong =
            serde_json::from_value::<Page<i64>>(json!({"count": 1, "results": ["x"]})).unwrap_err();
        assert!(
            wrong
                .to_string()
                .starts_with("invalid type: string \"x\", expected i64"),
            "{wrong}"
        );
    }

    #[test]
    fn unlisted_members_are_kept_where_asked() {
        let kept: Kept = serde_json::from_value(
            json!({"mprn": "7512345606", "supplier": "X", "reading": {"value": 3}}),
        )
        .unwrap();
        assert_eq!(kept.mprn, "7512345606");
        let names: Vec<&str> = kept.additional_fields.keys().map(String::as_str).collect();
        assert_eq!(names, ["reading", "supplier"]);
        assert_eq!(kept.additional_fields["reading"].get(), r#"{"value":3}"#);
        // From text, each member's text exactly as it came.
        let kept: Kept =
            serde_json::from_str(r#"{"supplier": "X", "mprn": "1", "reading": { "value" : 3 }}"#)
                .unwrap();
        assert_eq!(
            kept.additional_fields["reading"].get(),
            r#"{ "value" : 3 }"#
        );
        assert_eq!(
            kept.additional_fields["supplier"]
                .parse::<String>()
                .unwrap(),
            "X"
        );
        let twice = serde_json::from_str::<Kept>(r#"{"mprn": "1", "mprn": "2"}"#).unwrap_err();
        assert!(
            twice.to_string().starts_with("duplicate field `mprn`"),
            "{twice}"
        );
    }
}

//! Members an object's schema does not list, kept as the JSON text they arrived as.
//!
//! A struct the schema marks incomplete keeps such members (its `additional_fields`) rather than
//! dropping them. They are kept as text, not as a tree of [`serde_json::Value`]s: a tree of small objects
//! takes 40 to 90 times the memory of its text, so a hostile response of 10 MiB would have held the better
//! part of a gigabyte. Text costs what it weighs, needs no allocation per node, and serialises back exactly
//! as it came.
//!
//! Text is JSON's alone; in every other format a kept member is the value it holds (see [`RawJson`]).

use serde::de::{self, Deserialize, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, Serializer};
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::fmt;

use crate::text::{RAW_VALUE_TOKEN, writes_json_text};

/// The members of an object that its schema does not list, by name (sorted), each as its JSON text.
pub type Unlisted = BTreeMap<String, RawJson>;

/// serde_json's raw value of `text`, a JSON value already checked, made without parsing it again:
/// handed over as serde_json's own deserializers hand one over (a map of one member under its raw-value
/// name). `None` only if serde_json no longer takes it so.
pub(crate) fn borrowed_raw_value(text: &str) -> Option<&RawValue> {
    <&RawValue>::deserialize(de::value::MapAccessDeserializer::new(Handover(Some(text)))).ok()
}

/// A raw JSON text as a map of one member, for `RawValue`'s `Deserialize`.
struct Handover<'a>(Option<&'a str>);

impl<'de> MapAccess<'de> for Handover<'de> {
    type Error = de::value::Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        if self.0.is_none() {
            return Ok(None);
        }
        seed.deserialize(de::value::BorrowedStrDeserializer::new(RAW_VALUE_TOKEN))
            .map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let text = self
            .0
            .take()
            .ok_or_else(|| <Self::Error as de::Error>::custom("no raw text"))?;
        seed.deserialize(de::value::BorrowedStrDeserializer::new(text))
    }
}

/// One JSON value, kept as its text (whitespace included) without being parsed into a tree.
///
/// It accepts any syntactically valid JSON value, as `serde_json`'s `RawValue` does: numbers are not
/// converted (so `1e400` is kept), and string escapes are not decoded. [`RawJson::parse`] reads it when
/// needed.
///
/// In JSON (`serde_json`'s text serializer and deserializer, and `serde_json::Value`) it is read and
/// written as its text, exactly. In every other format it is the value the text holds, as
/// `serde_json::Value` reads and writes it, inside a newtype struct (named as serde_json's raw value,
/// which is how serde_json hands the text over): MessagePack, CBOR or YAML see its maps, sequences,
/// strings and numbers, and read any self-describing value back into text. (Such a format needs
/// `deserialize_any`, as `serde_json::Value` does: bincode and postcard have none. A number that
/// `serde_json::Value` cannot hold, such as `1e400`, can only be written as JSON.)
///
/// ```
/// use energy_api_core::RawJson;
/// let raw: RawJson = serde_json::from_str(r#"{"certified": true, "since": 2021}"#).unwrap();
/// assert_eq!(raw.get(), r#"{"certified": true, "since": 2021}"#);
/// let value: serde_json::Value = raw.parse().unwrap();
/// assert_eq!(value["since"], 2021);
/// ```
#[derive(Clone)]
pub struct RawJson(Box<RawValue>);

impl RawJson {
    /// The JSON text, exactly as it arrived.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// Reads the value as `T` (a `serde_json::Value`, or any type it should have).
    pub fn parse<T: DeserializeOwned>(&self) -> serde_json::Result<T> {
        serde_json::from_str(self.0.get())
    }

    /// A value from JSON text, checked to be exactly one JSON value.
    pub fn from_json(text: impl Into<String>) -> serde_json::Result<Self> {
        RawValue::from_string(text.into()).map(Self)
    }

    /// A value's JSON text (compact).
    pub fn from_value<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Self> {
        serde_json::value::to_raw_value(value).map(Self)
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.get())
    }
}

impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.get())
    }
}

/// Equal when the texts are: two spellings of one value (`1.0` and `1`, reordered members) differ.
impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get()
    }
}

impl Eq for RawJson {}

/// Read as its text from JSON; from any other self-describing format, as the value it holds.
impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // serde_json answers its raw-value name with the text; other formats with a newtype struct.
        deserializer.deserialize_newtype_struct(RAW_VALUE_TOKEN, RawJsonVisitor)
    }
}

struct RawJsonVisitor;

impl<'de> Visitor<'de> for RawJsonVisitor {
    type Value = RawJson;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    /// serde_json's raw text, handed over as a map of one member.
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawJson, A::Error> {
        Box::<RawValue>::deserialize(de::value::MapAccessDeserializer::new(map)).map(RawJson)
    }
    /// Any other format: the value, written as JSON text.
    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<RawJson, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        RawJson::from_value(&value).map_err(de::Error::custom)
    }
}

/// Written back as the same text by `serde_json`; to any other serializer, as the value it holds, in a
/// newtype struct (which formats write as the value alone), so that reading asks for what was written.
impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if writes_json_text::<S>() {
            self.0.serialize(serializer)
        } else {
            let value = self
                .parse::<serde_json::Value>()
                .map_err(serde::ser::Error::custom)?;
            serializer.serialize_newtype_struct(RAW_VALUE_TOKEN, &value)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_text_and_reads_it_on_demand() {
        let text = r#"{"a": [1, {"b": "\u00e9"}], "n": 1e400}"#;
        let raw: RawJson = serde_json::from_str(text).unwrap();
        assert_eq!(
            raw.get(),
            text,
            "kept as it arrived, number and escape included"
        );
        assert_eq!(serde_json::to_string(&raw).unwrap(), text);
        // `serde_json::Value` cannot hold 1e400; the text is kept all the same.
        assert!(raw.parse::<serde_json::Value>().is_err());
        let small: RawJson = serde_json::from_str(r#" [true] "#).unwrap();
        assert_eq!(small.parse::<Vec<bool>>().unwrap(), [true]);
    }

    #[test]
    fn compares_by_text_and_builds_from_values() {
        let a = RawJson::from_value(&serde_json::json!({"x": 1})).unwrap();
        assert_eq!(a, RawJson::from_json(r#"{"x":1}"#).unwrap());
        assert_ne!(a, RawJson::from_json(r#"{"x": 1}"#).unwrap());
        assert!(RawJson::from_json("1 2").is_err());
        assert_eq!(format!("{a:?}"), r#"{"x":1}"#);
    }

    #[test]
    fn only_json_text_is_written_as_text() {
        let raw = RawJson::from_json(r#"{"b": [1, 2.5, "x"], "a": null}"#).unwrap();
        let pretty = serde_json::to_string_pretty(&vec![raw.clone()]).unwrap();
        assert!(
            pretty.contains(r#"{"b": [1, 2.5, "x"], "a": null}"#),
            "{pretty}"
        );
        assert_eq!(
            serde_json::to_value(&raw).unwrap(),
            serde_json::json!({"a": null, "b": [1, 2.5, "x"]})
        );
    }

    #[test]
    fn a_checked_text_is_a_raw_value_without_parsing_it_again() {
        for text in [r#"{"a": [1, 2.5e9]}"#, "\"evt-1\"", "null", "-0", " [ ] "] {
            let raw = borrowed_raw_value(text).map(RawValue::get);
            assert_eq!(raw, Some(text), "{text}");
        }
    }

    #[test]
    fn decodes_from_a_tree_of_values_too() {
        let value = serde_json::json!({"k": [1, 2]});
        let raw: RawJson = serde_json::from_value(value).unwrap();
        assert_eq!(raw.get(), r#"{"k":[1,2]}"#);
    }
}

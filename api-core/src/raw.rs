//! Members an object's schema does not list, kept as the JSON text they arrived as.
//!
//! A struct the schema marks incomplete keeps such members (its `additional_fields`) rather than
//! dropping them. They are kept as text, not as a tree of [`serde_json::Value`]s: a tree of small objects
//! takes 40 to 90 times the memory of its text, so a hostile response of 10 MiB would have held the better
//! part of a gigabyte. Text costs what it weighs, needs no allocation per node, and serialises back exactly
//! as it came.

use serde::de::{Deserialize, DeserializeOwned, Deserializer};
use serde::ser::{Serialize, Serializer};
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::fmt;

/// The members of an object that its schema does not list, by name (sorted), each as its JSON text.
pub type Unlisted = BTreeMap<String, RawJson>;

/// One JSON value, kept as its text (whitespace included) without being parsed into a tree.
///
/// It accepts any syntactically valid JSON value, as `serde_json`'s `RawValue` does: numbers are not
/// converted (so `1e400` is kept), and string escapes are not decoded. [`RawJson::parse`] reads it when
/// needed.
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

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(deserializer).map(Self)
    }
}

/// Written back as the same text (with `serde_json`; other serialisers see `serde_json`'s raw-value
/// wrapper).
impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
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
    fn decodes_from_a_tree_of_values_too() {
        let value = serde_json::json!({"k": [1, 2]});
        let raw: RawJson = serde_json::from_value(value).unwrap();
        assert_eq!(raw.get(), r#"{"k":[1,2]}"#);
    }
}

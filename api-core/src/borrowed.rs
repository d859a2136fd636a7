//! The field types of borrowed payload views: strings and free-form objects that point into the input
//! instead of being copied out of it.
//!
//! A generated crate's borrowed views (its `borrowed` feature) use these in place of `String` and
//! `serde_json::Map`. They accept exactly what those accept, so a view decodes exactly the payloads its
//! owned twin decodes.

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

/// A string of the input: borrowed when it is written without escapes (the usual case), owned when
/// an escape had to be decoded. Derefs to `str`.
///
/// ```
/// use energy_api_core::CowStr;
/// let plain: CowStr<'_> = serde_json::from_str(r#""A-1B2C3D4E""#).unwrap();
/// assert!(plain.is_borrowed());
/// assert_eq!(plain, "A-1B2C3D4E");
/// let escaped: CowStr<'_> = serde_json::from_str(r#""Caf\u00e9""#).unwrap();
/// assert!(!escaped.is_borrowed());
/// assert_eq!(&*escaped, "Café");
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct CowStr<'a>(pub Cow<'a, str>);

impl<'a> CowStr<'a> {
    /// The string.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether it points into the input (no escape had to be decoded).
    pub fn is_borrowed(&self) -> bool {
        matches!(self.0, Cow::Borrowed(_))
    }

    /// The string as an owned `String` (a copy only when it is borrowed).
    pub fn into_owned(self) -> String {
        self.0.into_owned()
    }
}

impl Deref for CowStr<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for CowStr<'_> {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for CowStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for CowStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<str> for CowStr<'_> {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for CowStr<'_> {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl<'a> From<&'a str> for CowStr<'a> {
    fn from(s: &'a str) -> Self {
        Self(Cow::Borrowed(s))
    }
}

impl From<String> for CowStr<'_> {
    fn from(s: String) -> Self {
        Self(Cow::Owned(s))
    }
}

impl Serialize for CowStr<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for CowStr<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(StringVisitor {
            borrow: true,
            make: CowStr,
        })
    }
}

/// Reads a string as `String` does (the same values, the same errors), borrowing it where `borrow` and
/// the input allow, and makes it into the visitor's value with `make`: a `CowStr`, or the table's slot
/// made in the visitor itself (see [`crate::table`]'s reader through serde).
pub(crate) struct StringVisitor<F> {
    pub(crate) borrow: bool,
    pub(crate) make: F,
}

impl<'de, V, F: FnOnce(Cow<'de, str>) -> V> Visitor<'de> for StringVisitor<F> {
    type Value = V;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V, E> {
        Ok((self.make)(if self.borrow {
            Cow::Borrowed(v)
        } else {
            Cow::Owned(v.to_owned())
        }))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<V, E> {
        Ok((self.make)(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<V, E> {
        Ok((self.make)(Cow::Owned(v)))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V, E> {
        match std::str::from_utf8(v) {
            Ok(s) => Ok((self.make)(Cow::Owned(s.to_owned()))),
            Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(v), &self)),
        }
    }
    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<V, E> {
        match String::from_utf8(v) {
            Ok(s) => Ok((self.make)(Cow::Owned(s))),
            Err(e) => Err(E::invalid_value(
                de::Unexpected::Bytes(&e.into_bytes()),
                &self,
            )),
        }
    }
}

/// A free-form JSON object of the input, kept as its text: what `serde_json::Map<String, Value>` accepts
/// (an object: `null` is not one), checked without building it.
///
/// A view of JSON text: it is read only from JSON (it points into the text), and written as its text to
/// `serde_json` and as the object it holds to any other serializer. The owned payload structs hold a
/// `serde_json::Map` instead, which every self-describing format reads.
///
/// ```
/// use energy_api_core::RawObject;
/// let changes: RawObject<'_> = serde_json::from_str(r#"{"email": ["old", "new"]}"#).unwrap();
/// assert_eq!(changes.get(), r#"{"email": ["old", "new"]}"#);
/// let value: serde_json::Value = changes.parse().unwrap();
/// assert_eq!(value["email"][1], "new");
/// assert!(serde_json::from_str::<RawObject<'_>>("[1]").is_err());
/// ```
#[derive(Clone, Copy)]
pub struct RawObject<'a>(&'a str);

impl<'a> RawObject<'a> {
    /// The object whose text `text` is (already checked to be what a `Map` accepts).
    pub(crate) fn from_text(text: &'a str) -> Self {
        Self(text)
    }

    /// The JSON text of the object (or `null`), exactly as in the input.
    pub fn get(&self) -> &'a str {
        self.0
    }

    /// Reads the object as `T` (a `serde_json::Map`, a `Value`, or any type it should have).
    pub fn parse<T: Deserialize<'a>>(&self) -> serde_json::Result<T> {
        serde_json::from_str(self.0)
    }
}

impl fmt::Debug for RawObject<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// Equal when the texts are.
impl PartialEq for RawObject<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for RawObject<'_> {}

/// Written back as the same text by `serde_json`; to any other serializer, as the object it holds
/// (the calls of `serde_json::Map`, which the owned struct holds).
impl Serialize for RawObject<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if crate::text::writes_json_text::<S>() {
            // The text was checked when it was read: serde_json's raw value of it is made without
            // parsing it again.
            crate::raw::borrowed_raw_value(self.0)
                .ok_or_else(|| serde::ser::Error::custom("a free-form object that is not JSON"))?
                .serialize(serializer)
        } else {
            // `null` is an empty `Map`, as the owned struct reads it.
            self.parse::<serde_json::Map<String, serde_json::Value>>()
                .map_err(serde::ser::Error::custom)?
                .serialize(serializer)
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for RawObject<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = <&'de RawValue>::deserialize(deserializer)?;
        // The text is a JSON value; whether it is one a `Map` accepts is checked in place.
        let mut text = serde_json::Deserializer::from_str(raw.get());
        check_free_form(&mut text).map_err(|e| de::Error::custom(crate::json::message_of(&e)))?;
        Ok(Self(raw.get()))
    }
}

/// Checks a free-form object as `serde_json::Map<String, Value>` reads it (or `null`, as `Option` of
/// one), keeping nothing: what a [`RawObject`] holds, and how the tables' checker checks one.
pub(crate) fn check_free_form<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
    deserializer.deserialize_map(Object)
}

/// A member name of a free-form object: any string.
struct FreeFormKey;

impl<'de> DeserializeSeed<'de> for FreeFormKey {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for FreeFormKey {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
}

/// A free-form object, checked as `serde_json::Map<String, Value>` reads it.
struct Object;

impl<'de> Visitor<'de> for Object {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(FreeFormKey)?.is_some() {
            map.next_value_seed(AnyValue)?;
        }
        Ok(())
    }
}

/// Any JSON value, checked as `serde_json::Value` reads it (numbers in range, strings valid).
#[derive(Clone, Copy)]
struct AnyValue;

impl<'de> DeserializeSeed<'de> for AnyValue {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for AnyValue {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(FreeFormKey)?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same verdict as `String` and `serde_json::Map`, on values of every JSON type.
    #[test]
    fn accepts_what_the_owned_types_accept() {
        for json in [
            r#""x""#,
            r#""\u00e9\n""#,
            r#""\ud800""#,
            "1",
            "null",
            "[]",
            "{}",
            r#"{"a": [1, {"b": null}]}"#,
            r#"{"a": 1e400}"#,
            r#"{"a": "\ud800"}"#,
            "true",
        ] {
            assert_eq!(
                serde_json::from_str::<CowStr<'_>>(json).is_ok(),
                serde_json::from_str::<String>(json).is_ok(),
                "{json}"
            );
            assert_eq!(
                serde_json::from_str::<RawObject<'_>>(json).is_ok(),
                serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(json).is_ok(),
                "{json}"
            );
        }
        let wrong = serde_json::from_str::<CowStr<'_>>("7").unwrap_err();
        let owned = serde_json::from_str::<String>("7").unwrap_err();
        assert_eq!(wrong.to_string(), owned.to_string());
    }
}

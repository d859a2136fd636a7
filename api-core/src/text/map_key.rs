//! A map key, written as `serde_json` writes one.

use super::{JsonText, TextError};
use serde::ser::{self, Serialize, Serializer};

/// A map key, as `serde_json` writes one: a string, or a number or boolean in quotes.
pub(super) struct MapKey<'t>(pub(super) &'t mut JsonText);

impl MapKey<'_> {
    fn quoted<T: Serialize>(self, value: T) -> Result<(), TextError> {
        self.0.push(b'"');
        self.0.scalar(&value)?;
        self.0.push(b'"');
        Ok(())
    }
}

fn key_must_be_a_string() -> TextError {
    TextError("key must be a string".to_owned())
}

impl Serializer for MapKey<'_> {
    type Ok = ();
    type Error = TextError;
    type SerializeSeq = ser::Impossible<(), TextError>;
    type SerializeTuple = ser::Impossible<(), TextError>;
    type SerializeTupleStruct = ser::Impossible<(), TextError>;
    type SerializeTupleVariant = ser::Impossible<(), TextError>;
    type SerializeMap = ser::Impossible<(), TextError>;
    type SerializeStruct = ser::Impossible<(), TextError>;
    type SerializeStructVariant = ser::Impossible<(), TextError>;

    #[inline]
    fn serialize_str(self, v: &str) -> Result<(), TextError> {
        self.0.string(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), TextError> {
        self.0.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_bool(self, v: bool) -> Result<(), TextError> {
        self.quoted(v)
    }
    fn serialize_i8(self, v: i8) -> Result<(), TextError> {
        self.quoted(v)
    }
    fn serialize_i16(self, v: i16) -> Result<(), TextError> {
        self.quoted(v)
    }
    fn serialize_i32(self, v: i32) -> Result<(), TextError> {
        self.quoted(v)
    }
    fn serialize_i64(self, v: i64) -> Result<(), TextError> {
        self.quoted(v)
    }
    fn serialize_i128(self, v: i128) -> Result<(), TextError> {
        self.quoted(v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), TextError> {
        self.quoted(v)
    }
    fn serialize_u16(self, v: u16) -> Result<(), TextError> {
        self.quoted(v)
    }
    fn serialize_u32(self, v: u32) -> Result<(), TextError> {
        self.quoted(v)
    }
    fn serialize_u64(self, v: u64) -> Result<(), TextError> {
        self.quoted(v)
    }
    fn serialize_u128(self, v: u128) -> Result<(), TextError> {
        self.quoted(v)
    }
    fn serialize_f32(self, v: f32) -> Result<(), TextError> {
        if v.is_finite() {
            self.quoted(v)
        } else {
            Err(TextError(
                "float key must be finite (got NaN or +/-inf)".to_owned(),
            ))
        }
    }
    fn serialize_f64(self, v: f64) -> Result<(), TextError> {
        if v.is_finite() {
            self.quoted(v)
        } else {
            Err(TextError(
                "float key must be finite (got NaN or +/-inf)".to_owned(),
            ))
        }
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), TextError> {
        Err(key_must_be_a_string())
    }
    fn serialize_none(self) -> Result<(), TextError> {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), TextError> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit(self) -> Result<(), TextError> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), TextError> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), TextError> {
        self.0.string(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), TextError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), TextError> {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, TextError> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, TextError> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, TextError> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, TextError> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, TextError> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, TextError> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, TextError> {
        Err(key_must_be_a_string())
    }
}

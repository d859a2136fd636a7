//! The text of a raw value, written as it is.

use super::{JsonText, TextError};
use serde::ser::{self, Serialize, Serializer};

/// The raw text of a raw value, written as it is (the value of `serde_json`'s raw-value struct).
pub(super) struct RawFragment<'t>(pub(super) &'t mut JsonText);

impl Serializer for RawFragment<'_> {
    type Ok = ();
    type Error = TextError;
    type SerializeSeq = ser::Impossible<(), TextError>;
    type SerializeTuple = ser::Impossible<(), TextError>;
    type SerializeTupleStruct = ser::Impossible<(), TextError>;
    type SerializeTupleVariant = ser::Impossible<(), TextError>;
    type SerializeMap = ser::Impossible<(), TextError>;
    type SerializeStruct = ser::Impossible<(), TextError>;
    type SerializeStructVariant = ser::Impossible<(), TextError>;

    fn serialize_str(self, v: &str) -> Result<(), TextError> {
        self.0.raw(v);
        Ok(())
    }

    fn serialize_bool(self, _v: bool) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_i8(self, _v: i8) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_i16(self, _v: i16) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_i32(self, _v: i32) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_i64(self, _v: i64) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_u8(self, _v: u8) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_u16(self, _v: u16) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_u32(self, _v: u32) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_u64(self, _v: u64) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_f32(self, _v: f32) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_f64(self, _v: f64) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_char(self, _v: char) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_none(self) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_unit(self) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
    ) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _value: &T,
    ) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), TextError> {
        Err(not_raw())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, TextError> {
        Err(not_raw())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, TextError> {
        Err(not_raw())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, TextError> {
        Err(not_raw())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, TextError> {
        Err(not_raw())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, TextError> {
        Err(not_raw())
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, TextError> {
        Err(not_raw())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, TextError> {
        Err(not_raw())
    }
}

/// What `serde_json` says of a raw value that is not text.
fn not_raw() -> TextError {
    TextError("expected RawValue".to_owned())
}

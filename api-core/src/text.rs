//! JSON text as `serde_json` writes it, written faster: the text of a generated struct is made here
//! when it is written to `serde_json`'s compact serializer, and handed to that serializer whole, as
//! serde_json's raw values are.
//!
//! `serde_json` checks every byte of every string against a table before it copies it; here strings are
//! searched eight bytes at a time for the bytes JSON escapes, and field names are written as they are
//! known. The text is the same, byte for byte: strings are escaped as `serde_json` escapes them (`\"`,
//! `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other control characters as `\u00XX`), and numbers are written
//! by `serde_json` itself. The generated crate's tests compare the two texts of every payload of the
//! catalogue (`tests/formats.rs`), and this module's tests compare them on arbitrary values.

use serde::ser::{self, Serialize, Serializer};
use std::fmt;

/// The name under which `serde_json` exchanges raw JSON text with its serializers and deserializers
/// (`serde_json::value::RawValue`'s protocol).
pub(crate) const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// Whether `S` is `serde_json`'s compact text serializer (`serde_json::to_string`, `to_vec`,
/// `to_writer`): the one whose text [`JsonText`] writes.
///
/// serde gives a serializer no way to say which format it writes, so its type is asked. The compiler
/// names `serde_json::Serializer<W>` without its formatter when the formatter is the default, compact
/// one, and with it otherwise (pretty, or a formatter of the user's): only a name whose arguments are
/// one writer, or a writer and the compact formatter, is taken. Should a future compiler name types
/// otherwise, nothing is taken, and values are written through the serializer as they always can be.
#[inline]
pub(crate) fn compact_json<S>() -> bool {
    let Some(arguments) = std::any::type_name::<S>()
        .strip_prefix("&mut serde_json::ser::Serializer<")
        .and_then(|rest| rest.strip_suffix('>'))
    else {
        return false;
    };
    let mut depth = 0usize;
    for (at, byte) in arguments.bytes().enumerate() {
        match byte {
            b'<' | b'(' | b'[' => depth += 1,
            b'>' | b')' | b']' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                return arguments.get(at + 1..).map(str::trim)
                    == Some("serde_json::ser::CompactFormatter");
            }
            _ => {}
        }
    }
    true
}

/// Whether `S` writes raw JSON text as it is: `serde_json`'s text serializer (with any formatter), or
/// [`JsonText`].
#[inline]
pub(crate) fn writes_json_text<S>() -> bool {
    let name = std::any::type_name::<S>();
    name.starts_with("&mut serde_json::ser::Serializer<") || name == JSON_TEXT
}

/// The type name of the serializer [`JsonText`] is.
const JSON_TEXT: &str = "&mut energy_api_core::text::JsonText";

/// The index of the first `"`, `\` or control character at or after `at` (or the length): the bytes a
/// JSON string escapes, and where a string read ends.
///
/// Eight bytes at a time: a byte is found where `x - 0x01…` borrows out of a zero byte of `x`, the
/// word with the sought byte cleared (the first such byte is always exact).
#[inline]
pub(crate) fn find_special(bytes: &[u8], mut at: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let Ok(chunk) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let word = u64::from_le_bytes(chunk);
        let quote = word ^ (ONES * u64::from(b'"'));
        let backslash = word ^ (ONES * u64::from(b'\\'));
        let found = (quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (word.wrapping_sub(ONES * 0x20) & !word);
        let found = found & HIGH;
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while let Some(&byte) = bytes.get(at) {
        if byte == b'"' || byte == b'\\' || byte < 0x20 {
            return at;
        }
        at += 1;
    }
    at
}

/// Whether a string has a byte JSON escapes: eight bytes at a time, the last word overlapping the one
/// before it (a short string padded with a byte that needs none), so that the usual string, which has
/// none, is checked in a word or two and copied whole.
#[inline(always)]
fn has_special(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let special = |chunk: [u8; 8]| {
        let word = u64::from_le_bytes(chunk);
        let quote = word ^ (ONES * u64::from(b'"'));
        let backslash = word ^ (ONES * u64::from(b'\\'));
        ((quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (word.wrapping_sub(ONES * 0x20) & !word))
            & HIGH
            != 0
    };
    let n = bytes.len();
    if n < 8 {
        let mut padded = [b' '; 8];
        if let Some(head) = padded.get_mut(..n) {
            head.copy_from_slice(bytes);
        }
        return special(padded);
    }
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        if <[u8; 8]>::try_from(chunk).is_ok_and(special) {
            return true;
        }
    }
    !chunks.remainder().is_empty()
        && bytes
            .get(n - 8..)
            .and_then(|last| <[u8; 8]>::try_from(last).ok())
            .is_some_and(special)
}

thread_local! {
    /// The buffer of the last text written on this thread, kept for the next (taken while in use, so a
    /// text written while another is cannot share it).
    static SPARE: std::cell::Cell<String> = const { std::cell::Cell::new(String::new()) };
}

/// A JSON text being written, as `serde_json`'s compact serializer writes it (a serde `Serializer`:
/// `&mut JsonText`).
#[derive(Debug, Default)]
pub struct JsonText {
    out: String,
}

/// Why a value could not be written.
#[derive(Debug)]
pub struct TextError(String);

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TextError {}

impl ser::Error for TextError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        TextError(message.to_string())
    }
}

impl JsonText {
    /// An empty text.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty text in this thread's spare buffer (see [`JsonText::recycle`]).
    #[inline]
    pub(crate) fn reusing() -> Self {
        let mut out = SPARE.with(|spare| spare.take());
        out.clear();
        JsonText { out }
    }

    /// Gives the buffer back for the next text of this thread.
    #[inline]
    pub(crate) fn recycle(self) {
        SPARE.with(|spare| spare.set(self.out));
    }

    /// The text written.
    pub fn as_str(&self) -> &str {
        &self.out
    }

    #[inline]
    fn push(&mut self, byte: u8) {
        self.out.push(char::from(byte));
    }

    /// A string, quoted and escaped as `serde_json` escapes it. Always inlined: where the string is a
    /// literal (a field's name), its check is made when the code is compiled.
    #[inline(always)]
    fn string(&mut self, value: &str) {
        self.out.reserve(value.len() + 2);
        self.out.push('"');
        if has_special(value.as_bytes()) {
            self.escaped(value);
        } else {
            self.out.push_str(value);
        }
        self.out.push('"');
    }

    /// The contents of a string with bytes to escape.
    #[cold]
    #[inline(never)]
    fn escaped(&mut self, value: &str) {
        let bytes = value.as_bytes();
        let mut from = 0;
        loop {
            let special = find_special(bytes, from);
            // Both ends are ASCII bytes (or the end), so on character boundaries.
            self.out
                .push_str(value.get(from..special).unwrap_or_default());
            let Some(&byte) = bytes.get(special) else {
                break;
            };
            self.escape(byte);
            from = special + 1;
        }
    }

    fn escape(&mut self, byte: u8) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let short = match byte {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            0x08 => Some(b'b'),
            0x0C => Some(b'f'),
            b'\n' => Some(b'n'),
            b'\r' => Some(b'r'),
            b'\t' => Some(b't'),
            _ => None,
        };
        self.out.push('\\');
        match short {
            Some(letter) => self.out.push(char::from(letter)),
            None => {
                self.out.push_str("u00");
                self.out.push(char::from(HEX[usize::from(byte >> 4)]));
                self.out.push(char::from(HEX[usize::from(byte & 0xF)]));
            }
        }
    }

    /// A number or other scalar, written by `serde_json` itself.
    #[inline]
    fn scalar<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), TextError> {
        serde_json::to_writer(Ascii(&mut self.out), value).map_err(|e| TextError(e.to_string()))
    }

    /// Raw JSON text, written as it is.
    #[inline]
    pub(crate) fn raw(&mut self, text: &str) {
        self.out.push_str(text);
    }

    /// A member's name and its `:`, after a `,` unless it is the `first`.
    #[inline(always)]
    pub(crate) fn member(&mut self, name: &str, first: bool) {
        if !first {
            self.push(b',');
        }
        self.string(name);
        self.push(b':');
    }
}

/// The text `serde_json` writes of a scalar (ASCII: digits, signs, `.`, `e`, `null`, `true`,
/// `false`), appended to a string.
struct Ascii<'t>(&'t mut String);

impl std::io::Write for Ascii<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let text = std::str::from_utf8(bytes).map_err(std::io::Error::other)?;
        self.0.push_str(text);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The parts of a container being written: whether a value was written (a `,` goes before the next).
pub struct Compound<'t> {
    text: &'t mut JsonText,
    first: bool,
    /// What closes it (`]` or `}`), unless it was closed at once (empty).
    close: &'static str,
    /// What is written after it: the `}` of a variant's wrapping object.
    after: &'static str,
    /// A raw value being handed over (`serde_json`'s protocol).
    raw: bool,
}

impl<'t> Compound<'t> {
    fn open(text: &'t mut JsonText, open: u8, close: &'static str, len: Option<usize>) -> Self {
        text.push(open);
        // serde_json closes an empty container at once.
        let close = if len == Some(0) {
            text.raw(close);
            ""
        } else {
            close
        };
        Compound {
            text,
            first: true,
            close,
            after: "",
            raw: false,
        }
    }

    #[inline]
    fn comma(&mut self) {
        if !self.first {
            self.text.push(b',');
        }
        self.first = false;
    }

    fn close(self) {
        self.text.raw(self.close);
        self.text.raw(self.after);
    }
}

impl<'t> Serializer for &'t mut JsonText {
    type Ok = ();
    type Error = TextError;
    type SerializeSeq = Compound<'t>;
    type SerializeTuple = Compound<'t>;
    type SerializeTupleStruct = Compound<'t>;
    type SerializeTupleVariant = Compound<'t>;
    type SerializeMap = Compound<'t>;
    type SerializeStruct = Compound<'t>;
    type SerializeStructVariant = Compound<'t>;

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<(), TextError> {
        self.raw(if v { "true" } else { "false" });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), TextError> {
        self.scalar(&v)
    }
    fn serialize_i16(self, v: i16) -> Result<(), TextError> {
        self.scalar(&v)
    }
    fn serialize_i32(self, v: i32) -> Result<(), TextError> {
        self.scalar(&v)
    }
    #[inline]
    fn serialize_i64(self, v: i64) -> Result<(), TextError> {
        self.scalar(&v)
    }
    fn serialize_i128(self, v: i128) -> Result<(), TextError> {
        self.scalar(&v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), TextError> {
        self.scalar(&v)
    }
    fn serialize_u16(self, v: u16) -> Result<(), TextError> {
        self.scalar(&v)
    }
    fn serialize_u32(self, v: u32) -> Result<(), TextError> {
        self.scalar(&v)
    }
    #[inline]
    fn serialize_u64(self, v: u64) -> Result<(), TextError> {
        self.scalar(&v)
    }
    fn serialize_u128(self, v: u128) -> Result<(), TextError> {
        self.scalar(&v)
    }
    fn serialize_f32(self, v: f32) -> Result<(), TextError> {
        self.scalar(&v)
    }
    #[inline]
    fn serialize_f64(self, v: f64) -> Result<(), TextError> {
        self.scalar(&v)
    }
    fn serialize_char(self, v: char) -> Result<(), TextError> {
        self.string(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    #[inline]
    fn serialize_str(self, v: &str) -> Result<(), TextError> {
        self.string(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), TextError> {
        self.scalar(v)
    }
    #[inline]
    fn serialize_none(self) -> Result<(), TextError> {
        self.raw("null");
        Ok(())
    }
    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), TextError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), TextError> {
        self.raw("null");
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), TextError> {
        self.raw("null");
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), TextError> {
        self.string(variant);
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
        variant: &'static str,
        value: &T,
    ) -> Result<(), TextError> {
        self.push(b'{');
        self.string(variant);
        self.push(b':');
        value.serialize(&mut *self)?;
        self.push(b'}');
        Ok(())
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'t>, TextError> {
        Ok(Compound::open(self, b'[', "]", len))
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'t>, TextError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'t>, TextError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'t>, TextError> {
        self.push(b'{');
        self.string(variant);
        self.push(b':');
        Ok(Compound::open(self, b'[', "]", Some(len)).then("}"))
    }
    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'t>, TextError> {
        Ok(Compound::open(self, b'{', "}", len))
    }
    #[inline]
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'t>, TextError> {
        if name == RAW_VALUE_TOKEN {
            return Ok(Compound {
                text: self,
                first: true,
                close: "",
                after: "",
                raw: true,
            });
        }
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'t>, TextError> {
        self.push(b'{');
        self.string(variant);
        self.push(b':');
        Ok(Compound::open(self, b'{', "}", Some(len)).then("}"))
    }
}

impl<'t> Compound<'t> {
    /// For a variant's container: what closes the object wrapping it.
    fn then(mut self, after: &'static str) -> Self {
        self.after = after;
        self
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = TextError;
    #[inline]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), TextError> {
        self.comma();
        value.serialize(&mut *self.text)
    }
    #[inline]
    fn end(self) -> Result<(), TextError> {
        self.close();
        Ok(())
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), TextError> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), TextError> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), TextError> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), TextError> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleVariant for Compound<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), TextError> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), TextError> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = TextError;
    #[inline]
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), TextError> {
        self.comma();
        key.serialize(MapKey(&mut *self.text))?;
        self.text.push(b':');
        Ok(())
    }
    #[inline]
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), TextError> {
        value.serialize(&mut *self.text)
    }
    #[inline]
    fn end(self) -> Result<(), TextError> {
        self.close();
        Ok(())
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = TextError;
    #[inline]
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), TextError> {
        if self.raw {
            return value.serialize(RawFragment(&mut *self.text));
        }
        self.comma();
        self.text.string(key);
        self.text.push(b':');
        value.serialize(&mut *self.text)
    }
    #[inline]
    fn end(self) -> Result<(), TextError> {
        self.close();
        Ok(())
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), TextError> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result<(), TextError> {
        ser::SerializeStruct::end(self)
    }
}

/// A map key, as `serde_json` writes one: a string, or a number or boolean in quotes.
struct MapKey<'t>(&'t mut JsonText);

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

/// The raw text of a raw value, written as it is (the value of `serde_json`'s raw-value struct).
struct RawFragment<'t>(&'t mut JsonText);

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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    fn ours<T: Serialize + ?Sized>(value: &T) -> String {
        let mut text = JsonText::new();
        value.serialize(&mut text).expect("written");
        text.as_str().to_owned()
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
        type Explicit<'a> =
            &'a mut serde_json::Serializer<Vec<u8>, serde_json::ser::CompactFormatter>;
        type Pretty<'a> =
            &'a mut serde_json::Serializer<Vec<u8>, serde_json::ser::PrettyFormatter<'a>>;
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

    #[test]
    fn strings_with_a_byte_to_escape_are_found_at_any_length_and_place() {
        for len in 0..40 {
            let plain = "a".repeat(len);
            assert!(!has_special(plain.as_bytes()), "{len}");
            for at in 0..len {
                for byte in [b'"', b'\\', 0, 0x1f, b'\n'] {
                    let mut bytes = plain.clone().into_bytes();
                    bytes[at] = byte;
                    assert!(has_special(&bytes), "{len} {at} {byte}");
                }
            }
        }
        assert!(!has_special("é ü 😀 ~\u{7f}".as_bytes()));
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
}

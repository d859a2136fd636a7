//! JSON text as `serde_json` writes it, written faster: the text of a generated struct is made here
//! when it is written to `serde_json`'s compact serializer, and handed to that serializer whole, as
//! serde_json's raw values are.
//!
//! `serde_json` checks every byte of every string against a table before it copies it; here strings are
//! checked for the bytes JSON escapes and copied in one pass, eight bytes at a time (a short string in
//! one word), with no call to `memcpy` and its branches on the length. The text is the same, byte for
//! byte: strings are escaped as `serde_json` escapes them (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`,
//! other control characters as `\u00XX`), and numbers are written by `serde_json` itself. The
//! generated crate's tests compare the two texts of every payload of the catalogue (`tests/formats.rs`),
//! and this module's tests compare them on arbitrary values.

use serde::ser::{self, Serialize, Serializer};
use std::fmt;

mod map_key;
mod raw_fragment;

use map_key::MapKey;
use raw_fragment::RawFragment;

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
/// JSON string escapes, and where a string read ends. Eight bytes at a time ([`special_bytes`]).
#[inline]
pub(crate) fn find_special(bytes: &[u8], mut at: usize) -> usize {
    while let Some(chunk) = bytes.get(at..at + 8) {
        let Ok(chunk) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let found = special_bytes(u64::from_le_bytes(chunk));
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

/// The bytes of `word` that JSON escapes in a string (`"`, `\\`, control characters), each marked by
/// its high bit: where `x - 0x01…` borrows out of a zero byte of `x`, the word with the sought byte
/// cleared (the lowest marked byte is always exact; bytes above a marked one may be marked falsely,
/// which only sends a string to the careful path).
#[inline(always)]
fn special_bytes(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let quote = word ^ (ONES * u64::from(b'"'));
    let backslash = word ^ (ONES * u64::from(b'\\'));
    ((quote.wrapping_sub(ONES) & !quote)
        | (backslash.wrapping_sub(ONES) & !backslash)
        | (word.wrapping_sub(ONES * 0x20) & !word))
        & HIGH
}

/// The bytes of a string shorter than eight as a little-endian word, zero above them: read in two
/// overlapping loads (four bytes from each end, or three single bytes), so that no copy of a
/// variable length (a call to `memcpy`, and its branches on the length) is made.
#[inline(always)]
fn short_word(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let word_at = |at: usize| -> u64 {
        bytes
            .get(at..at + 4)
            .and_then(|four| <[u8; 4]>::try_from(four).ok())
            .map_or(0, |four| u64::from(u32::from_le_bytes(four)))
    };
    let byte_at = |at: usize| u64::from(bytes.get(at).copied().unwrap_or(0));
    if n >= 4 {
        word_at(0) | (word_at(n - 4) << (8 * (n - 4)))
    } else if n > 0 {
        byte_at(0) | (byte_at(n / 2) << (8 * (n / 2))) | (byte_at(n - 1) << (8 * (n - 1)))
    } else {
        0
    }
}

thread_local! {
    /// The buffer of the last text written on this thread, kept for the next (taken while in use, so a
    /// text written while another is cannot share it).
    static SPARE: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// A JSON text being written, as `serde_json`'s compact serializer writes it (a serde `Serializer`:
/// `&mut JsonText`).
#[derive(Debug, Default)]
pub struct JsonText {
    /// Bytes, not a `String`: strings are copied eight bytes at a time, a word cut short by
    /// truncating, which leaves the text for a moment in the middle of a character. Only whole
    /// strings and ASCII are written, so the text is UTF-8 whenever a write has ended (and is checked
    /// once, when it is read: [`JsonText::as_str`]).
    out: Vec<u8>,
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

    /// The text written: `None` only should a write have left it not UTF-8, which none does.
    pub fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.out).ok()
    }

    #[inline]
    fn push(&mut self, byte: u8) {
        self.out.push(byte);
    }

    /// A string, quoted and escaped as `serde_json` escapes it.
    #[inline(always)]
    fn string(&mut self, value: &str) {
        let start = self.out.len();
        // Room for the quotes and a word copied past the end of the string.
        self.out.reserve(value.len() + 10);
        self.out.push(b'"');
        if !self.copy_plain(value.as_bytes()) {
            self.out.truncate(start + 1);
            self.escaped(value);
        }
        self.out.push(b'"');
    }

    /// Copies `bytes` eight at a time, a last word overlapping the one before it (or, for a string
    /// shorter than a word, the word of [`short_word`]) and the text cut back to the string's end:
    /// whether none of them is a byte JSON escapes (if one is, the copy is to be undone).
    #[inline(always)]
    fn copy_plain(&mut self, bytes: &[u8]) -> bool {
        let n = bytes.len();
        let at = self.out.len();
        if n < 8 {
            let word = short_word(bytes);
            self.out.extend_from_slice(&word.to_le_bytes());
            self.out.truncate(at + n);
            // Only the string's own bytes count (the zeros above them would be control characters).
            let own = u64::MAX.checked_shr(64 - 8 * n as u32).unwrap_or(0);
            return special_bytes(word) & own == 0;
        }
        let mut found = 0;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            if let Ok(chunk) = <[u8; 8]>::try_from(chunk) {
                found |= special_bytes(u64::from_le_bytes(chunk));
                self.out.extend_from_slice(&chunk);
            }
        }
        if !chunks.remainder().is_empty()
            && let Some(last) = bytes
                .get(n - 8..)
                .and_then(|last| <[u8; 8]>::try_from(last).ok())
        {
            found |= special_bytes(u64::from_le_bytes(last));
            self.out.truncate(at + n - 8);
            self.out.extend_from_slice(&last);
        }
        found == 0
    }

    /// The contents of a string with bytes to escape.
    #[cold]
    #[inline(never)]
    fn escaped(&mut self, value: &str) {
        let bytes = value.as_bytes();
        let mut from = 0;
        loop {
            let special = find_special(bytes, from);
            self.out
                .extend_from_slice(bytes.get(from..special).unwrap_or_default());
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
        self.out.push(b'\\');
        match short {
            Some(letter) => self.out.push(letter),
            None => {
                self.out.extend_from_slice(b"u00");
                self.out.push(HEX[usize::from(byte >> 4)]);
                self.out.push(HEX[usize::from(byte & 0xF)]);
            }
        }
    }

    /// A number or other scalar, written by `serde_json` itself.
    #[inline]
    fn scalar<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), TextError> {
        serde_json::to_writer(&mut self.out, value).map_err(|e| TextError(e.to_string()))
    }

    /// Raw JSON text, written as it is.
    #[inline]
    pub(crate) fn raw(&mut self, text: &str) {
        self.out.extend_from_slice(text.as_bytes());
    }

    /// A member's name and its `:`, after a `,` unless it is the `first`.
    // Not inlined: one function for every struct's fields, the names not known when it is compiled.
    #[inline(never)]
    pub(crate) fn member(&mut self, name: &str, first: bool) {
        if !first {
            self.push(b',');
        }
        self.string(name);
        self.push(b':');
    }

    /// A member whose name is plain JSON (no `"`, `\\` or control character: a table's names), written
    /// between quotes as it is, after a `,` unless it is the `first`.
    // Copied a word at a time as strings are (`copy_plain`, whose verdict is not asked: the name is
    // plain), between stores of a constant size (`,"` or `"`, then `":`). Not inlined, as `member`.
    #[inline(never)]
    pub(crate) fn plain_member(&mut self, name: &str, first: bool) {
        // Room for `,"`, `":` and a word copied past the end.
        self.out.reserve(name.len() + 12);
        if first {
            self.push(b'"');
        } else {
            self.out.extend_from_slice(b",\"");
        }
        self.copy_plain(name.as_bytes());
        self.out.extend_from_slice(b"\":");
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

#[cfg(test)]
mod tests;

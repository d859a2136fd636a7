//! The JSON text reader of the fast path: values read straight from JSON text, without serde's visitor
//! interface, for the decoding paths that must run near the speed of parsing. The tables' reader
//! ([`crate::table::read`]) walks a struct's table with it.
//!
//! It accepts a subset of what the `Deserialize` impls accept and never more: anything it is not sure of
//! (an escaped key, a number with an exponent, a duplicate field, a wrong type, bad JSON, deep nesting)
//! makes it [`Stop`], and the caller decodes the same bytes again with serde, which gives the value or
//! the error, with its path, exactly as before. So where it succeeds its value is the one serde would
//! give, and where it stops nothing changes but the time. The generated crate's tests decode every
//! sample both ways, and a property test here feeds both arbitrary values of every JSON type.
//!
//! Every generated struct is [`ReadJson`] through its table (one impl in [`crate::table`]), so the fast
//! path and `Deserialize` read the same fields under the same names.

use crate::borrowed::{CowStr, RawObject};
use std::borrow::Cow;

/// The fast reader gave up on its input: decode it again with serde for the value or the error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop;

/// How deeply nested a value the reader reads before it gives up: serde_json's limit (it refuses the
/// 128th container open at once), so that the reader stops only where serde refuses too. Like serde, it
/// counts the containers it reads from the start of its text, and not those it skips (serde skips an
/// ignored value at any depth). It also bounds the recursion through recursive types.
pub const MAX_DEPTH: usize = 127;

/// A position in a JSON text.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    text: &'a str,
    at: usize,
    /// Objects and arrays open around the position.
    depth: usize,
    /// The deepest nesting reached inside a value skipped as ignored, counting the containers around
    /// it (see [`Reader::deepest_skipped`]).
    deepest_skipped: usize,
}

/// A value that the fast reader reads: the generated structs, and the field types they use.
// Hidden from docs: the engine's, not the user's (every generated struct implements it).
#[doc(hidden)]
pub trait ReadJson<'a>: Sized {
    /// Reads one value at the reader's position (after any whitespace), leaving it after the value.
    fn read(reader: &mut Reader<'a>) -> Result<Self, Stop>;
}

impl<'a> Reader<'a> {
    /// A reader at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            at: 0,
            depth: 0,
            deepest_skipped: 0,
        }
    }

    /// How deep the values skipped as ignored ([`Self::skip`]) nested at most, counting the containers
    /// open around them. Like serde, the reader skips at any depth; a caller that holds a whole text to
    /// a limit (the runtime's decoder) asks this rather than scanning the text again.
    pub fn deepest_skipped(&self) -> usize {
        self.deepest_skipped
    }

    /// The byte offset of the reader in its text.
    pub fn offset(&self) -> usize {
        self.at
    }

    /// Reads one whole value of `T` from `text`: only whitespace may follow it.
    pub fn read_all<T: ReadJson<'a>>(text: &'a str) -> Result<T, Stop> {
        Self::whole(text, T::read)
    }

    /// Reads one whole value from `text` with `read`: only whitespace may follow it.
    // Inlined so that the value (a whole `Event`, hundreds of bytes) is not copied out of it again.
    #[inline(always)]
    pub fn whole<T>(
        text: &'a str,
        read: impl FnOnce(&mut Reader<'a>) -> Result<T, Stop>,
    ) -> Result<T, Stop> {
        let mut reader = Reader::new(text);
        let value = read(&mut reader)?;
        reader.end()?;
        Ok(value)
    }

    /// Checks that nothing but whitespace is left.
    pub fn end(&mut self) -> Result<(), Stop> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(Stop),
        }
    }

    #[inline]
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The next byte after whitespace (JSON's four), the reader left on it.
    #[inline]
    pub fn peek(&mut self) -> Option<u8> {
        let bytes = self.bytes();
        // Usually the next byte is not whitespace (all four are at most b' ').
        if let Some(&byte) = bytes.get(self.at)
            && byte > b' '
        {
            return Some(byte);
        }
        while let Some(&byte) = bytes.get(self.at) {
            if !matches!(byte, b' ' | b'\n' | b'\r' | b'\t') {
                return Some(byte);
            }
            self.at += 1;
        }
        None
    }

    /// Consumes `byte` as the next byte after whitespace.
    #[inline]
    pub fn eat(&mut self, byte: u8) -> Result<(), Stop> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(Stop)
        }
    }

    /// Consumes `null` if it is next; `false` (nothing consumed) otherwise.
    #[inline]
    pub fn null(&mut self) -> bool {
        if self.peek() == Some(b'n') && self.literal(b"null") {
            return true;
        }
        false
    }

    #[inline]
    fn literal(&mut self, word: &[u8]) -> bool {
        if self
            .bytes()
            .get(self.at..)
            .is_some_and(|rest| rest.starts_with(word))
        {
            self.at += word.len();
            true
        } else {
            false
        }
    }

    /// Starts reading an object: consumes `{`.
    #[inline]
    pub fn object(&mut self) -> Result<Members, Stop> {
        self.eat(b'{')?;
        self.enter()?;
        Ok(Members { first: true })
    }

    /// Starts reading an array: consumes `[`.
    #[inline]
    pub fn array(&mut self) -> Result<Elements, Stop> {
        self.eat(b'[')?;
        self.enter()?;
        Ok(Elements { first: true })
    }

    #[inline]
    fn enter(&mut self) -> Result<(), Stop> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Stop);
        }
        Ok(())
    }

    /// Reads a string, borrowed from the text unless it has escapes.
    // Always inlined: returned through memory, the string was stored in words and loaded again in
    // halves by its caller, a stall that cost as much as the reading (the profile of issue 24).
    #[inline(always)]
    pub fn string(&mut self) -> Result<Cow<'a, str>, Stop> {
        self.eat(b'"')?;
        let start = self.at;
        let end = crate::text::find_special(self.bytes(), start);
        match self.bytes().get(end) {
            Some(b'"') => {
                self.at = end + 1;
                self.text.get(start..end).map(Cow::Borrowed).ok_or(Stop)
            }
            Some(b'\\') => self.escaped_string(start, end).map(Cow::Owned),
            _ => Err(Stop),
        }
    }

    /// The rest of a string that has an escape at `escape` (its text starts at `start`): decoded by
    /// serde_json itself, so that every rule about escapes is its own.
    #[cold]
    #[inline(never)]
    fn escaped_string(&mut self, start: usize, escape: usize) -> Result<String, Stop> {
        let close = string_end(self.bytes(), escape).ok_or(Stop)?;
        let quoted = self.text.get(start - 1..=close).ok_or(Stop)?;
        self.at = close + 1;
        serde_json::from_str::<String>(quoted).map_err(|_| Stop)
    }

    /// Skips a string as serde skips a value it ignores (escapes are checked, by serde_json itself,
    /// but not decoded) or, for [`Check::Decoded`], as `String` reads one (its escapes must decode).
    fn skip_string(&mut self, check: Check) -> Result<(), Stop> {
        self.eat(b'"')?;
        let start = self.at;
        let end = crate::text::find_special(self.bytes(), start);
        match self.bytes().get(end) {
            Some(b'"') => {
                self.at = end + 1;
                Ok(())
            }
            Some(b'\\') => {
                let close = string_end(self.bytes(), end).ok_or(Stop)?;
                let quoted = self.text.get(start - 1..=close).ok_or(Stop)?;
                match check {
                    Check::Ignored => drop(
                        serde_json::from_str::<serde::de::IgnoredAny>(quoted).map_err(|_| Stop)?,
                    ),
                    Check::Decoded => {
                        drop(serde_json::from_str::<String>(quoted).map_err(|_| Stop)?)
                    }
                }
                self.at = close + 1;
                Ok(())
            }
            _ => Err(Stop),
        }
    }

    /// Whether the key at the reader (on its opening quote) is `name` written plainly, compared in
    /// place; if so, the reader is moved past its closing quote.
    #[inline(always)]
    fn key_is(&mut self, name: &str) -> bool {
        let bytes = self.bytes();
        let start = self.at + 1;
        let end = start + name.len();
        let found = bytes.get(end) == Some(&b'"')
            && bytes
                .get(start..end)
                .is_some_and(|key| same_bytes(key, name.as_bytes()));
        if found {
            self.at = end + 1;
        }
        found
    }

    /// Reads an object key, decoded as serde decodes one (escapes too), and the `:` after it.
    #[inline]
    fn key(&mut self) -> Result<Cow<'a, str>, Stop> {
        let key = self.string()?;
        self.eat(b':')?;
        Ok(key)
    }

    /// Reads an integer that fits in `i64`, written as JSON integers are (no fraction, no exponent).
    #[inline]
    pub fn integer(&mut self) -> Result<i64, Stop> {
        let bytes = self.bytes();
        let mut at = match self.peek() {
            Some(b'-') => self.at + 1,
            Some(b'0'..=b'9') => self.at,
            _ => return Err(Stop),
        };
        let negative = at > self.at;
        let first = at;
        let mut value: u64 = 0;
        while let Some(&digit @ b'0'..=b'9') = bytes.get(at) {
            // Past `u64` serde reads a float, which an `i64` refuses: so does the reader.
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(digit - b'0')))
                .ok_or(Stop)?;
            at += 1;
        }
        let digits = at - first;
        // Leading zeros, and `-0` (a float to serde), are serde's to refuse or read.
        if digits == 0
            || (digits > 1 && bytes.get(first) == Some(&b'0'))
            || (negative && value == 0)
            || matches!(bytes.get(at), Some(b'.' | b'e' | b'E'))
        {
            return Err(Stop);
        }
        // Every `i64`: up to 9223372036854775807, down to -9223372036854775808.
        let value = if negative {
            0i64.checked_sub_unsigned(value).ok_or(Stop)?
        } else {
            i64::try_from(value).map_err(|_| Stop)?
        };
        self.at = at;
        Ok(value)
    }

    /// Reads a number as `f64`, with serde_json's own conversion.
    pub fn float(&mut self) -> Result<f64, Stop> {
        self.peek();
        let bytes = self.bytes();
        let start = self.at;
        let mut at = start;
        while let Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') = bytes.get(at) {
            at += 1;
        }
        let token = self.text.get(start..at).ok_or(Stop)?;
        let value = serde_json::from_str::<f64>(token).map_err(|_| Stop)?;
        self.at = at;
        Ok(value)
    }

    /// Reads `true` or `false`.
    #[inline]
    pub fn boolean(&mut self) -> Result<bool, Stop> {
        match self.peek() {
            Some(b't') if self.literal(b"true") => Ok(true),
            Some(b'f') if self.literal(b"false") => Ok(false),
            _ => Err(Stop),
        }
    }

    /// Skips one value, checking it as serde checks a value it ignores (`IgnoredAny`): its grammar, and
    /// its strings' escapes. Returns its text. Iterative, and, as serde's skipping, at any depth: no
    /// nesting exhausts the stack, and a skipped value does not count towards [`MAX_DEPTH`].
    pub fn skip(&mut self) -> Result<&'a str, Stop> {
        self.peek();
        let start = self.at;
        self.skip_value(Check::Ignored)?;
        self.text.get(start..self.at).ok_or(Stop)
    }

    /// Skips a free-form object, checking it as `serde_json::Map<String, Value>` reads one (every
    /// string's escapes decode, every number is in `f64`'s range, its nesting counts towards
    /// [`MAX_DEPTH`]), in the same one pass as [`Self::skip`]. Returns its text.
    pub fn free_form_object(&mut self) -> Result<&'a str, Stop> {
        if self.peek() != Some(b'{') {
            return Err(Stop);
        }
        let start = self.at;
        self.skip_value(Check::Decoded)?;
        self.text.get(start..self.at).ok_or(Stop)
    }

    fn skip_value(&mut self, check: Check) -> Result<(), Stop> {
        let mut open = Open::default();
        loop {
            // A value.
            match self.peek().ok_or(Stop)? {
                b'{' => {
                    self.note_skipped_depth(&open, check);
                    self.open_skipped(b'{', check)?;
                    if self.peek() == Some(b'}') {
                        self.close_skipped(check);
                    } else {
                        open.push(true);
                        self.skip_key(check)?;
                        continue;
                    }
                }
                b'[' => {
                    self.note_skipped_depth(&open, check);
                    self.open_skipped(b'[', check)?;
                    if self.peek() == Some(b']') {
                        self.close_skipped(check);
                    } else {
                        open.push(false);
                        continue;
                    }
                }
                b'"' => self.skip_string(check)?,
                b't' | b'f' => drop(self.boolean()?),
                b'n' => self.null().then_some(()).ok_or(Stop)?,
                _ => self.skip_number(check)?,
            }
            // After a value: close what ends here, up to the next value.
            loop {
                let Some(in_object) = open.last() else {
                    return Ok(());
                };
                match self.peek() {
                    Some(b',') => {
                        self.at += 1;
                        if in_object {
                            self.skip_key(check)?;
                        }
                        break;
                    }
                    Some(b'}') if in_object => {
                        self.close_skipped(check);
                        open.pop();
                    }
                    Some(b']') if !in_object => {
                        self.close_skipped(check);
                        open.pop();
                    }
                    _ => return Err(Stop),
                }
            }
        }
    }

    /// Keeps the nesting of a container about to open inside an ignored value, counting it and those
    /// around it (a counted value is held to [`MAX_DEPTH`] instead).
    #[inline]
    fn note_skipped_depth(&mut self, open: &Open, check: Check) {
        if check == Check::Ignored {
            self.deepest_skipped = self.deepest_skipped.max(self.depth + open.len + 1);
        }
    }

    /// Opens a container being skipped. serde skips an ignored value at any depth; one it reads (a
    /// free-form object) counts towards its limit, as here.
    #[inline]
    fn open_skipped(&mut self, byte: u8, check: Check) -> Result<(), Stop> {
        self.eat(byte)?;
        match check {
            Check::Ignored => Ok(()),
            Check::Decoded => self.enter(),
        }
    }

    /// Closes a container being skipped (see [`Self::open_skipped`]).
    #[inline]
    fn close_skipped(&mut self, check: Check) {
        self.at += 1;
        if check != Check::Ignored {
            self.depth -= 1;
        }
    }

    /// Skips a member name and its `:`.
    fn skip_key(&mut self, check: Check) -> Result<(), Stop> {
        self.skip_string(check)?;
        self.eat(b':')
    }

    /// A number of JSON's grammar, `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, not converted (as
    /// serde ignores one: `1e400` too) or, for [`Check::Decoded`], one that `serde_json::Value` reads (in
    /// `f64`'s range).
    fn skip_number(&mut self, check: Check) -> Result<(), Stop> {
        let bytes = self.bytes();
        let mut at = self.at;
        if bytes.get(at) == Some(&b'-') {
            at += 1;
        }
        let digits = |at: &mut usize| {
            let from = *at;
            while let Some(b'0'..=b'9') = bytes.get(*at) {
                *at += 1;
            }
            *at - from
        };
        let first = at;
        let whole = digits(&mut at);
        if whole == 0 || (whole > 1 && bytes.get(first) == Some(&b'0')) {
            return Err(Stop);
        }
        if bytes.get(at) == Some(&b'.') {
            at += 1;
            if digits(&mut at) == 0 {
                return Err(Stop);
            }
        }
        if matches!(bytes.get(at), Some(b'e' | b'E')) {
            at += 1;
            if matches!(bytes.get(at), Some(b'+' | b'-')) {
                at += 1;
            }
            if digits(&mut at) == 0 {
                return Err(Stop);
            }
        }
        // A short integer is in range; anything else is converted by serde_json, which refuses one out
        // of `f64`'s range.
        if check == Check::Decoded && (whole > 18 || at != first + whole) {
            let token = self.text.get(self.at..at).ok_or(Stop)?;
            serde_json::from_str::<f64>(token).map_err(|_| Stop)?;
        }
        self.at = at;
        Ok(())
    }
}

/// The containers open around the position of a value being skipped, innermost last (`true`: an
/// object): in bits up to 128 levels, so that skipping allocates nothing, and past them in a vector.
#[derive(Debug, Default)]
struct Open {
    bits: u128,
    len: usize,
    deeper: Vec<bool>,
}

impl Open {
    fn push(&mut self, object: bool) {
        if self.len < 128 {
            let bit = 1u128 << self.len;
            self.bits = if object {
                self.bits | bit
            } else {
                self.bits & !bit
            };
        } else {
            self.deeper.push(object);
        }
        self.len += 1;
    }

    fn last(&self) -> Option<bool> {
        match self.len {
            0 => None,
            n @ 1..=128 => Some(self.bits & (1u128 << (n - 1)) != 0),
            _ => self.deeper.last().copied(),
        }
    }

    fn pop(&mut self) {
        if self.len > 128 {
            self.deeper.pop();
        }
        self.len = self.len.saturating_sub(1);
    }
}

/// What skipping a value checks besides its grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// What serde checks of a value it ignores (`IgnoredAny`), at any depth.
    Ignored,
    /// What `serde_json::Value` checks of one it reads: its nesting counted, escapes that decode,
    /// numbers in range.
    Decoded,
}

/// The members of an object being read.
#[derive(Debug)]
pub struct Members {
    first: bool,
}

/// A member of an object read as a field of a struct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Member<'a> {
    /// The field at this index of the struct's field names.
    Field(usize),
    /// A name the struct does not list (decoded: borrowed unless it had escapes).
    Other(Cow<'a, str>),
}

impl Members {
    /// Moves past the `,` before the next member; `false` at the closing `}` (consumed).
    #[inline]
    fn advance(&mut self, reader: &mut Reader<'_>) -> Result<bool, Stop> {
        match reader.peek() {
            Some(b'}') => {
                reader.at += 1;
                reader.depth -= 1;
                return Ok(false);
            }
            Some(b',') if !self.first => {
                reader.at += 1;
                // The reader is left on the key's opening quote, which `next_field` compares past
                // without looking at it: anything else there is not JSON.
                if reader.peek() != Some(b'"') {
                    return Err(Stop);
                }
            }
            Some(b'"') if self.first => {}
            _ => return Err(Stop),
        }
        self.first = false;
        Ok(true)
    }

    /// The next member's key (its `:` consumed), or `None` at the closing `}` (consumed).
    #[inline]
    pub fn next_key<'a>(&mut self, reader: &mut Reader<'a>) -> Result<Option<Cow<'a, str>>, Stop> {
        if !self.advance(reader)? {
            return Ok(None);
        }
        reader.key().map(Some)
    }

    /// The next member as a field of a struct whose JSON names are `fields` (former names `aliases`,
    /// name order `by_name`, see [`crate::table::StructTable::by_name`]; it may be empty), with its `:`
    /// consumed; `None` at the closing `}` (consumed). `next` is one past the last field found (0 at
    /// first): the key expected next, in the schema's order (the field after the last) or in name
    /// order (`by_name[next]`), is compared in place, without scanning it first; so are the other
    /// names, before a key that is none of them (another member, or one with an escape) is scanned and
    /// decoded. The names must be plain JSON strings (no `"`, `\` or control characters), which
    /// [`plain_names`] checks where the generated code names them.
    #[inline]
    pub fn next_field<'a>(
        &mut self,
        reader: &mut Reader<'a>,
        fields: &[&str],
        aliases: &[(&str, usize)],
        by_name: &[usize],
        next: &mut usize,
    ) -> Result<Option<Member<'a>>, Stop> {
        if !self.advance(reader)? {
            return Ok(None);
        }
        let index = if let Some(expected) = fields.get(*next)
            && reader.key_is(expected)
        {
            *next
        } else if let Some(&sorted) = by_name.get(*next)
            && let Some(expected) = fields.get(sorted)
            && reader.key_is(expected)
        {
            sorted
        } else if let Some(index) = Self::out_of_order(reader, fields, aliases) {
            index
        } else {
            let key = reader.key()?;
            // A key without escapes was compared in place with every name already.
            let found = match key {
                Cow::Borrowed(_) => None,
                Cow::Owned(_) => find_field(fields, aliases, by_name, next, key.as_bytes()),
            };
            return Ok(Some(match found {
                Some(index) => Member::Field(index),
                None => Member::Other(key),
            }));
        };
        reader.eat(b':')?;
        *next = index + 1;
        Ok(Some(Member::Field(index)))
    }

    /// The field whose name (or former name) the key at the reader is, compared in place (the byte
    /// after each name tells most apart at once); the reader is left after the key's closing quote.
    /// Keys out of the schema's order (sorted, say) are found so without being scanned.
    #[inline(never)]
    fn out_of_order(
        reader: &mut Reader<'_>,
        fields: &[&str],
        aliases: &[(&str, usize)],
    ) -> Option<usize> {
        if let Some(index) = fields.iter().position(|name| reader.key_is(name)) {
            return Some(index);
        }
        aliases
            .iter()
            .find(|(alias, _)| reader.key_is(alias))
            .map(|&(_, index)| index)
    }
}

/// Whether every name is a plain JSON string: written as itself between quotes, with no `"`, `\` or
/// control character (what [`Members::next_field`] compares in place). For a `const` assertion.
pub const fn plain_names(names: &[&str]) -> bool {
    let mut i = 0;
    while i < names.len() {
        let bytes = names[i].as_bytes();
        let mut j = 0;
        while j < bytes.len() {
            if bytes[j] == b'"' || bytes[j] == b'\\' || bytes[j] < 0x20 {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

/// The elements of an array being read.
#[derive(Debug)]
pub struct Elements {
    first: bool,
}

impl Elements {
    /// Whether another element follows (the reader then before it); `false` at the closing `]` (consumed).
    #[inline]
    pub fn next(&mut self, reader: &mut Reader<'_>) -> Result<bool, Stop> {
        match reader.peek() {
            Some(b']') => {
                reader.at += 1;
                reader.depth -= 1;
                Ok(false)
            }
            Some(b',') if !self.first => {
                reader.at += 1;
                Ok(true)
            }
            Some(_) if self.first => {
                self.first = false;
                Ok(true)
            }
            _ => Err(Stop),
        }
    }
}

/// serde_json's raw value of `text`, which must be one JSON value (a value [`Reader::skip`] returned,
/// or the text of a raw value): made without parsing it again, as serde_json's own deserializers hand
/// one over. `None` only where `text` is not JSON.
pub fn raw_value(text: &str) -> Option<&serde_json::value::RawValue> {
    crate::raw::borrowed_raw_value(text).or_else(|| serde_json::from_str(text).ok())
}

/// The index of the `"` that closes a string with escapes, from its first `\` at `at`.
fn string_end(bytes: &[u8], mut at: usize) -> Option<usize> {
    loop {
        match *bytes.get(at)? {
            b'\\' => at += 2,
            b'"' => return Some(at),
            _ => at += 1,
        }
    }
}

/// Whether two byte strings are equal, compared a word at a time in place: field names are short, and a
/// call to `memcmp` for each cost more than the comparison (a tenth of reading a payload's keys).
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| {
        s.get(at..at + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map(u64::from_ne_bytes)
    };
    let half = |s: &[u8], at: usize| {
        s.get(at..at + 4)
            .and_then(|w| <[u8; 4]>::try_from(w).ok())
            .map(u32::from_ne_bytes)
    };
    match n {
        0..=3 => a == b,
        4..=8 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        9..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => {
            let mut at = 0;
            while at + 8 < n {
                if word(a, at) != word(b, at) {
                    return false;
                }
                at += 8;
            }
            word(a, n - 8) == word(b, n - 8)
        }
    }
}

/// The index of `name` among `fields` (or of the field one of `aliases` names), trying first the one
/// after the last found (`next`), in the schema's order and then in name order (`by_name`, see
/// [`crate::table::StructTable::by_name`]; may be empty): keys usually come in one or the other.
// The two guesses are inlined into the caller, the search after them is not: out of line, the whole
// of it was a call per key of every struct read through serde.
#[inline(always)]
pub fn find_field(
    fields: &[&str],
    aliases: &[(&str, usize)],
    by_name: &[usize],
    next: &mut usize,
    name: &[u8],
) -> Option<usize> {
    let guess = *next;
    let found = if fields
        .get(guess)
        .is_some_and(|expected| same_bytes(expected.as_bytes(), name))
    {
        Some(guess)
    } else if let Some(&sorted) = by_name.get(guess)
        && fields
            .get(sorted)
            .is_some_and(|expected| same_bytes(expected.as_bytes(), name))
    {
        Some(sorted)
    } else {
        search_field(fields, aliases, name)
    };
    if let Some(i) = found {
        *next = i + 1;
    }
    found
}

/// Every field name, then every former name: where neither guess of [`find_field`] was the key.
#[inline(never)]
fn search_field(fields: &[&str], aliases: &[(&str, usize)], name: &[u8]) -> Option<usize> {
    fields
        .iter()
        .position(|known| same_bytes(known.as_bytes(), name))
        .or_else(|| {
            aliases
                .iter()
                .find(|(alias, _)| same_bytes(alias.as_bytes(), name))
                .map(|&(_, i)| i)
        })
}

impl<'a> ReadJson<'a> for CowStr<'a> {
    #[inline]
    fn read(reader: &mut Reader<'a>) -> Result<Self, Stop> {
        reader.string().map(CowStr)
    }
}

impl<'a> ReadJson<'a> for String {
    #[inline]
    fn read(reader: &mut Reader<'a>) -> Result<Self, Stop> {
        reader.string().map(Cow::into_owned)
    }
}

impl<'a> ReadJson<'a> for i64 {
    #[inline]
    fn read(reader: &mut Reader<'a>) -> Result<Self, Stop> {
        reader.integer()
    }
}

impl<'a> ReadJson<'a> for f64 {
    fn read(reader: &mut Reader<'a>) -> Result<Self, Stop> {
        reader.float()
    }
}

impl<'a> ReadJson<'a> for bool {
    #[inline]
    fn read(reader: &mut Reader<'a>) -> Result<Self, Stop> {
        reader.boolean()
    }
}

impl<'a, T: ReadJson<'a>> ReadJson<'a> for Option<T> {
    #[inline]
    fn read(reader: &mut Reader<'a>) -> Result<Self, Stop> {
        if reader.null() {
            Ok(None)
        } else {
            T::read(reader).map(Some)
        }
    }
}

impl<'a, T: ReadJson<'a>> ReadJson<'a> for Vec<T> {
    fn read(reader: &mut Reader<'a>) -> Result<Self, Stop> {
        let mut elements = reader.array()?;
        let mut values = Vec::new();
        while elements.next(reader)? {
            values.push(T::read(reader)?);
        }
        Ok(values)
    }
}

/// A map of the schema (`map<T>`): a later duplicate key replaces the earlier one, as serde's does.
impl<'a, K: From<Cow<'a, str>> + Ord, V: ReadJson<'a>> ReadJson<'a>
    for std::collections::BTreeMap<K, V>
{
    fn read(reader: &mut Reader<'a>) -> Result<Self, Stop> {
        let mut members = reader.object()?;
        let mut map = Self::new();
        while let Some(key) = members.next_key(reader)? {
            map.insert(K::from(key), V::read(reader)?);
        }
        Ok(map)
    }
}

impl<'a> ReadJson<'a> for RawObject<'a> {
    fn read(reader: &mut Reader<'a>) -> Result<Self, Stop> {
        // Found and checked in one pass, as a `Map` reads it.
        reader.free_form_object().map(RawObject::from_text)
    }
}

#[cfg(test)]
mod tests;
mod value;

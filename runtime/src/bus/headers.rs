//! Message headers, as a transport carries them: an ordered list of names and text values, names matched
//! without regard to case (NATS and HTTP headers alike), and the percent-encoding the CloudEvents
//! bindings require of values.

use std::borrow::Cow;
use std::fmt;

/// The headers of one message, in order; a name may repeat. Names the bus writes itself are kept as
/// static strings (no allocation per message).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headers(Vec<(Cow<'static, str>, String)>);

impl Headers {
    /// No headers.
    pub fn new() -> Self {
        Self::default()
    }

    /// No headers, with room for `capacity`.
    pub fn with_capacity(capacity: usize) -> Self {
        Headers(Vec::with_capacity(capacity))
    }

    /// The first value of `name` (matched without regard to case).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Sets `name` to `value`, replacing every value it had.
    pub fn insert(&mut self, name: impl Into<Cow<'static, str>>, value: impl Into<String>) {
        let name = name.into();
        self.remove(&name);
        self.0.push((name, value.into()));
    }

    /// Adds a value of `name`, keeping those it had.
    pub fn append(&mut self, name: impl Into<Cow<'static, str>>, value: impl Into<String>) {
        self.0.push((name.into(), value.into()));
    }

    /// Removes every value of `name`.
    pub fn remove(&mut self, name: &str) {
        self.0.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    }

    /// Every header, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(n, v)| (&**n, v.as_str()))
    }

    /// Every name and value, in order, a name as kept: static when it is one the bus writes.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&Cow<'static, str>, &str)> {
        self.0.iter().map(|(n, v)| (n, v.as_str()))
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// No header.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sorted by name (then value), for output that does not depend on the order a transport kept.
    pub fn sorted(mut self) -> Self {
        self.0.sort();
        self
    }
}

impl FromIterator<(String, String)> for Headers {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> Self {
        Headers(iter.into_iter().map(|(n, v)| (Cow::Owned(n), v)).collect())
    }
}

/// Percent-encodes a header value as the CloudEvents NATS (and HTTP) binding requires: space, `"`, `%`
/// and every character outside printable ASCII (`!` to `~`) become `%XY` per UTF-8 byte, upper case.
pub fn percent_encode(value: &str) -> Cow<'_, str> {
    if plain(value.as_bytes()) {
        return Cow::Borrowed(value);
    }
    let needs = needs_encoding;
    let mut out = String::with_capacity(value.len() + 8);
    for byte in value.bytes() {
        if needs(byte) {
            out.push('%');
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        } else {
            out.push(char::from(byte));
        }
    }
    Cow::Owned(out)
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Whether a byte is percent-encoded in a header value: outside printable ASCII, `"` and `%`.
fn needs_encoding(byte: u8) -> bool {
    !(0x21..=0x7e).contains(&byte) || byte == b'"' || byte == b'%'
}

/// Whether no byte of `bytes` needs encoding; eight bytes at a time (every header of every message
/// passes here).
fn plain(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // A byte of `x` is zero (for bytes below 0x80, as checked first).
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS != 0;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let Ok(eight) = <[u8; 8]>::try_from(chunk) else {
            return false;
        };
        let x = u64::from_le_bytes(eight);
        if x & HIGHS != 0
            || x.wrapping_sub(ONES * 0x21) & !x & HIGHS != 0
            || has_zero(x ^ (ONES * 0x7f))
            || has_zero(x ^ (ONES * u64::from(b'"')))
            || has_zero(x ^ (ONES * u64::from(b'%')))
        {
            return false;
        }
    }
    !chunks.remainder().iter().any(|&b| needs_encoding(b))
}

/// Why a header value could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderValueError(String);

impl fmt::Display for HeaderValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HeaderValueError {}

/// Decodes a header value as the CloudEvents binding requires: a double-quoted value is unquoted first
/// (backslash escapes), then one round of percent-decoding; lower-case hex digits and characters encoded
/// without need are accepted, a `%` not followed by two hex digits and bytes that are not UTF-8 are not.
pub fn percent_decode(value: &str) -> Result<Cow<'_, str>, HeaderValueError> {
    let unquoted: Cow<'_, str> = match value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        Some(inner) => Cow::Owned(unquote(inner)?),
        None => Cow::Borrowed(value),
    };
    if !unquoted.contains('%') {
        return Ok(unquoted);
    }
    let bytes = unquoted.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = |b: Option<&u8>| b.and_then(|b| char::from(*b).to_digit(16));
            match (hex(bytes.get(i + 1)), hex(bytes.get(i + 2))) {
                (Some(high), Some(low)) => {
                    // Two hex digits are at most 255.
                    out.push(u8::try_from(high * 16 + low).unwrap_or(u8::MAX));
                    i += 3;
                    continue;
                }
                _ => {
                    return Err(HeaderValueError(format!(
                        "`%` at byte {i} is not followed by two hex digits"
                    )));
                }
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).map(Cow::Owned).map_err(|e| {
        HeaderValueError(format!(
            "percent-encoded bytes are not UTF-8 (at decoded byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// The content of a quoted string (RFC 7230, section 3.2.6): `\x` stands for `x`.
fn unquote(inner: &str) -> Result<String, HeaderValueError> {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped) => out.push(escaped),
                None => {
                    return Err(HeaderValueError(
                        "a quoted value ends with a lone backslash".to_owned(),
                    ));
                }
            },
            '"' => {
                return Err(HeaderValueError(
                    "a quoted value holds an unescaped `\"`".to_owned(),
                ));
            }
            c => out.push(c),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {

    /// The eight-at-a-time check agrees with the byte-wise rule: every byte value at every place of a
    /// word and of the tail, beside printable neighbours and beside other bytes to encode.
    #[test]
    fn the_word_check_is_the_byte_rule() {
        for len in [1, 7, 8, 9, 16, 19] {
            for at in 0..len {
                for byte in 0..=255u8 {
                    for fill in [b'a', b'~', b'!', b'$'] {
                        let mut bytes = vec![fill; len];
                        bytes[at] = byte;
                        let expected = !bytes.iter().any(|&b| needs_encoding(b));
                        assert_eq!(plain(&bytes), expected, "{bytes:?}");
                    }
                }
            }
        }
        assert!(plain(b""));
    }
    use super::*;

    #[test]
    fn the_bindings_example_is_encoded_as_given() {
        assert_eq!(
            percent_encode("Euro \u{20AC} \u{1F600}"),
            "Euro%20%E2%82%AC%20%F0%9F%98%80"
        );
        assert!(matches!(
            percent_encode("agreement.updated"),
            Cow::Borrowed(_)
        ));
        assert_eq!(percent_encode("100% \"sure\""), "100%25%20%22sure%22");
        assert_eq!(percent_encode("a\r\nb\x7f"), "a%0D%0Ab%7F");
    }

    #[test]
    fn decoding_undoes_encoding_and_accepts_what_the_binding_allows() {
        for value in [
            "",
            "plain",
            "Euro \u{20AC} \u{1F600}",
            "100% \"sure\"",
            "tab\there",
            "\u{0}",
        ] {
            assert_eq!(percent_decode(&percent_encode(value)).unwrap(), value);
        }
        assert_eq!(percent_decode("%e2%82%ac").unwrap(), "\u{20AC}");
        assert_eq!(percent_decode("%41BC").unwrap(), "ABC");
        assert_eq!(
            percent_decode(r#""a \"quoted\" value""#).unwrap(),
            r#"a "quoted" value"#
        );
        assert_eq!(percent_decode(r#""50%25""#).unwrap(), "50%");
    }

    #[test]
    fn malformed_values_are_refused() {
        for bad in [
            "%",
            "%4",
            "%zz",
            "%C0%A0",
            "%FF",
            r#""unterminated\""#,
            r#""a"b""#,
        ] {
            assert!(percent_decode(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn names_are_matched_without_case() {
        let mut headers = Headers::new();
        headers.insert("ce-id", "1");
        headers.append("X-Trace", "a");
        headers.append("x-trace", "b");
        assert_eq!(headers.get("CE-ID"), Some("1"));
        headers.insert("Ce-Id", "2");
        assert_eq!(headers.get("ce-id"), Some("2"));
        assert_eq!(headers.len(), 3);
        headers.remove("X-TRACE");
        assert_eq!(headers.len(), 1);
    }
}

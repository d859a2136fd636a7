//! Where and how a JSON payload is wrong: the JSON path at a byte offset, serde_json's (line, column)
//! positions as byte offsets, and the classification of a decoding error.
//!
//! Decoding runs without tracking the path: only after a failure is the path of the bad field found, from
//! the error's position in the payload. Path tracking while decoding would instantiate a second
//! deserializer for every payload type, to serve only the failures.

/// What is wrong with a payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PayloadErrorKind {
    /// Not well-formed JSON, or cut short.
    Syntax,
    /// A required field is absent.
    MissingField,
    /// A value has the wrong JSON type (a string where a number belongs, say).
    InvalidType,
    /// A value has the right type but is out of range (an integer beyond i64, say).
    InvalidValue,
    /// The same field appears twice in one object.
    DuplicateField,
    /// A field the schema does not list (only when a caller asks for strict decoding).
    UnknownField,
    /// Anything else.
    Other,
}

/// A payload that could not be read: what, where (a JSON path and a position), in words.
///
/// The generated crate adds the event type and version to make its `PayloadError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// What is wrong.
    pub kind: PayloadErrorKind,
    /// JSON path of the bad field, such as `ledger.account.number` or `supply_points[0].market_name`;
    /// empty for the payload itself.
    pub path: String,
    /// A description of the problem, without serde_json's position suffix.
    pub message: String,
    /// Line in the payload (1-based; 0 when unknown).
    pub line: usize,
    /// Column in the payload (1-based, in bytes; 0 when unknown).
    pub column: usize,
}

impl Fault {
    /// The fault serde_json reported while decoding `payload`.
    pub fn from_json(payload: &[u8], error: &serde_json::Error) -> Self {
        let message = message_of(error);
        let mut path = byte_offset(payload, error.line(), error.column())
            .map(|at| json_path_at(payload, at))
            .unwrap_or_default();
        let kind = match error.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                PayloadErrorKind::Syntax
            }
            serde_json::error::Category::Io => PayloadErrorKind::Other,
            serde_json::error::Category::Data => {
                if let Some(field) = backticked(&message, "missing field `") {
                    // serde reports a missing field at the end of its object: the path is the object's.
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(field);
                    PayloadErrorKind::MissingField
                } else if message.starts_with("invalid type") {
                    PayloadErrorKind::InvalidType
                } else if message.starts_with("invalid value")
                    || message.starts_with("invalid length")
                {
                    PayloadErrorKind::InvalidValue
                } else if message.starts_with("duplicate field") {
                    PayloadErrorKind::DuplicateField
                } else if message.starts_with("unknown field") {
                    PayloadErrorKind::UnknownField
                } else {
                    PayloadErrorKind::Other
                }
            }
        };
        Fault {
            kind,
            path,
            message,
            line: error.line(),
            column: error.column(),
        }
    }
}

/// The text between `prefix` and the next backtick of `message`.
fn backticked<'m>(message: &'m str, prefix: &str) -> Option<&'m str> {
    message
        .strip_prefix(prefix)
        .and_then(|rest| rest.split('`').next())
}

/// `payload` as text, or the fault at its first byte that is not UTF-8.
///
/// JSON is UTF-8: checking it once, for the whole payload, lets serde_json read every string without
/// checking it again (the largest single cost of decoding short strings).
pub fn utf8(payload: &[u8]) -> Result<&str, Fault> {
    std::str::from_utf8(payload).map_err(|e| {
        let at = e.valid_up_to();
        let before = &payload[..at];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        Fault {
            kind: PayloadErrorKind::Syntax,
            path: json_path_at(payload, at),
            message: format!("invalid UTF-8 at byte {at}"),
            line,
            column: at - line_start + 1,
        }
    })
}

/// A serde_json message without its " at line L column C" suffix (the position is reported apart).
pub fn message_of(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(i) if error.line() > 0 => text[..i].to_owned(),
        _ => text,
    }
}

/// The byte offset in `json` of serde_json's (line, column) position; `None` when it gave none (line 0)
/// or the text has fewer lines.
///
/// serde_json counts lines from 1 and columns in bytes from 1, pointing at the last byte it read; an error
/// at the end of a line can point one past it, so the offset is clamped to the text.
pub fn byte_offset(json: &[u8], line: usize, column: usize) -> Option<usize> {
    if line == 0 {
        return None;
    }
    let line_start = if line == 1 {
        0
    } else {
        json.iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .nth(line - 2)?
            .0
            + 1
    };
    Some((line_start + column.saturating_sub(1)).min(json.len()))
}

/// One open container while [`json_path_at`] scans.
enum Open {
    Object { key: Option<String>, in_value: bool },
    Array { index: usize },
}

/// The JSON path of the value at byte `offset` of `json`: `ledger.account.number`,
/// `supply_points[0].market_name`; empty for the top level.
///
/// At a closing `}` or `]` the path is the container being closed (a missing field is reported there).
/// Works on any bytes: malformed JSON gives the path up to where it breaks.
pub fn json_path_at(json: &[u8], offset: usize) -> String {
    let end = offset.min(json.len());
    let mut open: Vec<Open> = Vec::new();
    let mut i = 0;
    while i < end {
        match json[i] {
            b'{' => open.push(Open::Object {
                key: None,
                in_value: false,
            }),
            b'[' => open.push(Open::Array { index: 0 }),
            b'}' | b']' => {
                open.pop();
            }
            b',' => match open.last_mut() {
                Some(Open::Array { index }) => *index += 1,
                Some(Open::Object { in_value, .. }) => *in_value = false,
                None => {}
            },
            b':' => {
                if let Some(Open::Object { in_value, .. }) = open.last_mut() {
                    *in_value = true;
                }
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < json.len() && json[i] != b'"' {
                    i += if json[i] == b'\\' { 2 } else { 1 };
                }
                // A key counts once its string ends at or before the offset (a repeated key is reported
                // at its closing quote); a fault inside a key belongs to its object.
                if i <= end
                    && i < json.len()
                    && let Some(Open::Object {
                        key,
                        in_value: false,
                    }) = open.last_mut()
                {
                    let quoted = &json[start..=i];
                    *key = Some(
                        serde_json::from_slice::<String>(quoted).unwrap_or_else(|_| {
                            String::from_utf8_lossy(&quoted[1..quoted.len() - 1]).into_owned()
                        }),
                    );
                }
            }
            _ => {}
        }
        i += 1;
    }
    let closing = json.get(end).is_some_and(|b| matches!(b, b'}' | b']'));
    let shown = if closing {
        open.len().saturating_sub(1)
    } else {
        open.len()
    };
    let mut path = String::new();
    for frame in &open[..shown] {
        match frame {
            Open::Object { key: Some(key), .. } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Open::Object { key: None, .. } => {}
            Open::Array { index } => {
                path.push('[');
                path.push_str(&index.to_string());
                path.push(']');
            }
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(json: &str, decode: fn(&str) -> Result<(), serde_json::Error>) -> Fault {
        let error = decode(json).expect_err("the payload is wrong");
        Fault::from_json(json.as_bytes(), &error)
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code, reason = "only decoded")]
    struct Account {
        number: String,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code, reason = "only decoded")]
    struct Ledger {
        account: Account,
        entries: Vec<i64>,
    }

    fn ledger(json: &str) -> Result<(), serde_json::Error> {
        serde_json::from_str::<Ledger>(json).map(drop)
    }

    #[test]
    fn paths_name_the_field_at_the_offset() {
        let json = br#"{"ledger": {"account": {"number": 7}}, "list": [1, {"a": true}]}"#;
        let at = |needle: &str| {
            let needle = needle.as_bytes();
            json.windows(needle.len())
                .position(|w| w == needle)
                .expect("needle in json")
        };
        assert_eq!(json_path_at(json, at("7")), "ledger.account.number");
        assert_eq!(json_path_at(json, at("true")), "list[1].a");
        assert_eq!(json_path_at(json, at("1,")), "list[0]");
        assert_eq!(json_path_at(json, 0), "");
        // At a closing brace, the path is the object being closed.
        assert_eq!(json_path_at(json, at("}}")), "ledger.account");
        // Escaped keys are unescaped; malformed input gives the path up to where it breaks.
        assert_eq!(json_path_at(br#"{"a\"b": [tru"#, 13), "a\"b[0]");
        assert_eq!(json_path_at(b"\xff\xfe", 1), "");
    }

    #[test]
    fn errors_are_classified_and_located() {
        let missing = fault(r#"{"account": {}, "entries": []}"#, ledger);
        assert_eq!(missing.kind, PayloadErrorKind::MissingField);
        assert_eq!(missing.path, "account.number");
        assert_eq!(missing.message, "missing field `number`");

        let wrong = fault(
            r#"{"account": {"number": "1"}, "entries": [1, "x"]}"#,
            ledger,
        );
        assert_eq!(wrong.kind, PayloadErrorKind::InvalidType);
        assert_eq!(wrong.path, "entries[1]");
        // serde_json points at the last byte it read: the closing quote of `"x"`.
        assert_eq!((wrong.line, wrong.column), (1, 47));
        assert_eq!(
            &br#"{"account": {"number": "1"}, "entries": [1, "x"]}"#[46..47],
            b"\""
        );

        let too_big = fault(
            r#"{"account": {"number": "1"}, "entries": [18446744073709551616]}"#,
            ledger,
        );
        assert_eq!(too_big.path, "entries[0]");

        let twice = fault(
            r#"{"account": {"number": "1", "number": "2"}, "entries": []}"#,
            ledger,
        );
        assert_eq!(twice.kind, PayloadErrorKind::DuplicateField);
        assert_eq!(twice.path, "account.number");

        let cut = fault(r#"{"account": {"numb"#, ledger);
        assert_eq!(cut.kind, PayloadErrorKind::Syntax);
    }

    #[test]
    fn invalid_utf8_is_located_at_its_first_byte() {
        let payload = b"{\"a\": \"ok\",\n \"b\": \"\xff\"}";
        let fault = utf8(payload).unwrap_err();
        assert_eq!(fault.kind, PayloadErrorKind::Syntax);
        assert_eq!(fault.message, "invalid UTF-8 at byte 19");
        assert_eq!((fault.line, fault.column), (2, 8));
        assert_eq!(fault.path, "b");
        assert_eq!(utf8(b"{}"), Ok("{}"));
    }

    #[test]
    fn offsets_follow_lines_and_columns() {
        let text = b"{\n  \"a\": tru\n}";
        assert_eq!(byte_offset(text, 1, 1), Some(0));
        assert_eq!(byte_offset(text, 2, 3), Some(4));
        assert_eq!(byte_offset(text, 3, 1), Some(13));
        assert_eq!(byte_offset(text, 9, 1), None);
        assert_eq!(byte_offset(text, 0, 0), None);
        assert_eq!(byte_offset(text, 3, 99), Some(text.len()));
    }

    #[test]
    fn messages_lose_their_position_suffix() {
        let error = ledger("{").unwrap_err();
        assert_eq!(message_of(&error), "EOF while parsing an object");
        let custom: serde_json::Error = serde::de::Error::custom("at line 3 of the story");
        assert_eq!(message_of(&custom), "at line 3 of the story");
    }
}

//! The account, whose fields the spec does not show, shown whole: as a table of every leaf by its
//! JSON path, or as one JSON object. Both are walked from the body's JSON text, never from a tree of
//! values: a `serde_json::Value` of small objects takes ~90 times its text in memory, so a 9 MB
//! account took 890 MB. The walk holds one path, and, per object on the way down, its keys (sorted,
//! as a `serde_json::Map` would give them, so the output is what it was).

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt::{self, Write as _};
use std::io;

use energy_runtime::text::for_terminal;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::table::CELL_SHOWN;

/// The most of a field's JSON path the table shows.
const PATH_SHOWN: usize = 200;
/// How deep the walk goes: serde_json's own limit for a tree of values.
const MAX_DEPTH: usize = 128;

/// An account's body: a JSON object, kept as its text.
pub struct RawAccount(Box<RawValue>);

impl<'de> Deserialize<'de> for RawAccount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        if !raw.get().trim_start().starts_with('{') {
            return Err(de::Error::invalid_type(
                de::Unexpected::Other("a JSON value that is not an object"),
                &"a JSON object",
            ));
        }
        Ok(Self(raw))
    }
}

/// Why an account cannot be shown.
#[derive(Debug)]
pub enum ShowError {
    /// Writing failed.
    Output(io::Error),
    /// The JSON nests deeper than [`MAX_DEPTH`].
    TooDeep,
}

impl fmt::Display for ShowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Output(error) => write!(f, "{error}"),
            Self::TooDeep => write!(
                f,
                "the account's JSON nests deeper than {MAX_DEPTH} levels; not shown"
            ),
        }
    }
}

impl From<io::Error> for ShowError {
    fn from(error: io::Error) -> Self {
        Self::Output(error)
    }
}

/// Every leaf of the account by its JSON path, in two walks: the widest path, then the rows.
pub fn write_table(out: &mut impl io::Write, account: &RawAccount) -> Result<(), ShowError> {
    const HEADER: &str = "FIELD";
    let mut width = HEADER.len();
    let mut path = String::new();
    walk(&account.0, &mut path, 0, &mut |path, _| {
        width = width.max(for_terminal(path, PATH_SHOWN).chars().count());
        Ok(())
    })?;
    writeln!(out, "{HEADER:<width$}  VALUE")?;
    walk(&account.0, &mut path, 0, &mut |path, value| {
        let path = for_terminal(path, PATH_SHOWN);
        let value = for_terminal(value, CELL_SHOWN);
        let line = format!("{path:<width$}  {value}");
        writeln!(out, "{}", line.trim_end())
    })
}

/// The account as one compact JSON object, keys sorted, as serde_json writes a `Map`.
pub fn write_json(out: &mut impl io::Write, account: &RawAccount) -> Result<(), ShowError> {
    json(&account.0, out, 0)?;
    out.write_all(b"\n")?;
    Ok(())
}

/// Calls `leaf` with the path (`a.b[0].c`) and the text of every leaf under `raw`: a string's
/// content, any other value as JSON (`{}` and `[]` for empty ones).
fn walk(
    raw: &RawValue,
    path: &mut String,
    depth: usize,
    leaf: &mut dyn FnMut(&str, &str) -> io::Result<()>,
) -> Result<(), ShowError> {
    if depth > MAX_DEPTH {
        return Err(ShowError::TooDeep);
    }
    let length = path.len();
    match raw.get().trim_start().as_bytes().first() {
        Some(b'{') => {
            let entries = sorted_entries(raw);
            if entries.is_empty() {
                leaf(path, "{}")?;
            }
            for (key, child) in entries {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&key);
                walk(child, path, depth + 1, leaf)?;
                path.truncate(length);
            }
        }
        Some(b'[') => {
            let mut empty = true;
            for_each_element(raw, |index, child| {
                empty = false;
                let _ = write!(path, "[{index}]");
                let walked = walk(child, path, depth + 1, leaf);
                path.truncate(length);
                walked
            })?;
            if empty {
                leaf(path, "[]")?;
            }
        }
        Some(b'"') => leaf(path, &string(raw))?,
        _ => leaf(path, &scalar(raw).to_string())?,
    }
    Ok(())
}

/// Writes `raw` as serde_json writes the same value read into a `Value`.
fn json(raw: &RawValue, out: &mut impl io::Write, depth: usize) -> Result<(), ShowError> {
    if depth > MAX_DEPTH {
        return Err(ShowError::TooDeep);
    }
    match raw.get().trim_start().as_bytes().first() {
        Some(b'{') => {
            out.write_all(b"{")?;
            for (index, (key, child)) in sorted_entries(raw).into_iter().enumerate() {
                if index > 0 {
                    out.write_all(b",")?;
                }
                serde_json::to_writer(&mut *out, &key).map_err(io::Error::from)?;
                out.write_all(b":")?;
                json(child, out, depth + 1)?;
            }
            out.write_all(b"}")?;
        }
        Some(b'[') => {
            out.write_all(b"[")?;
            for_each_element(raw, |index, child| {
                if index > 0 {
                    out.write_all(b",")?;
                }
                json(child, out, depth + 1)
            })?;
            out.write_all(b"]")?;
        }
        Some(b'"') => serde_json::to_writer(&mut *out, &string(raw)).map_err(io::Error::from)?,
        _ => serde_json::to_writer(&mut *out, &scalar(raw)).map_err(io::Error::from)?,
    }
    Ok(())
}

/// An object's entries sorted by key, the last of repeated keys kept (a `serde_json::Map`'s order
/// and its rule for duplicates). Keys are borrowed from the text unless escaped.
fn sorted_entries(raw: &RawValue) -> Vec<(Cow<'_, str>, &RawValue)> {
    struct Entries;
    impl<'de> Visitor<'de> for Entries {
        type Value = Vec<(Cow<'de, str>, &'de RawValue)>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut entries = Vec::new();
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                entries.push((key, map.next_value::<&'de RawValue>()?));
            }
            Ok(entries)
        }
    }
    let mut entries = serde_json::Deserializer::from_str(raw.get())
        .deserialize_map(Entries)
        // The text was read as JSON already: an object reads again.
        .unwrap_or_default();
    // Stable: of equal keys, the last in the text ends last, and is the one kept.
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut kept: Vec<(Cow<'_, str>, &RawValue)> = Vec::with_capacity(entries.len());
    for entry in entries {
        match kept.last_mut() {
            Some(last) if last.0 == entry.0 => *last = entry,
            _ => kept.push(entry),
        }
    }
    kept
}

/// Calls `each` with the index and text of every element of an array, as they are read.
fn for_each_element<'a>(
    raw: &'a RawValue,
    each: impl FnMut(usize, &'a RawValue) -> Result<(), ShowError>,
) -> Result<(), ShowError> {
    struct Elements<'e, F> {
        each: F,
        failed: &'e RefCell<Option<ShowError>>,
    }
    impl<'de, F: FnMut(usize, &'de RawValue) -> Result<(), ShowError>> Visitor<'de>
        for Elements<'_, F>
    {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON array")
        }
        fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
            let mut index = 0;
            while let Some(element) = seq.next_element::<&'de RawValue>()? {
                if let Err(error) = (self.each)(index, element) {
                    *self.failed.borrow_mut() = Some(error);
                    return Err(de::Error::custom("stopped"));
                }
                index += 1;
            }
            Ok(())
        }
    }
    let failed = RefCell::new(None);
    let read = serde_json::Deserializer::from_str(raw.get()).deserialize_seq(Elements {
        each,
        failed: &failed,
    });
    match (read, failed.into_inner()) {
        (_, Some(error)) => Err(error),
        // The text was read as JSON already: an array reads again.
        (_, None) => Ok(()),
    }
}

/// A string value's content.
fn string(raw: &RawValue) -> Cow<'_, str> {
    serde_json::from_str::<Cow<'_, str>>(raw.get()).unwrap_or_default()
}

/// A number, a boolean or null, as a `Value` (small: no container reaches here).
fn scalar(raw: &RawValue) -> serde_json::Value {
    serde_json::from_str(raw.get()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn account(text: &str) -> RawAccount {
        serde_json::from_str(text).expect("an object")
    }

    /// What the command printed before: the rows and the JSON of a `serde_json::Value`.
    fn through_a_value(text: &str) -> (Vec<String>, String) {
        fn flatten(path: &str, value: &serde_json::Value, rows: &mut Vec<String>) {
            match value {
                serde_json::Value::Object(map) if !map.is_empty() => {
                    for (key, child) in map {
                        let child_path = if path.is_empty() {
                            key.clone()
                        } else {
                            format!("{path}.{key}")
                        };
                        flatten(&child_path, child, rows);
                    }
                }
                serde_json::Value::Array(items) if !items.is_empty() => {
                    for (index, child) in items.iter().enumerate() {
                        flatten(&format!("{path}[{index}]"), child, rows);
                    }
                }
                serde_json::Value::String(text) => rows.push(format!("{path}={text}")),
                other => rows.push(format!("{path}={other}")),
            }
        }
        let value: serde_json::Value = serde_json::from_str(text).expect("JSON");
        let mut rows = Vec::new();
        flatten("", &value, &mut rows);
        (rows, serde_json::to_string(&value).expect("JSON"))
    }

    #[test]
    fn the_walk_gives_what_a_value_gave() {
        let text = r#"{"z": 1, "a": {"y": [1, 2.50, {"k": null}], "x": "caf\u00e9 \"q\"", "e": {}, "f": []},
                       "dup": 1, "dup": "last", "n": -1e3, "big": 18446744073709551615, "t": true}"#;
        let raw = account(text);
        let (rows, json) = through_a_value(text);
        let mut walked = Vec::new();
        walk(&raw.0, &mut String::new(), 0, &mut |path, value| {
            walked.push(format!("{path}={value}"));
            Ok(())
        })
        .expect("walk");
        assert_eq!(walked, rows);
        let mut out = Vec::new();
        write_json(&mut out, &raw).expect("JSON");
        assert_eq!(String::from_utf8(out).expect("UTF-8"), format!("{json}\n"));
    }

    #[test]
    fn too_deep_is_an_error_not_a_stack_overflow() {
        let text = format!("{{\"a\":{}1{}}}", "[".repeat(100_000), "]".repeat(100_000));
        let raw = account(&text);
        assert!(matches!(
            write_table(&mut Vec::new(), &raw),
            Err(ShowError::TooDeep)
        ));
        assert!(matches!(
            write_json(&mut Vec::new(), &raw),
            Err(ShowError::TooDeep)
        ));
    }

    #[test]
    fn only_an_object_is_an_account() {
        assert!(serde_json::from_str::<RawAccount>("[1]").is_err());
        assert!(serde_json::from_str::<RawAccount>(" {}").is_ok());
    }
}

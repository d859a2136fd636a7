//! An ordered document tree, and deterministic YAML and JSON writers for it.
//!
//! The documents keep their keys in the order the emitters insert them (`openapi`, `info`, `paths`, …),
//! which no hash map and no sorted map gives; and the same bytes come out on every run and platform.

use std::fmt::Write as _;

/// A JSON-compatible value whose maps keep insertion order.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A finite number that is not an integer of `i64` (examples carry prices such as `24.0975`).
    Float(f64),
    /// A string.
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A map, in insertion order.
    Map(Map),
}

/// A map that keeps its keys in insertion order. Setting a key twice replaces its value in place.
///
/// The index finds a key without scanning: documents have maps of tens of thousands of entries (the
/// schemas and channels of a large catalogue), which a scan per insertion would make quadratic. It is
/// made only once a map has more than [`SCANNED`] entries: most maps hold a few (a schema's `type`,
/// `description`, `properties`), which a scan finds faster than an index is made.
#[derive(Debug, Clone, Default)]
pub struct Map {
    entries: Vec<(String, Node)>,
    index: Option<std::collections::BTreeMap<String, usize>>,
}

/// The most entries a map finds its keys in by scanning.
const SCANNED: usize = 16;

/// Equal when the entries are, in order (the index is a cache).
impl PartialEq for Map {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl Map {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    fn position(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(key).copied(),
            None => self.entries.iter().position(|(k, _)| k == key),
        }
    }

    /// Sets `key` (in place when present, else at the end).
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<Node>) -> &mut Self {
        let key = key.into();
        let value = value.into();
        match self.position(&key) {
            Some(i) => self.entries[i].1 = value,
            None => {
                if let Some(index) = &mut self.index {
                    index.insert(key.clone(), self.entries.len());
                }
                self.entries.push((key, value));
                if self.index.is_none() && self.entries.len() > SCANNED {
                    self.index = Some(
                        self.entries
                            .iter()
                            .enumerate()
                            .map(|(i, (k, _))| (k.clone(), i))
                            .collect(),
                    );
                }
            }
        }
        self
    }

    /// Builder form of [`Map::set`].
    #[must_use]
    pub fn with(mut self, key: impl Into<String>, value: impl Into<Node>) -> Self {
        self.set(key, value);
        self
    }

    /// Sets `key` only when `value` is `Some`.
    #[must_use]
    pub fn with_opt(self, key: impl Into<String>, value: Option<impl Into<Node>>) -> Self {
        match value {
            Some(v) => self.with(key, v),
            None => self,
        }
    }

    /// Builder form: every entry of `other` set in turn.
    #[must_use]
    pub fn with_entries(mut self, other: &Map) -> Self {
        for (key, value) in other.entries() {
            self.set(key.as_str(), value.clone());
        }
        self
    }

    /// [`Map::with_entries`] of a map given away: its entries are moved, not copied.
    #[must_use]
    pub fn with_all(mut self, other: Map) -> Self {
        for (key, value) in other.entries {
            self.set(key, value);
        }
        self
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.position(key).map(|i| &self.entries[i].1)
    }

    /// Entries in order.
    pub fn entries(&self) -> &[(String, Node)] {
        &self.entries
    }

    /// No entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl From<Map> for Node {
    fn from(m: Map) -> Self {
        Node::Map(m)
    }
}
impl From<&str> for Node {
    fn from(s: &str) -> Self {
        Node::Str(s.to_owned())
    }
}
impl From<String> for Node {
    fn from(s: String) -> Self {
        Node::Str(s)
    }
}
impl From<&String> for Node {
    fn from(s: &String) -> Self {
        Node::Str(s.clone())
    }
}
impl From<bool> for Node {
    fn from(b: bool) -> Self {
        Node::Bool(b)
    }
}
impl From<i64> for Node {
    fn from(i: i64) -> Self {
        Node::Int(i)
    }
}
impl From<f64> for Node {
    /// A number; JSON has no infinities or NaN, so those become `null`.
    fn from(f: f64) -> Self {
        if f.is_finite() {
            Node::Float(f)
        } else {
            Node::Null
        }
    }
}
impl From<&serde_json::Value> for Node {
    /// A JSON value, members in their order (an example built by `crate::samples`).
    fn from(value: &serde_json::Value) -> Self {
        use serde_json::Value;
        match value {
            Value::Null => Node::Null,
            Value::Bool(b) => Node::Bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => Node::Int(i),
                (None, Some(f)) => Node::from(f),
                (None, None) => Node::Null,
            },
            Value::String(s) => Node::Str(s.clone()),
            Value::Array(items) => Node::Seq(items.iter().map(Node::from).collect()),
            Value::Object(members) => {
                let mut map = Map::new();
                for (key, member) in members {
                    map.set(key.as_str(), Node::from(member));
                }
                Node::Map(map)
            }
        }
    }
}
impl<T: Into<Node>> From<Vec<T>> for Node {
    fn from(items: Vec<T>) -> Self {
        Node::Seq(items.into_iter().map(Into::into).collect())
    }
}

/// A `{"$ref": target}` map.
pub fn reference(target: impl Into<String>) -> Map {
    Map::new().with("$ref", target.into())
}

// ---------------------------------------------------------------------------------------------------
// YAML

/// The YAML text of a document: `header` lines first (each already a `#` comment), then the tree in block
/// style. Short lists of scalars are written in flow style (`[a, b]`), multi-line strings as literal blocks.
pub fn to_yaml(header: &str, root: &Map) -> String {
    let mut out = String::from(header);
    write_map_body(&mut out, root, 0);
    out
}

const INDENT: usize = 2;
/// A flow sequence longer than this is written as a block sequence instead.
const FLOW_WIDTH: usize = 100;

fn pad(out: &mut String, indent: usize) {
    const SPACES: &str = "                                                                ";
    let mut left = indent;
    while left > 0 {
        let n = left.min(SPACES.len());
        out.push_str(&SPACES[..n]);
        left -= n;
    }
}

/// Writes the entries of a non-empty map, each on its own line at `indent`.
fn write_map_body(out: &mut String, map: &Map, indent: usize) {
    for (i, (key, value)) in map.entries().iter().enumerate() {
        if i > 0 {
            pad(out, indent);
        }
        push_yaml_scalar(out, key, false);
        out.push(':');
        write_value(out, value, indent, false);
    }
}

/// Writes a value that follows `key:` or `-` on the same line (scalars, flow forms) or on the next
/// lines; a map after `-` starts on the same line (`in_seq`).
fn write_value(out: &mut String, value: &Node, indent: usize, in_seq: bool) {
    match value {
        Node::Map(m) if !m.is_empty() => {
            if in_seq {
                out.push(' ');
            } else {
                out.push('\n');
                pad(out, indent + INDENT);
            }
            write_map_body(out, m, indent + INDENT);
        }
        Node::Seq(items) if !items.is_empty() => match flow_seq(items) {
            None => {
                out.push('\n');
                write_block_seq(out, items, indent + INDENT);
            }
            Some(text) => {
                out.push(' ');
                out.push_str(&text);
                out.push('\n');
            }
        },
        Node::Str(s) => match block_scalar(s) {
            Some(indicator) => {
                out.push(' ');
                write_block_scalar(out, s, indicator, indent + INDENT);
            }
            None => {
                out.push(' ');
                push_yaml_scalar(out, s, false);
                out.push('\n');
            }
        },
        _ => {
            out.push(' ');
            out.push_str(&inline(value));
            out.push('\n');
        }
    }
}

fn write_block_seq(out: &mut String, items: &[Node], indent: usize) {
    for item in items {
        pad(out, indent);
        out.push('-');
        write_value(out, item, indent, true);
    }
}

/// A value written on one line: a scalar, `{}`, `[]`, or a short flow sequence of scalars.
fn inline(value: &Node) -> String {
    match value {
        Node::Null => "null".to_owned(),
        Node::Bool(b) => b.to_string(),
        Node::Int(i) => i.to_string(),
        Node::Float(f) => float_text(*f),
        Node::Str(s) => yaml_scalar(s, false),
        Node::Map(_) => "{}".to_owned(),
        Node::Seq(items) => flow_seq(items).unwrap_or_else(|| "[]".to_owned()),
    }
}

/// `[a, b]` when every item is a scalar and the line stays short.
fn flow_seq(items: &[Node]) -> Option<String> {
    let mut parts = Vec::with_capacity(items.len());
    for item in items {
        parts.push(match item {
            Node::Null => "null".to_owned(),
            Node::Bool(b) => b.to_string(),
            Node::Int(i) => i.to_string(),
            Node::Float(f) => float_text(*f),
            Node::Str(s) if !s.contains('\n') => yaml_scalar(s, true),
            Node::Map(m) if m.is_empty() => "{}".to_owned(),
            _ => return None,
        });
    }
    let text = format!("[{}]", parts.join(", "));
    (text.len() <= FLOW_WIDTH).then_some(text)
}

/// The header of a literal block scalar for `s` (`|-` or `|`), when `s` can be written as one exactly.
fn block_scalar(s: &str) -> Option<&'static str> {
    if !s.contains('\n') {
        return None;
    }
    let (body, indicator) = match s.strip_suffix('\n') {
        Some(body) => (body, "|"),
        None => (s, "|-"),
    };
    let exact = !body.ends_with('\n')
        && !body.starts_with([' ', '\n'])
        && body
            .chars()
            .all(|c| c == '\n' || !needs_escape(c) && c != '\t')
        && body.lines().all(|l| !l.ends_with(' '));
    exact.then_some(indicator)
}

fn write_block_scalar(out: &mut String, s: &str, indicator: &str, indent: usize) {
    out.push_str(indicator);
    out.push('\n');
    for line in s.strip_suffix('\n').unwrap_or(s).split('\n') {
        if !line.is_empty() {
            pad(out, indent);
            out.push_str(line);
        }
        out.push('\n');
    }
}

/// A number that YAML 1.1, YAML 1.2 and JSON all read as this float: the shortest digits that read back
/// as `f`, never an exponent (YAML 1.1 needs a signed one), always a fraction (`80.0`, not `80`).
/// JSON has no infinities or NaN: those are written `null`.
fn float_text(f: f64) -> String {
    if !f.is_finite() {
        return "null".to_owned();
    }
    let text = f.to_string();
    if text.contains('.') {
        text
    } else {
        format!("{text}.0")
    }
}

/// A one-line string: plain when that reads back as the same string in YAML 1.1 and 1.2 parsers, else
/// double-quoted.
fn yaml_scalar(s: &str, in_flow: bool) -> String {
    if plain_is_safe(s, in_flow) {
        s.to_owned()
    } else {
        double_quoted(s)
    }
}

/// [`yaml_scalar`], appended to `out` (a plain scalar without an allocation of its own).
fn push_yaml_scalar(out: &mut String, s: &str, in_flow: bool) {
    if plain_is_safe(s, in_flow) {
        out.push_str(s);
    } else {
        out.push_str(&double_quoted(s));
    }
}

/// Conservative: plain only for text that no YAML 1.1 or 1.2 parser reads as anything but this string.
fn plain_is_safe(s: &str, in_flow: bool) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    // Numbers, dates, `.inf`, `-x`, `+1` and every indicator character start differently.
    let first_ok = first.is_alphabetic() || matches!(first, '/' | '$' | '_' | '(');
    const WORDS: [&str; 11] = [
        "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "=",
    ];
    if !first_ok || WORDS.iter().any(|w| w.eq_ignore_ascii_case(s)) || s.ends_with([' ', ':']) {
        return false;
    }
    // One pass over the bytes (this runs for every scalar of the documents): `: `, ` #`, a tab, flow
    // indicators in a flow collection, ASCII control characters; then the other characters to escape.
    let bytes = s.as_bytes();
    let ascii_safe = bytes.iter().enumerate().all(|(i, &b)| match b {
        b':' => bytes.get(i + 1) != Some(&b' '),
        b'#' => i == 0 || bytes[i - 1] != b' ',
        b',' | b'[' | b']' | b'{' | b'}' => !in_flow,
        b'\t' => false,
        _ => !b.is_ascii_control(),
    });
    ascii_safe && (s.is_ascii() || s.chars().all(|c| !needs_escape(c)))
}

/// Characters that a YAML document must not carry unescaped (control characters, line separators
/// that YAML 1.1 reads as line breaks, the byte order mark).
fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\t') || matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}')
}

/// A YAML double-quoted scalar. JSON's escapes are YAML's, plus the separators YAML 1.1 would break on.
fn double_quoted(s: &str) -> String {
    let json = json_string(s);
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            _ => out.push(c),
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------------
// JSON

/// Pretty JSON text (two-space indent, one member per line) with a final newline.
pub fn to_json(root: &Map) -> String {
    let mut out = String::with_capacity(4096);
    write_json_map(&mut out, root, 0);
    out.push('\n');
    out
}

fn write_json(out: &mut String, node: &Node, indent: usize) {
    match node {
        Node::Null => out.push_str("null"),
        Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Node::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Node::Float(f) => out.push_str(&float_text(*f)),
        Node::Str(s) => push_json_string(out, s),
        Node::Seq(items) if items.is_empty() => out.push_str("[]"),
        Node::Map(m) => write_json_map(out, m, indent),
        Node::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                pad(out, indent + INDENT);
                write_json(out, item, indent + INDENT);
            }
            out.push('\n');
            pad(out, indent);
            out.push(']');
        }
    }
}

/// A map's JSON text as [`to_json`] writes it as a value `depth` levels deep (its members indented one
/// level more): a part that many documents share, written once.
pub fn json_map_text(m: &Map, depth: usize) -> String {
    let mut out = String::new();
    write_json_map(&mut out, m, depth * INDENT);
    out
}

/// A map, written in place (not cloned into a [`Node`] first: the documents are megabytes).
fn write_json_map(out: &mut String, m: &Map, indent: usize) {
    if m.is_empty() {
        out.push_str("{}");
        return;
    }
    out.push('{');
    for (i, (key, value)) in m.entries().iter().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        pad(out, indent + INDENT);
        push_json_string(out, key);
        out.push_str(": ");
        write_json(out, value, indent + INDENT);
    }
    out.push('\n');
    pad(out, indent);
    out.push('}');
}

fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_json_string(&mut out, s);
    out
}

/// `s` as a JSON string, escaped as `serde_json` escapes it (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`,
/// other control characters as `\u00xx`; everything else as it is), appended without an allocation.
pub fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        // Most strings need no escape: one comparison per byte finds the ones that do.
        if b >= 0x20 && b != b'"' && b != b'\\' {
            i += 1;
            continue;
        }
        out.push_str(&s[start..i]);
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                let _ = write!(out, "\\u{b:04x}");
            }
        }
        i += 1;
        start = i;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strings are escaped exactly as serde_json escapes them.
    #[test]
    fn strings_are_escaped_as_serde_json_does() {
        let mut all: String = (0u8..0x80).map(char::from).collect();
        all.push_str("café \u{2028} \u{7f} \u{10ffff} \"q\" \\");
        for s in [all.as_str(), "", "plain", "\u{1}", "a\"b", "\\"] {
            assert_eq!(json_string(s), serde_json::to_string(s).unwrap(), "{s:?}");
        }
    }

    fn sample() -> Map {
        Map::new()
            .with("openapi", "3.1.0")
            .with("plain", "List products.")
            .with("empty", "")
            .with("looks_true", "yes")
            .with("date", "2024-03-01")
            .with("colon", "a: b")
            .with("hash", "a #b")
            .with("lead", "-x")
            .with("multi", "line one\n\n  indented\nlast")
            .with("trailing_newline", "one\ntwo\n")
            .with("trailing_space", "one \ntwo")
            .with("separator", "a\u{2028}b")
            .with("looks_null", "NULL")
            .with("colon_inside", "a:b")
            .with("hash_inside", "a#b")
            .with("tab", "a\tb")
            .with("bell", "a\u{7}b")
            .with("next_line", "a\u{85}b")
            .with("accented", "café")
            .with("flow_braces", vec!["{x}", "y]"])
            .with(
                "200",
                Map::new().with("$ref", "#/components/responses/Error"),
            )
            .with("type", vec!["string", "null"])
            .with("flow_unsafe", vec!["a,b", "c"])
            .with(
                "nested",
                vec![Node::Seq(vec![Node::Map(Map::new().with("k", 1))])],
            )
            .with(
                "list",
                vec![
                    Node::Map(Map::new().with("name", "x").with("in", "query")),
                    Node::Map(Map::new()),
                    Node::Seq(vec![]),
                    Node::Null,
                ],
            )
            .with("empty_map", Map::new())
            .with("flag", true)
            .with("price", 24.0975)
            .with("whole_price", 80.0)
            .with("large_price", 1e22)
            .with("tiny_price", -0.000_001)
            .with("prices", vec![1.5, -2.0])
    }

    #[test]
    fn yaml_reads_back_as_the_same_tree() {
        let yaml = to_yaml("# header\n", &sample());
        let read: serde_json::Value = serde_saphyr::from_str(&yaml).expect("valid YAML");
        let json: serde_json::Value =
            serde_json::from_str(&to_json(&sample())).expect("valid JSON");
        assert_eq!(read, json, "YAML:\n{yaml}");
    }

    #[test]
    fn yaml_is_conventional() {
        let yaml = to_yaml("", &sample());
        for line in [
            "openapi: \"3.1.0\"\n",
            "plain: List products.\n",
            "looks_true: \"yes\"\n",
            "date: \"2024-03-01\"\n",
            "multi: |-\n  line one\n\n    indented\n  last\n",
            "trailing_newline: |\n  one\n  two\n",
            "trailing_space: \"one \\ntwo\"\n",
            "separator: \"a\\u2028b\"\n",
            "looks_null: \"NULL\"\n",
            "colon_inside: a:b\n",
            "hash_inside: a#b\n",
            "tab: \"a\\tb\"\n",
            "bell: \"a\\u0007b\"\n",
            "next_line: \"a\\u0085b\"\n",
            "accented: café\n",
            "flow_braces: [\"{x}\", \"y]\"]\n",
            "\"200\":\n  $ref: \"#/components/responses/Error\"\n",
            "type: [string, \"null\"]\n",
            "flow_unsafe: [\"a,b\", c]\n",
            "list:\n  - name: x\n    in: query\n  - {}\n  - []\n  - null\n",
            "price: 24.0975\n",
            "whole_price: 80.0\n",
            "large_price: 10000000000000000000000.0\n",
            "tiny_price: -0.000001\n",
            "prices: [1.5, -2.0]\n",
        ] {
            assert!(yaml.contains(line), "missing {line:?} in\n{yaml}");
        }
    }

    #[test]
    fn json_keeps_insertion_order() {
        let json = to_json(&Map::new().with("b", 1).with("a", Map::new().with("z", "x")));
        assert_eq!(
            json,
            "{\n  \"b\": 1,\n  \"a\": {\n    \"z\": \"x\"\n  }\n}\n"
        );
    }
}

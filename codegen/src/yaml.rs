//! YAML to a tree of nodes that remember where they are.
//!
//! The schema is read into this small tree first, not straight into typed structs, so that the reader
//! can report every mistake of a file (serde stops at the first) and point at keys as well as values.

use crate::diag::{Code, Diagnostic};
use crate::source::{FileId, SourceFile, Span, to_u32};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;
use std::fmt;

/// A YAML node with its place.
#[derive(Debug, Clone)]
pub struct Node {
    /// Where the node starts (and, for scalars, ends).
    pub span: Span,
    /// What it is.
    pub kind: NodeKind,
    /// Whether the node is a copy of an anchored node (`*anchor`, or an entry merged by `<<: *anchor`):
    /// its span is then the alias's, not text of its own.
    pub aliased: bool,
}

/// The shape of a YAML node. Every scalar is kept as the text written, so `1.0` stays `1.0` and
/// `no` stays `no` (YAML 1.1 would read it as `false`).
#[derive(Debug, Clone)]
pub enum NodeKind {
    /// `~`, `null` or nothing.
    Null,
    /// Any other scalar.
    Scalar(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in source order, duplicates kept (the checker reports them).
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// The scalar text, if this is a scalar.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// A short name of the node's kind, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            NodeKind::Null => "nothing",
            NodeKind::Scalar(_) => "a scalar",
            NodeKind::Seq(_) => "a sequence",
            NodeKind::Map(_) => "a mapping",
        }
    }
}

/// Limits that stop hostile input (alias bombs, deep nesting, huge files) early.
pub const MAX_FILE_BYTES: usize = 8 * 1024 * 1024;
const MAX_DEPTH: usize = 64;

/// Parses one schema file into a node tree.
pub fn parse(file_id: FileId, file: &SourceFile) -> Result<Node, Box<Diagnostic>> {
    let options = serde_saphyr::options! {
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::PassThrough,
        strict_booleans: true,
        budget: serde_saphyr::budget! {
            max_events: 2_000_000,
            max_aliases: 1_000,
            max_recorded_anchor_events: 100_000,
            max_anchors: 1_000,
            max_depth: MAX_DEPTH,
            max_nodes: 1_000_000,
            max_total_scalar_bytes: MAX_FILE_BYTES,
        },
    };
    let raw: Spanned<Raw> = serde_saphyr::from_str_with_options(&file.text, options)
        .map_err(|e| Box::new(yaml_error(file_id, file, &e)))?;
    Ok(convert(file_id, file, raw))
}

fn yaml_error(file_id: FileId, file: &SourceFile, e: &serde_saphyr::Error) -> Diagnostic {
    let plain = e.without_snippet();
    let message = strip_location(&plain.to_string());
    let span = match plain.location().filter(|l| l.line() > 0) {
        Some(l) => {
            let at = file.offset_of(l.line() as usize, l.column() as usize);
            Span {
                file: file_id,
                start: at,
                end: at,
            }
        }
        None => Span {
            file: file_id,
            start: 0,
            end: 0,
        },
    };
    if message.contains("budget breached") || message.contains("recursion limit") {
        let what = if message.contains("recursion") {
            "nests too deeply"
        } else {
            "expands beyond the loader's limits"
        };
        return Diagnostic::new(Code::YamlTooLarge, span, format!("the YAML {what}"))
            .label(message)
            .with_help("schema files need neither deep nesting nor large anchors and aliases; is this hostile input?");
    }
    let help = if message.contains("tab") {
        Some("indent with spaces; YAML does not allow tabs for indentation")
    } else if message.contains("mapping values are not allowed") {
        Some(
            "a `key: value` here usually means the line is indented too deeply, or a value holding `: ` needs quotes",
        )
    } else {
        None
    };
    let d = Diagnostic::new(Code::YamlSyntax, span, format!("invalid YAML: {message}"));
    match help {
        Some(h) => d.with_help(h),
        None => d,
    }
}

/// saphyr's message carries the place (`error: line L column C: …`, `… at line L, column C`, and where an
/// alias was defined and used); the diagnostic shows the place itself.
fn strip_location(message: &str) -> String {
    let first_line = message.lines().next().unwrap_or("").trim();
    let m = first_line
        .strip_prefix("error:")
        .unwrap_or(first_line)
        .trim();
    let m = match m
        .strip_prefix("line ")
        .and_then(|rest| rest.split_once(": "))
    {
        Some((place, rest)) if place.contains("column") => rest,
        _ => m,
    };
    let m = m.find(" at line ").map_or(m, |i| &m[..i]);
    m.trim().to_owned()
}

fn convert(file_id: FileId, file: &SourceFile, raw: Spanned<Raw>) -> Node {
    let loc = raw.referenced;
    let aliased = loc.span().byte_offset() != raw.defined.span().byte_offset();
    let span_info = loc.span();
    let start = span_info
        .byte_offset()
        .map(to_u32_u64)
        .unwrap_or_else(|| file.offset_of(loc.line() as usize, loc.column() as usize));
    let len = span_info.byte_len().map(to_u32_u64).unwrap_or(0);
    let span = Span {
        file: file_id,
        start,
        end: start.saturating_add(len),
    };
    let kind = match raw.value {
        Raw::Null => NodeKind::Null,
        Raw::Str(s) => NodeKind::Scalar(s),
        // A plain scalar that YAML typed as a number or boolean: keep the text as written.
        Raw::Typed(fallback) => {
            let written = file
                .text
                .get(span.start as usize..span.end as usize)
                .unwrap_or("");
            NodeKind::Scalar(if written.is_empty() {
                fallback
            } else {
                written.to_owned()
            })
        }
        Raw::Seq(items) => NodeKind::Seq(
            items
                .into_iter()
                .map(|i| convert(file_id, file, i))
                .collect(),
        ),
        Raw::Map(entries) => NodeKind::Map(
            entries
                .into_iter()
                .map(|(k, v)| (convert(file_id, file, k), convert(file_id, file, v)))
                .collect(),
        ),
    };
    Node {
        span,
        kind,
        aliased,
    }
}

fn to_u32_u64(n: u64) -> u32 {
    to_u32(usize::try_from(n).unwrap_or(usize::MAX))
}

enum Raw {
    Null,
    Str(String),
    Typed(String),
    Seq(Vec<Spanned<Raw>>),
    Map(Vec<(Spanned<Raw>, Spanned<Raw>)>),
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a YAML node")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Raw, E> {
        Ok(Raw::Str(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Raw, E> {
        Ok(Raw::Str(v))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Raw, E> {
        Ok(Raw::Typed(v.to_string()))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Raw, E> {
        Ok(Raw::Typed(v.to_string()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Raw, E> {
        Ok(Raw::Typed(v.to_string()))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Raw, E> {
        Ok(Raw::Typed(v.to_string()))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Raw, E> {
        Ok(Raw::Typed(v.to_string()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Raw, E> {
        Ok(Raw::Typed(v.to_string()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Raw, D::Error> {
        Raw::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Raw::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key()? {
            entries.push((key, map.next_value()?));
        }
        Ok(Raw::Map(entries))
    }
}

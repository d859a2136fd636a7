//! `--suggest FILE`: the schema edits that would describe what was seen, as YAML a person reviews.
//!
//! - an undeclared member seen in at least `--threshold` of a version's events, always of one type:
//!   an optional field (`name?: type`) on the version (a member of the payload) or on the shared type
//!   holding it (a member deeper down): `field-added-optional`, a minor release;
//! - a required field absent, `null`, or of another type, in at least `--threshold` of the events:
//!   a new version (the previous one's fields written out, that field optional — which in the events
//!   format also accepts `null` — or retyped): `version-added`, a minor release, where changing the
//!   published version would be a major one;
//! - anything else (rarer than the threshold, several types, inside a shared type, an integer beyond
//!   `int`) is listed as not suggested, with why.
//!
//! Each suggestion says why and what `cargo xtask compat` will say; the `edits` replace lines of the
//! schema files (each `old` line with its `new` lines), merged per line, so that they can be applied
//! as they are (`tests/drift_suggestions.rs` applies them to a copy of `schema/` and runs the check).

use super::locate::Schema;
use energy_runtime::drift::{Finding, FindingKind, Report, Shape, StructTable, shape_text};
use energy_runtime::energy_api::events::EventKind;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// One suggestion, explained.
struct Suggestion {
    event: String,
    version: String,
    change: &'static str,
    path: String,
    suggested: String,
    why: String,
    compat: &'static str,
    at: Option<String>,
}

/// A finding not turned into an edit, and why.
struct NotSuggested {
    event: String,
    version: String,
    path: String,
    kind: &'static str,
    why: String,
}

/// A field of a new version: its type, and whether it is optional.
struct NewField {
    ty: String,
    optional: bool,
}

/// The schema type of the JSON types seen (nulls aside), when they agree on one.
fn schema_type(seen: &BTreeMap<&str, u64>, items: &BTreeMap<&str, u64>) -> Option<String> {
    let types: Vec<&str> = seen.keys().copied().filter(|t| *t != "null").collect();
    let scalar = |types: &[&str]| match types {
        ["string"] => Some("str".to_owned()),
        ["integer"] => Some("int".to_owned()),
        ["number"] | ["integer", "number"] => Some("num".to_owned()),
        ["boolean"] => Some("bool".to_owned()),
        ["object"] => Some("obj".to_owned()),
        _ => None,
    };
    match types.as_slice() {
        ["array"] => {
            let items: Vec<&str> = items.keys().copied().filter(|t| *t != "null").collect();
            scalar(&items).map(|item| format!("[{item}]"))
        }
        other => scalar(other),
    }
}

fn percent(f: &Finding) -> String {
    format!("{:.1} %", f.share * 100.0)
}

/// The struct holding the member at `path` (`payload.a.b[].c` holds `c` in the struct at `a.b[]`):
/// `None` for the payload itself, `Some(name)` for a shared type; `Err` where it is not a struct.
fn holder(table: &'static StructTable, path: &str) -> Result<Option<&'static str>, ()> {
    let inner = path.strip_prefix("payload").ok_or(())?;
    let cut = inner.rfind(['.', '[']).ok_or(())?;
    let parent = &inner[..cut];
    if parent.is_empty() {
        return Ok(None);
    }
    let mut current = table;
    let mut shape: Option<&'static Shape> = None;
    let mut rest = parent;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("[]") {
            shape = match shape {
                Some(Shape::Array(item)) => Some(item),
                _ => return Err(()),
            };
            rest = after;
        } else if let Some(after) = rest.strip_prefix("{}") {
            shape = match shape {
                Some(Shape::Map(value)) => Some(value),
                _ => return Err(()),
            };
            rest = after;
        } else if let Some(after) = rest.strip_prefix('.') {
            if let Some(Shape::Struct(t)) = shape {
                current = t;
            } else if shape.is_some() {
                return Err(());
            }
            let end = after.find(['.', '[', '{']).unwrap_or(after.len());
            let name = &after[..end];
            let index = current.fields.iter().position(|f| *f == name).ok_or(())?;
            let mut field = &current.shapes[index];
            while let Shape::Optional(inner) = field {
                field = inner;
            }
            shape = Some(field);
            rest = &after[end..];
        } else {
            return Err(());
        }
    }
    match shape {
        Some(Shape::Struct(t)) => Ok(Some(t.rust_name())),
        _ => Err(()),
    }
}

/// The label after the last of `versions` (`v2` after `v1`, `2.0.0` after `1.4.0`).
fn next_label(versions: &[&str]) -> Option<String> {
    let last = versions.last()?;
    if let Some(n) = last.strip_prefix('v').and_then(|n| n.parse::<u64>().ok()) {
        return Some(format!("v{}", n + 1));
    }
    let major = last.split('.').next()?.parse::<u64>().ok()?;
    Some(format!("{}.0.0", major + 1))
}

/// Writes the suggestions of `report` to `path`, placed in the files of the schema folder `dir`.
pub(crate) fn write(
    report: &Report,
    path: &Path,
    dir: &Path,
    threshold: f64,
) -> Result<(), String> {
    let mut schema = Schema::read(dir)?;
    let mut suggestions = Vec::new();
    let mut skipped = Vec::new();
    let mut by_version: BTreeMap<(&str, &str), Vec<&Finding>> = BTreeMap::new();
    for f in report.findings.iter().filter(|f| f.drift) {
        if let (Some(event), Some(version)) = (&f.event, &f.version) {
            by_version.entry((event, version)).or_default().push(f);
        }
    }
    for ((event, version), findings) in by_version {
        let Ok(kind) = EventKind::new(event, version) else {
            continue; // Unknown types and versions: no schema to edit (the report names them).
        };
        let table = kind.table();
        let seen = report
            .kinds
            .iter()
            .find(|k| k.event == event && k.version == version)
            .map_or(0, |k| k.events);
        let mut changes: BTreeMap<&str, (NewField, String)> = BTreeMap::new();
        // Optional fields suggested for the payload: a new version has them too.
        let mut added: Vec<(&str, String)> = Vec::new();
        for f in findings {
            let skip = |why: String| NotSuggested {
                event: event.to_owned(),
                version: version.to_owned(),
                path: f.path.clone(),
                kind: f.kind.as_str(),
                why,
            };
            if f.share < threshold {
                skipped.push(skip(format!(
                    "in {} of the events, under --threshold {:.1} %: a producer to correct rather than a schema to change?",
                    percent(f),
                    threshold * 100.0
                )));
                continue;
            }
            let name = f.path.rsplit(['.', ']']).next().unwrap_or("");
            let top_level = f.path.strip_prefix("payload.") == Some(name);
            match f.kind {
                FindingKind::UnknownMember => {
                    let Some(ty) = schema_type(&f.seen, &f.items_seen) else {
                        skipped.push(skip(format!(
                            "no one type to give it: seen {:?}",
                            f.seen
                        )));
                        continue;
                    };
                    let entry = format!("{name}?: {ty}");
                    let mut shared_with = Vec::new();
                    let at = optional_field(
                        &mut schema,
                        event,
                        version,
                        table,
                        &f.path,
                        &entry,
                        &mut shared_with,
                    );
                    if top_level {
                        added.push((name, ty.clone()));
                    }
                    let mut why = format!(
                        "sent in {} of {} events ({}), as {}",
                        f.events,
                        seen,
                        percent(f),
                        f.seen.keys().copied().collect::<Vec<_>>().join(" and ")
                    );
                    if !shared_with.is_empty() {
                        let _ = write!(
                            why,
                            "; the schema entry also declares {}, which gain it too",
                            shared_with.join(", ")
                        );
                    }
                    match at {
                        Ok(at) => suggestions.push(Suggestion {
                            event: event.to_owned(),
                            version: version.to_owned(),
                            change: "optional-field",
                            path: f.path.clone(),
                            suggested: entry,
                            why,
                            compat: "field-added-optional: energy-api needs a minor release",
                            at,
                        }),
                        Err(problem) => skipped.push(skip(problem)),
                    }
                }
                FindingKind::MissingField | FindingKind::NullNotNullable | FindingKind::WrongType
                    if top_level =>
                {
                    let Some(index) = table.fields.iter().position(|n| *n == name) else {
                        continue;
                    };
                    let declared = shape_text(&table.shapes[index]);
                    let entry = changes.entry(name).or_insert_with(|| {
                        (
                            NewField {
                                ty: declared.clone(),
                                optional: !table.is_required(index),
                            },
                            String::new(),
                        )
                    });
                    let why = match f.kind {
                        FindingKind::MissingField => {
                            entry.0.optional = true;
                            format!("`{name}` absent in {} of the events", percent(f))
                        }
                        FindingKind::NullNotNullable => {
                            entry.0.optional = true;
                            format!("`{name}` null in {} of the events", percent(f))
                        }
                        _ => match schema_type(&f.seen, &f.items_seen) {
                            Some(ty) => {
                                let why = format!(
                                    "`{name}` sent as {ty} (not {declared}) in {} of the events",
                                    percent(f)
                                );
                                entry.0.ty = ty;
                                why
                            }
                            None => {
                                skipped.push(skip(format!("no one type to give it: seen {:?}", f.seen)));
                                continue;
                            }
                        },
                    };
                    if !entry.1.is_empty() {
                        entry.1.push_str("; ");
                    }
                    entry.1.push_str(&why);
                }
                FindingKind::OutOfRange => skipped.push(skip(
                    "`int` is a 64-bit integer: values beyond it need a `str` or `num` field, a choice for a person".to_owned(),
                )),
                _ => skipped.push(skip(
                    "inside a shared type or an array: changing the shared type reaches every event holding it, a choice for a person".to_owned(),
                )),
            }
        }
        if !changes.is_empty() {
            suggestions.push(new_version(&mut schema, kind, table, &changes, &added));
        }
    }
    let text = render(report, &schema, &suggestions, &skipped);
    std::fs::write(path, text).map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

/// Adds optional field `entry` where the member at `path` belongs; its place, or why it has none.
fn optional_field(
    schema: &mut Schema,
    event: &str,
    version: &str,
    table: &'static StructTable,
    path: &str,
    entry: &str,
    shared_with: &mut Vec<String>,
) -> Result<Option<String>, String> {
    let holder = holder(table, path).map_err(|()| {
        "inside a free-form value, a map or an array of scalars: no struct to add a field to"
            .to_owned()
    })?;
    let Schema { located, edits } = schema;
    let place = match holder {
        None => {
            let Some(entry_node) = located.event(event) else {
                return Ok(None);
            };
            *shared_with = entry_node
                .event_names()
                .into_iter()
                .filter(|name| name != event)
                .collect();
            let Some((key, value)) = entry_node.version(version) else {
                return Ok(None);
            };
            if let Some(payload) = value.payload() {
                payload.text().and_then(|name| located.shared_type(name))
            } else if value.lacks("payload") {
                Some((key, value))
            } else {
                None
            }
        }
        Some(name) => located.shared_type(name),
    };
    let Some((key, holder)) = place else {
        return Ok(None);
    };
    Ok(edits.add_field(located, key, holder, entry))
}

/// A new version of `kind`'s event type: the fields of `table` written out, with `changes`.
fn new_version(
    schema: &mut Schema,
    kind: EventKind,
    table: &'static StructTable,
    changes: &BTreeMap<&str, (NewField, String)>,
    added: &[(&str, String)],
) -> Suggestion {
    let event = kind.event_type().as_str();
    let label = next_label(kind.event_type().versions()).unwrap_or_else(|| "v2".to_owned());
    let mut fields = Vec::new();
    for (index, name) in table.fields.iter().enumerate() {
        let (ty, optional) = match changes.get(name) {
            Some((field, _)) => (field.ty.clone(), field.optional),
            None => (shape_text(&table.shapes[index]), !table.is_required(index)),
        };
        fields.push(format!("{name}{}: {ty}", if optional { "?" } else { "" }));
    }
    fields.extend(added.iter().map(|(name, ty)| format!("{name}?: {ty}")));
    let why: Vec<&str> = changes.values().map(|(_, why)| why.as_str()).collect();
    let description = format!(
        "What producers send instead of {}: {} (suggested by energy events drift; review).",
        kind.version(),
        why.join("; ")
    );
    let quoted = serde_json::to_string(&description).unwrap_or_default();
    let mut lines = vec![format!("{label}:"), format!("  description: {quoted}")];
    if table.keep_unlisted {
        lines.push("  incomplete: true".to_owned());
    }
    lines.push(format!("  fields: {{{}}}", fields.join(", ")));
    let Schema { located, edits } = schema;
    let at = located
        .event(event)
        .and_then(|entry| edits.add_version(located, entry, kind.version(), &lines));
    Suggestion {
        event: event.to_owned(),
        version: kind.version().to_owned(),
        change: "new-version",
        path: "payload".to_owned(),
        suggested: format!("{label}: {{fields: {{{}}}}}", fields.join(", ")),
        why: why.join("; "),
        compat: "version-added: energy-api needs a minor release (changing the published version in place would be a major one)",
        at,
    }
}

fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

fn render(
    report: &Report,
    schema: &Schema,
    suggestions: &[Suggestion],
    skipped: &[NotSuggested],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Schema edits suggested by `energy events drift` from {} events: review each before applying.\n\
         # `suggestions` says what and why; `edits` are the same as line replacements (each `old` line of\n\
         # `file`, 1-based `line`, replaced by the `new` lines), merged per line. Then: cargo xtask compat.\n\
         drift_suggestions: 1",
        report.events
    );
    let _ = writeln!(
        out,
        "suggestions:{}",
        if suggestions.is_empty() { " []" } else { "" }
    );
    for s in suggestions {
        let _ = writeln!(out, "  - event: {}", quote(&s.event));
        let _ = writeln!(out, "    version: {}", quote(&s.version));
        let _ = writeln!(out, "    change: {}", s.change);
        let _ = writeln!(out, "    path: {}", quote(&s.path));
        let _ = writeln!(out, "    suggested: {}", quote(&s.suggested));
        let _ = writeln!(out, "    why: {}", quote(&s.why));
        let _ = writeln!(out, "    compat: {}", quote(s.compat));
        match &s.at {
            Some(at) => {
                let _ = writeln!(out, "    at: {}", quote(at));
            }
            None => {
                let _ = writeln!(
                    out,
                    "    at: null  # not found in the schema folder: edit by hand"
                );
            }
        }
    }
    let mut edits = Vec::new();
    for file in &schema.edits.files {
        for (line, old, new) in file.edits() {
            edits.push((file.path.as_str(), line, old, new));
        }
    }
    let _ = writeln!(out, "edits:{}", if edits.is_empty() { " []" } else { "" });
    for (file, line, old, new) in edits {
        let _ = writeln!(out, "  - file: {}", quote(file));
        let _ = writeln!(out, "    line: {}", line + 1);
        let _ = writeln!(out, "    old: {}", quote(old));
        let _ = writeln!(out, "    new:");
        for text in new {
            let _ = writeln!(out, "      - {}", quote(&text));
        }
    }
    let _ = writeln!(
        out,
        "not_suggested:{}",
        if skipped.is_empty() { " []" } else { "" }
    );
    for s in skipped {
        let _ = writeln!(
            out,
            "  - {{event: {}, version: {}, path: {}, kind: {}, why: {}}}",
            quote(&s.event),
            quote(&s.version),
            quote(&s.path),
            s.kind,
            quote(&s.why)
        );
    }
    out
}

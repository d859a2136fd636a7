//! The drift report as text for a terminal and as Markdown (the JSON one is the report's own shape).

use super::Inputs;
use energy_runtime::drift::{Finding, FindingKind, Report};
use energy_runtime::text::for_terminal;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{self, Write};

/// The longest piece of input text (a name, an example) shown on a terminal.
const SHOWN: usize = 120;

/// The one-line summary written on standard error.
pub(crate) fn summary(report: &Report) -> String {
    let drift = report.findings.iter().filter(|f| f.drift).count();
    let observations = report.findings.len() - drift;
    let mut text = format!(
        "energy events drift: {} {} read, {} {} of {} {}: {} drift {}, {} {}",
        report.lines,
        plural(report.lines, "line", "lines"),
        report.events,
        plural(report.events, "event", "events"),
        report.kinds.len(),
        plural(report.kinds.len() as u64, "known version", "known versions"),
        drift,
        plural(drift as u64, "finding", "findings"),
        observations,
        plural(observations as u64, "observation", "observations"),
    );
    if !report.dropped.is_empty() {
        let d = &report.dropped;
        let _ = write!(
            text,
            "; tables full, not tracked: {} values of new paths, {} undeclared members, {} value sets, {} events of unknown kinds",
            d.paths, d.members, d.values, d.unknown_kinds
        );
    }
    text
}

fn plural<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

fn shown(text: &str) -> Cow<'_, str> {
    for_terminal(text, SHOWN)
}

fn percent(share: f64) -> String {
    let percent = share * 100.0;
    if percent > 0.0 && percent < 0.1 {
        "<0.1 %".to_owned()
    } else {
        format!("{percent:.1} %")
    }
}

fn counts(seen: &std::collections::BTreeMap<&'static str, u64>) -> String {
    let mut seen: Vec<_> = seen.iter().collect();
    seen.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    seen.iter()
        .map(|(t, n)| format!("{t} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn lines(finding: &Finding, inputs: &Inputs) -> String {
    let mut text = finding
        .lines
        .iter()
        .map(|n| inputs.locate(*n))
        .collect::<Vec<_>>()
        .join(", ");
    if finding.count > finding.lines.len() as u64 {
        text.push_str(", …");
    }
    text
}

/// What a finding says, in words.
pub(crate) fn describe(finding: &Finding, inputs: &Inputs) -> String {
    let expected = finding.expected.as_deref().unwrap_or("?");
    let example = finding
        .examples
        .first()
        .map(|e| format!("; e.g. {}", shown(e)))
        .unwrap_or_default();
    match finding.kind {
        FindingKind::UnknownMember => {
            let mut text = format!("not in the schema: {}", counts(&finding.seen));
            if !finding.items_seen.is_empty() {
                let _ = write!(text, " (first items: {})", counts(&finding.items_seen));
            }
            text + &example
        }
        FindingKind::MissingField => format!("required {expected}, absent"),
        FindingKind::NullNotNullable => format!("null where {expected} is required"),
        FindingKind::WrongType => {
            format!(
                "expected {expected}, seen {}{example}",
                counts(&finding.seen)
            )
        }
        FindingKind::OutOfRange => format!("{expected} beyond its range (i64)"),
        FindingKind::OptionalNeverSent => format!("optional {expected}, never sent"),
        FindingKind::EnumCandidate => {
            let values: Vec<String> = finding
                .values
                .iter()
                .map(|v| format!("{} {}", shown(&v.value), v.count))
                .collect();
            format!("{} distinct values: {}", values.len(), values.join(", "))
        }
        FindingKind::UnknownEventType => {
            format!(
                "event type not in the catalogue (lines {})",
                lines(finding, inputs)
            )
        }
        FindingKind::UnknownVersion => {
            format!(
                "version not in the catalogue (lines {})",
                lines(finding, inputs)
            )
        }
        FindingKind::MalformedJson => format!("not JSON (lines {})", lines(finding, inputs)),
        FindingKind::BadEnvelope => {
            format!(
                "JSON, but not an envelope (lines {})",
                lines(finding, inputs)
            )
        }
    }
}

fn subject(finding: &Finding) -> String {
    match (&finding.event, &finding.version) {
        (Some(event), Some(version)) => format!("{} {}", shown(event), shown(version)),
        (Some(event), None) => shown(event).into_owned(),
        _ => "lines".to_owned(),
    }
}

/// The text report: the summary, then the findings (drift, most events touched first, then
/// observations), at most `top` of them (0: all).
pub(crate) fn human(
    out: &mut impl Write,
    report: &Report,
    top: usize,
    inputs: &Inputs,
) -> io::Result<()> {
    writeln!(out, "{}", summary(report))?;
    let limit = if top == 0 { usize::MAX } else { top };
    let mut shown_count = 0;
    let mut section = None;
    for finding in report.findings.iter().take(limit) {
        let title = if finding.drift {
            "drift, most events touched first:"
        } else {
            "observations:"
        };
        if section != Some(finding.drift) {
            writeln!(out, "\n{title}")?;
            section = Some(finding.drift);
        }
        let touched = if finding.kind == FindingKind::OptionalNeverSent {
            String::new()
        } else {
            let (one, many) = if finding.event.is_some() {
                ("event", "events")
            } else {
                ("line", "lines")
            };
            format!(
                "{:>7} {:<6}",
                finding.events,
                plural(finding.events, one, many)
            )
        };
        writeln!(
            out,
            "  {touched:>14} {:>8}  {}  {}  {}",
            if touched.is_empty() {
                String::new()
            } else {
                percent(finding.share)
            },
            subject(finding),
            shown(&finding.path),
            describe(finding, inputs)
        )?;
        shown_count += 1;
    }
    if report.findings.is_empty() {
        writeln!(out, "\nno drift: every event matches its version's schema")?;
    }
    let more = report.findings.len() - shown_count;
    if more > 0 {
        writeln!(
            out,
            "\n{more} more {} (--top 0 shows all; --format json has every detail)",
            plural(more as u64, "finding", "findings")
        )?;
    }
    Ok(())
}

/// A Markdown table cell: `|` escaped, no line breaks.
fn cell(text: &str) -> String {
    shown(text).replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// The Markdown report: a summary, then a table of the drift and one of the observations.
pub(crate) fn markdown(
    out: &mut impl Write,
    report: &Report,
    top: usize,
    inputs: &Inputs,
) -> io::Result<()> {
    writeln!(out, "# Drift report\n")?;
    writeln!(
        out,
        "{}\n",
        summary(report).replace("energy events drift: ", "")
    )?;
    let limit = if top == 0 { usize::MAX } else { top };
    let shown: Vec<&Finding> = report.findings.iter().take(limit).collect();
    for (drift, title) in [(true, "Drift"), (false, "Observations")] {
        let rows: Vec<&&Finding> = shown.iter().filter(|f| f.drift == drift).collect();
        if rows.is_empty() {
            continue;
        }
        writeln!(out, "## {title}\n")?;
        writeln!(out, "| events | share | event | version | path | finding |")?;
        writeln!(out, "|---:|---:|---|---|---|---|")?;
        for f in rows {
            let never = f.kind == FindingKind::OptionalNeverSent;
            let path = if f.path.is_empty() {
                "—".to_owned()
            } else {
                format!("`{}`", cell(&f.path).replace('`', "'"))
            };
            writeln!(
                out,
                "| {} | {} | {} | {} | {} | {}: {} |",
                if never {
                    "—".to_owned()
                } else {
                    f.events.to_string()
                },
                if never {
                    "—".to_owned()
                } else {
                    percent(f.share)
                },
                cell(f.event.as_deref().unwrap_or("")),
                cell(f.version.as_deref().unwrap_or("")),
                path,
                f.kind.as_str(),
                cell(&describe(f, inputs))
            )?;
        }
        writeln!(out)?;
    }
    if report.findings.is_empty() {
        writeln!(out, "No drift: every event matches its version's schema.")?;
    } else if shown.len() < report.findings.len() {
        writeln!(
            out,
            "{} more findings not shown (`--top 0` shows all).",
            report.findings.len() - shown.len()
        )?;
    }
    Ok(())
}

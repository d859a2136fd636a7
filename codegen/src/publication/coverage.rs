//! `cargo xtask compat --consumers`: per event type and version, the consumer contracts that read it:
//! what can be retired safely, and which published versions nobody reads.

use super::lock;
use super::report::Format;
use crate::Failure;
use crate::evolution::{PublishedKeys, published_keys, readers};
use crate::source::SourceMap;
use std::path::Path;

/// Who reads each version of the catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    /// Every version, in catalogue order.
    pub versions: Vec<VersionReaders>,
}

/// One version and the contracts that read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionReaders {
    /// The event type.
    pub event: String,
    /// The version's label.
    pub version: String,
    /// Whether the published baseline has it.
    pub published: bool,
    /// The date from which it may be removed, when deprecated.
    pub sunset: Option<String>,
    /// The active contracts that read it, in name order.
    pub consumers: Vec<String>,
}

/// Who reads each version of the schema in `schema_dir`; `lock` (when it exists) says what is published.
pub fn coverage(schema_dir: &Path, lock_path: &Path) -> Result<Coverage, Failure> {
    let model = crate::build_model(schema_dir)?;
    let published = if lock_path.exists() {
        published_keys(&lock::read(lock_path, &mut SourceMap::default())?.model)
    } else {
        PublishedKeys::default()
    };
    let versions = model
        .events()
        .flat_map(|(_, event)| event.versions.iter().map(move |v| (event, v)))
        .map(|(event, version)| VersionReaders {
            event: event.name.clone(),
            version: version.label.clone(),
            published: published
                .versions
                .contains(&(event.name.clone(), version.label.clone())),
            sunset: version.deprecated.as_ref().map(|d| d.sunset.clone()),
            consumers: readers(&model, &event.name, &version.label),
        })
        .collect();
    Ok(Coverage { versions })
}

impl Coverage {
    /// Published versions that no active contract reads.
    pub fn unread_published(&self) -> impl Iterator<Item = &VersionReaders> {
        self.versions
            .iter()
            .filter(|v| v.published && v.consumers.is_empty())
    }

    /// The table in `format`: aligned text, one JSON object per version per line, or a Markdown table.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Json => self
                .versions
                .iter()
                .map(|v| {
                    let line = serde_json::json!({
                        "event": v.event,
                        "version": v.version,
                        "published": v.published,
                        "sunset": v.sunset,
                        "consumers": v.consumers,
                    });
                    format!("{line}\n")
                })
                .collect(),
            Format::Human => self.table(false),
            Format::Markdown => self.table(true),
        }
    }

    fn table(&self, markdown: bool) -> String {
        let rows: Vec<[String; 4]> = self
            .versions
            .iter()
            .map(|v| {
                let state = match (&v.sunset, v.published) {
                    (Some(sunset), _) => format!("deprecated, sunset {sunset}"),
                    (None, true) => "published".to_owned(),
                    (None, false) => "not published".to_owned(),
                };
                let readers = if v.consumers.is_empty() {
                    "(nobody)".to_owned()
                } else {
                    v.consumers.join(", ")
                };
                [v.event.clone(), v.version.clone(), state, readers]
            })
            .collect();
        let header = ["event type", "version", "state", "read by"];
        let mut out = String::new();
        if markdown {
            out.push_str(&format!("| {} |\n|---|---|---|---|\n", header.join(" | ")));
            for row in &rows {
                out.push_str(&format!("| {} |\n", row.join(" | ")));
            }
        } else {
            let widths: Vec<usize> = (0..3)
                .map(|i| {
                    rows.iter()
                        .map(|r| r[i].len())
                        .chain([header[i].len()])
                        .max()
                        .unwrap_or(0)
                })
                .collect();
            let line = |cells: [&str; 4]| {
                format!(
                    "{:w0$}  {:w1$}  {:w2$}  {}\n",
                    cells[0],
                    cells[1],
                    cells[2],
                    cells[3],
                    w0 = widths[0],
                    w1 = widths[1],
                    w2 = widths[2]
                )
            };
            out.push_str(&line(header));
            for row in &rows {
                out.push_str(&line([&row[0], &row[1], &row[2], &row[3]]));
            }
        }
        let read = self
            .versions
            .iter()
            .filter(|v| !v.consumers.is_empty())
            .count();
        let unread: Vec<String> = self
            .unread_published()
            .map(|v| format!("{} {}", v.event, v.version))
            .collect();
        out.push_str(&format!(
            "\n{read} of {} versions read by a registered consumer; {} published versions read by none\n",
            self.versions.len(),
            unread.len()
        ));
        out
    }
}

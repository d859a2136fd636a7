//! `COMPATIBILITY.md`, and the compatibility table of each AsyncAPI message: every payload version of an
//! event type against the others, as `evolution::classify` judges them.

use crate::evolution::{VersionPair, classify};
use crate::model::{EventType, EventVersion, Model};
use std::collections::BTreeMap;

/// Where the file is written, relative to `generated/`.
pub const PATH: &str = "COMPATIBILITY.md";

/// The compatibility terms, as the table uses them.
const TERMS: &str = "Judged under the generated decoder's default, which ignores members it does not list:\n\n\
- **full**: readers of either version read payloads of both;\n\
- **backward**: readers of the newer version read payloads of the older (replays, retained events), not the reverse;\n\
- **forward**: readers of the older version read payloads of the newer, not the reverse;\n\
- **none**: neither reads the other's payloads.\n";

/// `COMPATIBILITY.md`.
pub fn emit(model: &Model) -> BTreeMap<String, String> {
    let several: usize = model.events().filter(|(_, e)| e.versions.len() > 1).count();
    let mut out = format!(
        "<!-- {} -->\n# Compatibility of event versions\n\n\
         Every event type with several payload versions, each version against every earlier one. {TERMS}\n\
         {several} of {} event types have several versions. `cargo xtask compat` uses the same rules to \
         check changes to published versions (docs/evolution.md).\n",
        super::header_text(),
        model.events().count(),
    );
    for section in &model.sections {
        let events: Vec<&EventType> = section
            .events
            .iter()
            .filter(|e| e.versions.len() > 1)
            .collect();
        if events.is_empty() {
            continue;
        }
        out.push_str(&format!("\n## {}\n", section.title));
        for event in events {
            out.push_str(&format!(
                "\n### `{}`\n\n| newer | older | compatibility | a reader of the older version, given the newer | a reader of the newer version, given the older |\n|---|---|---|---|---|\n",
                event.name
            ));
            for pair in classify(model, event) {
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} |\n",
                    pair.newer,
                    pair.older,
                    pair.compatibility.as_str(),
                    cell(&pair.older_reader_rejects),
                    cell(&pair.newer_reader_rejects),
                ));
            }
        }
    }
    BTreeMap::from([(PATH.to_owned(), out)])
}

/// The table of one message's description: how `v` relates to every other version of `event`; `None`
/// for an event type with one version.
pub fn message_table(model: &Model, event: &EventType, v: &EventVersion) -> Option<String> {
    if event.versions.len() < 2 {
        return None;
    }
    let mut text = format!(
        "**Compatibility with the other versions of `{}`** (readers ignore members they do not list):\n\n\
         | version | compatibility | a reader of the older version, given the newer | a reader of the newer version, given the older |\n\
         |---|---|---|---|\n",
        event.name
    );
    let pairs: Vec<VersionPair> = classify(model, event)
        .into_iter()
        .filter(|p| p.newer == v.label || p.older == v.label)
        .collect();
    for pair in pairs {
        let other = if pair.newer == v.label {
            &pair.older
        } else {
            &pair.newer
        };
        text.push_str(&format!(
            "| {other} ({} than {}) | {} | {} | {} |\n",
            if pair.newer == v.label {
                "older"
            } else {
                "newer"
            },
            v.label,
            pair.compatibility.as_str(),
            cell(&pair.older_reader_rejects),
            cell(&pair.newer_reader_rejects),
        ));
    }
    Some(text.trim_end().to_owned())
}

fn cell(rejects: &Option<String>) -> String {
    match rejects {
        None => "reads it".to_owned(),
        Some(why) => format!("rejects it: {}", why.replace('|', "\\|")),
    }
}

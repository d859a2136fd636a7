//! Version views: which later payload version of an event type contains every field of an earlier one, so
//! that the newer payload converts into the older (`From<Newer> for Older`) and a consumer written against
//! the older version can accept the newer.
//!
//! A newer version is a view of an older one when, for every field of the older, the newer has a field of
//! the same JSON name and the same type (and format), and a field the older requires (as a non-`Option`)
//! is required by the newer too. A field optional in the older may be optional or required in the newer.
//! Extra fields of the newer are dropped by the conversion. An older payload that keeps unlisted fields
//! (`incomplete`) or is a free-form object is never a target: what to put in its catch-all map is not
//! decided by its fields.

use crate::model::{EventType, EventVersion, Field, Struct};

/// A conversion from a newer payload version of one event type to an older one.
#[derive(Debug, Clone, PartialEq)]
pub struct VersionView<'m> {
    /// The newer version (the source of the conversion).
    pub newer: &'m EventVersion,
    /// The older version (the target).
    pub older: &'m EventVersion,
    /// How each field of the older payload is filled, in the older's field order.
    pub fields: Vec<FieldView<'m>>,
}

/// How one field of the older payload is filled from the newer.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldView<'m> {
    /// The field of the older payload (the same JSON name, type and Rust name in the newer).
    pub field: &'m Field,
    /// The older holds an `Option` and the newer a plain value: the value is wrapped in `Some`.
    pub wrap_in_some: bool,
}

/// Every view among the versions of `event`, newest source first, then newest target first.
pub fn version_views(event: &EventType) -> Vec<VersionView<'_>> {
    let mut views = Vec::new();
    for (n, newer) in event.versions.iter().enumerate().rev() {
        for older in event.versions[..n].iter().rev() {
            if let Some(fields) = field_views(&newer.payload, &older.payload) {
                views.push(VersionView {
                    newer,
                    older,
                    fields,
                });
            }
        }
    }
    views
}

/// How to fill every field of `older` from `newer`, or `None` when `newer` does not contain them all.
pub fn field_views<'m>(newer: &'m Struct, older: &'m Struct) -> Option<Vec<FieldView<'m>>> {
    let plain = |s: &Struct| !s.free_form && s.generic.is_none();
    if !plain(newer) || !plain(older) || older.incomplete {
        return None;
    }
    older
        .fields
        .iter()
        .map(|field| {
            let source = newer.fields.iter().find(|f| f.name == field.name)?;
            let same_value = source.ty == field.ty
                && source.format == field.format
                && source.boxed == field.boxed
                && source.rust_name == field.rust_name;
            match (same_value, field.is_option(), source.is_option()) {
                (false, _, _) | (true, false, true) => None,
                (true, older_option, newer_option) => Some(FieldView {
                    field,
                    wrap_in_some: older_option && !newer_option,
                }),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// Views of a purpose-made catalogue section: each version says what it changes from v1.
    #[test]
    fn qualifying_pairs_follow_the_fields() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("events")).unwrap();
        fs::write(
            dir.path().join("types.yaml"),
            "description: Shared.\ntypes:\n  Account:\n    description: An account.\n    fields: {number: str}\n",
        )
        .unwrap();
        fs::write(
            dir.path().join("events/test.yaml"),
            r#"section: Test
description: Views.
events:
  - name: thing.changed
    versions:
      v1:
        fields: {id: int, note?: str, account: Account}
      v2:
        description: Adds a field; `note` becomes required.
        fields: {id: int, note: str, account: Account, extra: [int]}
      v3:
        description: Drops `note`.
        fields: {id: int, account: Account}
      v4:
        description: "`id` becomes a string."
        fields: {id: str, note?: str, account: Account}
      v5:
        description: The v2 fields, with `note` optional again.
        fields: {id: int, note?: str, account: Account, extra: [int]}
  - name: thing.kept
    versions:
      v1:
        incomplete: true
        fields: {id: int}
      v2:
        incomplete: true
        fields: {id: int, more: bool}
"#,
        )
        .unwrap();
        let model = crate::build_model(dir.path())
            .map_err(|f| f.render(false))
            .unwrap();
        let pairs = |name: &str| -> Vec<String> {
            let (_, event) = model.events().find(|(_, e)| e.name == name).unwrap();
            version_views(event)
                .iter()
                .map(|v| format!("{} -> {}", v.newer.label, v.older.label))
                .collect()
        };
        // v2 requires what v1 makes optional: it qualifies. v3 lacks `note` (optional in v1 and required in
        // v2: neither view), v4 changes `id`'s type (no view at all), and v5 makes `note` optional where v2
        // requires it (no v5 → v2) but carries every field of v3 and of v1.
        assert_eq!(pairs("thing.changed"), ["v5 -> v3", "v5 -> v1", "v2 -> v1"]);
        // The target of a view must not keep unlisted fields.
        assert!(pairs("thing.kept").is_empty());

        let (_, changed) = model
            .events()
            .find(|(_, e)| e.name == "thing.changed")
            .unwrap();
        let views = version_views(changed);
        let v2_to_v1 = views
            .iter()
            .find(|v| v.newer.label == "v2" && v.older.label == "v1");
        let wrapped: Vec<(&str, bool)> = v2_to_v1
            .unwrap()
            .fields
            .iter()
            .map(|f| (f.field.name.as_str(), f.wrap_in_some))
            .collect();
        assert_eq!(wrapped, [("id", false), ("note", true), ("account", false)]);
    }

    #[test]
    fn the_catalogue_has_the_documented_views() {
        let schema = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema");
        let model = crate::build_model(&schema)
            .map_err(|f| f.render(false))
            .unwrap();
        let all: Vec<String> = model
            .events()
            .flat_map(|(_, e)| version_views(e))
            .map(|v| format!("{} -> {}", v.newer.id, v.older.label))
            .collect();
        for expected in [
            "agreement.updated.v2 -> v1",
            "billing.billing_document_representation.dispatched.v3 -> v2",
            "billing.billing_document_representation.dispatched.v3 -> v1",
            "billing.billing_document_representation.dispatched.v2 -> v1",
        ] {
            assert!(
                all.iter().any(|v| v == expected),
                "{expected} missing from {all:?}"
            );
        }
        // `billing.ledger.entry_posted` v2 adds `entry` to v1's `ledger`: a view too.
        assert!(
            all.iter()
                .any(|v| v == "billing.ledger.entry_posted.v2 -> v1")
        );
    }
}

//! Protobuf field numbers: read from the published baseline, assigned for what it lacks.
//!
//! The baseline (`schema/published.lock`) holds, under the key [`LOCK_KEY`], the field names of every
//! published shared type and payload version in number order (the model's
//! [`FieldNumbers`](crate::model::FieldNumbers)). A number, once there, never changes: the list only
//! grows. Here the model's structs are numbered against it: a field found in the list keeps its number,
//! a renamed field takes its former name's, any other field gets the next number after every number the
//! list holds, in declared order, wherever it is written in the YAML. A field the model no longer has
//! keeps its slot (the `.proto` reserves it).

pub use crate::model::FieldNumbers;
use crate::model::{ADDITIONAL_FIELDS, Model, Struct};
use std::collections::BTreeMap;

/// The key of the field numbers in the baseline (beside its schema files' keys).
pub const LOCK_KEY: &str = "protobuf-field-numbers";

/// The field numbers recorded in a baseline's text; none when it has none (or is not YAML: the schema
/// reader reports that).
pub fn from_lock(bytes: &[u8]) -> FieldNumbers {
    #[derive(serde::Deserialize)]
    struct Lock {
        #[serde(rename = "protobuf-field-numbers", default)]
        numbers: BTreeMap<String, Vec<String>>,
    }
    // Only the key's own lines are parsed: the rest of the baseline is read by the schema's reader
    // where it is needed, and parsing it all here cost generation more than every new emitter did.
    let Some(text) = std::str::from_utf8(bytes).ok() else {
        return FieldNumbers::new();
    };
    let head = format!("{LOCK_KEY}:");
    let Some(start) = text
        .match_indices(&head)
        .map(|(i, _)| i)
        .find(|&i| i == 0 || text.as_bytes()[i - 1] == b'\n')
    else {
        return FieldNumbers::new();
    };
    let rest = &text[start..];
    // The section ends at the next key at the left margin.
    let end = rest
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .find(|&i| {
            rest.as_bytes()
                .get(i)
                .is_some_and(|b| !b.is_ascii_whitespace() && *b != b'#')
        })
        .unwrap_or(rest.len());
    let section = &rest[..end];
    // The lock writes the section in one plain form, read here directly (a parse of it through
    // serde_saphyr cost 5 % of generation); anything else goes to the YAML parser.
    plain_section(section).unwrap_or_else(|| {
        serde_saphyr::from_str::<Lock>(section)
            .map(|lock| lock.numbers)
            .unwrap_or_default()
    })
}

/// The section as the lock writes it: `  key: [a, b]`, or `  key:` then `    - a` lines, every name a
/// plain scalar of letters, digits, `_`, `.` and `-`; `None` for anything else.
fn plain_section(section: &str) -> Option<FieldNumbers> {
    let plain = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
            && !s.starts_with(['-', '.'])
    };
    let mut numbers = FieldNumbers::new();
    let mut current: Option<String> = None;
    for line in section.lines().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        if let Some(item) = line.strip_prefix("    - ") {
            let key = current.as_ref()?;
            if !plain(item) {
                return None;
            }
            numbers.get_mut(key)?.push(item.to_owned());
            continue;
        }
        let entry = line.strip_prefix("  ")?;
        let (key, value) = entry.split_once(':')?;
        if !plain(key) {
            return None;
        }
        let value = value.trim();
        let names = if value.is_empty() {
            Vec::new()
        } else {
            let inner = value.strip_prefix('[')?.strip_suffix(']')?;
            let names: Vec<String> = inner.split(',').map(|n| n.trim().to_owned()).collect();
            if !names.iter().all(|n| plain(n)) {
                return None;
            }
            names
        };
        numbers.insert(key.to_owned(), names);
        current = Some(key.to_owned());
    }
    Some(numbers)
}

/// Numbers every event struct of `model` against `locked` (see the module's documentation) and records
/// the result in the model. Entries of `locked` for structs the model lacks are left out.
pub fn assign(model: &mut Model, locked: &FieldNumbers) {
    let mut numbers = FieldNumbers::new();
    for t in &model.shared_types {
        numbers.insert(t.name.clone(), slots(t, locked.get(&t.name)));
    }
    for section in &model.sections {
        for event in &section.events {
            for v in &event.versions {
                numbers.insert(v.id.clone(), slots(&v.payload, locked.get(&v.id)));
            }
        }
    }
    model.field_numbers = numbers;
}

/// The slots of one struct: the locked ones, renamed where a field was, then its new fields.
fn slots(s: &Struct, locked: Option<&Vec<String>>) -> Vec<String> {
    let mut slots = locked.cloned().unwrap_or_default();
    let names = s
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.renamed_from.as_slice()))
        .chain(s.incomplete.then_some((ADDITIONAL_FIELDS, &[][..])));
    for (name, former) in names {
        if slots.iter().any(|slot| slot == name) {
            continue;
        }
        match slots.iter().position(|slot| former.contains(slot)) {
            Some(i) => slots[i] = name.to_owned(),
            None => slots.push(name.to_owned()),
        }
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(fields: &str) -> Model {
        let file = format!(
            "section: A\ndescription: A.\nevents:\n  - name: a.b\n    versions:\n      v1:\n        fields: {fields}\n"
        );
        crate::build_model_in_memory(&[("events/a.yaml", file.as_bytes())])
            .map_err(|f| f.render(false))
            .unwrap()
    }

    #[test]
    fn published_numbers_stay_and_new_fields_take_the_next() {
        let mut m = model("{z: str, a?: int, old: bool}");
        let locked: FieldNumbers = [(
            "a.b.v1".to_owned(),
            vec!["old".into(), "gone".into(), "z".into()],
        )]
        .into();
        assign(&mut m, &locked);
        assert_eq!(m.field_number("a.b.v1", "old"), Some(1));
        assert_eq!(m.field_number("a.b.v1", "z"), Some(3));
        assert_eq!(m.field_number("a.b.v1", "a"), Some(4));
        assert_eq!(m.field_numbers["a.b.v1"][1], "gone");
    }

    #[test]
    fn a_renamed_field_keeps_its_number() {
        let mut m = model("{x: str, n: {type: int, renamed_from: m}}");
        let locked: FieldNumbers = [("a.b.v1".to_owned(), vec!["m".into(), "x".into()])].into();
        assign(&mut m, &locked);
        assert_eq!(m.field_number("a.b.v1", "n"), Some(1));
        assert_eq!(m.field_number("a.b.v1", "x"), Some(2));
    }

    #[test]
    fn numbers_are_read_from_a_baseline() {
        let text = b"types.yaml:\n  types: {}\nprotobuf-field-numbers:\n  A: [x, y]\n  B:\n    - z\nrest.yaml:\n  resources: {}\n";
        let numbers = from_lock(text);
        assert_eq!(numbers["A"], vec!["x".to_owned(), "y".to_owned()]);
        assert_eq!(numbers["B"], vec!["z".to_owned()]);
        assert_eq!(numbers.len(), 2);
        assert!(from_lock(b"types.yaml:\n  x-protobuf-field-numbers: 1\n").is_empty());
        // A form the lock does not write is read by the YAML parser.
        let quoted = b"protobuf-field-numbers:\n  A: [\"yes\", b]\n";
        assert_eq!(
            from_lock(quoted)["A"],
            vec!["yes".to_owned(), "b".to_owned()]
        );
    }

    /// The real baseline's section, read directly, is what the YAML parser reads.
    #[test]
    fn the_plain_reading_is_the_yaml_reading() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/published.lock");
        let text = std::fs::read_to_string(path).unwrap();
        let start = text.find("\nprotobuf-field-numbers:\n").unwrap() + 1;
        let section = &text[start..];
        #[derive(serde::Deserialize)]
        struct Lock {
            #[serde(rename = "protobuf-field-numbers")]
            numbers: FieldNumbers,
        }
        let yaml = serde_saphyr::from_str::<Lock>(section).unwrap().numbers;
        assert_eq!(plain_section(section), Some(yaml.clone()));
        assert_eq!(from_lock(text.as_bytes()), yaml);
        assert!(yaml.len() > 300);
    }
}

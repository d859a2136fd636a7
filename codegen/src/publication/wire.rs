//! The identities the wire formats give published fields, which no waiver can move: Avro field types
//! (Avro binary carries none, so a reader of the old type cannot read the new one, whatever JSON
//! readers tolerate) and Protobuf field numbers (recorded in the baseline; the number is the field on
//! the wire).

use crate::evolution::{Finding, Item, PublishedKeys, Rule, Severity, Subject, Verdict};
use crate::model::Model;

/// The rules of JSON readers whose change is also a change of the field's Avro type.
const AVRO_TYPE_RULES: &[Rule] = &[
    Rule::FieldTypeWidened,
    Rule::FieldTypeNarrowed,
    Rule::FieldTypeChanged,
    Rule::FieldOptionalToRequired,
    Rule::FieldRequiredToOptional,
    Rule::FieldNullableAdded,
    Rule::FieldNullableRemoved,
];

/// An error for each waived change of a published event version's field that changes its Avro type.
pub(super) fn avro_types(findings: &[Finding]) -> Vec<Finding> {
    findings
        .iter()
        .filter(|f| f.waived.is_some() && f.published && AVRO_TYPE_RULES.contains(&f.rule))
        .filter(|f| matches!(f.subject, Subject::Event { version: Some(_), .. }))
        .map(|f| Finding {
            rule: Rule::AvroFieldTypeChanged,
            severity: Severity::Error,
            message: format!(
                "`{}` changes its Avro type in a published version: Avro binary carries no types, so \
                 no waiver makes data of the old type readable; write the change as a new version",
                f.path
            ),
            waived: None,
            waived_for: Vec::new(),
            ..f.clone()
        })
        .collect()
}

/// An error for each field of a published struct whose Protobuf number in `new` (from the baseline
/// beside its schema, or from its order where there is none) is not the one `old`, the published
/// baseline, records.
pub(super) fn protobuf_numbers(
    old: &Model,
    new: &Model,
    published: &PublishedKeys,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut structs: Vec<(String, String, Subject)> = old
        .shared_types
        .iter()
        .filter(|t| published.types.contains(&t.name))
        .map(|t| {
            (
                t.name.clone(),
                t.name.clone(),
                Subject::SharedType(t.name.clone()),
            )
        })
        .collect();
    for (_, event) in old.events() {
        for v in &event.versions {
            if published
                .versions
                .contains(&(event.name.clone(), v.label.clone()))
            {
                let subject = Subject::Event {
                    event: event.name.clone(),
                    version: Some(v.label.clone()),
                };
                structs.push((v.id.clone(), v.payload.name.clone(), subject));
            }
        }
    }
    for (key, struct_name, subject) in structs {
        let (Some(before), Some(after)) =
            (old.field_numbers.get(&key), new.field_numbers.get(&key))
        else {
            continue;
        };
        for (i, name) in before.iter().enumerate() {
            let Some(j) = after.iter().position(|n| n == name) else {
                continue;
            };
            if i == j {
                continue;
            }
            let item = Some(Item::Field(struct_name.clone(), name.clone()));
            out.push(Finding {
                rule: Rule::ProtobufFieldRenumbered,
                severity: Severity::Error,
                forward: Verdict::Rejects(format!(
                    "a Protobuf reader of the baseline reads field {} as another field",
                    j + 1
                )),
                backward: Verdict::Rejects(format!(
                    "a Protobuf reader of the new schema reads field {} as another field",
                    i + 1
                )),
                strict_forward: None,
                subject: subject.clone(),
                path: name.clone(),
                message: format!(
                    "the Protobuf number of `{name}` would change from {} to {}: numbers are recorded \
                     in the baseline (`protobuf-field-numbers`) and never change",
                    i + 1,
                    j + 1
                ),
                old: None,
                new: None,
                old_value: Some((i + 1).to_string()),
                new_value: Some((j + 1).to_string()),
                counterexample: None,
                waived: None,
                published: true,
                consumers: Vec::new(),
                via: None,
                items: (item.clone(), item),
                request: false,
                waived_for: Vec::new(),
            });
        }
    }
    out
}

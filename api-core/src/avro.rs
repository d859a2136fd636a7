//! Avro binary of the generated types (feature `avro`), through the `apache-avro` crate's serde support,
//! against the `.avsc` files the generator writes (`generated/avro/<id>.avsc`).
//!
//! A value is written by its own `Serialize` impl into an Avro value ([`apache_avro::to_value`]) and read
//! by its own `Deserialize` impl from one ([`apache_avro::from_value`]); in between, the value is fitted
//! to the schema and back. Two things of the schema are not serde's data model, and are fitted here:
//!
//! - a free-form object (`obj`) travels as a `string` holding its JSON text (the `.avsc` marks such a
//!   field with the attribute `"energy.json": "object"`): written as its compact JSON text, members in
//!   name order, and read back into the object;
//! - the members an incomplete payload keeps without listing them travel in its last field,
//!   `additional_fields`, as the JSON text of an object (`"{}"` when there are none).
//!
//! Everything else is the schema's resolution of serde's values (`Value::resolve`): an optional field
//! that is `None` (or left out, as the tables leave out an optional field) is the union's `null`.

use apache_avro::Schema;
use apache_avro::schema::{Name, Namespace, RecordField, ResolvedSchema};
use apache_avro::types::Value;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::HashMap;

/// The field attribute of a field whose strings are JSON texts.
pub const JSON_ATTRIBUTE: &str = "energy.json";

/// The field of an incomplete record that carries the members its schema does not list.
pub const ADDITIONAL_FIELDS: &str = "additional_fields";

/// Why a value could not be written or read.
#[derive(Debug)]
pub struct AvroError(String);

impl std::fmt::Display for AvroError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AvroError {}

impl From<apache_avro::Error> for AvroError {
    fn from(e: apache_avro::Error) -> Self {
        AvroError(e.to_string())
    }
}

/// The named types of a schema, by full name.
type Names<'s> = HashMap<Name, &'s Schema>;

/// The Avro binary encoding (a datum, without a container file's header) of `value` under `schema`.
pub fn to_avro<T: Serialize + ?Sized>(value: &T, schema: &Schema) -> Result<Vec<u8>, AvroError> {
    let resolved = ResolvedSchema::try_from(schema)?;
    let names = resolved.get_names();
    let value = apache_avro::to_value(value)?;
    let fitted = to_schema(value, schema, names, &None, false)?;
    let resolved = fitted.resolve(schema)?;
    Ok(apache_avro::to_avro_datum(schema, resolved)?)
}

/// A value of `T` from its Avro binary encoding under `schema`; every byte must be read.
pub fn from_avro<T: DeserializeOwned>(mut bytes: &[u8], schema: &Schema) -> Result<T, AvroError> {
    let resolved = ResolvedSchema::try_from(schema)?;
    let names = resolved.get_names();
    let value = apache_avro::from_avro_datum(schema, &mut bytes, None)?;
    if !bytes.is_empty() {
        return Err(AvroError(format!("{} bytes after the value", bytes.len())));
    }
    let fitted = from_schema(value, schema, names, &None, false)?;
    Ok(apache_avro::from_value(&fitted)?)
}

/// The schema a reference names, or the schema itself.
fn named<'s>(
    schema: &'s Schema,
    names: &Names<'s>,
    namespace: &Namespace,
) -> Result<&'s Schema, AvroError> {
    match schema {
        Schema::Ref { name } => {
            let full = name.fully_qualified_name(namespace);
            names
                .get(&full)
                .copied()
                .ok_or_else(|| AvroError(format!("no type named `{}`", full.fullname(None))))
        }
        other => Ok(other),
    }
}

/// A field whose strings are JSON texts.
fn is_json(field: &RecordField) -> bool {
    field.custom_attributes.contains_key(JSON_ATTRIBUTE)
}

/// serde's value `value`, fitted to `schema` for [`Value::resolve`]: JSON fields as their text, an
/// incomplete record's unlisted members gathered into its last field.
fn to_schema<'s>(
    value: Value,
    schema: &'s Schema,
    names: &Names<'s>,
    namespace: &Namespace,
    json: bool,
) -> Result<Value, AvroError> {
    let schema = named(schema, names, namespace)?;
    Ok(match (schema, value) {
        (Schema::Record(record), value) => {
            let mut items: Vec<(String, Value)> = match value {
                Value::Record(fields) => fields,
                Value::Map(members) => {
                    let mut members: Vec<(String, Value)> = members.into_iter().collect();
                    members.sort_by(|a, b| a.0.cmp(&b.0));
                    members
                }
                other => return Ok(other),
            };
            let inner = &record.name.namespace;
            let mut out = Vec::with_capacity(record.fields.len());
            for field in &record.fields {
                if field.name == ADDITIONAL_FIELDS && is_json(field) {
                    continue;
                }
                if let Some(i) = items.iter().position(|(name, _)| *name == field.name) {
                    let (name, value) = items.remove(i);
                    let value = to_schema(value, &field.schema, names, inner, is_json(field))?;
                    out.push((name, value));
                }
            }
            if let Some(field) = record
                .fields
                .iter()
                .find(|f| f.name == ADDITIONAL_FIELDS && is_json(f))
            {
                let members: serde_json::Map<String, serde_json::Value> = items
                    .into_iter()
                    .map(|(name, value)| Ok((name, to_json(value)?)))
                    .collect::<Result<_, AvroError>>()?;
                let text = json_text(&serde_json::Value::Object(members))?;
                out.push((field.name.clone(), Value::String(text)));
            }
            Value::Record(out)
        }
        (Schema::Union(union), value) => {
            if matches!(value, Value::Null) {
                return Ok(Value::Null);
            }
            let value = match value {
                Value::Union(_, inner) => *inner,
                other => other,
            };
            match union.variants().iter().find(|v| !matches!(v, Schema::Null)) {
                Some(variant) => to_schema(value, variant, names, namespace, json)?,
                None => value,
            }
        }
        (Schema::Array(array), Value::Array(items)) => Value::Array(
            items
                .into_iter()
                .map(|item| to_schema(item, &array.items, names, namespace, json))
                .collect::<Result<_, _>>()?,
        ),
        (Schema::Map(map), Value::Map(members)) => Value::Map(
            members
                .into_iter()
                .map(|(k, v)| Ok((k, to_schema(v, &map.types, names, namespace, json)?)))
                .collect::<Result<_, AvroError>>()?,
        ),
        (Schema::String, Value::String(text)) if !json => Value::String(text),
        (Schema::String, value) if json => Value::String(json_text(&to_json(value)?)?),
        (_, value) => value,
    })
}

/// A value read under `schema`, fitted back to what the serde impls read: JSON texts as the values they
/// hold, an incomplete record's unlisted members as members of the record.
fn from_schema<'s>(
    value: Value,
    schema: &'s Schema,
    names: &Names<'s>,
    namespace: &Namespace,
    json: bool,
) -> Result<Value, AvroError> {
    let schema = named(schema, names, namespace)?;
    Ok(match (schema, value) {
        (Schema::Record(record), Value::Record(fields)) => {
            let inner = &record.name.namespace;
            let mut out = Vec::with_capacity(fields.len());
            for ((name, value), field) in fields.into_iter().zip(&record.fields) {
                if field.name == ADDITIONAL_FIELDS && is_json(field) {
                    let Value::String(text) = value else {
                        return Err(AvroError(format!("`{ADDITIONAL_FIELDS}` is not a string")));
                    };
                    match serde_json::from_str(&text) {
                        Ok(serde_json::Value::Object(members)) => {
                            for (name, member) in members {
                                out.push((name, from_json(member)));
                            }
                        }
                        _ => {
                            return Err(AvroError(format!(
                                "`{ADDITIONAL_FIELDS}` is not the JSON text of an object"
                            )));
                        }
                    }
                    continue;
                }
                out.push((
                    name,
                    from_schema(value, &field.schema, names, inner, is_json(field))?,
                ));
            }
            Value::Record(out)
        }
        (Schema::Union(union), Value::Union(i, inner)) => {
            let variant = usize::try_from(i)
                .ok()
                .and_then(|i| union.variants().get(i))
                .ok_or_else(|| AvroError(format!("no variant {i} in the union")))?;
            Value::Union(
                i,
                Box::new(from_schema(*inner, variant, names, namespace, json)?),
            )
        }
        (Schema::Array(array), Value::Array(items)) => Value::Array(
            items
                .into_iter()
                .map(|item| from_schema(item, &array.items, names, namespace, json))
                .collect::<Result<_, _>>()?,
        ),
        (Schema::Map(map), Value::Map(members)) => Value::Map(
            members
                .into_iter()
                .map(|(k, v)| Ok((k, from_schema(v, &map.types, names, namespace, json)?)))
                .collect::<Result<_, AvroError>>()?,
        ),
        (Schema::String, Value::String(text)) if json => match serde_json::from_str(&text) {
            Ok(value) => from_json(value),
            Err(e) => return Err(AvroError(format!("a JSON field holds no JSON: {e}"))),
        },
        (_, value) => value,
    })
}

/// Compact JSON text, members in name order (`serde_json::Map` sorts them).
fn json_text(value: &serde_json::Value) -> Result<String, AvroError> {
    serde_json::to_string(value).map_err(|e| AvroError(e.to_string()))
}

/// An Avro value of serde's making as the JSON value it stands for.
fn to_json(value: Value) -> Result<serde_json::Value, AvroError> {
    use serde_json::Value as J;
    Ok(match value {
        Value::Null => J::Null,
        Value::Boolean(b) => J::Bool(b),
        Value::Int(i) => J::from(i),
        Value::Long(i) => J::from(i),
        Value::Float(f) => J::from(f64::from(f)),
        Value::Double(f) => serde_json::Number::from_f64(f)
            .map(J::Number)
            .ok_or_else(|| AvroError(format!("{f} is no JSON number")))?,
        Value::String(s) | Value::Enum(_, s) => J::String(s),
        Value::Union(_, inner) => to_json(*inner)?,
        Value::Array(items) => J::Array(items.into_iter().map(to_json).collect::<Result<_, _>>()?),
        Value::Map(members) => J::Object(
            members
                .into_iter()
                .map(|(k, v)| Ok((k, to_json(v)?)))
                .collect::<Result<_, AvroError>>()?,
        ),
        Value::Record(fields) => J::Object(
            fields
                .into_iter()
                .map(|(k, v)| Ok((k, to_json(v)?)))
                .collect::<Result<_, AvroError>>()?,
        ),
        other => return Err(AvroError(format!("{other:?} is no JSON value"))),
    })
}

/// A JSON value as the Avro value serde's impls read it as (`deserialize_any`).
fn from_json(value: serde_json::Value) -> Value {
    use serde_json::Value as J;
    match value {
        J::Null => Value::Null,
        J::Bool(b) => Value::Boolean(b),
        J::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Value::Long(i),
            (None, Some(f)) => Value::Double(f),
            (None, None) => Value::String(n.to_string()),
        },
        J::String(s) => Value::String(s),
        J::Array(items) => Value::Array(items.into_iter().map(from_json).collect()),
        J::Object(members) => Value::Map(
            members
                .into_iter()
                .map(|(k, v)| (k, from_json(v)))
                .collect(),
        ),
    }
}

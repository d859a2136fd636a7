//! The table read over JSON text by the fast reader ([`crate::read::Reader`]).

use super::*;

/// Reads a struct of `shape` with the fast reader into `fields` (made by [`Fields::of`] the same
/// table): [`Stop`] wherever it is not sure (then decode with [`deserialize`], which gives the value or
/// the error).
pub fn read<'a>(
    reader: &mut Reader<'a>,
    shape: &'static StructTable,
    mode: Mode,
    fields: &mut Fields<'a>,
) -> Result<(), Stop> {
    let mut next = 0;
    let mut members = reader.object()?;
    while let Some(member) = members.next_field(
        reader,
        shape.fields,
        shape.aliases,
        shape.by_name,
        &mut next,
    )? {
        match member {
            Member::Field(i) => {
                let slot = fields.slot(i).ok_or(Stop)?;
                if slot.is_some() {
                    return Err(Stop);
                }
                read_field(reader, &shape.shapes[i], mode, slot)?;
            }
            Member::Other(name) if shape.keep_unlisted => {
                let text = reader.skip()?;
                let raw = RawJson::from_json(text).map_err(|_| Stop)?;
                fields.keep(name.into_owned(), raw);
            }
            Member::Other(_) => {
                reader.skip()?;
            }
        }
    }
    for (slot, field_shape) in fields.slots().zip(shape.shapes) {
        if slot.is_none() && !matches!(field_shape, Shape::Optional(_)) {
            return Err(Stop);
        }
    }
    Ok(())
}

/// Reads a struct with [`read`] by its table, then makes it ([`FromFields`]).
#[inline]
pub fn read_into<'a, T: FromFields<'a>>(reader: &mut Reader<'a>) -> Result<T, Stop> {
    let mut fields = Fields::of(T::TABLE);
    read(reader, T::TABLE, T::MODE, &mut fields)?;
    T::from_fields(&mut fields).ok_or(Stop)
}

/// Reads a field's value into its slot.
// Always inlined into the loop over a struct's members, with the common shapes (strings, integers,
// booleans, each perhaps `null`) read in place and the rest out of line: a call per field, and a slot
// returned and moved, were a tenth of the reader's time each.
#[inline(always)]
fn read_field<'a>(
    reader: &mut Reader<'a>,
    shape: &'static Shape,
    mode: Mode,
    slot: &mut Option<Slot<'a>>,
) -> Result<(), Stop> {
    let shape = match shape {
        Shape::Optional(_) if reader.null() => {
            *slot = Some(Slot::Null);
            return Ok(());
        }
        Shape::Optional(inner) => inner,
        other => other,
    };
    match shape {
        Shape::Str => *slot = Some(Slot::Str(reader.string()?)),
        Shape::Int => *slot = Some(Slot::Int(reader.integer()?)),
        Shape::Bool => *slot = Some(Slot::Bool(reader.boolean()?)),
        _ => *slot = Some(read_value(reader, shape, mode)?),
    }
    Ok(())
}

fn read_value<'a>(
    reader: &mut Reader<'a>,
    shape: &'static Shape,
    mode: Mode,
) -> Result<Slot<'a>, Stop> {
    Ok(match (shape, mode) {
        (Shape::Str, _) => Slot::Str(reader.string()?),
        (Shape::Int, _) => Slot::Int(reader.integer()?),
        (Shape::Num, _) => Slot::Num(reader.float()?),
        (Shape::Bool, _) => Slot::Bool(reader.boolean()?),
        // What `jiff::Timestamp`'s `Deserialize` reads (its `FromStr`); where it refuses, serde says why.
        #[cfg(feature = "jiff")]
        (Shape::Timestamp, _) => Slot::Timestamp(reader.string()?.parse().map_err(|_| Stop)?),
        (Shape::Obj, Mode::Owned) => Slot::Map(crate::read::ReadJson::read(reader)?),
        (Shape::Obj, Mode::Borrowed) => Slot::Raw(crate::read::ReadJson::read(reader)?),
        (Shape::Array(item), _) => {
            let mut elements = reader.array()?;
            let mut items = Vec::new();
            while elements.next(reader)? {
                items.push(read_value(reader, item, mode)?);
            }
            Slot::Array(items)
        }
        (Shape::Map(value), _) => {
            let mut members = reader.object()?;
            let mut entries = Vec::new();
            while let Some(key) = members.next_key(reader)? {
                entries.push((key, read_value(reader, value, mode)?));
            }
            Slot::Entries(entries)
        }
        (Shape::Struct(shape), _) => {
            let mut fields = Box::new(Fields::of(shape));
            read(reader, shape, mode, &mut fields)?;
            Slot::Struct(fields)
        }
        (Shape::Optional(inner), _) => {
            if reader.null() {
                Slot::Null
            } else {
                read_value(reader, inner, mode)?
            }
        }
    })
}

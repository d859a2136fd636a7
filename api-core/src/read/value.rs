//! Free-form JSON (`serde_json::Map` and `Value`) read by the fast reader in one pass, as serde_json
//! reads it: the same values, and a [`Stop`] wherever serde_json would refuse the text.

use super::{ReadJson, Reader, Stop};
use serde_json::{Map, Number, Value};

impl<'a> ReadJson<'a> for Map<String, Value> {
    // Read in place, its nesting counted from the payload's top as serde counts it. Found first and
    // then handed to serde_json, it was read twice: a tenth of decoding a stream whose hot type has
    // two free-form objects (`BENCHMARKS.md`, section 26).
    fn read(reader: &mut Reader<'a>) -> Result<Self, Stop> {
        let mut members = reader.object()?;
        let mut map = Map::new();
        while let Some(key) = members.next_key(reader)? {
            let value = reader.json_value()?;
            // A repeated name keeps its last value, as serde_json's `Map` does.
            map.insert(key.into_owned(), value);
        }
        Ok(map)
    }
}

impl Reader<'_> {
    /// A value as `serde_json::Value` reads it.
    fn json_value(&mut self) -> Result<Value, Stop> {
        Ok(match self.peek() {
            Some(b'{') => Value::Object(Map::read(self)?),
            Some(b'[') => {
                let mut elements = self.array()?;
                let mut items = Vec::new();
                while elements.next(self)? {
                    items.push(self.json_value()?);
                }
                Value::Array(items)
            }
            Some(b'"') => Value::String(self.string()?.into_owned()),
            Some(b't' | b'f') => Value::Bool(self.boolean()?),
            Some(b'n') if self.null() => Value::Null,
            Some(b'-' | b'0'..=b'9') => Value::Number(self.number()?),
            _ => return Err(Stop),
        })
    }

    /// A number as serde_json reads one into a `Value`: an integer as `u64` (`i64` when negative), a
    /// fraction, an exponent, `-0` or an integer past those as `f64`.
    fn number(&mut self) -> Result<Number, Stop> {
        let bytes = self.bytes();
        let start = self.at;
        let mut at = start + usize::from(bytes.get(start) == Some(&b'-'));
        let digits = at;
        while let Some(b'0'..=b'9') = bytes.get(at) {
            at += 1;
        }
        // JSON's integer part: one digit at least, and no leading zero.
        if at == digits || (bytes.get(digits) == Some(&b'0') && at > digits + 1) {
            return Err(Stop);
        }
        if !matches!(bytes.get(at), Some(b'.' | b'e' | b'E')) {
            let token = self.text.get(start..at).ok_or(Stop)?;
            let integer = if digits > start {
                // `-0` is `-0.0` to serde_json.
                token
                    .parse::<i64>()
                    .ok()
                    .filter(|&n| n != 0)
                    .map(Number::from)
            } else {
                token.parse::<u64>().ok().map(Number::from)
            };
            if let Some(integer) = integer {
                self.at = at;
                return Ok(integer);
            }
        }
        // serde_json's own parsing of the token, so that every digit rounds as it rounds it.
        let value = self.float()?;
        Number::from_f64(value).ok_or(Stop)
    }
}

//! Parser of the type notation: `str`, `[int]`, `Ledger`, `Page<Product>`, `[[str]]`, `map<Tariff>`.

use crate::ast::{Builtin, Located, TypeExpr};
use crate::source::{FileId, Span, to_u32};

/// Parses `text`, written at byte `base` of `file`. On failure gives the byte offset in `text` and what
/// was expected there.
pub fn parse(text: &str, file: FileId, base: u32) -> Result<TypeExpr, (u32, String)> {
    let mut p = Parser {
        text,
        pos: 0,
        file,
        base,
    };
    p.skip_spaces();
    let expr = p.expr(0)?;
    p.skip_spaces();
    if p.pos < text.len() {
        return Err((
            to_u32(p.pos),
            format!("unexpected `{}` after the type", &text[p.pos..]),
        ));
    }
    Ok(expr)
}

struct Parser<'t> {
    text: &'t str,
    pos: usize,
    file: FileId,
    base: u32,
}

/// Nesting deeper than this is certainly a mistake (and must not exhaust the stack).
const MAX_NESTING: usize = 16;

/// The one built-in generic: `map<T>`, an object with member names as data. Its keys are always
/// strings (JSON's), so it takes only the type of its values.
pub const MAP_KEYWORD: &str = "map";

impl Parser<'_> {
    fn span(&self, start: usize, end: usize) -> Span {
        Span {
            file: self.file,
            start: self.base + to_u32(start),
            end: self.base + to_u32(end),
        }
    }

    fn skip_spaces(&mut self) {
        while self.text[self.pos..].starts_with(' ') {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_spaces();
        if self.text[self.pos..].starts_with(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expr(&mut self, depth: usize) -> Result<TypeExpr, (u32, String)> {
        if depth > MAX_NESTING {
            return Err((to_u32(self.pos), "types nest too deeply".to_owned()));
        }
        self.skip_spaces();
        let start = self.pos;
        if self.eat('[') {
            let inner = self.expr(depth + 1)?;
            if !self.eat(']') {
                return Err((
                    to_u32(self.pos),
                    "expected `]` to close the array type".to_owned(),
                ));
            }
            return Ok(TypeExpr::Array(Box::new(inner), self.span(start, self.pos)));
        }
        let len = self.text[start..]
            .char_indices()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(self.text.len() - start, |(i, _)| i);
        if len == 0 {
            let what = match self.text[start..].chars().next() {
                Some(c) => format!("expected a type name, found `{c}`"),
                None => "expected a type name".to_owned(),
            };
            return Err((to_u32(start), what));
        }
        self.pos = start + len;
        let word = &self.text[start..self.pos];
        let span = self.span(start, self.pos);
        if word.starts_with(|c: char| c.is_ascii_digit()) {
            return Err((
                to_u32(start),
                "a type name does not start with a digit".to_owned(),
            ));
        }
        if let Some(b) = Builtin::from_keyword(word) {
            return Ok(TypeExpr::Builtin(b, span));
        }
        if word == MAP_KEYWORD {
            if !self.eat('<') {
                return Err((
                    to_u32(self.pos),
                    "`map` takes the type of its values: `map<T>`".to_owned(),
                ));
            }
            let value = self.expr(depth + 1)?;
            if !self.eat('>') {
                return Err((
                    to_u32(self.pos),
                    "expected `>` to close the type argument".to_owned(),
                ));
            }
            return Ok(TypeExpr::Map(Box::new(value), self.span(start, self.pos)));
        }
        let name = Located {
            text: word.to_owned(),
            span,
        };
        if self.eat('<') {
            let arg = self.expr(depth + 1)?;
            if !self.eat('>') {
                return Err((
                    to_u32(self.pos),
                    "expected `>` to close the type argument".to_owned(),
                ));
            }
            return Ok(TypeExpr::Named(name, Some(Box::new(arg))));
        }
        Ok(TypeExpr::Named(name, None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(t: &TypeExpr) -> String {
        match t {
            TypeExpr::Builtin(b, _) => b.keyword().to_owned(),
            TypeExpr::Named(n, None) => n.text.clone(),
            TypeExpr::Named(n, Some(a)) => format!("{}<{}>", n.text, show(a)),
            TypeExpr::Array(i, _) => format!("[{}]", show(i)),
            TypeExpr::Map(v, _) => format!("map<{}>", show(v)),
        }
    }

    #[test]
    fn parses_the_notation() {
        for s in [
            "str",
            "[int]",
            "Ledger",
            "Page<Product>",
            "[[str]]",
            "[ Ledger ]",
            "Page< [T] >",
            "map<Tariff>",
            "map<map<[str]>>",
            "[map< int >]",
        ] {
            let t = parse(s, FileId(0), 0).unwrap();
            assert_eq!(show(&t), s.replace(' ', ""));
        }
    }

    #[test]
    fn locates_mistakes() {
        assert_eq!(parse("[str", FileId(0), 0).unwrap_err().0, 4);
        assert_eq!(
            parse("str]", FileId(0), 0).unwrap_err(),
            (3, "unexpected `]` after the type".to_owned())
        );
        assert_eq!(parse("", FileId(0), 0).unwrap_err().0, 0);
        assert_eq!(parse("Page<int", FileId(0), 0).unwrap_err().0, 8);
        assert!(parse(&"[".repeat(100), FileId(0), 0).is_err());
        assert_eq!(
            parse("map", FileId(0), 0).unwrap_err(),
            (3, "`map` takes the type of its values: `map<T>`".to_owned())
        );
        assert_eq!(parse("map<str", FileId(0), 0).unwrap_err().0, 7);
        assert!(parse(&"map<".repeat(100), FileId(0), 0).is_err());
    }

    #[test]
    fn spans_point_into_the_source() {
        let TypeExpr::Array(inner, outer) = parse("[Ledger]", FileId(0), 10).unwrap() else {
            panic!()
        };
        assert_eq!((outer.start, outer.end), (10, 18));
        assert_eq!((inner.span().start, inner.span().end), (11, 17));
    }
}

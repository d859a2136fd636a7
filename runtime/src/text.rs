//! Text from the network, made safe to show on a terminal.
//!
//! A server controls every string of a response: product names, account fields, error bodies, `next`
//! links. Written to a terminal as they are, control characters and escape sequences are executed
//! (set the window title, clear the screen, move the cursor up and erase a line, so that a server
//! can overwrite an error message with its own text). [`for_terminal`] is the one sanitiser every
//! table, chart and error message of this crate and of the `energy` CLI goes through: control
//! characters become visible escapes, and long values are shortened. JSON output needs none of it:
//! serde_json escapes control characters itself.

use std::borrow::Cow;
use std::fmt::{self, Write as _};

/// `text` as it may be shown on a terminal: at most `max_chars` characters of it, the rest replaced
/// by `…` and the count of characters left out; every character that a terminal would act on rather
/// than print written as a visible escape.
///
/// Escaped: the C0 controls (`\x1b` ESC starts every escape sequence; `\n`, `\r`, `\t` too, so that
/// a value stays on its line), DEL, the C1 controls (`\u{9b}` is a one-byte CSI on some terminals),
/// and the bidirectional formatting characters (`\u{202e}` and its kin, which reorder what follows
/// them on screen). Everything else, non-ASCII letters included, is kept.
///
/// ```
/// use energy_runtime::text::for_terminal;
///
/// assert_eq!(for_terminal("Agile Octopus", 80), "Agile Octopus");
/// assert_eq!(for_terminal("\x1b]0;pwned\x07Agile", 80), r"\x1b]0;pwned\x07Agile");
/// assert_eq!(for_terminal("abcdefghij", 4), "abcd… (6 more characters)");
/// ```
pub fn for_terminal(text: &str, max_chars: usize) -> Cow<'_, str> {
    let fits = text.char_indices().nth(max_chars).is_none();
    if fits && !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len().min(max_chars.saturating_mul(4)) + 32);
    let mut chars = text.chars();
    for (kept, c) in chars.by_ref().enumerate() {
        if kept == max_chars {
            // Put the character back into the count of what is left out.
            let left = 1 + chars.count();
            let _ = write!(
                shown,
                "… ({left} more character{})",
                if left == 1 { "" } else { "s" }
            );
            return Cow::Owned(shown);
        }
        push_visible(&mut shown, c);
    }
    Cow::Owned(shown)
}

/// A [`Display`](fmt::Display) of [`for_terminal`], for format strings:
/// `format!("link `{}`", Shown::new(next, 200))`.
#[derive(Clone, Copy, Debug)]
pub struct Shown<'a> {
    text: &'a str,
    max_chars: usize,
}

impl<'a> Shown<'a> {
    /// `text`, shown with at most `max_chars` characters.
    pub fn new(text: &'a str, max_chars: usize) -> Self {
        Self { text, max_chars }
    }
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&for_terminal(self.text, self.max_chars))
    }
}

/// Whether a terminal would act on `c` rather than print it.
fn needs_escape(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

/// The characters that change the direction of the text after them (Unicode's `Bidi_Control`).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn push_visible(out: &mut String, c: char) {
    if !needs_escape(c) {
        out.push(c);
        return;
    }
    match c {
        '\n' => out.push_str(r"\n"),
        '\r' => out.push_str(r"\r"),
        '\t' => out.push_str(r"\t"),
        c if u32::from(c) < 0x80 => {
            let _ = write!(out, r"\x{:02x}", u32::from(c));
        }
        c => {
            let _ = write!(out, r"\u{{{:x}}}", u32::from(c));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed_unchanged() {
        for text in [
            "",
            "Agile Octopus",
            "Énergie verte — 100 %",
            "日本語",
            r"C:\path",
        ] {
            assert!(matches!(for_terminal(text, 80), Cow::Borrowed(t) if t == text));
        }
    }

    #[test]
    fn escape_sequences_and_controls_become_visible() {
        let cases = [
            ("\x1b]0;owned\x07", r"\x1b]0;owned\x07"),
            ("\x1b[2J\x1b[H", r"\x1b[2J\x1b[H"),
            (
                "ok\x1b[1A\x1b[2Kerror: none",
                r"ok\x1b[1A\x1b[2Kerror: none",
            ),
            ("a\nb\rc\td", r"a\nb\rc\td"),
            ("\u{7f}\u{9b}31m", r"\x7f\u{9b}31m"),
            ("abc\u{202e}fed", r"abc\u{202e}fed"),
            ("\0", r"\x00"),
        ];
        for (input, shown) in cases {
            assert_eq!(for_terminal(input, 80), shown, "{input:?}");
            assert!(!for_terminal(input, 80).chars().any(needs_escape));
        }
    }

    #[test]
    fn long_values_are_shortened_on_a_character_boundary() {
        assert_eq!(for_terminal("abcdef", 6), "abcdef");
        assert_eq!(for_terminal("abcdefg", 6), "abcdef… (1 more character)");
        assert_eq!(for_terminal(&"é".repeat(10), 3), "ééé… (7 more characters)");
        let long = "x".repeat(100_000);
        assert_eq!(
            for_terminal(&long, 200).chars().count(),
            200 + "… (99800 more characters)".chars().count()
        );
        // Escapes count as the one character they stand for.
        assert_eq!(
            for_terminal("\x1b\x1b\x1b", 2),
            r"\x1b\x1b… (1 more character)"
        );
        assert_eq!(Shown::new("a\x1bb", 10).to_string(), r"a\x1bb");
    }
}

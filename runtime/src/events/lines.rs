//! Newline-delimited streams read with a bounded buffer: memory stays flat whatever the stream's size, and
//! a line longer than the limit is reported by its length, never loaded whole.

use std::io::{self, BufRead};

/// The default longest line, in bytes: 1 MiB, the largest message of common event buses (Kafka's default
/// `max.message.bytes` is about 1 MB; SQS and EventBridge stop at 256 KiB).
pub const DEFAULT_MAX_LINE_BYTES: usize = 1 << 20;

/// One line of a stream, without its `\n` (nor a `\r` before it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line<'a> {
    /// The line's bytes.
    Complete(&'a [u8]),
    /// A line longer than the limit: skipped, only its length (without the `\n`) is known.
    TooLong {
        /// The line's length in bytes.
        length: u64,
    },
}

/// Reads a stream line by line, into one reused buffer of at most the limit.
#[derive(Debug)]
pub struct LineReader<R> {
    reader: R,
    buffer: Vec<u8>,
    max_line_bytes: usize,
    line_number: u64,
}

impl<R: BufRead> LineReader<R> {
    /// Reads `reader`, with lines of at most `max_line_bytes` bytes.
    pub fn new(reader: R, max_line_bytes: usize) -> Self {
        LineReader {
            reader,
            buffer: Vec::new(),
            max_line_bytes,
            line_number: 0,
        }
    }

    /// The next line and its number (1-based), or `None` at the end of the stream.
    pub fn next_line(&mut self) -> io::Result<Option<(u64, Line<'_>)>> {
        self.buffer.clear();
        let mut length: u64 = 0;
        let mut too_long = false;
        let mut read_any = false;
        loop {
            let available = match self.reader.fill_buf() {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                if !read_any {
                    return Ok(None);
                }
                break;
            }
            read_any = true;
            let (chunk, ends_line) = match memchr::memchr(b'\n', available) {
                Some(end) => (&available[..end], true),
                None => (available, false),
            };
            length += chunk.len() as u64;
            if !too_long {
                if self.buffer.len() + chunk.len() > self.max_line_bytes {
                    too_long = true;
                    self.buffer.clear();
                } else {
                    self.buffer.extend_from_slice(chunk);
                }
            }
            let consumed = chunk.len() + usize::from(ends_line);
            self.reader.consume(consumed);
            if ends_line {
                break;
            }
        }
        self.line_number += 1;
        if too_long {
            return Ok(Some((self.line_number, Line::TooLong { length })));
        }
        let line = self.buffer.strip_suffix(b"\r").unwrap_or(&self.buffer);
        Ok(Some((self.line_number, Line::Complete(line))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<(u64, String)> {
        // A tiny buffer, so that lines span many reads.
        let mut reader = LineReader::new(io::BufReader::with_capacity(3, input), max);
        let mut out = Vec::new();
        while let Some((n, line)) = reader.next_line().unwrap() {
            out.push((
                n,
                match line {
                    Line::Complete(bytes) => String::from_utf8_lossy(bytes).into_owned(),
                    Line::TooLong { length } => format!("<{length} bytes>"),
                },
            ));
        }
        out
    }

    #[test]
    fn splits_lines_and_bounds_them() {
        assert_eq!(
            lines(b"ab\r\n\ncdefgh\nij", 4),
            [
                (1, "ab".to_owned()),
                (2, String::new()),
                (3, "<6 bytes>".to_owned()),
                (4, "ij".to_owned()),
            ]
        );
        assert_eq!(lines(b"abcd\n", 4), [(1, "abcd".to_owned())]);
        assert!(lines(b"", 4).is_empty());
    }
}

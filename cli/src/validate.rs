//! `energy events validate`: checks newline-delimited event envelopes against the catalogue.

use crate::exit::Exit;
use crate::report::{Report, too_long, write_report};
use clap::Args;
use energy_runtime::events::{
    Checked, DEFAULT_MAX_LINE_BYTES, Decoder, ErrorKind, Line, LineReader,
};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `energy events validate`.
#[derive(Args)]
pub(crate) struct ValidateArgs {
    /// The stream to check; `-` or nothing reads standard input.
    #[arg(value_name = "FILE|-")]
    file: Option<PathBuf>,
    /// Also report payload fields the catalogue does not list (`unknown_field`).
    #[arg(long)]
    strict: bool,
    /// Accept event types and versions the catalogue does not know, instead of reporting them.
    #[arg(long)]
    allow_unknown: bool,
    /// Longest line decoded, in bytes; a longer line is reported as `bad_envelope` without being read whole.
    /// (1 to 1073741824.)
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_LINE_BYTES as u64,
          value_parser = clap::value_parser!(u64).range(1..=MAX_LINE_LIMIT))]
    max_line_bytes: u64,
    /// Exit 1 when the input holds no event at all (empty, or blank lines only), so that an empty
    /// upstream does not pass as valid; without it, empty input exits 0.
    #[arg(long)]
    fail_if_empty: bool,
}

/// The largest `--max-line-bytes`: 1 GiB (a line is read into memory whole to be decoded).
const MAX_LINE_LIMIT: u64 = 1 << 30;

/// Counts for the summary line.
#[derive(Default)]
struct Summary {
    valid: u64,
    unknown_accepted: u64,
    blank: u64,
    failed: [u64; ErrorKind::ALL.len()],
}

impl Summary {
    fn failed_total(&self) -> u64 {
        self.failed.iter().sum()
    }

    fn count_failure(&mut self, kind: ErrorKind) {
        if let Some(i) = ErrorKind::ALL.iter().position(|k| *k == kind) {
            self.failed[i] += 1;
        }
    }

    fn line(&self) -> String {
        let failed = self.failed_total();
        let checked = self.valid + failed;
        let mut text = format!(
            "energy events validate: {checked} {} checked: {} valid",
            if checked == 1 { "event" } else { "events" },
            self.valid
        );
        if self.unknown_accepted > 0 {
            let _ = write!(
                text,
                " ({} of unknown type or version)",
                self.unknown_accepted
            );
        }
        let _ = write!(text, ", {failed} invalid");
        let kinds: Vec<String> = ErrorKind::ALL
            .iter()
            .zip(self.failed)
            .filter(|(_, n)| *n > 0)
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        if !kinds.is_empty() {
            let _ = write!(text, " ({})", kinds.join(", "));
        }
        match self.blank {
            0 => {}
            1 => text.push_str("; 1 blank line skipped"),
            n => {
                let _ = write!(text, "; {n} blank lines skipped");
            }
        }
        text
    }
}

/// Runs `energy events validate`.
pub(crate) fn run(args: &ValidateArgs) -> ExitCode {
    let (name, input): (String, Box<dyn BufRead>) = match &args.file {
        Some(path) if path.as_os_str() != "-" => match File::open(path) {
            Ok(file) => (
                path.display().to_string(),
                Box::new(BufReader::with_capacity(64 * 1024, file)),
            ),
            Err(e) => {
                eprintln!("error: cannot read `{}`: {e}", path.display());
                return Exit::Usage.into();
            }
        },
        _ => ("standard input".to_owned(), Box::new(io::stdin().lock())),
    };
    let decoder = Decoder::new()
        .strict(args.strict)
        .reject_unknown(!args.allow_unknown);
    // At most MAX_LINE_LIMIT, so it fits in a usize on every platform this builds for.
    let max_line_bytes = usize::try_from(args.max_line_bytes).unwrap_or(usize::MAX);
    let mut lines = LineReader::new(input, max_line_bytes);
    let mut out = BufWriter::new(io::stdout().lock());
    let mut summary = Summary::default();
    loop {
        let (number, line) = match lines.next_line() {
            Ok(Some(next)) => next,
            Ok(None) => break,
            Err(e) => {
                let _ = out.flush();
                eprintln!("error: cannot read {name}: {e}");
                return Exit::Usage.into();
            }
        };
        let written = match line {
            Line::Complete(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => {
                summary.blank += 1;
                continue;
            }
            Line::Complete(bytes) => match decoder.validate(bytes) {
                Ok(checked) => {
                    summary.valid += 1;
                    if matches!(checked, Checked::Unknown { .. }) {
                        summary.unknown_accepted += 1;
                    }
                    write_report(&mut out, &Report::valid(number, &checked))
                }
                Err(error) => {
                    summary.count_failure(error.kind);
                    write_report(&mut out, &Report::invalid(number, &error))
                }
            },
            Line::TooLong { length } => {
                let error = too_long(length, max_line_bytes);
                summary.count_failure(error.kind);
                write_report(&mut out, &Report::invalid(number, &error))
            }
        };
        if let Err(e) = written {
            return crate::exit::output_failed(&e);
        }
    }
    if let Err(e) = out.flush() {
        return crate::exit::output_failed(&e);
    }
    eprintln!("{}", summary.line());
    let empty = summary.valid + summary.failed_total() == 0;
    if empty && args.fail_if_empty {
        eprintln!("error: no event in {name} (--fail-if-empty)");
        return Exit::Failure.into();
    }
    if summary.failed_total() == 0 {
        Exit::Success.into()
    } else {
        Exit::Failure.into()
    }
}

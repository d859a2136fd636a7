//! `energy events drift`: what producers really send, compared with the catalogue, over captured
//! streams (files, standard input, gzip) or the bus (a consumer's dead letters, a stream read without
//! consuming); reported as text, JSON or Markdown, and turned into schema edits to review
//! (`--suggest`). The counting is `energy_runtime::drift`; this module reads the inputs and writes the
//! outputs.

#[cfg(feature = "bus")]
mod bus;
mod locate;
mod profile;
mod render;
mod suggest;

use crate::exit::Exit;
use clap::{Args, ValueEnum};
use energy_runtime::drift::Drift;
use energy_runtime::events::{DEFAULT_MAX_LINE_BYTES, Line, LineReader};
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `energy events drift`.
#[derive(Args)]
pub(crate) struct DriftArgs {
    /// Streams of event envelopes (the format `validate` reads); `-` for standard input; a name
    /// ending in `.gz` is read through gzip. Nothing (and no bus source) reads standard input.
    #[arg(value_name = "FILE|-")]
    files: Vec<PathBuf>,
    /// How the report is written.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Findings shown in the text and Markdown reports, most events touched first (0 for all; the
    /// JSON report has every finding).
    #[arg(long, value_name = "N", default_value_t = 30)]
    top: usize,
    /// Write schema edits that would describe what was seen to this file (YAML, to review).
    #[arg(long, value_name = "FILE")]
    suggest: Option<PathBuf>,
    /// With --suggest: the share of a version's events a finding must touch to be suggested (an
    /// undeclared member as an optional field; a required field absent, null or retyped as a new
    /// version); 0 to 1.
    #[arg(long, value_name = "SHARE", default_value_t = 0.01, value_parser = parse_share)]
    threshold: f64,
    /// With --suggest: the schema folder whose files the edits are located in.
    #[arg(long, value_name = "DIR", default_value = "schema")]
    schema: PathBuf,
    /// Write a traffic profile to this file (`schema/traffic.profile`): the fewest event versions
    /// that carry `--profile-share` of the events read, most first. `cargo xtask codegen` compiles
    /// their payloads per type (docs/traffic-profile.md).
    #[arg(long, value_name = "FILE")]
    profile: Option<PathBuf>,
    /// With --profile: the share of the events the profiled versions must carry; 0 to 1.
    #[arg(long, value_name = "SHARE", default_value_t = profile::DEFAULT_SHARE,
          value_parser = parse_share)]
    profile_share: f64,
    /// With --profile: at most this many versions (the profile then says what share they carry).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    profile_versions: Option<u64>,
    /// Longest line read, in bytes; a longer one is counted as `bad_envelope` without being read whole.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_LINE_BYTES as u64,
          value_parser = clap::value_parser!(u64).range(1..=(1 << 30)))]
    max_line_bytes: u64,
    #[cfg(feature = "bus")]
    #[command(flatten)]
    bus: bus::BusSource,
}

/// How the report is written.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Text for a terminal.
    Human,
    /// One JSON document (`drift_format` 1; docs/drift.md).
    Json,
    /// Markdown tables, for a review or an issue.
    Markdown,
}

fn parse_share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(share) if (0.0..=1.0).contains(&share) => Ok(share),
        _ => Err(format!("`{text}` is not a share between 0 and 1")),
    }
}

/// Where the lines read came from: each input's name and the number of its first line in the count
/// over all inputs (line numbers run on from one input to the next).
#[derive(Default)]
pub(crate) struct Inputs {
    starts: Vec<(u64, String)>,
    /// For the bus: what a number counts (`sequence`, `dead letter`) instead of lines.
    unit: Option<String>,
}

impl Inputs {
    /// `input:line` for line `number` of the count over all inputs.
    pub(crate) fn locate(&self, number: u64) -> String {
        if let Some(unit) = &self.unit {
            return format!("{unit} {number}");
        }
        match self.starts.iter().rev().find(|(start, _)| *start <= number) {
            Some((start, name)) if self.starts.len() > 1 => {
                format!("{name}:{}", number - start + 1)
            }
            _ => number.to_string(),
        }
    }
}

/// Runs `energy events drift`.
pub(crate) fn run(args: &DriftArgs) -> ExitCode {
    let mut drift = Drift::default();
    let mut inputs = Inputs::default();
    #[cfg(feature = "bus")]
    let from_bus = args.bus.is_used();
    #[cfg(not(feature = "bus"))]
    let from_bus = false;
    #[cfg(feature = "bus")]
    if from_bus {
        if !args.files.is_empty() {
            eprintln!("error: FILE and a bus source (--dlq, --from-bus) exclude each other");
            return Exit::Usage.into();
        }
        if let Err(code) = bus::read(&args.bus, &mut drift, &mut inputs) {
            return code;
        }
    }
    if !from_bus {
        let files: Vec<PathBuf> = if args.files.is_empty() {
            vec![PathBuf::from("-")]
        } else {
            args.files.clone()
        };
        let max_line_bytes = usize::try_from(args.max_line_bytes).unwrap_or(usize::MAX);
        let mut next = 1u64;
        for file in &files {
            let start = next;
            match read_file(file, max_line_bytes, &mut drift, &mut next) {
                Ok(()) => inputs.starts.push((start, file.display().to_string())),
                Err(message) => {
                    eprintln!("error: {message}");
                    return Exit::Usage.into();
                }
            }
        }
    }
    let report = drift.report();
    if let Some(path) = &args.suggest
        && let Err(message) = suggest::write(&report, path, &args.schema, args.threshold)
    {
        eprintln!("error: {message}");
        return Exit::Usage.into();
    }
    if let Some(path) = &args.profile
        && let Err(message) =
            profile::write(&report, path, args.profile_share, args.profile_versions)
    {
        eprintln!("error: {message}");
        return Exit::Usage.into();
    }
    let mut out = BufWriter::new(io::stdout().lock());
    let written = match args.format {
        Format::Human => render::human(&mut out, &report, args.top, &inputs),
        Format::Json => serde_json::to_writer_pretty(&mut out, &report)
            .map_err(io::Error::from)
            .and_then(|()| out.write_all(b"\n")),
        Format::Markdown => render::markdown(&mut out, &report, args.top, &inputs),
    };
    if let Err(e) = written.and_then(|()| out.flush()) {
        return crate::exit::output_failed(&e);
    }
    if args.format != Format::Human {
        eprintln!("{}", render::summary(&report));
    }
    if report.has_drift() {
        Exit::Failure.into()
    } else {
        Exit::Success.into()
    }
}

/// Reads one input into `drift`, numbering its lines from `next` on; its name, or why it could not
/// be read.
fn read_file(
    path: &PathBuf,
    max_line_bytes: usize,
    drift: &mut Drift,
    next: &mut u64,
) -> Result<(), String> {
    let stdin = path.as_os_str() == "-";
    let name = if stdin {
        "standard input".to_owned()
    } else {
        format!("`{}`", path.display())
    };
    let raw: Box<dyn Read> = if stdin {
        Box::new(io::stdin().lock())
    } else {
        Box::new(File::open(path).map_err(|e| format!("cannot read {name}: {e}"))?)
    };
    let gzip = path.extension().is_some_and(|e| e == "gz");
    let input: Box<dyn BufRead> = if gzip {
        Box::new(BufReader::with_capacity(
            64 * 1024,
            flate2::read::MultiGzDecoder::new(raw),
        ))
    } else {
        Box::new(BufReader::with_capacity(64 * 1024, raw))
    };
    let first = *next;
    let mut lines = LineReader::new(input, max_line_bytes);
    loop {
        match lines.next_line() {
            Ok(Some((number, line))) => {
                let number = first + number - 1;
                match line {
                    Line::Complete(bytes) => drift.observe_line(number, bytes),
                    Line::TooLong { .. } => drift.observe_too_long(number),
                }
                *next = number + 1;
            }
            Ok(None) => break,
            Err(e) => {
                return Err(format!(
                    "cannot read {name}{} after line {}: {e}",
                    if gzip { " (gzip)" } else { "" },
                    *next - first
                ));
            }
        }
    }
    Ok(())
}

//! How a command ends: its exit status, the same for every subcommand.

use std::io;
use std::process::ExitCode;

/// How a command ended: its exit status. The same for every subcommand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    /// 0: everything asked for worked, everything checked is fine.
    Success,
    /// 1: something checked is not fine, or the API failed.
    Failure,
    /// 2: a usage error, or an I/O error (a file that cannot be read, an output that cannot be
    /// written).
    Usage,
    /// 141: standard output was closed before the command was done; nothing more is printed.
    ClosedOutput,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(match exit {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
            Exit::ClosedOutput => 141,
        })
    }
}

/// The end of a command whose output could not be written: quietly 141 when the reader went away
/// (`| head`), else 2 with the error.
pub(crate) fn output_failed(error: &io::Error) -> ExitCode {
    if error.kind() == io::ErrorKind::BrokenPipe {
        return Exit::ClosedOutput.into();
    }
    eprintln!("error: cannot write the output: {error}");
    Exit::Usage.into()
}

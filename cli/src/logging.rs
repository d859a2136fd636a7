//! What the libraries say while a command runs (a commit that failed, a gap read again, a partition
//! taken away), on standard error, one line each: `energy: warning: …`. Without it the runtime's
//! warnings reached no one. `ENERGY_LOG` sets the level (`error`, `warn`, the default, `info` or
//! `debug`); only the project's own crates speak, and librdkafka from `info` on (its connection
//! failures repeat what a command's own one-line error says). No HTTP library's request dump (which
//! could carry an `Authorization` header) is ever printed.

use std::io::Write as _;

struct StderrLogger;

/// The level `ENERGY_LOG` set (the `log` crate's own filter stops the rest before they get here).
static LOGGER: StderrLogger = StderrLogger;

/// Whether a record from `target` (a module path) is the project's or librdkafka's.
fn ours(target: &str) -> bool {
    ["energy", "librdkafka", "rdkafka"].iter().any(|prefix| {
        target == *prefix
            || target.starts_with(&format!("{prefix}_"))
            || target.starts_with(&format!("{prefix}::"))
    })
}

impl log::Log for StderrLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        let librdkafka =
            metadata.target().starts_with("librdkafka") || metadata.target().starts_with("rdkafka");
        metadata.level() <= log::max_level()
            && ours(metadata.target())
            && (!librdkafka || log::max_level() >= log::LevelFilter::Info)
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let level = match record.level() {
            log::Level::Error => "error",
            log::Level::Warn => "warning",
            log::Level::Info => "info",
            log::Level::Debug | log::Level::Trace => "debug",
        };
        // A closed standard error is no reason to fail the command.
        let _ = writeln!(
            std::io::stderr().lock(),
            "energy: {level}: {}",
            record.args()
        );
    }

    fn flush(&self) {}
}

/// Installs the logger at the level `ENERGY_LOG` names (an unknown name is said once, and `warn` used).
pub(crate) fn init() {
    let named = std::env::var("ENERGY_LOG").ok();
    let level = match named.as_deref().map(str::to_ascii_lowercase).as_deref() {
        None | Some("" | "warn" | "warning") => log::LevelFilter::Warn,
        Some("error") => log::LevelFilter::Error,
        Some("info") => log::LevelFilter::Info,
        Some("debug" | "trace") => log::LevelFilter::Debug,
        Some("off") => log::LevelFilter::Off,
        Some(other) => {
            eprintln!(
                "energy: warning: ENERGY_LOG=`{other}` is not a level (error, warn, info, debug, off); warn is used"
            );
            log::LevelFilter::Warn
        }
    };
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(level);
    }
}

#[cfg(test)]
mod tests {
    use super::ours;

    #[test]
    fn only_the_projects_crates_and_librdkafka_speak() {
        assert!(ours("energy_runtime::bus::kafka::group"));
        assert!(ours("energy"));
        assert!(ours("librdkafka"));
        assert!(ours("rdkafka::client"));
        assert!(!ours("ureq::unversioned::transport"));
        assert!(!ours("energyx"));
    }
}

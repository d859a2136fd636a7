//! `energy` processes as a user runs them: started with arguments and environment variables (and none of
//! the `nats` CLI's variables but those given), their output collected line by line as it comes,
//! signalled, killed, waited for.
//!
//! The binary is the one cargo built beside the test that runs (`target/<profile>/energy`), or
//! `$ENERGY_BIN`.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The `energy` binary: `$ENERGY_BIN`, else the one beside the running test's own folder (cargo puts
/// a package's binaries in `target/<profile>/`, its tests in `target/<profile>/deps/`).
pub fn energy() -> PathBuf {
    if let Some(path) = std::env::var_os("ENERGY_BIN") {
        return PathBuf::from(path);
    }
    let test = std::env::current_exe().expect("the test's own path");
    let profile = test
        .parent()
        .and_then(|deps| deps.parent())
        .expect("a test under target/<profile>/deps");
    let binary = profile.join(format!("energy{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.is_file(),
        "no `energy` binary at {}: run the test with cargo from the energy-cli package, or set ENERGY_BIN",
        binary.display()
    );
    binary
}

/// A command running `program` (the `energy` binary, or a wrapper such as `prlimit` given the binary as
/// its first argument) as a test runs it: none of the user's `ENERGY_*` or `NATS_*` variables (a
/// developer's own base URL, key or server must not leak into a test), and a fixed terminal width
/// (`COLUMNS=100`) so that tables are laid out alike everywhere.
pub fn clean_command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = Command::new(program);
    for (name, _) in std::env::vars_os() {
        let name_text = name.to_string_lossy();
        if name_text.starts_with("NATS_")
            || (name_text.starts_with("ENERGY_") && name_text != "ENERGY_BIN")
        {
            command.env_remove(name);
        }
    }
    command.env("COLUMNS", "100");
    command
}

/// [`clean_command`] running the `energy` binary.
pub fn energy_command() -> Command {
    clean_command(energy())
}

/// An `energy` process whose standard output is collected line by line as it comes.
pub struct EnergyProcess {
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl EnergyProcess {
    /// Starts `energy` with `args`.
    pub fn start(args: &[&str]) -> EnergyProcess {
        Self::start_with_env(args, &[])
    }

    /// Starts `energy` with `args` and the environment variables `env`, and none of the `nats` CLI's
    /// own (`NATS_URL`, `NATS_CREDS`, …) but those.
    pub fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> EnergyProcess {
        let mut command = energy_command();
        command.envs(env.iter().copied());
        let mut child = command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("energy starts");
        let lines = Arc::new(Mutex::new(Vec::new()));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        for (pipe, sink) in [
            (
                Box::new(child.stdout.take().expect("stdout")) as Box<dyn std::io::Read + Send>,
                lines.clone(),
            ),
            (
                Box::new(child.stderr.take().expect("stderr")) as Box<dyn std::io::Read + Send>,
                stderr.clone(),
            ),
        ] {
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    if let Ok(mut sink) = sink.lock() {
                        sink.push(line);
                    }
                }
            });
        }
        EnergyProcess {
            child,
            lines,
            stderr,
        }
    }

    /// The lines printed so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// What it printed on standard error so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|l| l.join("\n")).unwrap_or_default()
    }

    /// Waits until `done` holds of the lines printed, at most `limit`.
    pub fn wait_for(&self, limit: Duration, done: impl Fn(&[String]) -> bool) -> bool {
        let started = Instant::now();
        while started.elapsed() < limit {
            if done(&self.lines()) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        done(&self.lines())
    }

    /// Kills it (SIGKILL).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Asks it to stop (SIGTERM).
    pub fn terminate(&self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
    }

    /// Waits for it to exit, at most `limit`; its exit code (`None` when it had to be killed).
    pub fn wait(&mut self, limit: Duration) -> Option<i32> {
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                // Let the readers catch the last lines.
                std::thread::sleep(Duration::from_millis(100));
                return status.code();
            }
            if started.elapsed() > limit {
                self.kill();
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for EnergyProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// What one `energy` run printed, and how it ended.
pub struct Run {
    /// Its exit code; `None` when it had to be killed.
    pub code: Option<i32>,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
}

/// Runs `energy` with `args` and `env` (and none of the `nats` CLI's variables but those); a run that
/// has not ended after 30 s is killed (its code is then `None`): an error must come within seconds,
/// never after endless retries.
pub fn run_energy(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut process = EnergyProcess::start_with_env(args, env);
    let code = process.wait(Duration::from_secs(30));
    Run {
        code,
        stdout: process.lines().join("\n"),
        stderr: process.stderr(),
    }
}

//! Tools that `cargo xtask test` builds from crates.io (`cargo install --locked`), because no registry
//! this project reaches ships them prebuilt: each is started at the beginning of the test run, in the
//! background at the lowest priority, so that it takes the CPU the other steps leave idle (the bus tests
//! wait on a broker, the validators on Node and Chromium); the step that needs it waits for it. Each is
//! installed once per pinned version into its folder under `tools/`, and an environment variable names
//! a binary to use instead.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A pinned tool built from crates.io.
pub(crate) struct Install {
    /// The crate (and the binary's name in `bin/`).
    pub krate: &'static str,
    /// The binary's name.
    pub binary: &'static str,
    /// The pinned version.
    pub version: &'static str,
    /// The install folder, relative to the workspace root.
    pub dir: &'static str,
    /// The environment variable naming a binary to use instead.
    pub instead: &'static str,
    /// More arguments of `cargo install` (features, `--debug`).
    pub args: &'static [&'static str],
    /// The build's environment (its profile's settings).
    pub env: &'static [(&'static str, &'static str)],
    /// How long a step may wait for the build. The time it ran in the background of earlier steps is
    /// not counted: at the lowest priority it gets the CPU only when they leave some, which is not the
    /// build's doing (a limit on the whole build failed a CI run whose earlier steps had grown).
    pub limit: Duration,
    /// The build started by [`Install::start`], and when it started.
    pub build: &'static Mutex<Option<(Child, Instant)>>,
}

impl Install {
    /// The binary, when the environment names one or the pinned version is installed.
    pub(crate) fn installed(&self, root: &Path) -> Option<PathBuf> {
        if let Some(path) = std::env::var_os(self.instead) {
            return Some(PathBuf::from(path));
        }
        let dir = root.join(self.dir);
        let binary = dir.join("bin").join(self.binary);
        let stamp = std::fs::read_to_string(dir.join(".installed-version")).ok()?;
        (stamp.trim() == self.version && binary.is_file()).then_some(binary)
    }

    fn log_path(&self, root: &Path) -> PathBuf {
        root.join(self.dir).join("build.log")
    }

    /// `cargo install --locked` of the pinned version, at the lowest CPU priority where `nice` exists,
    /// its output into the folder's `build.log`; its build folder is under the target folder, so a
    /// second build is incremental.
    fn spawn(&self, root: &Path) -> Result<Child, String> {
        let dir = root.join(self.dir);
        let shown = self.dir;
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {shown}: {e}"))?;
        let log = std::fs::File::create(self.log_path(root))
            .map_err(|e| format!("cannot write {shown}/build.log: {e}"))?;
        let log_too = log
            .try_clone()
            .map_err(|e| format!("cannot write {shown}/build.log: {e}"))?;
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let nice = Command::new("nice")
            .arg("true")
            .stdin(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        let mut command = if nice {
            let mut nice = Command::new("nice");
            nice.args(["-n", "19"]).arg(&cargo);
            nice
        } else {
            Command::new(&cargo)
        };
        command
            .args(["install", "--locked", "--force"])
            .args(self.args)
            .args([self.krate, "--version", &format!("={}", self.version)])
            .arg("--root")
            .arg(&dir)
            .arg("--target-dir")
            .arg(crate::paths::target_dir(root).join(format!("{}-build", self.krate)))
            .envs(self.env.iter().copied())
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_too)
            .spawn()
            .map_err(|e| format!("cannot run cargo install: {e}"))
    }

    /// Starts the build in the background, unless the tool is there (a failure to start is reported
    /// by [`Install::finish`], which tries again).
    pub(crate) fn start(&'static self, root: &Path) {
        if self.installed(root).is_some() {
            return;
        }
        if let Ok(mut started) = STARTED.lock() {
            started.push(self);
        }
        eprintln!(
            "==> building {} {} into {}/ in the background (once per version; log: {}/build.log)",
            self.krate, self.version, self.dir, self.dir
        );
        if let Ok(child) = self.spawn(root)
            && let Ok(mut slot) = self.build.lock()
        {
            *slot = Some((child, Instant::now()));
        }
    }

    /// Ends the build started in the background, when `cargo xtask test` stops before the step that
    /// needs it.
    pub(crate) fn abandon(&self) {
        if let Some((mut child, _)) = self.build.lock().ok().and_then(|mut slot| slot.take()) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// The binary: installed already, or once the build (started in the background, or now) ends.
    pub(crate) fn finish(&self, root: &Path) -> Result<PathBuf, String> {
        if let Some(binary) = self.installed(root) {
            self.abandon();
            return Ok(binary);
        }
        eprintln!("    waiting for the build of {}", self.krate);
        let pending = self.build.lock().ok().and_then(|mut slot| slot.take());
        let (mut child, started) = match pending {
            Some(build) => build,
            None => (self.spawn(root)?, Instant::now()),
        };
        let waiting = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if waiting.elapsed() > self.limit => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!(
                        "the build of {} did not end within {:?} of waiting for it (log: {}/build.log)",
                        self.krate, self.limit, self.dir
                    ));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(200)),
                Err(e) => return Err(format!("cannot wait for cargo install: {e}")),
            }
        };
        let log = std::fs::read_to_string(self.log_path(root)).unwrap_or_default();
        if !status.success() {
            return Err(format!(
                "cargo install {} {} failed ({status}):\n{}",
                self.krate,
                self.version,
                crate::tools::clip(&log)
            ));
        }
        std::fs::write(root.join(self.dir).join(".installed-version"), self.version)
            .map_err(|e| format!("cannot write {}/.installed-version: {e}", self.dir))?;
        eprintln!(
            "    built {} {}, {:.0} s after it started",
            self.krate,
            self.version,
            started.elapsed().as_secs_f64()
        );
        Ok(root.join(self.dir).join("bin").join(self.binary))
    }
}

/// Every install whose build [`Install::start`] began: each registers itself, so that this file names
/// none of them.
static STARTED: Mutex<Vec<&'static Install>> = Mutex::new(Vec::new());

/// Abandons every background build (a test run that stops early).
pub(crate) fn abandon_all() {
    let started = STARTED.lock().map(|s| s.clone()).unwrap_or_default();
    for install in started {
        install.abandon();
    }
}

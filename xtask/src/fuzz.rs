//! `cargo xtask fuzz`: runs each fuzz target of `fuzz/` for a given time, seeded from the real schema and
//! sample payloads, and reports the executions.

use std::path::Path;
use std::process::{Command, ExitCode};

/// Arguments of `cargo xtask fuzz`.
#[derive(clap::Args)]
pub(crate) struct FuzzArgs {
    /// Seconds per target.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// Only these targets (default: all).
    #[arg(long = "target", value_name = "NAME")]
    targets: Vec<String>,
}

/// Every fuzz target in `fuzz/fuzz_targets/`.
const TARGETS: &[&str] = &["schema_loader", "event_decode", "readers_agree", "envelope"];

pub(crate) fn run(args: &FuzzArgs) -> ExitCode {
    let root = crate::paths::workspace_root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    if !Command::new(&cargo)
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("error: cargo-fuzz is not installed; install it with `cargo install cargo-fuzz`");
        return ExitCode::FAILURE;
    }
    let targets: Vec<&str> = if args.targets.is_empty() {
        TARGETS.to_vec()
    } else {
        args.targets.iter().map(String::as_str).collect()
    };
    for target in &targets {
        if !TARGETS.contains(target) {
            eprintln!(
                "error: unknown fuzz target `{target}` (known: {})",
                TARGETS.join(", ")
            );
            return ExitCode::from(2);
        }
    }
    if let Err(e) = seed(&root) {
        eprintln!("error: cannot write the seed corpus: {e}");
        return ExitCode::FAILURE;
    }
    let mut failed = false;
    for target in targets {
        eprintln!("==> fuzzing {target} for {} s", args.seconds);
        let output = Command::new(&cargo)
            .current_dir(&root)
            .args(["fuzz", "run", "-s", "none", target, "--"])
            .arg(format!("-max_total_time={}", args.seconds))
            .arg("-rss_limit_mb=2048")
            .output();
        let output = match output {
            Ok(o) => o,
            Err(e) => {
                eprintln!("error: cannot run cargo fuzz: {e}");
                return ExitCode::FAILURE;
            }
        };
        let log = String::from_utf8_lossy(&output.stderr);
        let done = log
            .lines()
            .rev()
            .find(|l| l.starts_with("Done "))
            .unwrap_or("no summary line");
        if output.status.success() {
            eprintln!("{target}: {done}; no crash");
        } else {
            failed = true;
            let tail: Vec<&str> = log.lines().rev().take(30).collect();
            eprintln!(
                "{target}: FAILED\n{}",
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            );
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Seeds: the real schema files as the loader target reads them, and a sample payload of every event
/// version (selector bytes first) for the decoder.
fn seed(root: &Path) -> std::io::Result<()> {
    let schema = root.join("schema");
    let corpus = root.join("fuzz").join("corpus");
    let loader = corpus.join("schema_loader");
    std::fs::create_dir_all(&loader)?;
    let types = std::fs::read(schema.join("types.yaml"))?;
    let rest = std::fs::read(schema.join("rest.yaml"))?;
    let mut sections: Vec<_> = std::fs::read_dir(schema.join("events"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    sections.sort();
    for (i, section) in sections.iter().enumerate() {
        let mut input = types.clone();
        input.push(0xFF);
        input.extend(std::fs::read(section)?);
        input.push(0xFF);
        input.extend(&rest);
        std::fs::write(loader.join(format!("seed-{i:02}")), input)?;
    }
    // `readers_agree` reads the same input as `event_decode`: a selector, then a payload.
    let decode = corpus.join("event_decode");
    let agree = corpus.join("readers_agree");
    std::fs::create_dir_all(&decode)?;
    std::fs::create_dir_all(&agree)?;
    let model =
        energy_codegen::build_model(&schema).map_err(|f| std::io::Error::other(f.render(false)))?;
    let events: Vec<_> = model.events().collect();
    for (index, (_, event)) in events.iter().enumerate() {
        for (v, version) in event.versions.iter().enumerate() {
            let payload =
                energy_codegen::event_payload(&model, version, energy_codegen::Optionals::All);
            let index = u16::try_from(index).unwrap_or(u16::MAX).to_le_bytes();
            let mut input = vec![index[0], index[1], u8::try_from(v).unwrap_or(0)];
            input.extend(serde_json::to_vec(&payload).map_err(std::io::Error::other)?);
            std::fs::write(decode.join(format!("seed-{}", version.id)), &input)?;
            std::fs::write(agree.join(format!("seed-{}", version.id)), input)?;
        }
    }
    let envelope = corpus.join("envelope");
    std::fs::create_dir_all(&envelope)?;
    let fixture = root
        .join("tests")
        .join("fixtures")
        .join("events")
        .join("mixed.ndjson");
    for (i, line) in std::fs::read(fixture)?.split(|&b| b == b'\n').enumerate() {
        std::fs::write(envelope.join(format!("seed-mixed-{i:03}")), line)?;
    }
    Ok(())
}

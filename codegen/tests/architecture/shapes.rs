//! The claims of `docs/ARCHITECTURE.md` about the runtime's bus, `energy-api-core`'s steps and the
//! command-line tool's files, each held by reading the sources (code lines, comments left out).

use super::{read, root, rust_files, without_tests};
use std::path::Path;

/// `text` without its comments (a `//` to the end of its line): what the compiler reads of it, for a
/// grep of paths.
fn code_of(text: &str) -> String {
    without_tests(text)
        .lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The files under `dir` (relative to the workspace) whose code names `needle`, relative to `dir`.
fn naming(dir: &str, needle: &str) -> Vec<String> {
    let base = root().join(dir);
    rust_files(&base)
        .into_iter()
        .filter(|file| code_of(&read(file)).contains(needle))
        .map(|file| relative(&file, &base))
        .collect()
}

fn relative(file: &Path, base: &Path) -> String {
    file.strip_prefix(base)
        .unwrap_or(file)
        .to_string_lossy()
        .replace('\\', "/")
}

/// "Only `nats/` knows NATS, only `kafka/` knows Kafka": the crate `async_nats` is used only under
/// `runtime/src/bus/nats/`, `rdkafka` only under `runtime/src/bus/kafka/`, in the runtime and the CLI
/// (which names librdkafka once more, as a target of its log, not as a crate).
#[test]
fn each_broker_client_is_named_in_its_leaf_only() {
    for (client, leaf) in [("async_nats", "nats/"), ("rdkafka", "kafka/")] {
        let path = format!("{client}::");
        let outside: Vec<String> = naming("runtime/src", &path)
            .into_iter()
            .filter(|file| !file.starts_with(&format!("bus/{leaf}")))
            .chain(naming("cli/src", &path))
            .collect();
        assert!(
            outside.is_empty(),
            "`{client}` named outside runtime/src/bus/{leaf}: {outside:?}"
        );
    }
}

/// "Each broker is a leaf that imports only the floor": no leaf names another (`nats::`, `kafka::`,
/// `memory::`), and no file of the floor names a leaf (the façade, `bus/mod.rs`, declares them).
#[test]
fn broker_leaves_import_only_the_floor() {
    let leaves = ["nats", "kafka", "memory"];
    for leaf in leaves {
        for other in leaves.iter().filter(|other| **other != leaf) {
            let crossing = naming(&format!("runtime/src/bus/{leaf}"), &format!("{other}::"));
            assert!(
                crossing.is_empty(),
                "bus/{leaf}/ names `{other}::` in {crossing:?}"
            );
        }
    }
    let floor = root().join("runtime/src/bus");
    for file in std::fs::read_dir(&floor).expect("the bus folder") {
        let path = file.expect("an entry").path();
        if path.is_dir() || path.file_name().is_some_and(|n| n == "mod.rs") {
            continue;
        }
        let code = code_of(&read(&path));
        for leaf in leaves {
            assert!(
                !code.contains(&format!("{leaf}::")),
                "the floor's {} names the leaf `{leaf}`",
                relative(&path, &floor)
            );
        }
    }
}

/// "The CLI's join is the choice of a broker from the URL": only `cli/src/bus/connection.rs` names a
/// broker's leaf; every command is written against `Broker`.
#[test]
fn the_cli_names_a_broker_only_where_it_chooses_one() {
    for leaf in ["bus::kafka", "bus::memory", "bus::nats"] {
        let naming: Vec<String> = naming("cli/src", leaf)
            .into_iter()
            .filter(|file| file != "bus/connection.rs")
            .collect();
        assert!(
            naming.is_empty(),
            "`{leaf}` named by {naming:?}, not only by the broker choice"
        );
    }
}

/// "The CLI uses the generator for the places of `--suggest`'s edits and the traffic profile's format
/// only": its code names `energy_codegen` only as `energy_codegen::locate`, in
/// `cli/src/drift/locate.rs`, and as `energy_codegen::profile`, in `cli/src/drift/profile.rs`.
#[test]
fn the_cli_uses_only_the_generators_locate() {
    let naming = naming("cli/src", "energy_codegen");
    assert_eq!(
        naming,
        ["drift/locate.rs", "drift/profile.rs"],
        "`energy_codegen` named by {naming:?}"
    );
    for (file, module) in [("locate.rs", "locate"), ("profile.rs", "profile")] {
        let code = code_of(&read(&root().join("cli/src/drift").join(file)));
        for (at, _) in code.match_indices("energy_codegen") {
            assert!(
                code[at..].starts_with(&format!("energy_codegen::{module}::")),
                "cli/src/drift/{file} uses energy_codegen beyond `{module}`: {}",
                code[at..].lines().next().unwrap_or("")
            );
        }
    }
}

/// "`energy-api-core` in one line of dependence": each of its modules uses only those of its own
/// step or an earlier one (the errors, the text, the reader, the tables, the shape check).
#[test]
fn api_core_modules_use_only_the_steps_before_theirs() {
    let steps: [&[&str]; 5] = [
        &["json"],
        &["text", "raw", "borrowed", "avro"],
        &["read"],
        &["table"],
        &["shape"],
    ];
    let step_of = |module: &str| steps.iter().position(|step| step.contains(&module));
    let src = root().join("api-core/src");
    for file in rust_files(&src) {
        let path = relative(&file, &src);
        let module = path.split(['/', '.']).next().unwrap_or_default();
        let Some(own) = step_of(module) else { continue };
        let code = code_of(&read(&file)).replace("$crate::", "");
        for used in super::names_after(&code, "crate::") {
            if let Some(step) = step_of(&used) {
                assert!(
                    step <= own,
                    "api-core's {path} (step {}) uses `{used}` (step {})",
                    own + 1,
                    step + 1
                );
            }
        }
    }
}

/// "A module of `cli/src/` per command": each command of `energy` dispatches to a module of its own (a
/// file or a folder), and each bus command is a file of `cli/src/bus/`.
#[test]
fn every_cli_command_has_its_own_module() {
    let src = root().join("cli/src");
    let main = read(&src.join("main.rs"));
    let dispatched = super::names_after(&main, "=> ");
    assert!(!dispatched.is_empty(), "main.rs dispatches its commands");
    for module in dispatched {
        assert!(
            src.join(format!("{module}.rs")).is_file() || src.join(&module).is_dir(),
            "command module `{module}` has no file or folder in cli/src/"
        );
    }
    for command in ["init", "publish", "consume", "dlq", "capture"] {
        assert!(
            src.join("bus").join(format!("{command}.rs")).is_file(),
            "bus command `{command}` has no file of its own"
        );
    }
}

/// "Read in about ten minutes": `docs/ARCHITECTURE.md` is at most 300 lines, and none of its sentences
/// (in prose, lists and table cells; code blocks left out) is longer than 60 words.
#[test]
fn the_map_is_short_and_so_are_its_sentences() {
    let map = read(&root().join("docs/ARCHITECTURE.md"));
    let lines = map.lines().count();
    assert!(lines <= 300, "docs/ARCHITECTURE.md has {lines} lines");
    let mut pieces: Vec<String> = Vec::new();
    let mut piece = String::new();
    let mut in_code = false;
    for line in map.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        let item = line.trim_start().starts_with("- ")
            || line
                .trim_start()
                .split_once(". ")
                .is_some_and(|(n, _)| n.parse::<u32>().is_ok());
        if in_code
            || line.trim().is_empty()
            || line.starts_with('#')
            || line.starts_with('|')
            || item
        {
            pieces.push(std::mem::take(&mut piece));
        }
        if line.starts_with('|') {
            pieces.extend(line.split('|').map(str::to_owned));
        } else if !in_code && !line.starts_with('#') {
            piece.push(' ');
            piece.push_str(line.trim());
        }
    }
    pieces.push(piece);
    for piece in pieces {
        for sentence in piece.split(". ") {
            let words = sentence.split_whitespace().count();
            assert!(
                words <= 60,
                "a sentence of {words} words in docs/ARCHITECTURE.md: {sentence}"
            );
        }
    }
}

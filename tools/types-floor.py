#!/usr/bin/env python3
"""The compile-time floor of `energy-api`'s public types, beside the peer's crate (issue 16).

Builds a crate of the generated payload structs alone -- every event version and shared type, with the
derives and the reading they have in `energy-api` (their `table_struct!`: `Deserialize` and the fast
reader through their tables, which it copies), and nothing else: no version enums, no `Event`, no
decoding, no REST types, no documents, no borrowed views -- and times clean debug builds of it and of
the peer's crate alternately. `--without IMPL` (`Debug`, `Clone`, `PartialEq`, or `tables`: the
`table_struct!` impls, `Deserialize`, `Serialize` and the fast reader, with the tables) leaves one out,
to measure what it costs.
What this crate takes is what any crate exposing these types with these impls takes, before it decodes
anything.

usage: tools/types-floor.py [ROUNDS] [--without IMPL]   (after `cargo xtask bench --peer`, which writes
the peer's crate)
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
FLOOR = os.path.join(TARGET, "types-floor")
PEER = os.path.join(TARGET, "peer-crate")
SOURCE = os.path.join(ROOT, "generated", "src")
MACRO = "::energy_api_core::table_struct!(\n"
DERIVES = ["Debug", "Clone", "PartialEq"]


def struct_items(path, without):
    """The payload structs of a generated file and their `table_struct!` calls."""
    kept = []
    for chunk in open(path, encoding="utf-8").read().split("\n\n"):
        lines = [l for l in chunk.strip().split("\n") if not l.startswith("#[cfg(")]
        body = "\n".join(lines)
        code = "\n".join(l for l in lines if not l.startswith("///"))
        if code.startswith("#[derive(") and "\npub struct " in code:
            derives = [d for d in DERIVES if d != without]
            body = re.sub(r"#\[derive\([^)]*\)\]", f"#[derive({', '.join(derives)})]", body, count=1)
            kept.append(body)
        elif body.startswith(MACRO) and without != "tables":
            kept.append(body)
    return "\n\n".join(kept) + "\n"


def write_crate(without):
    shutil.rmtree(os.path.join(FLOOR, "src"), ignore_errors=True)
    os.makedirs(os.path.join(FLOOR, "src", "events"))
    sections = sorted(
        f[:-3]
        for f in os.listdir(os.path.join(SOURCE, "events"))
        if f.endswith(".rs") and f[:-3] not in ("mod", "decode", "routing")
    )
    structs = 0
    for section in sections:
        text = struct_items(os.path.join(SOURCE, "events", section + ".rs"), without)
        structs += len(re.findall(r"^pub struct ", text, re.M))
        open(os.path.join(FLOOR, "src", "events", section + ".rs"), "w").write(text)
    text = struct_items(os.path.join(SOURCE, "types.rs"), without)
    structs += len(re.findall(r"^pub struct ", text, re.M))
    open(os.path.join(FLOOR, "src", "types.rs"), "w").write(text)
    open(os.path.join(FLOOR, "src", "events", "mod.rs"), "w").write(
        "".join(f"pub mod {s};\n" for s in sections)
    )
    shapes = open(os.path.join(SOURCE, "shapes.rs"), encoding="utf-8").read()
    shapes = "\n".join(l for l in shapes.split("\n") if not l.startswith("#[cfg("))
    open(os.path.join(FLOOR, "src", "shapes.rs"), "w").write(shapes if without != "tables" else "")
    open(os.path.join(FLOOR, "src", "lib.rs"), "w").write(
        "//! Written by tools/types-floor.py: energy-api's payload structs alone.\n"
        "#![allow(missing_docs)]\npub mod events;\nmod shapes;\npub mod types;\n"
    )
    open(os.path.join(FLOOR, "Cargo.toml"), "w").write(
        '[package]\nname = "types-floor"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
        '[dependencies]\nserde = { version = "1", features = ["derive"] }\nserde_json = "1"\n'
        f'energy-api-core = {{ path = "{os.path.join(ROOT, "api-core")}" }}\n\n[workspace]\n'
    )
    shutil.copy(os.path.join(ROOT, "Cargo.lock"), os.path.join(FLOOR, "Cargo.lock"))
    return structs


def build(crate, target):
    env = dict(os.environ, CARGO_INCREMENTAL="0", CARGO_TARGET_DIR=target)
    subprocess.run(["cargo", "build", "--quiet"], cwd=crate, env=env, check=True)


def timed_clean_build(crate, target):
    os.utime(os.path.join(crate, "src", "lib.rs"))
    start = time.monotonic()
    build(crate, target)
    return time.monotonic() - start


def main():
    args = sys.argv[1:]
    without = None
    if "--without" in args:
        at = args.index("--without")
        without = args[at + 1] if at + 1 < len(args) else None
        if without not in ("Debug", "Clone", "PartialEq", "tables"):
            sys.exit("--without takes one of: Debug, Clone, PartialEq, tables")
        del args[at : at + 2]
    rounds = int(args[0]) if args else 5
    if not os.path.exists(os.path.join(PEER, "Cargo.toml")):
        sys.exit(f"no peer crate at {PEER}: run `cargo xtask bench --peer` first")
    structs = write_crate(without)
    floor_target, peer_target = FLOOR + "-target", os.path.join(TARGET, "bench-compile-peer")
    build(FLOOR, floor_target)
    build(PEER, peer_target)
    floor, peer = [], []
    for _ in range(rounds):
        peer.append(timed_clean_build(PEER, peer_target))
        floor.append(timed_clean_build(FLOOR, floor_target))
    f, p = statistics.median(floor), statistics.median(peer)
    what = f"without {without}" if without else "with every impl"
    print(f"{structs} structs, {what}; median of {rounds} clean debug builds, alternately")
    print(f"| our payload structs alone | {f:.3f} | peer | {p:.3f} | ratio | {f / p:.3f} |")
    print(f"each: ours {', '.join(f'{t:.2f}' for t in floor)}; peer {', '.join(f'{t:.2f}' for t in peer)}")


if __name__ == "__main__":
    main()

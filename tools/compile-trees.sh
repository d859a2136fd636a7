#!/usr/bin/env bash
# Clean debug builds of energy-api in several checkouts, alternately: the default features, every
# feature, and `cargo check` (dependencies built first, CARGO_INCREMENTAL=0), one line per build.
# usage: tools/compile-trees.sh ROUNDS DIR...   (each DIR a checkout of this repository)
set -euo pipefail
rounds=$1; shift
export CARGO_INCREMENTAL=0
target() { echo "$1/target/compile-trees"; }
for d in "$@"; do
  for what in "build" "build --all-features" "check"; do
    CARGO_TARGET_DIR=$(target "$d") cargo $what -q --offline --manifest-path "$d/generated/Cargo.toml" >/dev/null
  done
done
for r in $(seq "$rounds"); do
  for d in "$@"; do
    for what in "build" "build --all-features" "check"; do
      CARGO_TARGET_DIR=$(target "$d") cargo clean -q --manifest-path "$d/generated/Cargo.toml" -p energy-api
      s=$(date +%s.%N)
      CARGO_TARGET_DIR=$(target "$d") cargo $what -q --offline --manifest-path "$d/generated/Cargo.toml" >/dev/null
      e=$(date +%s.%N)
      echo "$r $d $what $(echo "$e - $s" | bc)"
    done
  done
done

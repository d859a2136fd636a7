#!/usr/bin/env bash
# Paired clean debug builds of energy-api (all features, dependencies prebuilt), alternating two checkouts.
# usage: compile_pair.sh OLD_DIR NEW_DIR PAIRS
set -euo pipefail
old=$1; new=$2; pairs=${3:-5}
for d in "$old" "$new"; do
  (cd "$d" && CARGO_TARGET_DIR="$d/target/pair-compile" cargo build --quiet --offline -p energy-api --all-features >/dev/null 2>&1)
done
for i in $(seq 1 "$pairs"); do
  for d in "$old" "$new"; do
    cd "$d"
    CARGO_TARGET_DIR="$d/target/pair-compile" cargo clean --quiet -p energy-api --offline 2>/dev/null || true
    s=$(date +%s.%N)
    CARGO_TARGET_DIR="$d/target/pair-compile" cargo build --quiet --offline -p energy-api --all-features >/dev/null 2>&1
    e=$(date +%s.%N)
    echo "$i $(basename $d) $(echo "$e - $s" | bc)"
  done
done

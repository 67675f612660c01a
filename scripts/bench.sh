#!/usr/bin/env bash
# Times twice against the parse floor on the benchmark corpus (../shared/bench): the figure that
# matters is twice's wall time divided by the floor's, measured in the same run.
# usage: scripts/bench.sh [RUNS] [CORPUS_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
corpus=${2:-/tmp/corpus}
bench=../shared/bench
bash "$bench/fetch-corpus.sh" "$corpus" >/dev/null
cargo build --release --manifest-path "$bench/floor/Cargo.toml" --target-dir /tmp/parse-floor
cargo build --release
"$bench/compare" -n "$runs" --names floor,twice,twice-j1,twice-no-reach -- \
  "/tmp/parse-floor/release/parse-floor ruff -j 2 $corpus" \
  "target/release/twice check --output-format json --select ALL $corpus" \
  "target/release/twice check -j 1 --output-format json --select ALL $corpus" \
  "env TWICE_NO_REACH=1 target/release/twice check --output-format json --select ALL $corpus"

#!/usr/bin/env bash
# Times twice against the parse floor on the benchmark corpus (../shared/bench): the figure that
# matters is twice's wall time divided by the floor's, measured in the same run.
# usage: scripts/bench.sh [RUNS] [CORPUS_DIR]
#        PGO=1 scripts/bench.sh ...   # also the profile-guided build of scripts/pgo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
corpus=${2:-/tmp/corpus}
bench=../shared/bench
bash "$bench/fetch-corpus.sh" "$corpus" >/dev/null
cargo build --release --manifest-path "$bench/floor/Cargo.toml" --target-dir /tmp/parse-floor
cargo build --release
names=floor,twice,twice-j1,twice-no-reach
commands=(
  "/tmp/parse-floor/release/parse-floor ruff -j 2 $corpus"
  "target/release/twice check --output-format json --select ALL $corpus"
  "target/release/twice check -j 1 --output-format json --select ALL $corpus"
  "env TWICE_NO_REACH=1 target/release/twice check --output-format json --select ALL $corpus"
)
if [ "${PGO:-0}" = 1 ]; then
  scripts/pgo.sh
  pgo="target/pgo/$(rustc -vV | sed -n 's/^host: //p')/release/twice"
  names=$names,twice-pgo,twice-pgo-j1
  commands+=(
    "$pgo check --output-format json --select ALL $corpus"
    "$pgo check -j 1 --output-format json --select ALL $corpus"
  )
fi
"$bench/compare" -n "$runs" --names "$names" -- "${commands[@]}"

#!/usr/bin/env bash
# Builds the wheel the way a release would (maturin, from pyproject.toml), installs it into a
# fresh virtualenv and runs the `twice` command it installed: `--version`, then a check of
# examples/shop, which must exit 1 with findings.
#
#   scripts/test-wheel.sh            # needs python3 (>= 3.9), cargo and access to PyPI
#   PYTHON=python3.12 scripts/test-wheel.sh
#   KEEP_WHEEL=dist/ scripts/test-wheel.sh   # also copy the wheel there
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

step() { printf '\n== %s\n' "$*"; }
fail() { printf 'test-wheel: FAIL: %s\n' "$*" >&2; exit 1; }

step "maturin into a build virtualenv"
"$python" -m venv "$work/build"
"$work/build/bin/python" -m pip install --quiet --upgrade pip "maturin>=1.7,<2.0"
"$work/build/bin/maturin" --version

step "maturin build --release"
(cd "$root" && "$work/build/bin/maturin" build --release --out "$work/dist")
shopt -s nullglob
wheels=("$work"/dist/twice_lint-*.whl)
[ "${#wheels[@]}" -eq 1 ] || fail "expected one wheel in $work/dist, found ${#wheels[@]}"
wheel="${wheels[0]}"
echo "built $(basename "$wheel") ($(du -h "$wheel" | cut -f1))"
if [ -n "${KEEP_WHEEL:-}" ]; then
  mkdir -p "$KEEP_WHEEL"
  cp "$wheel" "$KEEP_WHEEL"/
fi

step "install into a fresh virtualenv"
"$python" -m venv "$work/test"
"$work/test/bin/python" -m pip install --quiet "$wheel"
twice="$work/test/bin/twice"
[ -x "$twice" ] || fail "the wheel did not install a twice command"

step "twice --version"
version="$("$twice" --version)"
echo "$version"
expected="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)"
[ "$version" = "twice $expected" ] || fail "expected 'twice $expected', got '$version'"

step "twice check examples/shop"
set +e
(cd "$root" && "$twice" check examples/shop --output-format concise) >"$work/out.txt" 2>"$work/err.txt"
status=$?
set -e
tail -n 5 "$work/out.txt"
[ "$status" -eq 1 ] || { cat "$work/err.txt" >&2; fail "expected exit 1 (findings), got $status"; }
grep -q ': TW101 ' "$work/out.txt" || fail "no TW101 finding in the output"
grep -q '^Found [0-9]* problems' "$work/out.txt" || fail "no summary line"

printf '\ntest-wheel: OK: %s installs `twice`, which finds the example'"'"'s problems\n' "$(basename "$wheel")"

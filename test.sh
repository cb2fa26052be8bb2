#!/usr/bin/env bash
# The project's one test command: the Rust tests (cargo test, arguments passed on) and
# the Python package's tests (pytest python/tests) against the package built from this
# checkout, both under the `ci` profile (Cargo.toml: the release profile without LTO or
# debug info; docs/testing.md says how its outputs were compared with the release
# build's). Needs only the Rust toolchain and Python >= 3.9: it makes (or reuses) a
# virtual environment .venv in the repository, installs the Python tools and the package
# into it, and builds with cargo's cache (target/, or $CARGO_TARGET_DIR).
#   ./test.sh                  everything
#   ./test.sh -p cclab         cargo test --profile ci -p cclab, then pytest
set -euo pipefail
cd "$(dirname "$0")"

PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
case "$VENV" in /*) ;; *) VENV="$PWD/$VENV" ;; esac
# The Python tools the tests need; the stamp file records them so a rerun skips pip.
# Every extra of pyproject.toml is here (dask, polars, plot, progress), so that none of the
# tests that use one is skipped (CCLAB_REQUIRE_EXTRAS below turns a missing one into a
# failure).
DEPS=(maturin pytest pandas pyarrow "dask[distributed]" matplotlib polars tqdm)

if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo not found: cclab needs the Rust toolchain (https://rustup.rs)" >&2
  exit 1
fi
if ! command -v "$PYTHON" >/dev/null 2>&1 ||
  ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 9))'; then
  echo "$PYTHON not found or older than 3.9: the cclab package needs Python >= 3.9" >&2
  exit 1
fi

if [ -e "$VENV" ] && ! "$VENV/bin/python" -c '' >/dev/null 2>&1; then
  echo "$VENV exists but its python does not run (made on another machine?): remove it, or set VENV" >&2
  exit 1
fi
if [ ! -e "$VENV" ]; then
  echo "== creating $VENV"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade "pip>=23"
fi
PY="$VENV/bin/python"
stamp="$VENV/.cclab-test-deps"
if [[ "$(cat "$stamp" 2>/dev/null)" != "${DEPS[*]}" ]]; then
  echo "== installing ${DEPS[*]} into $VENV"
  "$PY" -m pip install -q --disable-pip-version-check "${DEPS[@]}"
  echo "${DEPS[*]}" >"$stamp"
fi

echo "== building and installing the cclab package into $VENV"
# maturin develop: an editable install (python/cclab as is, the extension module built in
# place into python/cclab/, git-ignored) with cargo's cache. A rebuild after a one-line
# change takes what `pip install .` takes, less its isolated build environment.
VIRTUAL_ENV="$VENV" PIP_QUIET=1 "$VENV/bin/maturin" develop --profile ci --quiet

# Every crate of the workspace unless the arguments choose (`-p cclab`).
(($#)) || set -- --workspace
echo "== cargo test --profile ci $*"
cargo test --profile ci "$@"

echo "== pytest python/tests"
# The tests compare the package with the command line cargo just built.
CCLAB_REQUIRE_EXTRAS=1 CCLAB_BIN="${CARGO_TARGET_DIR:-$PWD/target}/ci/cclab" \
  "$PY" -m pytest -q python/tests

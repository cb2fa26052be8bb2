#!/usr/bin/env bash
# bench/pgo.sh — build cclab with profile-guided optimisation (PGO): the fastest cclab
# this repository knows how to build, written to target/pgo/cclab.
#
# Usage: bench/pgo.sh
#
# Three steps, as rustc's PGO guide has them
# (https://doc.rust-lang.org/rustc/profile-guided-optimization.html):
#   1. build an instrumented cclab (RUSTFLAGS=-Cprofile-generate, target/pgo-gen/);
#   2. run it on training work: `cclab bench` (the 16-CUBIC and 10-DCTCP dumbbells, 1 s
#      each), examples/workload.toml (web search at 50% load on a k = 4 fat-tree, 200 ms)
#      and the dctcp10 dumbbell with 1,000 senders for 100 ms; merge what it counted with
#      llvm-profdata into target/pgo/cclab.profdata;
#   3. build again with that profile (RUSTFLAGS=-Cprofile-use, target/pgo-use/): the
#      compiler lays out the hot paths and inlines by measured counts instead of guesses.
# The binary is the same program: PGO changes how the code is laid out, not what it
# computes (no fast-math; `cclab reproduce all --quick --json` gives byte-identical output
# with the plain and the PGO build: docs/speed.md, "The fastest build").
#
# Needs llvm-profdata of the same LLVM as rustc: `rustup component add llvm-tools`
# (without rustup, set LLVM_PROFDATA to one of the same major version as `rustc -vV`
# names). The plain `cargo build --release` needs none of this; this script only makes a
# faster binary. It takes two release builds plus ~10 s of training (about 6 minutes on a
# 2-core machine). Files it writes: target/pgo-gen/, target/pgo-use/, target/pgo/ only.

set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

host=$(rustc -vV | sed -n 's/^host: //p')
llvm=$(rustc -vV | sed -n 's/^LLVM version: //p')
profdata=${LLVM_PROFDATA:-$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata}
if [ ! -x "$profdata" ]; then
    echo "error: llvm-profdata not found at $profdata" >&2
    echo "  install it with: rustup component add llvm-tools" >&2
    echo "  (or set LLVM_PROFDATA to an llvm-profdata of LLVM ${llvm%%.*}, rustc's)" >&2
    exit 2
fi

pgo=$root/target/pgo
raw=$pgo/raw
train=$pgo/train
mkdir -p "$pgo"
rm -rf "$raw" "$train"
mkdir -p "$raw" "$train"

flags=${RUSTFLAGS:-}

echo "== 1/3 instrumented build (target/pgo-gen)" >&2
RUSTFLAGS="$flags -Cprofile-generate=$raw" CARGO_TARGET_DIR=$root/target/pgo-gen \
    cargo build --release -p cclab-cli >&2
gen=$root/target/pgo-gen/release/cclab

echo "== 2/3 training runs" >&2
"$gen" bench --json >"$train/bench.json"
"$gen" run examples/workload.toml --out "$train/workload" --quiet >/dev/null
"$gen" run bench/dctcp10.toml --set topology.senders=1000 --set sim.duration=100ms \
    --out "$train/senders1000" --quiet >/dev/null
"$profdata" merge -o "$pgo/cclab.profdata.tmp" "$raw"
mv "$pgo/cclab.profdata.tmp" "$pgo/cclab.profdata"
rm -rf "$raw" "$train"

echo "== 3/3 build with the profile (target/pgo-use)" >&2
RUSTFLAGS="$flags -Cprofile-use=$pgo/cclab.profdata" CARGO_TARGET_DIR=$root/target/pgo-use \
    cargo build --release -p cclab-cli >&2
cp "$root/target/pgo-use/release/cclab" "$pgo/cclab.tmp"
mv "$pgo/cclab.tmp" "$pgo/cclab"
echo "$pgo/cclab"

#!/usr/bin/env bash
# bench/htsim/build.sh — builds bench/htsim/dctcp10.cpp, our htsim program for the race
# (bench/race.sh), against htsim (https://github.com/Broadcom/csg-htsim) at the pinned
# commit below. htsim's source never enters this repository: it is cloned outside the
# source tree (target/htsim/csg-htsim by default; target/ is ignored by git), built there
# with its own Makefile and stock flags (-O3), and our program only includes its headers
# and links its libhtsim.a.
#
# Also builds bench/htsim/fattree8.cpp (the k = 8 fat-tree case) into
# target/htsim/fattree8-htsim the same way (its path is not printed).
#
# Usage: bench/htsim/build.sh
#   prints the binary's path (target/htsim/dctcp10-htsim) as the last line on stdout;
#   everything else goes to stderr. Rebuilds only what is out of date (htsim's make does
#   its part; our program when dctcp10.cpp or libhtsim.a is newer than the binary, or the
#   binary was linked against another checkout's libhtsim.a).
# Environment:
#   HTSIM_SRC=/path/to/csg-htsim   use this existing checkout as it is (not cloned, not
#                                  checked out; a warning if it is not at the pin)
#   HTSIM_REPO=URL-or-path         where to clone from (default the GitHub origin)
#   JOBS=N                         make -j (default: nproc)
# Needs: git, make, g++ (C++17). Exits 2 with a message when one is missing or a step
# fails.

set -euo pipefail

PIN=841d9e7be46bb968eece766aa4b6c044c7799f67 # "Revised connection_matrix.h/cpp"
repo_url=${HTSIM_REPO:-https://github.com/Broadcom/csg-htsim}

die() {
    echo "error: $*" >&2
    exit 2
}

root=$(cd "$(dirname "$0")/../.." && pwd)
out_dir=$root/target/htsim
bin=$out_dir/dctcp10-htsim

for tool in git make g++; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (needs git, make and g++)"
done
mkdir -p "$out_dir" || die "cannot create $out_dir"

# 1. htsim's source at the pin.
if [ -n "${HTSIM_SRC:-}" ]; then
    htsim=$HTSIM_SRC
    [ -f "$htsim/sim/Makefile" ] || die "HTSIM_SRC=$htsim has no sim/Makefile (not a csg-htsim checkout?)"
    head=$(git -C "$htsim" rev-parse HEAD 2>/dev/null || echo unknown)
    if [ "$head" != "$PIN" ]; then
        echo "warning: HTSIM_SRC is at $head, not the pinned ${PIN:0:7}; using it as it is" >&2
    fi
else
    htsim=$out_dir/csg-htsim
    if [ ! -d "$htsim/.git" ]; then
        echo "== cloning htsim from $repo_url into $htsim" >&2
        rm -rf "$htsim"
        git clone --quiet --no-checkout "$repo_url" "$htsim" >&2 ||
            die "git clone $repo_url failed"
    fi
    if [ "$(git -C "$htsim" rev-parse HEAD 2>/dev/null || true)" != "$PIN" ] ||
        [ ! -f "$htsim/sim/Makefile" ]; then
        if ! git -C "$htsim" cat-file -e "$PIN^{commit}" 2>/dev/null; then
            echo "== fetching $repo_url" >&2
            git -C "$htsim" fetch --quiet "$repo_url" >&2 || die "git fetch $repo_url failed"
            git -C "$htsim" cat-file -e "$PIN^{commit}" 2>/dev/null ||
                die "$repo_url has no commit $PIN"
        fi
        # Only sim/ is needed: a sparse checkout skips the large experiment data.
        git -C "$htsim" sparse-checkout set sim >&2 || die "git sparse-checkout failed in $htsim"
        git -C "$htsim" -c advice.detachedHead=false checkout --quiet --force --detach "$PIN" >&2 ||
            die "git checkout $PIN failed in $htsim"
        echo "== htsim checked out at ${PIN:0:7} in $htsim" >&2
    fi
fi

# 2. libhtsim.a with htsim's own Makefile and flags (-O3).
echo "== make libhtsim.a in $htsim/sim" >&2
make -C "$htsim/sim" -j"${JOBS:-$(nproc 2>/dev/null || echo 2)}" libhtsim.a >&2 ||
    die "building htsim's libhtsim.a failed (make -C $htsim/sim libhtsim.a)"
lib=$htsim/sim/libhtsim.a
[ -f "$lib" ] || die "$lib was not built"

# 3. Our programs: bench/htsim/NAME.cpp -> target/htsim/NAME-htsim, again also when it
# was linked against another checkout's libhtsim.a (recorded in NAME-htsim.lib).
common=$root/bench/htsim/common.h # what both programs include
program() { # NAME
    local src=$root/bench/htsim/$1.cpp out=$out_dir/$1-htsim
    [ -f "$src" ] || die "$src is missing"
    if [ ! -x "$out" ] || [ "$src" -nt "$out" ] || [ "$common" -nt "$out" ] || [ "$lib" -nt "$out" ] ||
        [ "$(cat "$out.lib" 2>/dev/null || true)" != "$lib" ]; then
        echo "== g++ -O3 -std=c++17 bench/htsim/$1.cpp -> $out" >&2
        g++ -O3 -std=c++17 -I"$htsim/sim" -o "$out.tmp" "$src" "$lib" >&2 ||
            die "compiling bench/htsim/$1.cpp failed"
        mv "$out.tmp" "$out"
        echo "$lib" >"$out.lib"
    else
        echo "== $out is up to date" >&2
    fi
}
program dctcp10
# The `cclab bench --scale` k = 8 fat-tree case (flows read from a cclab fct.csv); its
# path is not printed.
program fattree8

echo "$bin"

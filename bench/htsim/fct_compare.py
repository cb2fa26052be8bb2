#!/usr/bin/env python3
"""bench/htsim/fct_compare.py — cclab's and htsim's flow completion times on the same flows,
by cclab's size buckets, over the flows both received whole (bench/htsim/README.md, the
k = 8 fat-tree).

Usage: bench/htsim/fct_compare.py CCLAB_FCT.CSV [--before S] NAME=HTSIM_FLOWS.CSV ...

CCLAB_FCT.CSV is the fct.csv of the cclab run whose flows htsim replayed (columns flow,
size_bytes, start_s, fct_s, ideal_fct_s); each HTSIM_FLOWS.CSV is what
`target/htsim/fattree8-htsim CCLAB_FCT.CSV --flows=FILE` wrote (flow, fct_ms, acked_ms),
named NAME in the table. --before S keeps the flows that started before S seconds (for an
htsim run shorter than cclab's: a flow's FCT does not depend on what happens after it
ends, so cclab's longer run gives the same FCTs for them).

Per bucket and simulator: the flows counted (received whole in cclab and in every htsim
file), their mean FCT (ms) and their mean and p99 slowdown (FCT / cclab's ideal FCT on an
empty network, the same ideal for both). Exit status 2 on a missing or malformed file.
"""
import csv
import math
import sys

BUCKETS = [  # cclab's (crates/cclab/src/report/table.rs)
    ("(0, 100KB]", 0, 100_000),
    ("(100KB, 10MB]", 100_000, 10_000_000),
    ("(10MB, inf)", 10_000_000, math.inf),
]


def fail(msg):
    print(f"fct_compare.py: {msg}", file=sys.stderr)
    sys.exit(2)


def rows(path, need):
    try:
        with open(path, newline="") as f:
            r = csv.DictReader(f)
            missing = [c for c in need if c not in (r.fieldnames or [])]
            if missing:
                fail(f"{path}: no column {', '.join(missing)} (needs {', '.join(need)})")
            return list(r)
    except OSError as e:
        fail(f"{path}: {e.strerror}")


def number(path, row, col):
    try:
        return float(row[col])
    except ValueError:
        fail(f"{path}: flow {row.get('flow')}: {col} = {row[col]!r} is not a number")


def p99(xs):
    s = sorted(xs)
    return s[min(len(s) - 1, math.ceil(0.99 * len(s)) - 1)]


def main(argv):
    before = math.inf
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == "--before":
            if i + 1 >= len(argv):
                fail("--before needs a time in seconds")
            try:
                before = float(argv[i + 1])
            except ValueError:
                fail(f"--before {argv[i + 1]!r} is not a number of seconds")
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) < 2 or any("=" not in a for a in args[1:]):
        fail("usage: fct_compare.py CCLAB_FCT.CSV [--before S] NAME=HTSIM_FLOWS.CSV ...")
    cpath = args[0]
    cclab = {}
    # cclab's times are in seconds (fct_s, ideal_fct_s), htsim's file's in ms.
    for r in rows(cpath, ["flow", "size_bytes", "start_s", "fct_s", "ideal_fct_s"]):
        if r["fct_s"] == "" or number(cpath, r, "start_s") >= before:
            continue
        cclab[r["flow"]] = (
            number(cpath, r, "size_bytes"),
            number(cpath, r, "fct_s") * 1e3,
            number(cpath, r, "ideal_fct_s") * 1e3,
        )
    others = []
    for a in args[1:]:
        name, path = a.split("=", 1)
        fct = {r["flow"]: number(path, r, "fct_ms") for r in rows(path, ["flow", "fct_ms"])
               if r["fct_ms"] != ""}
        others.append((name, fct))
    common = [f for f in cclab if all(f in fct for _, fct in others)]
    print(f"flows received whole in all {len(others) + 1} runs: {len(common)} "
          f"(cclab alone: {len(cclab)}{'' if before == math.inf else f', started before {before} s'})")
    print(f"{'bucket':<15} {'run':<12} {'flows':>6} {'mean fct ms':>12} {'slowdown mean':>14} "
          f"{'p99':>8}")
    for label, lo, hi in BUCKETS + [("all", 0, math.inf)]:
        fl = [f for f in common if lo < cclab[f][0] <= hi]
        if not fl:
            continue
        for n, fct_of in [("cclab", {f: cclab[f][1] for f in fl})] + others:
            fct = [fct_of[f] for f in fl]
            sd = [x / cclab[f][2] for x, f in zip(fct, fl)]
            print(f"{label:<15} {n:<12} {len(fl):>6} {sum(fct) / len(fct):>12.3f} "
                  f"{sum(sd) / len(sd):>14.2f} {p99(sd):>8.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])

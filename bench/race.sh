#!/usr/bin/env bash
# bench/race.sh [ROUNDS] — cclab against ns-3 on the same dumbbell (bench/dctcp10.toml,
# bench/ns3/dumbbell.cc), interleaved over ROUNDS rounds (default 3): wall time,
# packet-hops/s and their ratio (medians), and both simulators' results side by side.
# Needs ns-3 3.37 as Debian packages it: apt-get install ns3 libns3-dev.
set -euo pipefail
rounds=${1:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/cclab-race.XXXXXX)
trap 'rm -rf "$work"' EXIT

cargo build --release -q -p cclab-cli --manifest-path "$root/Cargo.toml"
g++ -O2 -std=c++17 "$root/bench/ns3/dumbbell.cc" -o "$work/ns3-dumbbell" \
    -lns3-point-to-point -lns3-internet -lns3-applications -lns3-traffic-control \
    -lns3-network -lns3-core -lns3-bridge -lns3-stats
echo "ns-3: $(dpkg-query -W -f='${Version}' libns3-dev 2>/dev/null || echo '?'), cclab: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), $rounds rounds, interleaved"
for i in $(seq 1 "$rounds"); do
    "$root/target/release/cclab" run "$root/bench/dctcp10.toml" --out "$work/cclab$i" --quiet >/dev/null
    "$work/ns3-dumbbell" > "$work/ns3-$i.txt"
    echo "round $i done" >&2
done

python3 - "$work" "$rounds" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
c_wall, c_hops, n_wall, n_hops = [], 0, [], 0
for i in range(1, rounds + 1):
    perf = json.load(open(f"{work}/cclab{i}/perf.json"))
    c_wall.append(perf["wall_s"]); c_hops = perf["packet_hops"]
    kv = dict(x.split("=") for x in open(f"{work}/ns3-{i}.txt").read().split())
    n_wall.append(float(kv["wall_s"])); n_hops = int(kv["packet_hops"])
cw, nw = statistics.median(c_wall), statistics.median(n_wall)
print(f"{'':24}{'cclab':>14}{'ns-3':>14}")
print(f"{'wall s (median)':24}{cw:14.3f}{nw:14.3f}   each: cclab {' '.join('%.3f' % x for x in c_wall)}; ns-3 {' '.join('%.2f' % x for x in n_wall)}")
print(f"{'packet-hops':24}{c_hops:14d}{n_hops:14d}")
print(f"{'packet-hops/s':24}{c_hops / cw:14.4g}{n_hops / nw:14.4g}")
print(f"speed-up (ns-3 wall / cclab wall): {nw / cw:.0f}x; per packet-hop: {(n_hops / nw) and (c_hops / cw) / (n_hops / nw):.0f}x")
# Results, from the last round (both simulators are deterministic).
s = json.load(open(f"{work}/cclab{rounds}/summary.json"))
q = next(x for x in s["queues"] if x["name"] == "bottleneck")
rows = [("goodput Gbit/s (all)", sum(f["goodput_bps"] for f in s["flows"]) / 1e9, float(kv["goodput_gbps"]))]
for f in s["flows"]:
    rows.append((f"goodput Mbit/s flow {f['id']}", f["goodput_bps"] / 1e6, float(kv[f"goodput_mbps_{f['id']}"])))
rows += [("bottleneck mean queue pkts", q["mean_bytes"] / 1500, float(kv["mean_queue_pkts"])),
         ("bottleneck marks", q["marks"], float(kv["marks"])),
         ("bottleneck drops", q["drops"], float(kv["drops"]))]
print()
print(f"{'result':28}{'cclab':>12}{'ns-3':>12}{'diff':>9}")
for name, a, b in rows:
    d = (b / a - 1) * 100 if a else float("nan")
    flag = "  > 5%" if abs(d) > 5 else ""
    print(f"{name:28}{a:12.2f}{b:12.2f}{d:8.1f}%{flag}")
PY

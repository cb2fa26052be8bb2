"""DCTCP's marking threshold K against query completion time and queue length, on the
incast scenario (examples/incast.toml): a sweep over K and seeds, in one script.

    python examples/python/incast_k_sweep.py            # 6 values of K x 5 seeds
    python examples/python/incast_k_sweep.py --quick    # fewer queries (what the tests run)
    python examples/python/incast_k_sweep.py --dask     # the same points on a Dask LocalCluster

Writes the sweep's tables to out/incast_k_sweep/ (run it again: nothing is recomputed) and
the figure to out/incast_k_sweep.png. The notebook incast_k_sweep.ipynb has the same cells.
"""

import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt

import cclab

ROOT = pathlib.Path(__file__).resolve().parents[2]
K = ["5pkts", "10pkts", "20pkts", "30pkts", "45pkts", "65pkts"]


def scenario(quick: bool) -> str:
    """incast.toml (20 workers answer 50 KB each through a 1 Gbit/s DCTCP port with a
    100-packet buffer), with a [sweep] over K and 5 seeds."""
    text = (ROOT / "examples" / "incast.toml").read_text()
    if quick:
        text = text.replace("queries = 100", "queries = 20").replace('duration = "2s"', 'duration = "1s"')
    keys = ", ".join(f'"{k}"' for k in K)
    return text + f'\n[sweep]\n"topology.link.classes.0.k" = [{keys}]\nseeds = 5\n'


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="20 queries per run instead of 100")
    ap.add_argument("--dask", action="store_true", help="run the points on a Dask LocalCluster")
    ap.add_argument("--out", default=str(ROOT / "out" / "incast_k_sweep"), help="sweep folder")
    ap.add_argument("--png", default=str(ROOT / "out" / "incast_k_sweep.png"), help="figure")
    a = ap.parse_args()

    text = scenario(a.quick)
    if a.dask:
        from dask.distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster) as client:
            s = cclab.sweep(text, out=a.out, client=client)
    else:
        s = cclab.sweep(text, out=a.out)  # every core
    print(f"{s.ran} points run, {s.on_disk} found in {a.out}")

    key = "topology.link.classes.0.k"
    k_pkts = lambda col: col.str.removesuffix("pkts").astype(int)  # noqa: E731

    q = s.queries.assign(K=lambda d: k_pkts(d[key]))
    qct = q.groupby("K").agg(mean=("qct_mean_s", "mean"), p99=("qct_p99_s", "mean")) * 1e3
    b = s.queues[s.queues["queue"] == "bottleneck"].assign(K=lambda d: k_pkts(d[key]))
    # Bytes over 1,500-byte packets: the queue in packets.
    queue = b.groupby("K").agg(mean=("mean_bytes", "mean"), max=("max_bytes", "mean")) / 1500
    print("query completion time (ms) over 5 seeds:\n", qct.round(3))
    print("bottleneck queue (packets):\n", queue.round(2))

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.scatter(q["K"], q["qct_p99_s"] * 1e3, s=12, alpha=0.5, label="p99, each seed")
    ax1.plot(qct.index, qct["p99"], marker="o", label="p99, mean over seeds")
    ax1.plot(qct.index, qct["mean"], marker="s", label="mean")
    ax1.set_yscale("log")
    ax1.axhline(8.5, color="grey", ls=":", label="ideal: 1 MB at 1 Gbit/s")
    ax1.set(xlabel="DCTCP marking threshold K (packets)", ylabel="query completion time (ms)")
    ax1.legend()
    ax2.plot(queue.index, queue["mean"], marker="o", label="time-average")
    ax2.plot(queue.index, queue["max"], marker="^", label="maximum")
    ax2.set(xlabel="DCTCP marking threshold K (packets)", ylabel="bottleneck queue (packets)")
    ax2.legend()
    fig.suptitle("incast, 20 workers x 50 KB, 1 Gbit/s, 100-packet buffer (cclab sweep, 5 seeds)")
    fig.tight_layout()
    pathlib.Path(a.png).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(a.png, dpi=120)
    print("figure:", a.png)


if __name__ == "__main__":
    main()

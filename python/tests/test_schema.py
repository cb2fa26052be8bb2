"""One table schema (issue 52, finding 10): `cclab.run`, `cclab.sweep` of one point and the
command line's `cclab run` give the same tables, columns and values."""

import math

import pandas as pd
import pytest

import cclab

# A small scenario with every kind of table (as crates/cclab-cli/tests/it/schema.rs).
MIX = """
[sim]
name = "mix"
duration = "60ms"
seed = 3

[topology]
kind = "star"
senders = 4
link = { rate = "1Gbps", delay = "5us", queue = "droptail", limit = "100pkts" }

[[flow]]
from = "s0"
to = "recv"
bytes = "20KB"

[[flow]]
from = "s1"
to = "recv"
start = "1ms"

[[aggregate]]
aggregator = "recv"
workers = ["s2", "s3"]
response = "30KB"
queries = 3
think = "2ms"

[[ping]]
from = "s0"
to = "recv"
interval = "5ms"

[output]
cwnd = "1ms"
queue = "1ms"
throughput = "10ms"
queues = ["bottleneck"]
tsg = [0]
plots = false
"""

TABLES = ["runs", "flows", "fct", "fct_buckets", "queues", "pings", "queries", "hosts",
          "cwnd", "queue", "throughput", "tsg"]


def same(name, col, a, b):
    """Column `col` of table `name`: equal values, nulls in the same rows."""
    assert len(a) == len(b), (name, col)
    for i, (x, y) in enumerate(zip(a, b)):
        nx = x is None or x is pd.NA or (isinstance(x, float) and math.isnan(x))
        ny = y is None or y is pd.NA or (isinstance(y, float) and math.isnan(y))
        assert nx == ny, (name, col, i, x, y)
        if not nx:
            if isinstance(x, (int, float)) and not isinstance(x, bool):
                assert float(x) == float(y), (name, col, i, x, y)
            else:
                assert str(x) == str(y), (name, col, i, x, y)


def test_f10_cclab_run_a_sweep_point_and_the_command_line_give_the_same_tables(cli, tmp_path):
    f = tmp_path / "mix.toml"
    f.write_text(MIX)
    cli("run", f, "--out", tmp_path / "cli", "-q")
    r = cclab.run(MIX)
    s = cclab.sweep(MIX + "\n[sweep]\nseeds = [3]\n")
    for name in TABLES:
        py = r.table(name)
        csv_path = tmp_path / "cli" / f"{name}.csv"
        # Every cell as text; Python's float() reads Rust's shortest round-trip form back
        # exactly.
        c = pd.read_csv(csv_path, keep_default_na=False, na_values=[""], dtype=object)
        assert list(py.columns) == list(c.columns), name
        assert len(py) == len(c) > 0, name
        pq = pd.read_parquet(tmp_path / "cli" / f"{name}.parquet")
        assert list(pq.columns) == list(py.columns), name
        sw = getattr(s, name) if name in ("runs", "flows", "queues", "pings", "queries") \
            else s.tables[name]
        # The sweep's table: `seed` after `run_id`, then the run's columns.
        assert list(sw.columns) == ["run_id", "seed"] + list(py.columns)[1:], name
        for col in py.columns:
            want = py[col].tolist()
            if py[col].dtype == "float64":
                got = [None if (v is None or (isinstance(v, float) and math.isnan(v)))
                       else float(v) for v in c[col]]
            elif str(py[col].dtype) == "Int64":
                got = [None if (v is None or (isinstance(v, float) and math.isnan(v)))
                       else int(v) for v in c[col]]
            elif str(py[col].dtype) == "boolean":
                got = [None if not isinstance(v, str) else v == "true" for v in c[col]]
            else:
                got = [None if not isinstance(v, str) else v for v in c[col]]
            same(name, col, want, got)
            same(name, col, want, pq[col].tolist())
            same(name, col, want, sw[col].tolist())


def test_f10_fct_is_last_byte_delivered_and_units_are_in_the_names():
    r = cclab.run(MIX)
    f = r.flows
    for t in r.tables:
        for col in r.table(t).columns:
            assert not col.endswith(("_ms", "_mbps")), (t, col)
    sized = f[f["size_bytes"].notna()]
    assert len(sized) == 1
    row = sized.iloc[0]
    assert 0 < row.fct_s < row.acked_s
    assert r.table("fct")["fct_s"].tolist() == [row.fct_s]
    js = r.summary["flows"][int(row.flow)]
    assert js["fct_s"] == row.fct_s and js["acked_s"] == row.acked_s
    # The aggregate's workers are not sized flows.
    assert f["size_bytes"].isna().sum() == 3
    c = r.series("cwnd")
    assert c["ssthresh"].isna().any() and c["srtt_s"].isna().any()
    assert (c["ssthresh"].dropna() < 2**30).all() and (c["srtt_s"].dropna() > 0).all()


if __name__ == "__main__":
    pytest.main([__file__])

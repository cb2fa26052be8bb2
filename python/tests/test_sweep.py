"""Sweeps: the same bytes from `cclab sweep --jobs 1`, `--jobs 2`, Python and a Dask
LocalCluster of two worker processes; the tables read back the same from CSV and Parquet;
bad sweeps raise ScenarioError."""

import pandas as pd
import pytest

import cclab
from conftest import ROOT, files_of

SWEEP = ROOT / "examples" / "sweep.toml"


def tables(d):
    # sweep.json records who ran the sweep (command line, Python): the rest is the result.
    return {k: v for k, v in files_of(d).items() if k != "sweep.json"}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The sweep by the command line, one job."""
    import subprocess
    from conftest import cclab_bin

    d = tmp_path_factory.mktemp("sweep") / "jobs1"
    subprocess.run([cclab_bin(), "sweep", str(SWEEP), "--out", str(d), "--jobs", "1", "-q"], check=True)
    return d


def test_jobs_python_and_dask_give_identical_bytes(reference, cli, tmp_path):
    ref = tables(reference)
    # 3 K values × 2 congestion controls × 5 seeds.
    assert sum(k.startswith("points/") for k in ref) == 30
    for name in ["runs", "flows", "queues", "pings", "queries"]:
        assert f"{name}.csv" in ref and f"{name}.parquet" in ref

    cli("sweep", SWEEP, "--out", tmp_path / "jobs2", "--jobs", "2", "-q")
    assert tables(tmp_path / "jobs2") == ref, "cclab sweep --jobs 2"

    s = cclab.sweep(str(SWEEP), out=tmp_path / "py", jobs=2)
    assert (s.on_disk, s.ran) == (0, 30)
    assert tables(tmp_path / "py") == ref, "cclab.sweep"

    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        d = cclab.sweep(str(SWEEP), out=tmp_path / "dask", client=client)
        assert (d.on_disk, d.ran) == (0, 30)
        # Resumable through Dask too: everything is on disk, nothing runs again.
        again = cclab.sweep(str(SWEEP), out=tmp_path / "dask", client=client)
        assert (again.on_disk, again.ran) == (30, 0)
    assert tables(tmp_path / "dask") == ref, "cclab.sweep(client=LocalCluster)"
    # In memory (no folder): the same tables.
    m = cclab.sweep(str(SWEEP), jobs=1)
    pd.testing.assert_frame_equal(m.queries, s.queries)


def test_tables_read_back_the_same_from_csv_and_parquet(reference):
    for name in ["runs", "flows", "queues", "pings", "queries"]:
        pq = pd.read_parquet(reference / f"{name}.parquet")
        csv = pd.read_csv(reference / f"{name}.csv")
        assert list(pq.columns) == list(csv.columns), name
        assert len(pq) == len(csv) > 0, name
        for c in csv.columns:
            a, b = pq[c], csv[c]
            if pd.api.types.is_float_dtype(a):
                # CSV holds the shortest text that reads back as the same double.
                assert ((a == b) | (a.isna() & b.isna())).all(), (name, c)
            else:
                assert a.astype(str).tolist() == b.astype(str).tolist(), (name, c)
    q = pd.read_parquet(reference / "queries.parquet")
    assert list(q.columns[:4]) == ["run_id", "seed", "tcp.cc", "topology.link.classes.0.k"]
    assert q.groupby(["tcp.cc", "topology.link.classes.0.k"]).size().tolist() == [5] * 6
    assert sorted(set(q["seed"])) == [7, 8, 9, 10, 11]
    assert q["run_id"].is_unique


def test_sweep_frames_are_typed():
    s = cclab.sweep(str(SWEEP), jobs=2)
    q = s.queries
    assert str(q["seed"].dtype) == "Int64"
    assert str(q["tcp.cc"].dtype) == "string"
    assert q["qct_p99_s"].dtype == "float64"
    with pytest.raises(AttributeError, match="has no table"):
        s.nope


def test_bad_sweeps_raise_scenario_error(tmp_path):
    base = (ROOT / "examples" / "dumbbell.toml").read_text()
    with pytest.raises(cclab.ScenarioError, match=r"needs a \[sweep\] table"):
        cclab.sweep(base)
    with pytest.raises(cclab.ScenarioError) as e:
        cclab.sweep(base + '\n[sweep]\n"tcp.cc" = ["reno", "cubik"]\n')
    assert e.value.key == "tcp.cc" and "cubik" in e.value.value
    (tmp_path / "x.txt").write_text("x")
    with pytest.raises(cclab.ScenarioError, match="did not write"):
        cclab.sweep(str(SWEEP), out=tmp_path)

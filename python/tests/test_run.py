"""cclab.run against `cclab run`: the same numbers, the same files, the same errors; typed
DataFrames; the GIL released; Ctrl-C."""

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pandas as pd
import pytest

import cclab
from conftest import ROOT, files_of

DUMBBELL = ROOT / "examples" / "dumbbell.toml"


def test_version_matches_the_workspace():
    cargo = (ROOT / "Cargo.toml").read_text()
    line = next(l for l in cargo.splitlines() if l.startswith("version"))
    assert cclab.version() == line.split('"')[1] == cclab.__version__


def test_run_gives_the_numbers_of_cclab_run(cli, tmp_path):
    p = cli("run", DUMBBELL, "--out", tmp_path / "cli", "--json", "-q")
    summary = json.loads(p.stdout)
    r = cclab.run(str(DUMBBELL), out=tmp_path / "py")
    # The summary is parsed when first asked for, not before (not even by repr).
    text = repr(r)
    assert r._summary is None
    assert f"{len(summary['flows'])} flows" in text and summary["run_id"] in text
    # The whole summary, every number of it, is the command line's.
    assert r.summary == summary
    assert r.meta["run_id"] == summary["run_id"] and r.meta["seed"] == 1
    f = r.flows
    assert list(f["flow"]) == [x["flow"] for x in summary["flows"]]
    for row, s in zip(f.itertuples(index=False), summary["flows"]):
        assert row.goodput_bps == s["goodput_bps"]
        assert row.bytes == s["bytes"] and row.retransmits == s["retransmits"]
        assert row.rtt_p99_s == s["rtt_p99_s"]
        assert row.rtt_mean_s == s["rtt_mean_s"]
        assert row.cc == s["cc"] and row.ss == s["ss"]
    q = r.queues.set_index("queue")
    for s in summary["queues"]:
        assert q.loc[s["queue"], "drops"] == s["drops"]
        assert q.loc[s["queue"], "mean_bytes"] == s["mean_bytes"]
    assert r.pings["rtt_p99_s"][0] == summary["pings"][0]["rtt_p99_s"]
    # And the folder it wrote is the command line's, file for file (the manifest and
    # perf.json hold the command line and the wall clock).
    a, b = files_of(tmp_path / "cli"), files_of(tmp_path / "py")
    assert sorted(a) == sorted(b)
    for k in a:
        if k not in ("run.json", "perf.json"):
            assert a[k] == b[k], k


def test_tables_are_typed_with_units_in_the_names():
    r = cclab.run(str(DUMBBELL), set={"sim.duration": "2s"})
    f = r.flows
    assert str(f["flow"].dtype) == "Int64"
    assert str(f["cc"].dtype) == "string"
    assert f["goodput_bps"].dtype == "float64"
    for col in ["goodput_bps", "rtt_mean_s", "rtt_p99_s", "fct_s", "acked_s", "start_s"]:
        assert col in f.columns
    # An optional value is a null of the column's type, not a missing column.
    assert f["fct_s"].isna().all()
    assert r.queues["police_conformed"].isna().all()
    assert str(r.queues["police_conformed"].dtype) == "Int64"
    assert r.runs.loc[0, "scenario"] == "dumbbell-cubic-rtt"


def test_series_are_long_format():
    r = cclab.run(str(DUMBBELL), set={"sim.duration": "2s"})
    c = r.series("cwnd")
    assert list(c.columns) == ["run_id", "t_s", "flow", "cwnd", "ssthresh", "srtt_s", "in_flight"]
    # One row per sample and flow: 10 ms samples of 2 flows (the second starts at 1 s).
    assert set(c["flow"]) == {0, 1}
    assert (c.groupby("flow")["t_s"].diff().dropna().round(6) == 0.01).all()
    q = r.series("queue")
    assert set(q["queue"]) == {"bottleneck"}
    assert list(r.series("throughput").columns) == ["run_id", "t_s", "flow", "goodput_bps"]
    with pytest.raises(KeyError, match="tsg"):
        r.series("tsg")
    with pytest.raises(KeyError, match="allowed"):
        r.series("nope")


def test_scenario_as_toml_text_dict_and_set_values():
    text = DUMBBELL.read_text()
    a = cclab.run(text, set={"sim.duration": "2s", "tcp.cc": "reno"})
    b = cclab.run(str(DUMBBELL), set={"sim.duration": "2s", "tcp.cc": "reno"})
    assert a.flows["bytes"].tolist() == b.flows["bytes"].tolist()
    assert set(a.flows["cc"]) == {"reno"}
    d = {
        "sim": {"duration": "1s", "seed": 3},
        "topology": {"kind": "dumbbell", "senders": 1, "bottleneck": {"rate": "100Mbps", "delay": "5ms"}},
    }
    r = cclab.run(d)
    assert len(r.flows) == 1 and r.meta["seed"] == 3
    assert r.flows.loc[0, "goodput_bps"] > 50e6
    r7 = cclab.run(d, seed=7)
    assert r7.meta["seed"] == 7 and r7.meta["run_id"] != r.meta["run_id"]


def test_bad_input_raises_scenario_error_with_the_cli_message(cli):
    with pytest.raises(cclab.ScenarioError) as e:
        cclab.run(str(DUMBBELL), set={"tcp.cc": "cubik"})
    assert isinstance(e.value, ValueError)
    assert e.value.key == "tcp.cc" and e.value.value == '"cubik"'
    assert "reno" in e.value.allowed  # what is allowed
    p = cli("run", DUMBBELL, "--set", "tcp.cc=cubik", check=False)
    assert p.returncode == 2
    # The command line's message, with the value's origin named as Python passed it.
    assert e.value.file == "set="
    assert str(e.value).splitlines()[0].replace("set=:", "--set:", 1) in p.stderr
    # Every mistake at once, each in .errors.
    with pytest.raises(cclab.ScenarioError) as e:
        cclab.run(str(ROOT / "crates/cclab-cli/tests/data/five_mistakes.toml"))
    assert len(e.value.errors) == 5
    assert {x["key"] for x in e.value.errors} >= {"tcp.cc", "sim.duration"}
    with pytest.raises(cclab.ScenarioError, match="cannot read"):
        cclab.run("no/such/file.toml")
    with pytest.raises(cclab.ScenarioError, match="None"):
        cclab.run({"sim": {"duration": None}})
    with pytest.raises(cclab.ScenarioError, match="unknown experiment"):
        cclab.reproduce("nope")


def test_out_refuses_a_folder_of_someone_else(tmp_path):
    (tmp_path / "mine.txt").write_text("mine")
    with pytest.raises(cclab.ScenarioError, match="did not write"):
        cclab.run(str(DUMBBELL), out=tmp_path, set={"sim.duration": "2s"})
    assert files_of(tmp_path) == {"mine.txt": b"mine"}


def test_the_gil_is_released_while_simulating():
    """While one thread simulates, another runs Python without waiting for it: the
    simulation does not hold the GIL. Measured as the longest pause of a Python loop on
    the main thread during the run, not as a ratio of wall times, which a busy machine
    (CI's neighbours) can spoil either way."""
    span = {}

    def one():
        t0 = time.perf_counter()
        cclab.run(str(DUMBBELL), set={"sim.duration": "30s"})
        span["run"] = (t0, time.perf_counter())

    t = threading.Thread(target=one)
    samples = [time.perf_counter()]
    t.start()
    while t.is_alive():
        samples.append(time.perf_counter())
    t.join()
    t0, t1 = span["run"]
    during = [s for s in samples if t0 <= s <= t1] or [t0]
    points = [t0] + during + [t1]
    longest = max(b - a for a, b in zip(points, points[1:]))
    # Holding the GIL would stop this loop for the whole run (about a second here);
    # released, its pauses are the interpreter's switch interval (5 ms) and the OS's
    # scheduling, far below half the run.
    assert t1 - t0 > 0.2, "the run is too short to tell"
    assert longest < 0.5 * (t1 - t0), (longest, t1 - t0, len(during))


def test_ctrl_c_interrupts_a_run(tmp_path):
    out = tmp_path / "out"
    code = textwrap.dedent(
        f"""
        import signal, sys, time, cclab
        # Python turns SIGINT into KeyboardInterrupt only if the parent did not ignore it,
        # and a shell ignores it for its background jobs: a suite started with `&` gave
        # this child an ignored SIGINT, and the run went on to the timeout.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        print("start", flush=True)
        t0 = time.time()
        try:
            cclab.run(
                {{"sim": {{"duration": "100000s"}},
                  "topology": {{"kind": "dumbbell", "senders": 2,
                               "bottleneck": {{"rate": "1Gbps", "delay": "10ms"}}}}}},
                out={str(out)!r},
            )
        except KeyboardInterrupt:
            print("interrupted after", round(time.time() - t0, 2), flush=True)
            sys.exit(42)
        """
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "start"
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    t0 = time.time()
    rc = p.wait(timeout=20)
    assert rc == 42, p.stdout.read()
    assert time.time() - t0 < 5
    assert not out.exists() or not any(out.iterdir())


def test_polars_on_request():
    pl = pytest.importorskip("polars")
    r = cclab.run(str(DUMBBELL), set={"sim.duration": "2s"})
    f = r.flows_pl
    assert isinstance(f, pl.DataFrame)
    assert f["goodput_bps"].to_list() == r.flows["goodput_bps"].tolist()
    r2 = cclab.run(str(DUMBBELL), set={"sim.duration": "2s"}, backend="polars")
    assert isinstance(r2.queues, pl.DataFrame)


def test_lists_and_experiments():
    e = cclab.experiments()
    assert {"reno-recovery", "mathis", "dctcp-incast"} <= set(e["name"])
    l = cclab.list()
    assert "dctcp" in l["cc"] and "dumbbell" in l["topologies"] and "red" in l["queues"]


def test_a_problem_that_does_not_stop_the_run_is_a_warning(tmp_path, monkeypatch):
    """No temporary folder for a workload's finished flows: the rows stay in memory, the
    results are whole, and the user is told."""
    monkeypatch.setenv("TMPDIR", str(tmp_path / "absent"))
    with pytest.warns(RuntimeWarning, match="kept in memory instead"):
        r = cclab.run(str(ROOT / "examples" / "workload.toml"), set={"sim.duration": "0.5s"})
    assert len(r.meta["warnings"]) == 1
    assert len(r.flows) > 800

"""How Python presents a run: nulls where a value is missing (finding 14), `cclab.load`,
`Run.plot`, `Run._repr_html_`, progress bars, and the polars backend."""

import html
import io

import pandas as pd
import pytest

import cclab
from conftest import ROOT

DUMBBELL = str(ROOT / "examples" / "dumbbell.toml")
SHORT = {"sim.duration": "1200ms"}


@pytest.fixture(scope="module")
def run():
    return cclab.run(DUMBBELL, set={**SHORT, "output.tsg": [0], "output.cc": "100ms"})


def test_f14_cwnd_series_has_nulls_not_sentinels(run):
    """Before an RTT sample or a loss, srtt and ssthresh are missing: null, not 0.0 and
    1073741824 (2^30, the stack's cap while ssthresh is unset)."""
    c = run.series("cwnd")
    srtt = next(x for x in c.columns if x.startswith("srtt"))
    assert str(c["ssthresh"].dtype) == "Int64"
    assert c["ssthresh"].isna().any() and not (c["ssthresh"] >= 2**30).any()
    assert c[srtt].isna().any() and not (c[srtt] == 0).any()
    # Flow 1 starts at 1 s: no RTT sample before.
    first = c[c["flow"] == 1].iloc[0]
    assert pd.isna(first[srtt]) and pd.isna(first["ssthresh"])


def test_f14_polars_cwnd_has_the_same_nulls(run):
    pl = pytest.importorskip("polars")
    c = run.table("cwnd", "polars")
    srtt = next(x for x in c.columns if x.startswith("srtt"))
    pd_c = run.series("cwnd")
    assert c["ssthresh"].null_count() == pd_c["ssthresh"].isna().sum() > 0
    assert c[srtt].null_count() == pd_c[srtt].isna().sum() > 0
    assert isinstance(c, pl.DataFrame)


def test_f14_reproduce_text_columns_are_nullable_strings():
    rep = cclab.reproduce("dctcp-k", quick=True, quiet=True)
    t = rep.table
    for col in ("variant", "metric", "against", "status"):
        assert str(t[col].dtype) == "string", (col, t[col].dtype)
    unseeded = t[t["seed"].isna()]
    assert len(unseeded) and unseeded["against"].isna().all()
    assert not any(v is None for v in t["against"].tolist() if not pd.isna(v))
    assert all(str(rep.checks[c].dtype) == "string" for c in ("name", "status"))


def test_load_gives_the_run_cclab_run_gave(tmp_path):
    out = tmp_path / "run"
    r = cclab.run(DUMBBELL, set={**SHORT, "output.tsg": [0], "output.cc": "100ms"}, out=out)
    if not (out / "flows.parquet").exists():
        pytest.skip("this build writes no flows.parquet (the schema branch of issue 52 does)")
    back = cclab.load(out)
    assert back.tables == r.tables
    for name in r.tables:
        pd.testing.assert_frame_equal(back.table(name), r.table(name), check_exact=True)
    assert back.summary == r.summary
    for k in ("run_id", "seed", "scenario", "cclab", "git"):
        assert back.meta[k] == r.meta[k], k


def test_load_refuses_what_is_not_a_run(tmp_path):
    with pytest.raises(cclab.ScenarioError) as e:
        cclab.load(tmp_path)
    assert e.value.key == "folder" and "run.json" in str(e.value)
    with pytest.raises(cclab.ScenarioError):
        cclab.load(tmp_path / "absent")


def test_plot_draws_each_series(run):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    ax = run.plot("cwnd")
    assert len(ax.get_lines()) == len(run.flows) == 2
    assert ax.get_ylabel() == "cwnd (segments)"
    ax = run.plot("queue")
    assert [l.get_label() for l in ax.get_lines()] == ["bottleneck"]
    ax = run.plot("throughput")
    assert len(ax.get_lines()) == 2
    ys = [l.get_ydata() for l in ax.get_lines()]
    # Mbit/s, not bit/s: the busiest interval is above 100, and each flow's mean is within
    # the 1 Gbit/s bottleneck. One interval may exceed the link (1155 Mbit/s since CUBIC
    # follows v6.6's HyStart rounds): the series is in-order goodput, and a repaired hole
    # releases at once what the receiver held out of order.
    assert max(max(y) for y in ys) > 100
    assert all(0 < sum(y) / len(y) < 1000 for y in ys)
    ax = run.plot("tsg")
    assert {l.get_label() for l in ax.get_lines()} >= {"data", "ack"}
    fig, given = plt.subplots()
    assert run.plot("cwnd", ax=given) is given
    plt.close("all")
    with pytest.raises(cclab.ScenarioError, match="allowed"):
        run.plot("rtt")
    with pytest.raises(cclab.ScenarioError) as e:
        run.plot("tsg", flow=5)
    assert e.value.key == "flow"
    # cc: one quantity, a line per flow; which one must be said.
    ax = run.plot("cc", name="last_max_cwnd")
    assert len(ax.get_lines()) == 2 and ax.get_ylabel() == "last_max_cwnd"
    plt.close("all")
    with pytest.raises(cclab.ScenarioError) as e:
        run.plot("cc")
    assert e.value.key == "name" and "'bic_K_s'" in e.value.allowed


def test_cc_state_is_the_cc_series_a_column_each():
    """Two algorithms: the long table has a row per quantity, the wide one a column per
    quantity of either, NaN where a flow's algorithm has none."""
    r = cclab.run(DUMBBELL, set={**SHORT, "output.cc": "100ms", "flow.1.cc": "htcp"})
    long = r.series("cc")
    assert list(long.columns) == ["run_id", "t_s", "flow", "cc", "name", "value", "label"]
    assert str(long["name"].dtype) == "string" and long["label"].isna().all()
    w = r.cc_state()
    cubic = ["last_max_cwnd", "bic_K_s", "bic_origin_point", "found"]
    htcp = ["alpha", "beta", "minRTT_s", "maxRTT_s"]
    assert list(w.columns) == ["t_s", "flow", "cc", *cubic, *htcp]
    assert len(w) == len(long[["t_s", "flow"]].drop_duplicates())
    assert set(w[w["flow"] == 0]["cc"]) == {"cubic"} and set(w[w["flow"] == 1]["cc"]) == {"htcp"}
    assert w[w["flow"] == 0][htcp].isna().all().all()
    assert w[w["flow"] == 1][cubic].isna().all().all()
    # The same numbers as the long table.
    one = long[(long["flow"] == 1) & (long["name"] == "beta")]
    assert w[w["flow"] == 1]["beta"].tolist() == one["value"].tolist()
    assert (one["value"].between(0.5, 0.8)).all()


def test_repr_html_shows_the_run(run):
    h = run._repr_html_()
    assert run.meta["run_id"] in h and "<table" in h
    assert "flows" in h and ".plot(&#x27;cwnd&#x27;)" in h
    assert ".plot(&#x27;cc&#x27;, name=…)" in h
    # A scenario name is escaped.
    r = cclab.run(DUMBBELL, set={**SHORT, "sim.name": "a<b>"})
    assert "a&lt;b&gt;" in r._repr_html_() and "a<b>" not in r._repr_html_()


SWEEP = (ROOT / "examples" / "dumbbell.toml").read_text().replace('"30s"', '"1200ms"') + """
[sweep]
"tcp.cc" = ["reno", "cubic"]
seeds = 2
"""


def test_sweep_and_reproduce_show_a_progress_bar_when_asked(capsys):
    pytest.importorskip("tqdm")
    s = cclab.sweep(SWEEP, jobs=1, progress=True)
    err = capsys.readouterr().err
    assert "sweep" in err and "/4 " in err and "point" in err
    assert len(s.runs) == 4
    cclab.reproduce("dctcp-k", quick=True, progress=True)
    err = capsys.readouterr().err
    assert "dctcp-k" in err and "run" in err


def test_no_progress_bar_when_not_a_terminal_or_quiet(capsys):
    cclab.sweep(SWEEP, jobs=1)  # stderr is not a terminal here
    cclab.sweep(SWEEP, jobs=1, quiet=True)
    assert capsys.readouterr().err == ""


def test_the_extras_are_installed_where_the_suite_needs_them(root):
    """./test.sh installs every extra of pyproject.toml (and sets CCLAB_REQUIRE_EXTRAS), so
    the tests of polars, plots and progress bars run there rather than being skipped."""
    import importlib
    import os

    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert {"plot", "polars", "progress", "dask", "notebook"} <= set(extras)
    if not os.environ.get("CCLAB_REQUIRE_EXTRAS"):
        pytest.skip("outside ./test.sh")
    modules = {"matplotlib": "matplotlib", "polars": "polars", "tqdm": "tqdm",
               "dask[distributed]": "distributed"}
    for name in ("plot", "polars", "progress", "dask"):
        for req in extras[name]:
            importlib.import_module(modules[req])


def test_cc_state_shows_a_level_by_its_name():
    """A quantity with named levels (BBR's mode, when it comes) is its name in the wide
    table and its y ticks in the plot; numbers beside it stay numbers."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    t = pa.table({
        "run_id": ["x"] * 4,
        "t_s": [0.1, 0.1, 0.2, 0.2],
        "flow": pa.array([0, 0, 0, 0], pa.int64()),
        "cc": ["bbr"] * 4,
        "name": ["mode", "pacing_gain", "mode", "pacing_gain"],
        "value": [0.0, 2.885, 2.0, 1.25],
        "label": ["STARTUP", None, "PROBE_BW", None],
    })
    buf = io.BytesIO()
    pq.write_table(t, buf)
    r = cclab.Run("{}", [("cc", buf.getvalue())], '{"run_id": "x"}', "pandas")
    w = r.cc_state()
    assert list(w.columns) == ["t_s", "flow", "cc", "mode", "pacing_gain"]
    assert w["mode"].tolist() == ["STARTUP", "PROBE_BW"]
    assert w["pacing_gain"].tolist() == [2.885, 1.25]
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt

    ax = r.plot("cc", name="mode")
    assert [x.get_text() for x in ax.get_yticklabels()] == ["STARTUP", "PROBE_BW"]
    plt.close("all")

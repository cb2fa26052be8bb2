"""cclab — a congestion-control laboratory, from Python.

The simulator is the Rust core (``cclab._cclab``, built by maturin); this module turns
what it returns into pandas DataFrames (or polars ones, on request)::

    import cclab
    r = cclab.run("examples/dumbbell.toml", overrides={"tcp.cc": "reno"})
    r.flows[["flow", "cc", "goodput_bps", "rtt_p99_s"]]
    r.series("cwnd")                       # long format: one row per sample and flow
    r.cc_state()                           # the algorithms' state ([output] cc), a column each

    s = cclab.sweep("examples/sweep.toml", out="out/sweep")   # every core, resumable
    s.queries.groupby(["tcp.cc", "topology.link.classes.0.k"]).qct_p99_s.mean()

    rep = cclab.reproduce("mathis", quick=True)
    rep.table, rep.checks

Every table has a fixed set of typed columns with the unit in the name (``goodput_bps``,
``rtt_p99_s``, ``t_s``: seconds, bit/s, bytes, as summary.json); ``run_id`` names the run a row comes from. The simulation
releases the GIL, so runs in threads go in parallel. Ctrl-C (or ``cclab.cancel()``) stops
every run, sweep and experiment of the process, on any thread, and leaves their output
folders as they were: each raises ``cclab.Cancelled``, a ``KeyboardInterrupt``.
"""

from __future__ import annotations

import html
import io
import json
import math
import numbers
import os
import pathlib
import sys
import threading
import warnings
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Union

from . import _cclab
from ._cclab import Cancelled, ScenarioError

__all__ = [
    "run",
    "load",
    "cancel",
    "sweep",
    "reproduce",
    "experiments",
    "list",
    "version",
    "Run",
    "Sweep",
    "Report",
    "ScenarioError",
    "Cancelled",
    "SERIES",
]

__version__: str = _cclab.version()

#: The time series a run can record (``[output] cwnd``, ``cc``, ``queue``,
#: ``throughput``, ``tsg``), as ``Run.series`` names them.
SERIES = ("cwnd", "cc", "queue", "throughput", "tsg")

Scenario = Union[str, "os.PathLike[str]", Mapping[str, Any]]

_builtin_list = list


def version() -> str:
    """cclab's version (the Rust crate's)."""
    return _cclab.version()


def cancel() -> int:
    """Stop every cclab run, sweep and experiment under way in this process, on any
    thread (what Ctrl-C does): each raises :class:`Cancelled` in its caller and leaves its
    output folder as it was. Returns how many were under way."""
    return _cclab.cancel()


# ----- arguments: every bad one is a ScenarioError naming it

_U64 = 2**64
_I64 = 2**63


def _shown(v: Any) -> str:
    t = repr(v)
    return t if len(t) <= 120 else t[:117] + "..."


def _arg_error(where: str, key: str, value: Any, allowed: str, problem: str = "") -> ScenarioError:
    """A :class:`ScenarioError` about an argument (``where``: the function or ``set=``,
    ``key``: the argument or dotted key), its value and what is allowed, shaped as the
    core's errors are (``file``, ``key``, ``value``, ``allowed``, ``errors``)."""
    shown = value if isinstance(value, str) and where.endswith("=") else _shown(value)
    message = f"{problem + '; ' if problem else ''}allowed: {allowed}"
    e = ScenarioError(f"{where}: key '{key}' = {shown}: {message}")
    e.errors = [{"file": where, "key": key, "value": shown, "message": message}]
    e.file, e.key, e.value, e.allowed = where, key, shown, allowed
    return e


def _int_arg(fn: str, name: str, v: Any, lo: int, hi: int, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise _arg_error(fn, name, v, what, f"not an integer ({type(v).__name__})")
    v = int(v)
    if not lo <= v <= hi:
        raise _arg_error(fn, name, v, what, "out of range")
    return v


def _seed_arg(fn: str, seed: Any) -> Optional[int]:
    if seed is None:
        return None
    return _int_arg(fn, "seed", seed, 0, _U64 - 1, "an integer from 0 to 2^64 - 1, or None")


def _jobs_arg(fn: str, name: str, jobs: Any) -> int:
    return _int_arg(fn, name, jobs, 0, 4096, "an integer from 0 (one per core) to 4096")


def _bool_arg(fn: str, name: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise _arg_error(fn, name, v, "True or False")
    return v


def _backend_arg(fn: str, backend: Any) -> str:
    if backend not in ("pandas", "polars"):
        raise _arg_error(fn, "backend", backend, "'pandas' or 'polars'")
    return backend


def _path_arg(fn: str, name: str, v: Any) -> Optional[str]:
    if v is None:
        return None
    allowed = "a folder path (str or os.PathLike) without NUL characters, or None"
    if isinstance(v, os.PathLike):
        v = os.fspath(v)
    if isinstance(v, bytes):
        try:
            v = os.fsdecode(v)
        except UnicodeDecodeError:
            raise _arg_error(fn, name, v, allowed, "not decodable") from None
    if not isinstance(v, str):
        raise _arg_error(fn, name, v, allowed, f"not a path ({type(v).__name__})")
    if "\0" in v or v == "":
        raise _arg_error(fn, name, v, allowed, "empty" if v == "" else "holds a NUL character")
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:
        raise _arg_error(fn, name, v, allowed, "not valid UTF-8") from None
    return v


_PLAIN = "a string, a bool, an integer (64-bit), a finite float, a list or a dict of these"


def _plain(v: Any, where: str, key: str) -> Any:
    """``v`` as JSON-able plain values (what TOML can hold), or a ScenarioError naming the
    dotted key of the first value that is not: None, NaN and infinities, integers beyond
    64 bits, other types."""
    if isinstance(v, bool) or isinstance(v, str):
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                raise _arg_error(where, key, v, _PLAIN, "a string that is not valid UTF-8") from None
        return v
    if v is None:
        raise _arg_error(where, key, v, _PLAIN,
                         "None: TOML has no null; leave the key out for its default")
    if isinstance(v, numbers.Integral):
        v = int(v)
        if not -_I64 <= v < _I64:
            raise _arg_error(where, key, v, _PLAIN, "an integer beyond 64 bits")
        return v
    if isinstance(v, numbers.Real):
        v = float(v)
        if not math.isfinite(v):
            raise _arg_error(where, key, v, _PLAIN, "not a finite number")
        return v
    if isinstance(v, Mapping):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise _arg_error(where, f"{key}.{k!r}" if key else repr(k), k,
                                 "string keys", "a key that is not a string")
            out[k] = _plain(x, where, f"{key}.{k}" if key else k)
        return out
    if isinstance(v, (_builtin_list, tuple)):
        return [_plain(x, where, f"{key}.{i}") for i, x in enumerate(v)]
    raise _arg_error(where, key, v, _PLAIN, f"a {type(v).__name__}")


def _scenario(scenario: Scenario) -> "tuple[str, str]":
    """(TOML text, the name errors and the default ``sim.name`` use) of a scenario given as
    a path, a TOML string or a dict."""
    if isinstance(scenario, Mapping):
        plain = _plain(scenario, "<dict>", "")
        return _cclab.toml_from_json(json.dumps(plain, allow_nan=False)), "<dict>.toml"
    if isinstance(scenario, os.PathLike):
        scenario = os.fspath(scenario)
    if not isinstance(scenario, str):
        raise _arg_error("cclab", "scenario", scenario,
                         "a path to a TOML file, TOML text, or a dict of tables",
                         f"a {type(scenario).__name__}")
    if "\0" in scenario:
        raise _arg_error("cclab", "scenario", scenario,
                         "a path to a TOML file, TOML text, or a dict of tables",
                         "holds a NUL character")
    if "\n" in scenario or ("=" in scenario and not os.path.exists(scenario)):
        return scenario, "<string>.toml"
    return _cclab.read_scenario(scenario), scenario


def _toml_str(s: str) -> str:
    # JSON's string escapes are TOML's; DEL is a control character TOML wants escaped.
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_value(v: Any) -> str:
    """A plain value (``_plain``) as an inline TOML value."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return _toml_str(v)
    if isinstance(v, _builtin_list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return "{" + ", ".join(f"{_toml_str(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"


def _sets(overrides: Optional[Mapping[str, Any]], where: str = "set=") -> List[str]:
    """``--set`` words from a dict of dotted keys, values as TOML has them: strings as TOML
    strings (``"10"`` stays a string), numbers and booleans as such, a list as a TOML array
    (of values or of tables: it replaces the key's array), and a dict as a table whose
    keys are set one by one (``{"topology.bottleneck": {"rate": "2Gbps"}}`` is
    ``{"topology.bottleneck.rate": "2Gbps"}``; the table's other keys stay)."""
    if overrides is None:
        return []
    if not isinstance(overrides, Mapping):
        raise _arg_error("cclab", where.rstrip("="), overrides,
                         "a dict of dotted keys, e.g. {'tcp.cc': 'reno'}")
    words: List[str] = []

    def add(key: str, v: Any) -> None:
        if isinstance(v, Mapping) and v:
            for k, x in v.items():
                if not isinstance(k, str):
                    raise _arg_error(where, f"{key}.{k!r}", k, "string keys",
                                     "a key that is not a string")
                add(f"{key}.{k}", x)
            return
        words.append(f"{key}={_toml_value(_plain(v, where, key))}")

    for k, v in overrides.items():
        if not isinstance(k, str) or not k.strip():
            raise _arg_error(where, repr(k), k, "dotted keys as strings, e.g. 'tcp.cc'",
                             "not a key")
        add(k, v)
    return words


def _python_names(e: ScenarioError, where: str) -> None:
    """Errors about ``--set`` values named as Python passed them (``set=``, ``overrides=``)."""
    errors = getattr(e, "errors", None) or []
    if not any(x.get("file") == "--set" for x in errors):
        return
    for x in errors:
        if x.get("file") == "--set":
            x["file"] = where
    if getattr(e, "file", None) == "--set":
        e.file = where
    lines = str(e).split("\n")
    e.args = ("\n".join(where + l[5:] if l.startswith("--set:") else l for l in lines),)


def _overrides(overrides: Any, set_: Any) -> Any:
    if overrides is not None and set_ is not None:
        raise _arg_error("cclab", "set", set_, "overrides= or set= (its alias), not both")
    return overrides if overrides is not None else set_


def _frames(tables: Iterable["tuple[str, bytes]"], backend: str) -> Dict[str, Any]:
    """DataFrames from the core's tables (Parquet bytes): pandas with nullable integer,
    boolean and string dtypes, or polars."""
    out = {}
    if backend == "polars":
        try:
            import polars as pl
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError(
                "backend='polars' needs polars: pip install polars (or cclab[polars])"
            ) from e
        for name, data in tables:
            out[name] = _nulls_pl(name, pl.read_parquet(io.BytesIO(data)))
        return out
    if backend != "pandas":
        raise _arg_error("cclab", "backend", backend, "'pandas' or 'polars'")
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = {
        pa.int64(): pd.Int64Dtype(),
        pa.bool_(): pd.BooleanDtype(),
        pa.string(): pd.StringDtype(),
        pa.large_string(): pd.StringDtype(),
    }
    for name, data in tables:
        df = pq.read_table(pa.BufferReader(data)).to_pandas(types_mapper=types.get)
        out[name] = _nulls_pd(name, df)
    return out


#: In the ``cwnd`` series, the values that mean "none yet": ssthresh unset (the stack's
#: 2^30 cap) and no RTT sample (0). Shown as nulls, as the other tables show a missing
#: value. (A core that writes nulls there already makes this a no-op.)
_SSTHRESH_UNSET = 2**30


def _nulls_pd(name: str, df: Any) -> Any:
    if name == "cwnd":
        if "ssthresh" in df:
            df["ssthresh"] = df["ssthresh"].mask(df["ssthresh"] >= _SSTHRESH_UNSET)
        for c in [c for c in df.columns if c.startswith("srtt")]:
            df[c] = df[c].mask(df[c] <= 0)
    return df


def _nulls_pl(name: str, df: Any) -> Any:
    if name == "cwnd":
        import polars as pl

        cols = []
        if "ssthresh" in df.columns:
            cols.append(
                pl.when(pl.col("ssthresh") >= _SSTHRESH_UNSET)
                .then(None)
                .otherwise(pl.col("ssthresh"))
                .alias("ssthresh")
            )
        for c in [c for c in df.columns if c.startswith("srtt")]:
            cols.append(pl.when(pl.col(c) <= 0).then(None).otherwise(pl.col(c)).alias(c))
        if cols:
            df = df.with_columns(cols)
    return df


class Run:
    """A finished run: its tables as DataFrames, its summary and where it came from.

    Tables (one row each per): ``runs`` (the run), ``flows`` (TCP flow), ``queues`` (link
    queue), ``pings`` (ping probe), ``queries`` (partition/aggregate app); ``udp``,
    ``ocbr`` and ``hosts`` when the scenario has them. Time series: ``series(name)``.
    """

    def __init__(self, summary: str, tables: List["tuple[str, bytes]"], meta: str, backend: str):
        self._summary_text: Optional[str] = summary
        self._summary: Optional[Dict[str, Any]] = None
        self.meta: Dict[str, Any] = json.loads(meta)
        """cclab's version and git revision, the run id, the seed and the resolved scenario
        (TOML text that reruns it: ``cclab.run(r.meta['scenario'])``)."""
        self._raw = dict(tables)
        self._backend = backend
        self._frames: Dict[str, Any] = {}

    @property
    def summary(self) -> Dict[str, Any]:
        """The run's ``summary.json`` as a dict (SI units: s, bit/s, bytes). Parsed on first
        use: it holds every flow, hundreds of MB for a data-center workload, which a run
        read through its tables never needs."""
        if self._summary is None:
            self._summary = json.loads(self._summary_text or "{}")
            self._summary_text = None
        return self._summary

    def _table(self, name: str, backend: Optional[str] = None) -> Any:
        backend = backend or self._backend
        key = (name, backend)
        if key not in self._frames:
            if name not in self._raw:
                have = ", ".join(n for n in self._raw if n in SERIES) or "none"
                raise KeyError(
                    f"this run has no {name!r} table; time series recorded: {have} "
                    f"(ask for one in [output], e.g. set={{'output.{name}': '10ms'}})"
                )
            self._frames[key] = _frames([(name, self._raw[name])], backend)[name]
        return self._frames[key]

    @property
    def tables(self) -> List[str]:
        """The names of the tables this run has."""
        return _builtin_list(self._raw)

    @property
    def runs(self) -> Any:
        return self._table("runs")

    @property
    def flows(self) -> Any:
        """One row per TCP flow: goodput_bps, retransmits, fct_s, acked_s, rtt_mean_s, rtt_p99_s, …"""
        return self._table("flows")

    @property
    def queues(self) -> Any:
        """One row per link queue: max_bytes, mean_bytes, drops, marks, …"""
        return self._table("queues")

    @property
    def pings(self) -> Any:
        """One row per ping probe: sent, received, rtt_*_s."""
        return self._table("pings")

    @property
    def queries(self) -> Any:
        """One row per partition/aggregate app: queries_done, qct_*_s, timeouts."""
        return self._table("queries")

    @property
    def flows_pl(self) -> Any:
        """``flows`` as a polars DataFrame (needs polars)."""
        return self._table("flows", "polars")

    def table(self, name: str, backend: Optional[str] = None) -> Any:
        """Any table by name (``udp``, ``ocbr``, ``hosts``, a series…), optionally with
        another backend (``'pandas'`` or ``'polars'``)."""
        return self._table(name, backend)

    def series(self, name: str) -> Any:
        """A time series in long format, one row per sample (and flow or queue):
        ``cwnd`` (t_s, flow, cwnd, ssthresh, srtt_s, in_flight), ``cc`` (t_s, flow, cc,
        name, value, label: one row per quantity of the flow's congestion control; wide in
        :meth:`cc_state`), ``queue`` (t_s, queue, bytes, pkts), ``throughput`` (t_s, flow,
        goodput_bps), ``tsg`` (t_s, flow, kind, seq, end). Recorded when the scenario's
        [output] asks for it."""
        if name not in SERIES:
            raise KeyError(f"no series {name!r}; allowed: {', '.join(SERIES)}")
        return self._table(name)

    def cc_state(self) -> Any:
        """The ``cc`` series (``[output] cc``) with a column per quantity: one row per
        sample and flow (t_s, flow, cc, then each quantity in the order the algorithms list
        them: ``alpha`` for DCTCP, ``last_max_cwnd``, ``bic_K_s``, … for CUBIC; every
        quantity in docs/outputs.md). A quantity another flow's algorithm has is NaN in
        this flow's rows; one with named levels (a mode) holds the name. A pandas
        DataFrame whatever the backend."""
        df = self._table("cc", "pandas")
        idx = ["t_s", "flow", "cc"]
        names = _builtin_list(dict.fromkeys(df["name"]))
        wide = df.pivot(index=idx, columns="name", values="value")
        named = df[df["label"].notna()]
        if len(named):
            levels = named.pivot(index=idx, columns="name", values="label")
            for c in levels.columns:
                wide[c] = levels[c].reindex(wide.index)
        wide = wide[names].reset_index()
        wide.columns.name = None
        return wide

    def _rows(self, name: str) -> int:
        import pyarrow as pa
        import pyarrow.parquet as pq

        # From the table's Parquet footer: a repr never parses the summary or a table.
        raw = self._raw.get(name)
        return pq.ParquetFile(pa.BufferReader(raw)).metadata.num_rows if raw else 0

    def __repr__(self) -> str:
        return (
            f"<cclab.Run {self.meta.get('run_id')}, seed {self.meta.get('seed')}: "
            f"{self._rows('flows')} flows, tables {', '.join(self._raw)}>"
        )

    def _repr_html_(self) -> str:
        """Jupyter's view: where the run came from, its tables with their row counts, the
        first flows, and the plots it can draw."""
        e = html.escape
        m = self.meta
        head = (
            f"<p><b>cclab run</b> <code>{e(str(m.get('run_id')))}</code> &middot; "
            f"{e(str(m.get('name') or m.get('file') or ''))} &middot; "
            f"seed {e(str(m.get('seed')))}"
        )
        if isinstance(m.get("wall_s"), (int, float)):
            head += f" &middot; {float(m['wall_s']):.3g} s wall"
        head += "</p>"
        rows = "".join(
            f"<tr><td><code>{e(n)}</code></td>"
            f"<td style='text-align:right'>{self._rows(n):,}</td></tr>"
            for n in self._raw
        )
        body = f"<table><tr><th>table</th><th>rows</th></tr>{rows}</table>"
        if "flows" in self._raw:
            flows = self._table("flows", "pandas")
            keep = [c for c in flows.columns if c != "run_id"][:12]
            if len(flows) > 10:
                body += f"<p>the first 10 of {len(flows):,} flows</p>"
            body += flows[keep].head(10).to_html(index=False, escape=True)
        series = [n for n in SERIES if n in self._raw]
        if series:
            body += "<p>plots: " + ", ".join(
                f"<code>.plot({e(repr(n))}{', name=…' if n == 'cc' else ''})</code>"
                for n in series
            ) + "</p>"
        return f"<div class='cclab-run'>{head}{body}</div>"

    def plot(
        self,
        kind: str = "cwnd",
        *,
        ax: Any = None,
        flow: Optional[int] = None,
        name: Optional[str] = None,
    ) -> Any:
        """Draw one of the standard plots with matplotlib (``pip install 'cclab[plot]'``)
        from the series the run recorded: ``cwnd`` (segments, a line per flow), ``cc``
        (the quantity ``name=`` of the flows' congestion control, a line per flow that has
        it; a quantity with named levels gets them as its y ticks), ``queue`` (KB, a line
        per queue), ``throughput`` (Mbit/s, a line per flow) or ``tsg`` (the time-sequence
        graph of one flow: ``flow=``, the first recorded by default). Draws into ``ax`` if
        given; returns the matplotlib ``Axes``."""
        if kind not in SERIES:
            raise _arg_error("Run.plot", "kind", kind, ", ".join(map(repr, SERIES)))
        if kind == "cc":
            names = _builtin_list(dict.fromkeys(self._table("cc", "pandas")["name"]))
            if name not in names:
                raise _arg_error("Run.plot", "name", name, ", ".join(map(repr, names)),
                                 "not a quantity of this run's cc series")
        try:
            import matplotlib.pyplot as plt
        except ImportError as err:  # pragma: no cover - depends on the environment
            raise ImportError(
                "Run.plot needs matplotlib: pip install 'cclab[plot]' (or matplotlib)"
            ) from err
        df = self._table(kind, "pandas")
        if ax is None:
            _, ax = plt.subplots(figsize=(8, 4))
        t = "t_s" if "t_s" in df else "t"
        if kind == "cwnd":
            for f, g in df.groupby("flow", sort=True):
                ax.plot(g[t], g["cwnd"].astype("float64"), label=f"flow {f}", lw=1)
            ax.set_ylabel("cwnd (segments)")
        elif kind == "cc":
            df = df[df["name"] == name]
            for f, g in df.groupby("flow", sort=True):
                ax.plot(g[t], g["value"].astype("float64"), label=f"flow {f}", lw=1)
            levels = df[df["label"].notna()].drop_duplicates("value").sort_values("value")
            if len(levels):
                ax.set_yticks(levels["value"].astype("float64"), levels["label"].astype(str))
            ax.set_ylabel(name)
        elif kind == "queue":
            for q, g in df.groupby("queue", sort=False):
                ax.plot(g[t], g["bytes"].astype("float64") / 1e3, label=str(q), lw=1)
            ax.set_ylabel("queue (KB)")
        elif kind == "throughput":
            col = next(c for c in df.columns if c.startswith("goodput"))
            scale = 1e-6 if col.endswith("_bps") else 1.0
            for f, g in df.groupby("flow", sort=True):
                ax.plot(g[t], g[col].astype("float64") * scale, label=f"flow {f}", lw=1)
            ax.set_ylabel("goodput (Mbit/s)")
        else:
            flows = sorted(int(f) for f in df["flow"].dropna().unique())
            if flow is None and flows:
                flow = flows[0]
            if flow not in flows:
                raise _arg_error("Run.plot", "flow", flow,
                                 ", ".join(map(str, flows)) or "none (no tsg recorded)")
            g = df[df["flow"] == flow]
            for k, style in (("data", "."), ("retrans", "x"), ("ack", "-")):
                h = g[g["kind"] == k]
                if len(h):
                    ax.plot(h[t], h["seq"].astype("float64") / 1e6, style, ms=2, lw=1,
                            label=k)
            ax.set_ylabel("sequence (MB)")
        ax.set_xlabel("time (s)")
        title = {
            "cwnd": "congestion window",
            "cc": f"congestion control: {name}",
            "queue": "queue length",
            "throughput": "throughput",
            "tsg": f"time-sequence graph, flow {flow}",
        }[kind]
        ax.set_title(f"{title} ({self.meta.get('run_id')})")
        ax.legend(loc="best", fontsize="small")
        return ax


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def run(
    scenario: Scenario,
    *,
    seed: Optional[int] = None,
    overrides: Optional[Mapping[str, Any]] = None,
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    force: bool = False,
    backend: str = "pandas",
    set: Optional[Mapping[str, Any]] = None,  # noqa: A002 - the alias the docs had first
) -> Run:
    """Run a scenario, as ``cclab run`` does, and return its tables.

    ``scenario``: a path to a TOML file, TOML text, or a dict of the same tables.
    ``seed``: the master seed (overrides ``[sim] seed``), 0 to 2^64 - 1.
    ``overrides`` (alias ``set``): dotted keys to override, as ``--set``, with values as
    TOML has them (``{"tcp.cc": "reno", "topology.bottleneck": {"rate": "1Gbps"}}``; a
    dict sets each of its keys, a list replaces the key's array).
    ``out``: also write the run's folder (summary.json, tables, plots) as ``cclab run
    --out``. ``backend``: ``'pandas'`` (default) or ``'polars'``.

    Raises :class:`ScenarioError` (a ``ValueError``) on bad input, naming the argument or
    file, key, value and what is allowed; :class:`Cancelled` (a ``KeyboardInterrupt``) on
    Ctrl-C or :func:`cancel`, leaving ``out`` as it was.
    """
    fn = "cclab.run"
    sets = _sets(_overrides(overrides, set), "overrides=" if overrides is not None else "set=")
    seed = _seed_arg(fn, seed)
    out_s = _path_arg(fn, "out", out)
    force = _bool_arg(fn, "force", force)
    backend = _backend_arg(fn, backend)
    text, file = _scenario(scenario)
    try:
        summary, tables, meta = _cclab.run(text, file, sets, seed, out_s, force, _provenance())
    except ScenarioError as e:
        _python_names(e, "overrides=" if overrides is not None else "set=")
        raise
    r = Run(summary, tables, meta, backend)
    for w in r.meta.get("warnings", []):
        warnings.warn(w, RuntimeWarning, stacklevel=2)
    return r


def load(folder: Union[str, "os.PathLike[str]"], *, backend: str = "pandas") -> Run:
    """The :class:`Run` of a run's folder (``cclab run --out DIR``, ``cclab.run(out=DIR)``),
    read back from its files: the same tables (from ``<table>.parquet``), summary and meta
    as the call that made it returned. Raises :class:`ScenarioError` for a folder that is
    not a whole cclab run (no manifest ``run.json``, or a table it lists missing)."""
    fn = "cclab.load"
    d = pathlib.Path(_path_arg(fn, "folder", folder) or "")
    backend = _backend_arg(fn, backend)

    def refuse(problem: str) -> ScenarioError:
        return _arg_error(fn, "folder", str(d), "the folder of a finished run (it has run.json)",
                          problem)

    try:
        manifest = json.loads((d / "run.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise refuse("no run.json: not a run's folder (a sweep's has sweep.json: "
                     "cclab.sweep(FILE, out=DIR) reads it back)") from None
    except (OSError, ValueError) as err:
        raise refuse(f"run.json cannot be read: {err}") from None
    listed = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(listed, _builtin_list):
        raise refuse("run.json lists no files")
    try:
        summary = (d / "summary.json").read_text(encoding="utf-8")
    except OSError as err:
        raise refuse(f"summary.json cannot be read: {err}") from None
    names = [n[: -len(".parquet")] for n in listed if isinstance(n, str) and n.endswith(".parquet")]
    if "flows" not in names:
        raise refuse(
            "its tables are not in Parquet (a folder written before cclab wrote each table "
            "as CSV and Parquet): run the scenario again (its run.json holds it)"
        )
    # In the order cclab.run gives them.
    order = {n: i for i, n in enumerate(_TABLE_ORDER)}
    names.sort(key=lambda n: (order.get(n, len(order)), n))
    tables = []
    for n in names:
        try:
            tables.append((n, (d / f"{n}.parquet").read_bytes()))
        except OSError as err:
            raise refuse(f"{n}.parquet cannot be read: {err}") from None
    perf: Dict[str, Any] = {}
    try:
        perf = json.loads((d / "perf.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    head = json.loads(summary) if summary.strip() else {}
    meta = {
        "cclab": manifest.get("cclab", head.get("cclab")),
        "git": manifest.get("git", head.get("git")),
        "run_id": manifest.get("run_id", head.get("run_id")),
        "seed": manifest.get("seed", head.get("seed")),
        "name": head.get("scenario"),
        "file": str(d),
        "scenario": manifest.get("scenario"),
        "wall_s": perf.get("wall_s"),
        "events": perf.get("events"),
        "packet_hops": perf.get("packet_hops"),
        "warnings": [],
    }
    r = Run(summary, tables, json.dumps(meta), backend)
    r._summary = head
    r._summary_text = None
    return r


#: The order of the tables ``cclab.run`` returns (``report::table::run_tables``).
_TABLE_ORDER = ("runs", "flows", "fct", "fct_buckets", "queues", "pings", "queries", "udp",
                "ocbr", "hosts") + SERIES


# ----- sweeps


class Sweep:
    """The tables of a sweep: one per kind (``runs``, ``flows``, ``queues``, ``pings``,
    ``queries``, …), each with ``run_id``, ``seed`` and a column per swept key, in point
    order. ``out`` is the folder holding them as CSV and Parquet (if one was given)."""

    def __init__(self, tables: Dict[str, Any], out: Optional[str], on_disk: int, ran: int):
        self.tables = tables
        self.out = out
        self.on_disk = on_disk
        """Points found finished on disk (not run again)."""
        self.ran = ran
        """Points run by this call."""

    def __getattr__(self, name: str) -> Any:
        tables = self.__dict__.get("tables", {})
        if name in tables:
            return tables[name]
        raise AttributeError(
            f"this sweep has no table {name!r}; it has: {', '.join(tables)}"
        )

    def __repr__(self) -> str:
        rows = ", ".join(f"{k} ({len(v)} rows)" for k, v in self.tables.items())
        return f"<cclab.Sweep {self.on_disk + self.ran} points: {rows}>"


class _Bar:
    """A tqdm progress bar (``pip install 'cclab[progress]'``) on a terminal or in a
    notebook; nothing when tqdm is missing, output is not interactive, or ``quiet``."""

    def __init__(self, total: int, unit: str, desc: str, progress: Optional[bool], quiet: bool):
        self.bar = None
        if quiet or progress is False or (progress is None and not _interactive()):
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            if progress:
                warnings.warn("progress=True needs tqdm: pip install 'cclab[progress]'",
                              RuntimeWarning, stacklevel=3)
            return
        self.bar = tqdm(total=total, unit=unit, desc=desc, leave=False)

    def __call__(self, done: int, total: int) -> None:
        b = self.bar
        if b is not None:
            if b.total != total:
                b.total = total
            b.update(max(0, done - b.n))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _interactive() -> bool:
    """A terminal on stderr, or a Jupyter kernel: where a progress bar is read."""
    try:
        if sys.stderr is not None and sys.stderr.isatty():
            return True
    except (AttributeError, ValueError):
        pass
    ip = sys.modules.get("IPython")
    if ip is None:
        return False
    try:
        shell = ip.get_ipython()
        return shell is not None and "IPKernelApp" in shell.config
    except Exception:  # pragma: no cover - depends on the environment
        return False


def sweep(
    scenario: Scenario,
    *,
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    jobs: int = 0,
    client: Any = None,
    backend: str = "pandas",
    progress: Optional[bool] = None,
    quiet: bool = False,
) -> Sweep:
    """Run every point of a scenario's ``[sweep]`` (its grid of values × its seeds) and
    return the tables, as ``cclab sweep FILE --out DIR --jobs N`` does.

    ``out``: the sweep's folder; points finished there are not run again, and the tables
    are written there as CSV and Parquet (byte-identical to the command line's).
    ``jobs``: points at once on this machine (0: one per core).
    ``client``: a ``dask.distributed.Client``: each point becomes a task on its workers
    (which need this same cclab installed); finished points stream back and are stored
    in ``out`` as they arrive, so an interrupted cluster sweep also resumes.
    ``progress``: a progress bar (tqdm, ``cclab[progress]``); by default on a terminal or
    in a notebook, off with ``quiet=True``.
    Ctrl-C or :func:`cancel` stops it (:class:`Cancelled`); the points that finished stay
    in ``out``, and the same call continues.
    """
    fn = "cclab.sweep"
    out_s = _path_arg(fn, "out", out)
    jobs = _jobs_arg(fn, "jobs", jobs)
    backend = _backend_arg(fn, backend)
    quiet = _bool_arg(fn, "quiet", quiet)
    if progress is not None:
        progress = _bool_arg(fn, "progress", progress)
    text, file = _scenario(scenario)
    plan = _cclab.SweepPlan(text, file)
    if client is None:
        bar = _Bar(plan.points(), "point", "sweep", progress, quiet)
        try:
            tables, on_disk, ran = plan.run(out_s, jobs, _provenance(), bar)
        finally:
            bar.close()
        return Sweep(_frames(tables, backend), out_s, on_disk, ran)
    return _sweep_dask(plan, text, file, out_s, client, backend, progress, quiet)


def _provenance() -> str:
    return json.dumps({"command": ["python"] + sys.argv[:1], "python": sys.version.split()[0]})


def _point(text: str, file: str, index: int) -> str:
    """One sweep point, run where this is called (a Dask task): its file's contents."""
    return _cclab.sweep_point(text, file, index)


def _sweep_dask(plan, text, file, out, client, backend, progress, quiet) -> Sweep:
    from dask.distributed import as_completed

    n = plan.points()
    if out is not None:
        plan.prepare(out, _provenance())
    files: List[Optional[str]] = [None] * n
    for i in range(n):
        if out is not None:
            files[i] = plan.load(out, i)
    on_disk = sum(f is not None for f in files)
    todo = [i for i in range(n) if files[i] is None]
    bar = _Bar(n, "point", "sweep", progress, quiet)
    bar(on_disk, n)
    futures = {
        client.submit(_point, text, file, i, key=f"cclab-point-{plan.run_id(i)}", pure=False): i
        for i in todo
    }
    try:
        for fut in as_completed(futures):
            i = futures[fut]
            point = fut.result()
            if out is not None:
                plan.store(out, i, point)
            files[i] = point
            bar(sum(f is not None for f in files), n)
    finally:
        bar.close()
        for fut in futures:
            if not fut.done():
                fut.cancel()
    tables = plan.merge(files, out, _provenance())
    return Sweep(_frames(tables, backend), out, on_disk, len(todo))


# ----- experiments


class Report:
    """An experiment's report: ``table`` (variant, metric, seed, sim, ci95, runs, against,
    status), ``checks`` (name, against, status, detail, why, cause: the cause run's
    configuration for a seed number that has one), ``tally``, ``passed``,
    ``text`` (as ``cclab reproduce`` prints it) and ``plots`` (file name → SVG)."""

    def __init__(self, raw: str, text: str, plots: List["tuple[str, str]"]):
        import pandas as pd

        d = json.loads(raw)
        self.experiment: str = d["experiment"]
        rows = []
        for r in d["table"]:
            rows.append(
                {
                    "variant": r["variant"],
                    "metric": r["metric"],
                    "seed": r.get("seed"),
                    "sim": r["sim"],
                    "ci95": r.get("ci95"),
                    "runs": r.get("runs"),
                    "against": "seed" if r.get("seed") is not None else None,
                    "status": r.get("outcome"),
                }
            )
        cols = ["variant", "metric", "seed", "sim", "ci95", "runs", "against", "status"]
        # Text columns as pandas' nullable strings: a row with no seed value has
        # `against` and `status` <NA> (not object None), as in every other table.
        self.table = pd.DataFrame(rows, columns=cols).astype(
            {
                "variant": "string",
                "metric": "string",
                "seed": "float64",
                "sim": "float64",
                "ci95": "float64",
                "runs": "Int64",
                "against": "string",
                "status": "string",
            }
        )
        self.checks = pd.DataFrame(
            [
                {
                    "name": c["name"],
                    "against": c["against"],
                    "status": c["outcome"],
                    "detail": c["detail"],
                    "why": c["why"],
                    "cause": (c.get("cause") or {}).get("config"),
                }
                for c in d["checks"]
            ],
            columns=["name", "against", "status", "detail", "why", "cause"],
        ).astype("string")
        self.tally: Dict[str, int] = d["tally"]
        self.text = text
        self.plots = dict(plots)

    @property
    def passed(self) -> bool:
        """No seed number fails and no other check failed (explained and unresolved are
        not failures; ``tally`` counts them)."""
        return not self.checks["status"].isin(["fail", "fails"]).any()

    def __repr__(self) -> str:
        t = self.tally
        return (
            f"<cclab.Report {self.experiment}: {len(self.table)} rows, "
            f"{len(self.checks)} checks, passed={self.passed} {t}>"
        )


def reproduce(
    name: str,
    quick: bool = False,
    *,
    seed: int = 1,
    threads: int = 0,
    progress: Optional[bool] = None,
    quiet: bool = False,
) -> Report:
    """Run a built-in experiment of the seed documents (``experiments()`` lists them), as
    ``cclab reproduce NAME [--quick]``. ``progress``: a bar of its runs (tqdm), by default
    on a terminal or in a notebook, off with ``quiet=True``. Ctrl-C or :func:`cancel`
    stops it between its runs (:class:`Cancelled`)."""
    fn = "cclab.reproduce"
    if not isinstance(name, str):
        raise _arg_error(fn, "name", name, "an experiment's name (cclab.experiments())")
    quick = _bool_arg(fn, "quick", quick)
    seed = _int_arg(fn, "seed", seed, 0, _U64 - 1, "an integer from 0 to 2^64 - 1")
    threads = _jobs_arg(fn, "threads", threads)
    quiet = _bool_arg(fn, "quiet", quiet)
    if progress is not None:
        progress = _bool_arg(fn, "progress", progress)
    bar = _Bar(0, "run", name, progress, quiet)
    try:
        raw, text, plots = _cclab.reproduce(name, quick, seed, threads, bar)
    finally:
        bar.close()
    return Report(raw, text, plots)


def experiments() -> Any:
    """The built-in experiments: name, seed document, what each reproduces."""
    import pandas as pd

    return pd.DataFrame(json.loads(_cclab.experiments()), columns=["name", "seed_doc", "about"])


def list() -> Dict[str, Any]:  # noqa: A001 - the name `cclab list` has
    """What cclab has, as ``cclab list``: experiments, topologies, queue disciplines,
    traffic and congestion controls (each a dict of name → description, cc a list)."""
    return json.loads(_cclab.list_components())

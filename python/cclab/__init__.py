"""cclab — a congestion-control laboratory, from Python.

The simulator is the Rust core (``cclab._cclab``, built by maturin); this module turns
what it returns into pandas DataFrames (or polars ones, on request)::

    import cclab
    r = cclab.run("examples/dumbbell.toml", set={"tcp.cc": "reno"})
    r.flows[["flow", "cc", "goodput_bps", "rtt_p99_s"]]
    r.series("cwnd")                       # long format: one row per sample and flow

    s = cclab.sweep("examples/sweep.toml", out="out/sweep")   # every core, resumable
    s.queries.groupby(["tcp.cc", "topology.link.classes.0.k"]).qct_p99_s.mean()

    rep = cclab.reproduce("mathis", quick=True)
    rep.table, rep.checks

Every table has a fixed set of typed columns with the unit in the name (``goodput_bps``,
``rtt_p99_s``, ``t_s``: seconds, bit/s, bytes, as summary.json); ``run_id`` names the run a row comes from. The simulation
releases the GIL, so runs in threads go in parallel; Ctrl-C interrupts a run.
"""

from __future__ import annotations

import io
import json
import os
import pathlib
import sys
import warnings
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

from . import _cclab
from ._cclab import ScenarioError

__all__ = [
    "run",
    "sweep",
    "reproduce",
    "experiments",
    "list",
    "version",
    "Run",
    "Sweep",
    "Report",
    "ScenarioError",
    "SERIES",
]

__version__: str = _cclab.version()

#: The time series a run can record (``[output] cwnd``, ``queue``, ``throughput``,
#: ``tsg``), as ``Run.series`` names them.
SERIES = ("cwnd", "queue", "throughput", "tsg")

Scenario = Union[str, "os.PathLike[str]", Mapping[str, Any]]

_builtin_list = list


def version() -> str:
    """cclab's version (the Rust crate's)."""
    return _cclab.version()


# ----- scenarios in, tables out


def _scenario(scenario: Scenario) -> "tuple[str, str]":
    """(TOML text, the name errors and the default ``sim.name`` use) of a scenario given as
    a path, a TOML string or a dict."""
    if isinstance(scenario, Mapping):
        return _cclab.toml_from_json(json.dumps(scenario)), "<dict>.toml"
    if isinstance(scenario, os.PathLike):
        scenario = os.fspath(scenario)
    if not isinstance(scenario, str):
        raise TypeError(
            f"a scenario is a path, a TOML string or a dict, not {type(scenario).__name__}"
        )
    if "\n" in scenario or ("=" in scenario and not os.path.exists(scenario)):
        return scenario, "<string>.toml"
    return _cclab.read_scenario(scenario), scenario


def _sets(set: Optional[Mapping[str, Any]]) -> List[str]:
    """``--set`` words from a dict of dotted keys: strings as written, other values as TOML
    (``{"tcp.cc": "reno", "sim.seed": 3, "output.plots": False}``)."""
    if set is None:
        return []
    if not isinstance(set, Mapping):
        raise TypeError("set= takes a dict of dotted keys, e.g. {'tcp.cc': 'reno'}")
    words = []
    for k, v in set.items():
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif isinstance(v, (int, float)):
            v = repr(v)
        elif isinstance(v, str):
            # A TOML string, so that "10" stays the string "10".
            v = json.dumps(v, ensure_ascii=False)
        else:
            v = _cclab.toml_from_json(json.dumps({"v": v})).split("=", 1)[1].strip()
        words.append(f"{k}={v}")
    return words


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
            out[name] = pl.read_parquet(io.BytesIO(data))
        return out
    if backend != "pandas":
        raise ValueError(f"backend={backend!r}: allowed are 'pandas' and 'polars'")
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
        out[name] = pq.read_table(pa.BufferReader(data)).to_pandas(types_mapper=types.get)
    return out


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
        ``cwnd`` (t_s, flow, cwnd, ssthresh, srtt_s, in_flight), ``queue`` (t_s, queue,
        bytes, pkts), ``throughput`` (t_s, flow, goodput_bps), ``tsg`` (t_s, flow, kind,
        seq, end). Recorded when the scenario's [output] asks for it."""
        if name not in SERIES:
            raise KeyError(f"no series {name!r}; allowed: {', '.join(SERIES)}")
        return self._table(name)

    def __repr__(self) -> str:
        import pyarrow as pa
        import pyarrow.parquet as pq

        # The flow count from the table's Parquet footer: a repr never parses the summary.
        raw = self._raw.get("flows")
        flows = pq.ParquetFile(pa.BufferReader(raw)).metadata.num_rows if raw else 0
        return (
            f"<cclab.Run {self.meta.get('run_id')}, seed {self.meta.get('seed')}: "
            f"{flows} flows, tables {', '.join(self._raw)}>"
        )


def run(
    scenario: Scenario,
    *,
    seed: Optional[int] = None,
    set: Optional[Mapping[str, Any]] = None,
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    force: bool = False,
    backend: str = "pandas",
) -> Run:
    """Run a scenario, as ``cclab run`` does, and return its tables.

    ``scenario``: a path to a TOML file, TOML text, or a dict of the same tables.
    ``seed``: the master seed (overrides ``[sim] seed``). ``set``: dotted keys to override,
    as ``--set`` (``{"tcp.cc": "reno", "topology.bottleneck.rate": "1Gbps"}``).
    ``out``: also write the run's folder (summary.json, CSVs, plots) as ``cclab run --out``.
    ``backend``: ``'pandas'`` (default) or ``'polars'``.

    Raises :class:`ScenarioError` (a ``ValueError``) on bad input, naming the file, key,
    value and what is allowed; ``KeyboardInterrupt`` on Ctrl-C.
    """
    text, file = _scenario(scenario)
    summary, tables, meta = _cclab.run(
        text,
        file,
        _sets(set),
        seed,
        None if out is None else os.fspath(out),
        force,
        _provenance(),
    )
    r = Run(summary, tables, meta, backend)
    for w in r.meta.get("warnings", []):
        warnings.warn(w, RuntimeWarning, stacklevel=2)
    return r


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


def _progress_bar(total: int, progress: bool):
    if not progress:
        return None
    try:
        from tqdm.auto import tqdm  # optional

        return tqdm(total=total, unit="point")
    except ImportError:
        return None


def sweep(
    scenario: Scenario,
    *,
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    jobs: int = 0,
    client: Any = None,
    backend: str = "pandas",
    progress: bool = False,
) -> Sweep:
    """Run every point of a scenario's ``[sweep]`` (its grid of values × its seeds) and
    return the tables, as ``cclab sweep FILE --out DIR --jobs N`` does.

    ``out``: the sweep's folder; points finished there are not run again, and the tables
    are written there as CSV and Parquet (byte-identical to the command line's).
    ``jobs``: points at once on this machine (0: one per core).
    ``client``: a ``dask.distributed.Client``: each point becomes a task on its workers
    (which need this same cclab installed); finished points stream back and are stored
    in ``out`` as they arrive, so an interrupted cluster sweep also resumes.
    """
    text, file = _scenario(scenario)
    plan = _cclab.SweepPlan(text, file)
    out_s = None if out is None else os.fspath(out)
    if client is None:
        tables, on_disk, ran = plan.run(out_s, jobs, _provenance())
        return Sweep(_frames(tables, backend), out_s, on_disk, ran)
    return _sweep_dask(plan, text, file, out_s, client, backend, progress)


def _provenance() -> str:
    return json.dumps({"command": ["python"] + sys.argv[:1], "python": sys.version.split()[0]})


def _point(text: str, file: str, index: int) -> str:
    """One sweep point, run where this is called (a Dask task): its file's contents."""
    return _cclab.sweep_point(text, file, index)


def _sweep_dask(plan, text, file, out, client, backend, progress) -> Sweep:
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
    bar = _progress_bar(n, progress)
    if bar is not None:
        bar.update(on_disk)
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
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
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
        self.table = pd.DataFrame(rows, columns=cols).astype(
            {"seed": "float64", "sim": "float64", "ci95": "float64", "runs": "Int64"}
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
        )
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


def reproduce(name: str, quick: bool = False, *, seed: int = 1, threads: int = 0) -> Report:
    """Run a built-in experiment of the seed documents (``experiments()`` lists them), as
    ``cclab reproduce NAME [--quick]``."""
    raw, text, plots = _cclab.reproduce(name, quick, seed, threads)
    return Report(raw, text, plots)


def experiments() -> Any:
    """The built-in experiments: name, seed document, what each reproduces."""
    import pandas as pd

    return pd.DataFrame(json.loads(_cclab.experiments()), columns=["name", "seed_doc", "about"])


def list() -> Dict[str, Any]:  # noqa: A001 - the name `cclab list` has
    """What cclab has, as ``cclab list``: experiments, topologies, queue disciplines,
    traffic and congestion controls (each a dict of name → description, cc a list)."""
    return json.loads(_cclab.list_components())

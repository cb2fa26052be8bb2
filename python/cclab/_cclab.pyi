"""Type stub of cclab's Rust core (crates/cclab-py/src/lib.rs). Use the `cclab` package;
these are its building blocks. Tables travel as Parquet bytes, reports as JSON text."""

from typing import Any, Callable, List, Optional, Tuple

GIT_REV: str

class ScenarioError(ValueError):
    """A scenario (or sweep, or output folder) cclab cannot use; the message lists every
    mistake, one a line, as the command line prints them."""

    errors: List[dict]
    file: str
    key: str
    value: str
    allowed: str

class Cancelled(KeyboardInterrupt):
    """A run, sweep or experiment stopped by Ctrl-C or `cancel()`; nothing written after."""

def cancel() -> int:
    """Stop every call under way in the process (any thread); how many there were."""

def version() -> str: ...
def read_scenario(path: str) -> str: ...
def toml_from_json(json: str) -> str: ...
def run(
    text: str,
    file: str,
    sets: List[str],
    seed: Optional[int] = None,
    out: Optional[str] = None,
    force: bool = False,
    provenance_json: str = "{}",
) -> Tuple[str, List[Tuple[str, bytes]], str]:
    """(summary.json text, [(table name, Parquet bytes)], meta JSON)."""
def reproduce(
    name: str,
    quick: bool = False,
    seed: int = 1,
    threads: int = 0,
    progress: Optional[Callable[[int, int], Any]] = None,
) -> Tuple[str, str, List[Tuple[str, str]]]:
    """(report JSON, report text, [(plot file name, SVG)])."""
def experiments() -> str: ...
def list_components() -> str: ...
def sweep_point(text: str, file: str, index: int) -> str:
    """Run one point of a sweep here (a Dask task); its file's contents."""

def parquet_from_json(json: str) -> bytes:
    """A table given as JSON as the Parquet bytes cclab writes (for testing the writer)."""

class SweepPlan:
    def __init__(self, text: str, file: str) -> None: ...
    def points(self) -> int: ...
    def run_id(self, i: int) -> str: ...
    def keys(self) -> List[str]: ...
    def seeds(self) -> List[int]: ...
    def run(
        self,
        out: Optional[str] = None,
        jobs: int = 0,
        provenance_json: str = "{}",
        progress: Optional[Callable[[int, int], Any]] = None,
    ) -> Tuple[List[Tuple[str, bytes]], int, int]:
        """([(table name, Parquet bytes)], points found on disk, points run)."""
    def prepare(self, out: str, provenance_json: str = "{}") -> None: ...
    def load(self, out: str, i: int) -> Optional[str]: ...
    def store(self, out: str, i: int, point: str) -> None: ...
    def merge(
        self, points: List[Optional[str]], out: Optional[str] = None, provenance_json: str = "{}"
    ) -> List[Tuple[str, bytes]]: ...

"""The worked example runs as a newcomer runs it, and makes its PNG."""

import subprocess
import sys

from conftest import ROOT


def test_incast_k_sweep_example_makes_its_png(tmp_path):
    png = tmp_path / "incast_k_sweep.png"
    p = subprocess.run(
        [sys.executable, str(ROOT / "examples/python/incast_k_sweep.py"), "--quick",
         "--out", str(tmp_path / "sweep"), "--png", str(png)],
        capture_output=True, text=True,
    )
    assert p.returncode == 0, p.stderr
    assert "30 points run" in p.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Run again: the sweep is on disk, nothing is recomputed.
    p = subprocess.run(
        [sys.executable, str(ROOT / "examples/python/incast_k_sweep.py"), "--quick",
         "--out", str(tmp_path / "sweep"), "--png", str(png)],
        capture_output=True, text=True,
    )
    assert p.returncode == 0 and "0 points run, 30 found" in p.stdout, p.stdout + p.stderr


def test_the_notebook_runs(tmp_path, monkeypatch):
    """Every code cell of the notebook, in order, in one namespace (as Jupyter would), with
    its output folder moved to a temporary one."""
    import json

    import matplotlib

    matplotlib.use("Agg")
    nb = json.loads((ROOT / "examples/python/incast_k_sweep.ipynb").read_text())
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert any("cclab.sweep(" in c for c in cells) and any("savefig" in c for c in cells)
    monkeypatch.chdir(ROOT / "examples" / "python")
    (tmp_path / "out").mkdir()
    ns = {}
    for c in cells:
        exec(c.replace('ROOT / "out"', f"pathlib.Path({str(tmp_path / 'out')!r})"), ns)
    assert (tmp_path / "out" / "incast_k_sweep.png").read_bytes()[:4] == b"\x89PNG"
    assert len(ns["s"].queries) == 30

"""Shared fixtures: the repository, the `cclab` binary the Rust build made (for comparing
the package with the command line), and temporary folders."""

import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def cclab_bin() -> str:
    b = os.environ.get("CCLAB_BIN") or str(ROOT / "target" / "release" / "cclab")
    if not os.path.exists(b):
        pytest.skip(f"no cclab binary at {b} (./test.sh builds it; or set CCLAB_BIN)")
    return b


@pytest.fixture
def cli():
    """Run the command line: cli('run', FILE, ...) -> CompletedProcess (text)."""

    def run(*args, check=True):
        p = subprocess.run(
            [cclab_bin(), *map(str, args)], cwd=ROOT, capture_output=True, text=True
        )
        if check and p.returncode != 0:
            raise AssertionError(f"cclab {' '.join(map(str, args))}: {p.returncode}\n{p.stderr}")
        return p

    return run


@pytest.fixture
def root():
    return ROOT


def files_of(d: pathlib.Path) -> dict:
    """Every file under `d` by relative path -> bytes."""
    return {
        str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()
    }

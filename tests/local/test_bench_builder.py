"""The bench's chain builder makes a chain that c4 verifies, transaction for transaction."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from support import Home

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_built_chain_verifies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    build_chain = importlib.import_module("build_chain")
    home = Home(tmp_path / "chain")
    addresses = build_chain.keys(home.path)
    build_chain.build(home.path, build_chain.plan(25, addresses), 2)
    doc = json.loads(home.ok("verify", "--json").stdout)
    assert doc["transactions"] == 25 and doc["height"] == 25
    # A short log is checked in this process: its checks are part of "execute".
    assert set(doc["timings"]) == {"read", "execute"}
    games = home.json("query", "active")["games"]
    assert home.game(1)["status"] == "won" and home.game(2)["status"] == "won"
    assert [g["id"] for g in games] == [3]  # the third game stops after its creator's reveal


def test_bench_run_builds_chains_with_the_venv_it_installed(tmp_path: Path) -> None:
    """`python3 bench/run.py` from an interpreter without c4 (issue 9, bug 11).

    run.py installs c4 into a venv of its own and must build its chains with
    that venv's interpreter, not the one that launched it. Here the launcher is
    the base interpreter with no site-packages at all (-S), and the venv is this
    test's own, where c4 is installed.
    """
    base = Path(sys.base_prefix) / "bin" / "python3"
    script = (
        f"import sys; sys.path.insert(0, {str(BENCH)!r}); import run; "
        f"run.PYTHON = {sys.executable!r}; "
        f"run.build(10, __import__('pathlib').Path({str(tmp_path / 'ten')!r}))"
    )
    done = subprocess.run([base, "-S", "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "10 transactions" in done.stderr

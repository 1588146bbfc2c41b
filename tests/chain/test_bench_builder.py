"""The bench's chain builder makes a chain that c4 verifies, transaction for transaction."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from support import Home

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_built_chain_verifies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    build_chain = importlib.import_module("build_chain")
    home = Home(tmp_path / "chain")
    build_chain.build(25, home.path, 2)
    doc = json.loads(home.ok("verify", "--json").stdout)
    assert doc["transactions"] == 25 and doc["height"] == 25
    assert set(doc["timings"]) == {"read", "check", "execute"}
    games = home.json("query", "active")["games"]
    assert home.game(1)["status"] == "won" and home.game(2)["status"] == "won"
    assert [g["id"] for g in games] == [3]  # the third game stops after its creator's reveal

"""c4 demo: a whole game on a fresh chain, kept where it says."""

from __future__ import annotations

import json
from pathlib import Path

from support import Home


def test_demo_keeps_its_chain_and_says_where(home: Home) -> None:
    text = home.ok("demo").stdout
    last = text.rstrip("\n").split("\n")[-1]
    assert last.startswith("  c4 verify --home ")
    kept = Path(last.removeprefix("  c4 verify --home "))
    assert kept.is_dir() and f"kept in {kept}" in text
    assert json.loads(home.ok("verify", "--json", "--home", str(kept)).stdout)["height"] == 11
    summary = json.loads(home.ok("demo", "--json").stdout)
    assert Path(summary["home"]).is_dir()
    # One vocabulary: addresses are addresses, key names sit beside them.
    keys = {entry["address"]: entry["key"] for entry in summary["balances"]}
    assert keys[summary["winner"]] == summary["winner_key"] in ("alice", "bob")
    (top,) = summary["leaders"]["wins"]
    assert top == {"addr": summary["winner"], "score": 1, "key": summary["winner_key"]}
    # Given before the command, --home and --json reach the demo too.
    chosen = home.path.parent / "chosen"
    given = json.loads(home.ok("--home", str(chosen), "--json", "demo").stdout)
    assert given["home"] == str(chosen) and (chosen / "chain" / "blocks.toml").is_file()
    for folder in (kept, Path(summary["home"])):
        import shutil

        shutil.rmtree(folder)

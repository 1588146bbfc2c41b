"""Two shells at once against one home: every send lands exactly once."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from support import PREMINE, Home

SENDS = 20


@pytest.mark.slow
def test_two_shells_twenty_sends_each(chain: Home, c4_bin: str) -> None:
    env = dict(os.environ, C4_HOME=str(chain.path), C4_PASSWORD="")
    script = " && ".join(
        f"{c4_bin} send --to carol --amount {i + 1}ugnot {{key}} --memo {{key}}-{i} >/dev/null"
        for i in range(SENDS)
    )
    shells = [
        subprocess.Popen(["bash", "-c", script.format(key=key)], env=env, stderr=subprocess.PIPE)
        for key in ("alice", "bob")
    ]
    for shell in shells:
        _, err = shell.communicate(timeout=300)
        assert shell.returncode == 0, err
    blocks = chain.json("log")
    memos = []
    for block in blocks:
        for tx in block["txs"]:
            memos.append(chain.json("tx", tx["hash"])["tx"]["memo"])
    assert sorted(memos) == sorted(f"{k}-{i}" for k in ("alice", "bob") for i in range(SENDS))
    assert [b["height"] for b in blocks] == list(range(1, 2 * SENDS + 1))
    paid = SENDS * (SENDS + 1) // 2
    assert chain.balance("alice") == PREMINE - paid
    assert chain.balance("bob") == PREMINE - paid
    assert chain.balance("carol") == PREMINE + 2 * paid
    result = subprocess.run([c4_bin, "verify", "--json"], env=env, capture_output=True, text=True)
    assert result.returncode == 0 and json.loads(result.stdout)["transactions"] == 2 * SENDS

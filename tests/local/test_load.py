"""Eight processes writing at once, sends and whole games: every transaction lands once.

Each worker is a process of its own that runs the installed ``c4`` one command
after another, as a CI job would: it plays games between its two keys (offer,
accept, both reveals, moves to a win) and fills up with sends, keeping the hash
of every transaction that was acknowledged.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import Home

WORKERS = int(os.environ.get("C4_LOAD_WORKERS", "8"))
PER_WORKER = int(os.environ.get("C4_LOAD_TXS", "30"))

WORKER = r"""
import json, subprocess, sys
c4, me, budget = sys.argv[1], sys.argv[2], int(sys.argv[3])
a, b = f"{me}a", f"{me}b"
hashes = []

def run(*args):
    proc = subprocess.run([c4, *args, "--json"], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{args}: {proc.returncode} {proc.stderr}{proc.stdout}")
    doc = json.loads(proc.stdout)
    if "hash" in doc:
        hashes.append(doc["hash"])
    return doc

games = 0
while budget - len(hashes) >= 11:
    games += 1
    game = str(run("offer", "--stake", "1gnot", a)["result"][0])
    run("accept", game, b)
    run("reveal", game, a)
    first = run("reveal", game, b)["game"]["turn"]
    mover, other = (a, b) if first == 1 else (b, a)
    for move in range(7):
        run("play", game, "4" if move % 2 == 0 else "5", mover if move % 2 == 0 else other)
    assert run("query", "game", game)["game"]["status"] == "won"
while len(hashes) < budget:
    run("send", "--to", b, "--amount", f"{len(hashes) + 1}ugnot", a)
print(json.dumps(hashes))
"""


@pytest.mark.slow
def test_workers_at_once(chain: Home, c4_bin: str, tmp_path: Path) -> None:
    for w in range(WORKERS):
        for side in "ab":
            chain.ok("keys", "add", f"w{w}{side}")
    # The wall clock: on a manual clock every block is 5 s on, so a worker starved of
    # the lock while the others land eighteen blocks would see its reveal clock run out.
    chain.ok("init", "--force", "--clock", "wall")
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    env = dict(os.environ, C4_HOME=str(chain.path), C4_PASSWORD="")
    workers = [
        subprocess.Popen(
            [sys.executable, str(script), c4_bin, f"w{w}", str(PER_WORKER)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(WORKERS)
    ]
    acknowledged: list[str] = []
    for worker in workers:
        out, err = worker.communicate(timeout=900)
        assert worker.returncode == 0, err
        acknowledged += json.loads(out)
    assert len(acknowledged) == WORKERS * PER_WORKER
    logged = [tx["hash"] for block in chain.json("log") for tx in block["txs"]]
    assert sorted(logged) == sorted(acknowledged)  # all landed, each exactly once
    assert len(set(logged)) == len(logged)
    verified = chain.json("verify")
    assert verified["transactions"] == WORKERS * PER_WORKER
    assert chain.json("query", "fees")["collected_ugnot"] > 0

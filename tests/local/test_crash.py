"""SIGKILL at random points of an append: nothing acknowledged is ever lost.

Each round runs the installed ``c4 send`` and kills it: by $C4_FAULT just before
the write, halfway through it or just after the fsync, or from outside after a
random delay. A command that exited 0 must be in the log forever; a block left
half-written must be reported (exit 3, naming the repair) and ``c4 verify
--repair`` must cut exactly that block and nothing else.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time

import pytest

from support import Home

ROUNDS = int(os.environ.get("C4_CRASH_ROUNDS", "100"))  # 20 of each; raise it to soak
FAULTS = ["before-append", "mid-append", "after-append", "external", "none"]


@pytest.mark.slow
def test_kills_never_lose_an_acknowledged_transaction(chain: Home, c4_bin: str) -> None:
    env = dict(os.environ, C4_HOME=str(chain.path), C4_PASSWORD="")
    rng = random.Random(20261130)
    acknowledged: list[str] = []
    counts = {fault: 0 for fault in FAULTS}
    killed = {fault: 0 for fault in FAULTS}  # rounds that died by SIGKILL
    torn = {fault: 0 for fault in FAULTS}  # rounds that left a torn block
    repaired = 0
    for n in range(ROUNDS):
        fault = FAULTS[n % len(FAULTS)]
        counts[fault] += 1
        run_env = dict(env, C4_FAULT=fault) if fault in FAULTS[:3] else env
        proc = subprocess.Popen(
            [c4_bin, "send", "--to", "bob", "--amount", f"{n + 1}ugnot", "--json", "alice"],
            env=run_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        if fault == "external":
            time.sleep(rng.uniform(0.0, 0.25))
            proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=60)
        if proc.returncode == 0:
            acknowledged.append(json.loads(out)["hash"])
        else:
            assert proc.returncode == -signal.SIGKILL, (fault, proc.returncode, out)
            killed[fault] += 1
        check = subprocess.run([c4_bin, "time"], env=env, capture_output=True, text=True)
        if check.returncode == 3:
            assert "is cut short" in check.stderr and "c4 verify --repair" in check.stderr
            assert check.stderr.count("\n") == 1
            torn[fault] += 1
            fix = subprocess.run(
                [c4_bin, "verify", "--repair"], env=env, capture_output=True, text=True
            )
            assert fix.returncode == 0, fix.stderr
            assert "repaired: cut a torn final block" in fix.stdout
            repaired += 1
        else:
            assert check.returncode == 0, check.stderr
    logged = [tx["hash"] for block in chain.json("log") for tx in block["txs"]]
    assert len(logged) == len(set(logged))
    lost = set(acknowledged) - set(logged)
    assert not lost
    assert chain.run("verify").exit_code == 0
    # Each injected fault killed its command every time, and only the kills in the
    # middle of a write (and perhaps some from outside) left a torn block.
    for fault in ("before-append", "mid-append", "after-append"):
        assert counts[fault] > 0 and killed[fault] == counts[fault], (fault, killed)
    assert killed["none"] == 0
    assert torn["mid-append"] == counts["mid-append"]
    assert torn["before-append"] == torn["after-append"] == torn["none"] == 0
    assert repaired == sum(torn.values())
    print(
        f"crash rounds {ROUNDS}: injected {sum(counts.values()) - counts['none']} kills "
        f"{counts}; acknowledged {len(acknowledged)}, logged {len(logged)}, lost {len(lost)}, "
        f"torn blocks {torn}, repaired {repaired}"
    )

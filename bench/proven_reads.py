"""A read proven by the realm's committed digests, on a home that never synced, against
the realm's history: `c4 show`, `lobby` and `leaders` at a few sizes of history.

    python bench/proven_reads.py [--at 20,20000] [--rounds 7]

Starts a gnoland v1.7.1 (scripts/install-gno.sh) that makes a block every 20 ms,
deploys the realm in gno/ and fills it with whole games, one call a transaction
(bench/fill.py). At each size a new home that took part in nothing and never ran
`c4 sync` runs each command ``--rounds`` times in turns with its --trust-node twin,
and the medians are printed (`c4 show --json` checked first: verified by proof).

Issue 64's target: a verified `c4 show` on a fresh home at 20,000 realm transactions
costs no more than at 20 (the history it replayed before grew with every one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

from fill import GNO, Filler, fast_node  # noqa: E402
from verified_reads import C4, REALM_PATH, timed  # noqa: E402

from c4cli.home.keys import DEV_MNEMONIC  # noqa: E402

CALLS_A_GAME = 11
COMMANDS = {"show": ["show", "1"], "lobby": ["lobby"], "leaders": ["leaders"]}


def c4(home: Path, *args: str) -> str:
    env = dict(os.environ, C4_HOME=str(home), C4_PASSWORD="")
    run = subprocess.run([C4, *args], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, (args, run.stderr)
    return run.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--at", default="20,20000", help="Realm transactions.")
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    sizes = sorted({int(n) for n in options.at.split(",")})
    folder = Path(tempfile.mkdtemp(prefix="c4-proven-reads-"))
    node = fast_node(folder, empty_blocks=True)
    try:
        node.deploy(GNO / "r" / "c4cli" / "connect4", REALM_PATH, DEV_MNEMONIC)
        filler = Filler(node, REALM_PATH)
        for size in sizes:
            filler.games(max(size // CALLS_A_GAME - filler.made, 1), per_tx=1)
            filler.settle_sent()
            home = folder / f"at-{size}"
            timed(home, "init", "--remote", node.url, "--realm-path", REALM_PATH)
            shown = json.loads(c4(home, "show", "1", "--json"))
            assert shown["verified"] and shown["verified_by"] == "proof", shown
            found: dict[str, list[float]] = {}
            for _ in range(options.rounds):
                for name, args in COMMANDS.items():
                    found.setdefault(name, []).append(timed(home, *args))
                    twin = f"{name} --trust-node"
                    found.setdefault(twin, []).append(timed(home, "--trust-node", *args))
            assert not (home / "history").exists(), "a fresh home keeps no history"
            load = os.getloadavg()[0]
            print(f"{filler.made * CALLS_A_GAME} realm transactions, no history (load {load:.2f}):")
            for name, times in found.items():
                print(f"  {name:<22} {statistics.median(times):7.0f} ms")
    finally:
        node.stop()


if __name__ == "__main__":
    main()

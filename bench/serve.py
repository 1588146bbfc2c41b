"""gnokey on `c4 serve` against gnokey on gnoland: the same staked games, transaction by
transaction, as a CI script plays them.

    python bench/serve.py [--games 3]

Two homes with the same two players: one served by `c4 serve` (a block a transaction,
at once), one bound to `c4 node start` (gnoland v1.7.1, a block a second). On each,
gnokey v1.7.1 plays ``--games`` whole games (Offer, Accept, Reveal, RevealSeed and
seven moves to a win: eleven transactions), each call ``gnokey maketx call
-broadcast`` with its default simulation, as tests/node/gnokey_game.py plays them.
Prints each chain's median time a transaction (gnokey's whole run: its start, the
account query, the simulation, the broadcast and the wait for the block) and a
game's total.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from node.gnokey_game import Gnokey, play, start  # noqa: E402
from node.gnonode import install_gno  # noqa: E402
from node.test_serve_node import MNEMONICS, home_with_players  # noqa: E402

C4 = str(Path(sys.executable).with_name("c4"))


def c4(home: Path, *args: str, env: dict[str, str] | None = None) -> str:
    run = subprocess.run(
        [C4, *args],
        env=dict(os.environ, C4_HOME=str(home), C4_PASSWORD="", **(env or {})),
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return run.stdout


def timed_games(gk: Gnokey, games: int) -> tuple[list[float], list[float]]:
    """Each transaction's seconds, and each game's."""
    per_game: list[float] = []
    for number in range(games):
        before = len(gk.receipts)
        secrets = [hashlib.sha256(f"bench {number} {side}".encode()).hexdigest() for side in "ab"]
        played = start(gk, "alice", "bob", *secrets)
        play(gk, played, "4545454")
        assert len(gk.receipts) - before == 11
        per_game.append(sum(r.seconds for r in gk.receipts[before:]))
    return [r.seconds for r in gk.receipts], per_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    games = parser.parse_args().games
    bin_dir, gnoroot = install_gno()
    gno_env = {"GNO_BIN": str(bin_dir), "GNOROOT": str(gnoroot)}
    gnokey = str(bin_dir / "gnokey")
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        figures = {}
        served_home = root / "served"
        home_with_players(C4, served_home)
        c4(served_home, "init", "--clock", "manual")
        server = subprocess.Popen(
            [C4, "serve", "--listen", "127.0.0.1:0", "--json"],
            env=dict(os.environ, C4_HOME=str(served_home), C4_PASSWORD=""),
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            url = json.loads(server.stdout.readline())["url"]
            gk = Gnokey(gnokey, root / "gnokey-served", url)
            for name, mnemonic in MNEMONICS.items():
                gk.add(name, mnemonic)
            figures["c4 serve"] = timed_games(gk, games)
        finally:
            server.send_signal(2)
            server.wait(timeout=30)
        node_home = root / "node"
        home_with_players(C4, node_home)
        started = json.loads(c4(node_home, "node", "start", "--json", env=gno_env))
        try:
            gk = Gnokey(gnokey, root / "gnokey-node", started["url"])
            for name, mnemonic in MNEMONICS.items():
                gk.add(name, mnemonic)
            figures["gnoland"] = timed_games(gk, games)
        finally:
            c4(node_home, "node", "stop", env=gno_env)
    print(f"{games} games of 11 transactions each, by gnokey v1.7.1")
    print(f"{'chain':<10} {'median a tx':>12} {'median a game':>14}")
    for chain, (per_tx, per_game) in figures.items():
        print(
            f"{chain:<10} {statistics.median(per_tx) * 1000:>10.0f} ms "
            f"{statistics.median(per_game):>12.1f} s"
        )


if __name__ == "__main__":
    main()

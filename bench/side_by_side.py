"""Two versions of c4 measured in turns: a change against the revision before it.

    python bench/side_by_side.py REV              # REV (installed apart) against this checkout
    python bench/side_by_side.py REV --rounds 80

Each version is installed as a user installs it (``pip install .``, bytecode
compiled) into a venv of its own under the work folder: REV from a ``git worktree``
of it, the other from this checkout as it stands. One chain of 2,000 real
transactions (bench/build_chain.py, with this checkout's c4) is copied to a home for
each, so both read the same log. Then, round after round, the two run the same
commands in turns (which goes first alternates): ``c4 query game 1 --json`` (a
named query: the realm's client), ``c4 query vm/qeval`` (a path: no keyring),
and ``c4 play`` (a real move of the drawn 42-move game, a new game every 42 moves,
signed and appended). It prints the median of each, and the ratio after/before.

A renovation that should change nothing of the local chain's path (issue 49) is
held to this: the ratios near 1.00, in the noise the same machine makes between
two runs of one version.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DRAWN = "315117645176335765636674142222472457245331"  # 42 moves, nobody wins
QEVAL = ["query", "vm/qeval", "--data", "gno.land/r/samcrew/connect4.GameJSON(1)"]


def install(source: Path, venv: Path) -> Path:
    """``source`` installed into ``venv`` as a user installs it; its ``c4``."""
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, str(source)], check=True)
    subprocess.run([*pip, "--force-reinstall", "--no-deps", str(source)], check=True)
    return venv / "bin" / "c4"


def run(c4: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, C4_HOME=str(home), C4_PASSWORD="")
    proc = subprocess.run([str(c4), *args], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{c4} {' '.join(args)} failed: {proc.stderr}")
    return proc


class Side:
    """One version: its c4, its home, and the game it is playing."""

    def __init__(self, name: str, c4: Path, home: Path) -> None:
        self.name, self.c4, self.home = name, c4, home
        self.game, self.moves, self.players = "", 0, ("p14", "p15")

    def _json(self, *args: str) -> Any:
        return json.loads(run(self.c4, self.home, *args, "--json").stdout)

    def next_move(self) -> list[str]:
        if not self.game or self.moves == len(DRAWN):
            self.game = str(self._json("offer", "--stake", "1gnot", "p14")["result"][0])
            self._json("accept", self.game, "p15")
            self._json("reveal", self.game, "p14")
            first = self._json("reveal", self.game, "p15")["game"]["turn"]
            self.players = ("p14", "p15") if first == 1 else ("p15", "p14")
            self.moves = 0
        move = ["play", self.game, DRAWN[self.moves], self.players[self.moves % 2]]
        self.moves += 1
        return move

    def timed(self, args: list[str]) -> float:
        started = time.perf_counter()
        run(self.c4, self.home, *args)
        return (time.perf_counter() - started) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before", help="the git revision to measure against")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/c4-side"))
    parser.add_argument("--rounds", type=int, default=40)
    given = parser.parse_args()
    work = given.workdir
    work.mkdir(parents=True, exist_ok=True)
    tree = work / "before-tree"
    if tree.exists():
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=HERE, check=True)
    subprocess.run(["git", "worktree", "add", "-q", "--detach", str(tree), given.before],
                   cwd=HERE, check=True)  # fmt: skip
    try:
        c4s = {
            "before": install(tree, work / "venv-before"),
            "after": install(HERE.parent, work / "venv-after"),
        }
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=HERE, check=True)
    chain = work / "chain-2000"
    if not (chain / "chain" / "blocks.toml").exists():
        python = str(work / "venv-after" / "bin" / "python")
        subprocess.run([python, str(HERE / "build_chain.py"), "2000", str(chain)], check=True)
    sides = []
    for name, c4 in c4s.items():
        home = work / f"home-{name}"
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(chain, home)
        side = Side(name, c4, home)
        run(c4, home, "query", "game", "1")  # each builds its own checkpoint first
        run(c4, home, *side.next_move())
        sides.append(side)
    samples: dict[tuple[str, str], list[float]] = {}
    for round_ in range(given.rounds):
        for side in sides if round_ % 2 == 0 else sides[::-1]:
            for what, args in (
                ("query game 1 --json", ["query", "game", "1", "--json"]),
                ("query vm/qeval", QEVAL),
                ("play", side.next_move()),
            ):
                samples.setdefault((what, side.name), []).append(side.timed(args))
    print(f"c4 {given.before} (before) and this checkout (after), in turns, "
          f"medians of {given.rounds} rounds, a chain of 2,000 transactions\n")  # fmt: skip
    print(f"  {'command':<22}{'before':>10}{'after':>10}{'after/before':>14}")
    for what in ("query game 1 --json", "query vm/qeval", "play"):
        before = statistics.median(samples[(what, "before")])
        after = statistics.median(samples[(what, "after")])
        print(f"  {what:<22}{before:>8.1f}ms{after:>8.1f}ms{after / before:>13.2f}x")


if __name__ == "__main__":
    main()

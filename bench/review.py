"""`c4 review`'s speed: a whole game judged by the exact solver, in a fresh process.

    python bench/review.py [--games 5]

The game is the solver's against itself (41 moves, red winning: its every position
searched), then ``--games`` games of the solver against a random player. Each is
reviewed by `c4 review --moves … --json` as a user runs it (the installed console
script, the opening book as installed): the seconds of the whole command, start-up
included. Target (issue 52): a 42-move game within 2 s with the opening book.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

from c4cli.engine import solver
from c4cli.engine.board import Board

C4 = str(Path(sys.executable).with_name("c4"))


def perfect() -> str:
    moves = ""
    while not Board.decode(moves).over:
        moves += str(solver.best_move(moves))
    return moves


def against_random(seed: int) -> str:
    chance, moves = random.Random(seed), ""
    while not Board.decode(moves).over:
        board = Board.decode(moves)
        own = len(moves) % 2 == 0
        moves += str(solver.best_move(moves) if own else chance.choice(board.legal()) + 1)
    return moves


def reviewed(moves: str) -> tuple[float, dict[str, object]]:
    began = time.perf_counter()
    out = subprocess.run(
        [C4, "review", "--moves", moves, "--json"], capture_output=True, text=True, check=True
    ).stdout
    return time.perf_counter() - began, json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    options = parser.parse_args()
    print(f"engine {solver.ENGINE}, opening book {'yes' if solver.opening_book() else 'no'}")
    for name, moves in [("solver vs solver", perfect())] + [
        (f"solver vs random #{n}", against_random(n)) for n in range(options.games)
    ]:
        seconds, done = reviewed(moves)
        print(f"{name}: {len(moves)} moves, {seconds:.2f} s, result {done['result']}, "
              f"decided at move {done['decided']}")  # fmt: skip


if __name__ == "__main__":
    main()

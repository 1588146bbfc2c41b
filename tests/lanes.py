"""Test support for the fast lanes: a command line run both ways, and games to play in.

The lane's run is the installed console script, as a shell user runs it; click's
is CliRunner in the test's process, which never takes a lane.
"""

from __future__ import annotations

import os
import re
import subprocess

from support import Home

Run = tuple[int, str, str]  # exit code, stdout, stderr


def lane_run(home: Home, c4_bin: str, argv: list[str], env: dict[str, str] | None = None) -> Run:
    full = dict(os.environ, C4_HOME=str(home.path), C4_PASSWORD="", **(env or {}))
    proc = subprocess.run([c4_bin, *argv], capture_output=True, text=True, env=full, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def both(
    home: Home, c4_bin: str, argv: list[str], env: dict[str, str] | None = None
) -> tuple[Run, Run]:
    """The lane's run of ``argv`` and click's."""
    lane = lane_run(home, c4_bin, argv, env)
    clicked = home.run(*argv, env=env)
    return lane, (clicked.exit_code, clicked.stdout, clicked.stderr)


def new_game(home: Home) -> tuple[str, str, str]:
    """A game of alice's and bob's, ready for its first move: (id, first mover, second)."""
    game = str(home.json("offer", "--stake", "1gnot", "alice")["result"][0])
    home.ok("accept", game, "bob")
    home.ok("reveal", game, "alice")
    turn = home.json("reveal", game, "bob")["game"]["turn"]
    return (game, "alice", "bob") if turn == 1 else (game, "bob", "alice")


def alike_games(home: Home) -> tuple[tuple[str, str, str], str]:
    """Two games in a row whose coin tosses fell the same way: the first's (id, first
    mover, second) and the second's id. Made one right after the other, so that the
    first one's move clock still runs when the second is ready."""
    previous = new_game(home)
    for _ in range(12):
        latest = new_game(home)
        if latest[1] == previous[1]:
            return previous, latest[0]
        previous = latest
    raise AssertionError("twelve coin tosses in a row fell apart")


def refusals_read_alike(home: Home, c4_bin: str, game: str, first: str, second: str) -> None:
    """Moves refused before anything is sent, each for its own reason: the lane and click
    fail them with the same exit code and the same lines."""
    for argv in (
        ["play", game, "9", first],  # the realm's words
        ["play", game, "4", second],  # not this key's turn
        ["play", game, "4", "--move", "5", first],  # a stale move count
        ["play", game, "x", first],  # c4's own check
        ["play", game, "4", "nobody"],  # no such key
        ["play", "999999", "4", first, "--json"],  # no such game
        ["play", "0x1", "4", first],  # not a game id
    ):
        lane, clicked = both(home, c4_bin, argv)
        assert lane == clicked and lane[0] != 0, argv


def masked(text: str) -> str:
    """Output with what differs between two alike games (ids, heights, gas, hashes,
    commitments) masked."""
    text = re.sub(r"[0-9a-f]{64}", "C", text)
    text = re.sub(r"(VERIFIED:   block \d+ \()[0-9A-F]+…", r"\1B…", text)  # a block's hash
    text = re.sub(r"(TX HASH:    |\"hash\": \")[A-Za-z0-9+/=]+", r"\1H", text)
    return re.sub(r"[0-9]+", "N", text)

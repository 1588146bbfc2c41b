"""`c4 solve`: words, JSON, and the positions it refuses."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest

from c4cli.engine import Board, solver
from c4cli.engine.solver import solve
from support import Home, start_game, strong, two_bots


def test_solve_in_words(home: Home) -> None:
    out = home.ok("solve", "22334").stdout.splitlines()
    assert out == [
        "22334: yellow to move; the side to move loses to the opponent's 4th stone (score -18)",
        "best: 1, 2, 3, 4, 5, 6, 7",
    ]
    out = home.ok("solve", "112233", "--all").stdout.splitlines()
    assert out[0] == "112233: red to move; the side to move wins with its 4th stone (score +18)"
    assert out[1] == "best: 4"
    assert out[2].startswith("scores: 1:") and "4:+18" in out[2]


def test_solve_json(home: Home) -> None:
    # The first position of Pons' Middle-Easy set (its score there: 4).
    moves = "5554224333234511764415115"
    doc = json.loads(home.ok("solve", moves, "--all", "--json").stdout)
    assert doc == {
        "moves": moves,
        "score": 4,
        "best": [6],
        "scores": [-8, -8, -8, -8, None, 4, -8],
        "engine": solver.ENGINE,
        "book": False,
    }
    doc = json.loads(home.ok("solve", moves, "--json").stdout)
    assert "scores" not in doc and doc["score"] == 4


@pytest.mark.parametrize(
    ("moves", "why"),
    [
        ("48", "move 2: '8' is not a column 1-7"),
        ("1111111", "move 7: column 1 is full"),
        ("1122334", "move 7 ends the game: nothing is left to solve"),
    ],
)
def test_positions_it_refuses(home: Home, moves: str, why: str) -> None:
    home.fails(2, "solve", moves, message=f"cannot solve '{moves}': {why}")


def test_play_best_plays_the_solvers_column(chain: Home) -> None:
    gid = start_game(chain, passphrase=strong("p"), seed=strong("s")).id
    # Not your turn is still the realm's to say; a game with no move to play is ours.
    chain.fails(
        2, "play", "99", "best", "alice", message="game 99 has no move to play now: no best column"
    )
    chain.fails(2, "play", gid, "x", "alice", message="invalid column 'x': use 1-7, or best")
    # Reach the first position of Pons' Middle-Easy set, then ask for the best move.
    moves = "5554224333234511764415115"
    alice = chain.address("alice")
    for col in moves:
        game = chain.game(int(gid))
        player = "alice" if game["turnPlayer"] == alice else "bob"
        chain.ok("play", gid, col, player)
    game = chain.game(int(gid))
    player = "alice" if game["turnPlayer"] == alice else "bob"
    hint = chain.json("hint", gid)
    assert (hint["key"], hint["player"]) == (player, game["turnPlayer"])
    # GameJSON publishes the position, not the order of its moves: the hint's
    # `moves` is one order that reaches the same position.
    assert Board.decode(hint["moves"]).text() == Board.decode(moves).text()
    assert (len(hint["moves"]), hint["score"], hint["best"]) == (len(moves), 4, [6])
    assert hint["scores"] == [-8, -8, -8, -8, None, 4, -8]
    disc = "red" if game["creator"] == game["turnPlayer"] else "yellow"
    assert chain.ok("hint", gid).stdout.splitlines()[:2] == [
        f"game {gid}, move 25: {player} ({disc}) to move; wins with its 18th stone (score +4)",
        "best: 6",
    ]
    chain.ok("play", gid, "best", player)
    after = chain.game(int(gid))
    assert after["moves"] == len(moves) + 1
    assert after["lastCol"] == 5  # column 6, the only move that keeps the win (score +4)


def test_no_hint_without_a_move_to_play(chain: Home) -> None:
    gid = str(chain.json("offer", "--stake", "1gnot", "alice")["result"][0])
    chain.fails(2, "hint", gid, message=f"game {gid} has no move to play now (open): no hint")
    chain.fails(1, "hint", "99", message="game not found")


def opening(chain: Home, moves: str) -> tuple[str, str]:
    """A game between alice and bob, revealed, then ``moves`` played; (id, key on turn)."""
    started = start_game(chain, moves, passphrase=strong("p"), seed=strong("s"))
    return started.id, started.first if len(moves) % 2 == 0 else started.second


def test_two_bots_play_a_game_to_the_end_the_solver_predicted(chain: Home, c4_bin: str) -> None:
    # Pons' Middle-Easy first position: the side to move wins with its 18th stone.
    moves = "5554224333234511764415115"
    gid, on_turn = opening(chain, moves)
    assert solve(moves) == 4
    outputs = two_bots(chain, c4_bin, gid)
    for out, _ in outputs:
        assert out.splitlines()[-1] == f"game {gid}: won, winner {on_turn}"
    game = chain.game(int(gid))
    winner = chain.address(on_turn)
    # 18 stones for the winner: the second player's 18th is the 36th move.
    assert (game["status"], game["winner"], game["moves"]) == ("won", winner, 36)
    played = [line for out, _ in outputs for line in out.splitlines() if " plays " in line]
    assert len(played) == 36 - len(moves)


def test_a_bot_makes_one_move_without_until_end(chain: Home, c4_bin: str) -> None:
    moves = "5554224333234511764415115"
    gid, on_turn = opening(chain, moves)
    env = dict(os.environ, C4_HOME=str(chain.path), C4_PASSWORD="")
    proc = subprocess.run(
        [c4_bin, "bot", gid, on_turn, "--json"], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["game"], doc["move"], doc["column"]) == (int(gid), 25, 6)
    assert chain.game(int(gid))["moves"] == 26


def test_watch_prints_the_moves_as_they_land(chain: Home, c4_bin: str) -> None:
    gid, on_turn = opening(chain, "4455")
    other = "bob" if on_turn == "alice" else "alice"
    env = dict(os.environ, C4_HOME=str(chain.path), C4_PASSWORD="")
    watcher = subprocess.Popen(
        [c4_bin, "watch", gid], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert watcher.stdout is not None
    first = watcher.stdout.readline()  # the state it found, before anything lands
    assert first.startswith(f"game {gid}, move 0: ")  # the opening's moves, then the status
    chain.ok("play", gid, "3", on_turn)
    chain.ok("play", gid, "3", other)
    chain.ok("resign", gid, on_turn)
    out = watcher.stdout.read()  # the same reader as the first line: nothing is lost
    assert watcher.wait(timeout=30) == 0
    assert watcher.stderr is not None and watcher.stderr.read() == ""
    lines = [first.rstrip("\n"), *out.splitlines()]
    assert lines[:4] == [f"game {gid}, move {n}: column {c}" for n, c in enumerate("4455")]
    assert f"game {gid}, move 4: column 3" in lines and f"game {gid}, move 5: column 3" in lines
    # How it ended (the log says by which call), then the final board.
    assert lines[-8] == f"game {gid}: won by {other} (resignation)"
    assert lines[-1] == "1234567" and len(lines[-7]) == 7
    # Every move is printed once, in order, between status lines.
    moves = [line for line in lines if ": column " in line]
    assert moves == [f"game {gid}, move {n}: column {c}" for n, c in enumerate("445533")]


@pytest.mark.parametrize("engine", ["native", "python"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_long_search_stops_on_a_signal(c4_bin: str, engine: str, signum: int) -> None:
    """The empty board without the book takes minutes: Ctrl-C or SIGTERM ends it at
    once, in one line that claims nothing about transactions (solve only reads)."""
    env = dict(os.environ, C4_BOOK="off", C4_SOLVER=engine)
    proc = subprocess.Popen(
        [c4_bin, "solve", ""], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    time.sleep(1.5)
    sent = time.monotonic()
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 3
    assert proc.returncode == 128 + signum
    name = "interrupted" if signum == signal.SIGINT else "terminated"
    assert err == f"Error: {name}\n"


@pytest.mark.slow
def test_two_bots_without_the_book_move_within_their_budget(chain: Home, c4_bin: str) -> None:
    """A fresh game and no book: the first moves cannot be proven in a second, so each
    bot plays the best found within --think 1 and says so; the game still ends."""
    gid, _ = opening(chain, "")
    outputs = two_bots(chain, c4_bin, gid, "--think", "1", "--json", C4_BOOK="off")
    moves = []
    for out, _ in outputs:
        documents = [json.loads(line) for line in out.splitlines()]
        assert documents[-1]["over"] is True and documents[-1]["status"] in ("won", "draw")
        moves += [doc for doc in documents if "column" in doc]
    assert chain.game(int(gid))["status"] in ("won", "draw")
    assert len(moves) == chain.game(int(gid))["moves"]
    assert all(doc["seconds"] <= 1.5 for doc in moves), moves  # the budget, and a check's lag
    moves.sort(key=lambda doc: doc["move"])
    assert not moves[0]["exact"] and moves[-1]["exact"]  # the empty board; the end


def test_a_hint_says_when_it_is_not_proven(chain: Home, c4_bin: str) -> None:
    gid, _ = opening(chain, "44")
    env = dict(os.environ, C4_HOME=str(chain.path), C4_PASSWORD="", C4_BOOK="off")
    proc = subprocess.run(
        [c4_bin, "hint", gid, "--think", "0.5", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["exact"] is False and doc["score"] is None and len(doc["best"]) == 1
    shown = subprocess.run(
        [c4_bin, "hint", gid, "--think", "0.5"], env=env, capture_output=True, text=True
    ).stdout.splitlines()
    assert shown[0].endswith("to move; not solved within 0.5 s"), shown
    assert shown[1].endswith("(the best found, not proven)") and "?" in shown[2]
    with_book = chain.json("hint", gid)  # the book proves it at once
    assert with_book["exact"] is True and with_book["score"] is not None


def test_show_and_watch_say_the_clock_in_one_wording(chain: Home, c4_bin: str) -> None:
    """The same game at the same height: `show` and `watch` give the same time left,
    in the same words (what the next block will find)."""
    import re

    gid, on_turn = opening(chain, "4455")
    shown = re.search(r"\((\d+s left at the next block)\)", chain.ok("show", gid).stdout)
    assert shown is not None
    env = dict(os.environ, C4_HOME=str(chain.path), C4_PASSWORD="")
    watcher = subprocess.Popen(
        [c4_bin, "watch", gid], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert watcher.stdout is not None
    status = [watcher.stdout.readline() for _ in range(5)][-1]
    chain.ok("resign", gid, on_turn)
    watcher.communicate(timeout=30)
    assert status.rstrip("\n").endswith(f" to move, {shown.group(1)}"), status


def test_a_bot_never_signs_a_move_for_a_count_the_game_has_passed(
    chain: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot's move is built inside the submit, after what the account left pending is
    settled: where its read was stale (a move of its own whose answer was lost landed
    meanwhile), nothing is signed and the bot looks again, rather than pay a fee for a
    move the realm refuses in a block."""
    from c4cli.client import workflow
    from c4cli.client.bot import GameMoved, still_at
    from c4cli.commands.transact import submit
    from c4cli.commands.txopts import TxOptions

    monkeypatch.setenv("C4_PASSWORD", "")
    gid, on_turn = opening(chain, "5554224333234511764415115")
    me, before = chain.address(on_turn), chain.log_bytes()
    stale = workflow.messages(still_at(int(gid), 6, 24), me)
    with pytest.raises(GameMoved, match=f"game {gid} is at move 25, not 24 as the bot read it"):
        submit(chain.path, on_turn, stale, TxOptions())
    assert chain.log_bytes() == before  # nothing signed, nothing recorded
    fresh = workflow.messages(still_at(int(gid), 6, 25), me)
    assert submit(chain.path, on_turn, fresh, TxOptions()).height > 0
    assert chain.game(int(gid))["moves"] == 26

"""`c4 review`: every move of a game judged by the exact solver."""

from __future__ import annotations

import json

from support import Home, start_game, two_bots


def test_a_known_blunder_is_named_and_the_game_decided_there(home: Home) -> None:
    """After 4, 4 the first mover wins only in column 4 (the solver proves it): column
    5 throws the win away, and yellow's 5 gives it back."""
    judged = json.loads(home.ok("review", "--moves", "4455", "--json").stdout)
    kinds = [verdict["verdict"] for verdict in judged["verdicts"]]
    assert kinds == ["kept the win", "best", "blunder", "blunder"]
    third = judged["verdicts"][2]
    assert third["best_columns"] == [4] and third["score_best"] > 0 > third["score_played"]
    assert judged["decided"] == 4 and judged["decided_board"] == "4455"
    assert judged["summary"]["first"]["blunder"] == 1 == judged["summary"]["second"]["blunder"]
    text = home.ok("review", "--moves", "4455").stdout
    assert "3. red: column 5  blunder: a loss to the other's stone 20, where column 4" in text
    assert "decided by the 4th move (blunder, yellow):" in text


def test_a_perfect_game_by_c4_bot_against_itself_has_no_fault(chain: Home, c4_bin: str) -> None:
    """Two `c4 bot` processes, alice's and bob's, play a fresh game to its end: the
    review finds nothing but best moves on either side, and the result decided
    before the first move (the empty board is the first mover's win)."""
    started = start_game(chain)
    two_bots(chain, c4_bin, started.id)
    judged = chain.json("review", started.id)
    assert judged["result"] == "first" and judged["decided"] == 0
    for side in ("first", "second"):
        summary = judged["summary"][side]
        faults = {k: n for k, n in summary.items() if k not in ("best", "kept the win")}
        assert set(faults.values()) == {0}, (side, summary)
    assert judged["players"][0]["key"] == started.first
    assert judged["players"][0]["address"] == chain.address(started.first)


def test_watch_review_judges_each_move_as_review_does(chain: Home) -> None:
    started = start_game(chain, "4545454")
    lines = chain.ok("watch", started.id, "--review").stdout.splitlines()
    reviewed = chain.json("review", started.id)["verdicts"]
    moves = [line for line in lines if ", move " in line]
    assert len(moves) == 7
    for line, verdict in zip(moves, reviewed, strict=True):
        assert line.endswith(f"column {verdict['column']}  {verdict['verdict']}"), line

"""The solver against Pascal Pons' test sets, and its two engines against each other."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import missing

from c4cli.engine import Board, solver
from c4cli.engine.solver import SolverError, best_columns, solve, solve_all, solve_python

# Pascal Pons' six test sets (tests/data/pons/README.md says where they come from).
PONS = Path(__file__).resolve().parents[1] / "data" / "pons"


SLOW_IN_PYTHON = {"Test_L2_R2", "Test_L1_R2"}  # minutes in pure Python: the C core's job


def needs_native() -> None:
    """The C core: skipped without it (no compiler at install), a failure in CI."""
    if solver.ENGINE != "native":
        missing("the solver's C core", "pip install builds it with a C compiler and Python.h")


def positions(name: str, step: int = 1) -> list[tuple[str, int]]:
    lines = (PONS / name).read_text().split("\n")
    pairs = [(line.split()[0], int(line.split()[1])) for line in lines if line.strip()]
    return pairs[::step]


@pytest.mark.parametrize(
    ("name", "step"),
    [
        ("Test_L3_R1", 1),  # End-Easy: all 1,000
        ("Test_L2_R1", 1),  # Middle-Easy: all 1,000
        ("Test_L2_R2", 20),  # Middle-Medium: 50
        ("Test_L1_R1", 20),  # Begin-Easy: 50
        ("Test_L1_R2", 50),  # Begin-Medium: 20
    ],
)
def test_exact_on_pons_sets(name: str, step: int) -> None:
    if name in SLOW_IN_PYTHON:
        needs_native()
    wrong = [(moves, score, solve(moves)) for moves, score in positions(name, step)]
    wrong = [case for case in wrong if case[1] != case[2]]
    assert not wrong, wrong[:5]


def test_exact_on_a_begin_hard_sample() -> None:
    """Twenty of Begin-Hard (1-13 stones; Pons' C++ takes 5.5 s each without a book)."""
    needs_native()
    if os.environ.get("C4_BOOK") == "off" or solver.opening_book() is None:
        missing("the opening book", "pip install c4cli installs bitbully-databases")
    sample = positions("Test_L1_R3", 50)  # every 50th line
    assert len(sample) == 20
    for moves, score in sample:
        assert solve(moves) == score, moves


@pytest.mark.parametrize(("name", "step"), [("Test_L3_R1", 5), ("Test_L2_R1", 10)])
def test_the_pure_python_engine_is_exact_too(name: str, step: int) -> None:
    for moves, score in positions(name, step):
        assert solve_python(moves) == score, moves


def games(min_moves: int) -> st.SearchStrategy[str]:
    """Random legal unfinished games of at least ``min_moves`` moves."""

    @st.composite
    def build(draw: st.DrawFn) -> str:
        board = Board()
        target = draw(st.integers(min_moves, 40))
        while board.move_count < target:
            safe = [c for c in board.legal() if not _wins(board, c)]
            if not safe:
                break
            board.drop(draw(st.sampled_from(safe)))
        return board.encode()

    return build()


def _wins(board: Board, col: int) -> bool:
    probe = board.clone()
    probe.drop(col)
    return probe.over


@settings(max_examples=150, deadline=None)
@given(moves=games(22))
def test_both_engines_agree(moves: str) -> None:
    needs_native()
    assert solve(moves) == solve_python(moves)


@settings(max_examples=60, deadline=None)
@given(moves=games(26 if solver.ENGINE == "native" else 32))
def test_solve_all_is_consistent_with_solve(moves: str) -> None:
    scores = solve_all(moves)
    board = Board.decode(moves)
    assert [s is None for s in scores] == [not board.can_drop(c) for c in range(7)]
    assert max(s for s in scores if s is not None) == solve(moves)
    best = best_columns(scores)
    assert best and all(scores[c - 1] == max(s for s in scores if s is not None) for c in best)


def test_scores_at_the_edges() -> None:
    assert solve("112233") == 18  # red wins with its 4th stone
    assert solve("22334") == -18  # yellow to move blocks 1 or 5, red wins at the other
    assert solve("11223") == 2  # yellow blocks column 4 and the game goes on
    assert solve_all("112233")[3] == 18


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        ("8", "move 1: '8' is not a column 1-7"),
        ("4a3", "move 2: 'a' is not a column 1-7"),
        ("1111111", "move 7: column 1 is full"),
        ("1122334", "move 7 ends the game: nothing is left to solve"),
        (
            "315117645176335765636674142222472457245331",
            "the board is full: nothing is left to solve",
        ),
    ],
)
def test_positions_it_refuses(moves: str, message: str) -> None:
    for engine in (solve, solve_python):
        with pytest.raises(SolverError) as caught:
            engine(moves)
        assert str(caught.value) == message


def test_pure_python_is_used_when_asked() -> None:
    """C4_SOLVER=python runs the Python search, and it finds what the native one finds."""
    position = "4455443"  # a middle-game position both engines solve in well under a second
    code = (
        "import json; from c4cli.engine import solver; "
        f"print(json.dumps([solver.ENGINE, solver.solve_all({position!r})]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=dict(os.environ, C4_SOLVER="python"),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    engine, scores = json.loads(out)
    assert engine == "python"
    assert scores == solve_all(position)


def test_a_search_out_of_time_plays_a_safe_column(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past its deadline, the choice is the most central column that hands the opponent
    no four at once (here the centre would); with time, the proven best."""
    moves = "146246152744"
    rushed = solver.solve_within(moves, time.monotonic() - 1)
    assert (rushed.exact, rushed.column, rushed.scores) == (False, 3, [None] * 7)
    full = solver.solve_within(moves)
    assert (full.exact, full.column) == (True, 3) and full.scores[3] == -15
    # The pure-Python search stops at its deadline too (the empty board takes minutes).
    monkeypatch.setattr(solver, "_CORE", None)
    started = time.monotonic()
    choice = solver.solve_within("", started + 0.3)
    assert time.monotonic() - started < 2
    assert not choice.exact and choice.column == 4

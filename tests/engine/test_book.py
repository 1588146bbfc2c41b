"""The opening book: its codes, its values, and its scores checked against the search."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from oracles import missing

from c4cli.engine import book, solver
from c4cli.engine.solver import Position


def needs_book() -> book.Book:
    """The installed book (bitbully-databases, in every install): skipped without it, a
    failure in CI."""
    if os.environ.get("C4_BOOK") == "off" or book.locate() is None:
        missing("the opening book", "pip install c4cli installs bitbully-databases")
    shelf = book.load()
    assert shelf is not None
    return shelf


def bitboards(rows: list[str]) -> tuple[int, int]:
    """A board drawn top row first ('x' the first player, 'o' the second) as (first's, all)."""
    first = every = 0
    for depth, row in enumerate(rows):
        for col, cell in enumerate(row):
            bit = 1 << (col * 7 + (len(rows) - 1 - depth))
            if cell != ".":
                every |= bit
            if cell == "x":
                first |= bit
    return first, every


# Positions and values from the bitbully-databases documentation (its examples).
DOCUMENTED = [
    (
        [".......", "...x...", ".x.o...", ".o.x.o.", ".x.o.x.", ".o.x.o."],
        71,  # the first player wins in 29 plies: with its 21st stone
        1,
    ),
    (
        [".......", ".......", "..xx...", "..oo...", ".xox...", ".xxo.oo"],
        -88,  # the first player loses in 12 plies: to the second's 12th stone
        -10,
    ),
    (
        [".......", ".......", ".x.....", ".oo.x..", ".ox.o..", "xxoxo.."],
        73,
        2,
    ),
    (
        [".......", ".......", "..xx...", "..oo...", "..oxo..", ".xxoxo."],
        0,
        0,
    ),
]


@pytest.mark.parametrize(("rows", "value", "score"), DOCUMENTED)
def test_documented_positions(rows: list[str], value: int, score: int) -> None:
    assert book.score(value) == score
    shelf = needs_book()
    first, every = bitboards(rows)
    assert every.bit_count() == book.PLY and first.bit_count() == book.PLY // 2
    assert shelf.lookup(first, every) == score


def test_a_position_and_its_mirror_are_one_entry() -> None:
    shelf = needs_book()
    first, every = bitboards(DOCUMENTED[0][0])
    flipped = bitboards([row[::-1] for row in DOCUMENTED[0][0]])
    assert book.code(*flipped) == book.code(first, every, mirror=True)
    assert shelf.lookup(*flipped) == shelf.lookup(first, every) == 1


def twelve_stone_positions(count: int, seed: int) -> list[str]:
    """Random games of 12 moves where neither side has won or can win at once."""
    rng = random.Random(seed)
    found: list[str] = []
    while len(found) < count:
        position, moves = Position(), ""
        while position.moves < book.PLY:
            safe = [c for c in range(7) if position.can_play(c) and not position.is_winning_move(c)]
            if not safe:
                break
            col = rng.choice(safe)
            position.play(col)
            moves += str(col + 1)
        if position.moves == book.PLY and not any(
            position.can_play(c) and position.is_winning_move(c) for c in range(7)
        ):
            found.append(moves)
    return found


def test_the_book_agrees_with_the_search_on_a_sample() -> None:
    """30 random 12-stone positions: the book's score, and the search's without the book."""
    shelf = needs_book()
    if solver.ENGINE != "native":
        missing("the solver's C core", "pip install builds it with a C compiler and Python.h")
    sample = twelve_stone_positions(30, seed=2026)
    searched = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys; from c4cli.engine import solver; "
            "print(json.dumps([solver.solve(m) for m in sys.argv[1:]]))",
            *sample,
        ],
        env={**os.environ, "C4_BOOK": "off"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    booked = []
    for moves in sample:
        position = Position.from_moves(moves)
        booked.append(shelf.lookup(position.current, position.mask))
    assert booked == json.loads(searched)
    assert len(set(booked)) > 3  # wins, losses and draws of several lengths, not one value


def test_early_positions_are_solved_through_the_book() -> None:
    needs_book()
    assert solver.solve_all("") == [-2, -1, 0, 1, 0, -1, -2]  # the centre wins, late
    assert solver.solve_python("4444") == solver.solve("4444")


def test_a_book_named_by_c4_book_must_be_one(tmp_path: Path, c4_bin: str) -> None:
    """One line, exit 2, from `c4 solve`; the search is not run without the book asked for."""
    odd = tmp_path / "odd.dat"
    odd.write_bytes(b"1234567")
    for path, reason in [
        (tmp_path / "nope.dat", "No such file or directory"),
        (odd, "not an opening book (7 bytes)"),
    ]:
        out = subprocess.run(
            [c4_bin, "solve", "44"],
            env={**os.environ, "C4_BOOK": str(path)},
            capture_output=True,
            text=True,
        )
        assert out.returncode == 2
        assert out.stderr == f"Error: cannot solve '44': opening book {path}: {reason}\n"
        assert out.stdout == ""


def test_c4_solve_says_whether_the_book_was_read(c4_bin: str) -> None:
    needs_book()

    def solved(moves: str, **env: str) -> dict[str, object]:
        out = subprocess.run(
            [c4_bin, "solve", moves, "--json"],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        document: dict[str, object] = json.loads(out)
        return document

    early = "32164625"  # Pons' first Begin-Easy position: 8 stones, quick with or without
    assert solved(early)["book"] is True
    assert solved(early, C4_BOOK="off") == {**solved(early), "book": False}
    late = "5554224333234511764415115"  # past the book's 12 stones: the search alone
    assert solved(late)["book"] is False

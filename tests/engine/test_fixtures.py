"""The fixtures of spec/engine.md, one test each."""

from __future__ import annotations

import base64

import pytest

from c4cli.engine import (
    BadEncoding,
    Board,
    ColumnFull,
    ColumnRange,
    Disc,
    EngineError,
    GameOver,
)

DRAWN = "315117645176335765636674142222472457245331"


@pytest.mark.parametrize("text", ["", "4", "4433", "1122334", "1213141"])
def test_round_trip(text: str) -> None:
    assert Board.decode(text).encode() == text


@pytest.mark.parametrize("text", ["0", "8", "4a3", "1111111", "11223344", "1" * 43])
def test_refused_encodings(text: str) -> None:
    with pytest.raises(BadEncoding):
        Board.decode(text)


def test_bad_encoding_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="move 7: column 1 is full"):
        Board.decode("1111111")


def test_red_wins_bottom_row() -> None:
    board = Board.decode("1122334")
    assert board.winner is Disc.RED
    assert board.line == (0, 1, 2, 3)
    assert board.over and not board.draw
    assert board.legal() == ()


@pytest.mark.parametrize("text", ["1212121", "1223733474744"])
def test_red_wins(text: str) -> None:
    board = Board.decode(text)
    assert board.winner is Disc.RED
    assert len(board.line) == 4


@pytest.mark.parametrize("text", ["71727364", "12121232", "27665155414144"])
def test_yellow_wins(text: str) -> None:
    assert Board.decode(text).winner is Disc.YELLOW


def test_no_winner() -> None:
    board = Board.decode("1234")
    assert board.winner is Disc.EMPTY
    assert board.line == ()
    assert not board.over


def test_drawn_game() -> None:
    board = Board.decode(DRAWN)
    assert board.move_count == 42
    assert board.draw and board.full and board.over
    assert board.winner is Disc.EMPTY
    assert board.legal() == ()
    with pytest.raises(GameOver):
        board.drop(0)


@pytest.mark.parametrize(
    ("text", "disc", "column"),
    [
        ("", Disc.RED, -1),
        ("112233", Disc.RED, 3),
        ("112233", Disc.YELLOW, -1),
        ("121212", Disc.RED, 0),
        ("121212", Disc.YELLOW, 1),
        ("1122334", Disc.RED, -1),
    ],
)
def test_winning_move_table(text: str, disc: Disc, column: int) -> None:
    board = Board.decode(text)
    assert board.winning_move(disc) == column
    assert board.encode() == text  # never mutates


def test_str_4433() -> None:
    assert str(Board.decode("4433")) == (
        ".......\n.......\n.......\n.......\n..YY...\n..RR...\n1234567\n"
    )


def test_emoji_4433() -> None:
    lines = Board.decode("4433").emoji().split("\n")
    assert lines[-1] == ""
    assert lines[:-1] == ["⚫" * 7] * 4 + ["⚫⚫🟡🟡⚫⚫⚫", "⚫⚫🔴🔴⚫⚫⚫"]


def test_svg_counts() -> None:
    for text, wins, lasts in [("", 0, 0), ("4433", 0, 1), ("1122334", 4, 0), (DRAWN, 0, 1)]:
        svg = Board.decode(text).svg()
        assert svg.startswith("<svg ") and svg.endswith("</svg>")
        assert 'xmlns="http://www.w3.org/2000/svg"' in svg and "viewBox=" in svg
        assert svg.count("<circle") == 42
        assert svg.count("<text") == 7
        assert svg.count('class="win"') == wins
        assert svg.count('class="last"') == lasts
        assert "<script" not in svg and "<a " not in svg and "href" not in svg


def test_image() -> None:
    board = Board.decode("4433")
    image = board.image("board")
    prefix = "![board](data:image/svg+xml;base64,"
    assert image.startswith(prefix) and image.endswith(")")
    assert base64.b64decode(image[len(prefix) : -1]).decode() == board.svg()


def test_drop_errors_say_what_was_wrong() -> None:
    board = Board()
    with pytest.raises(ColumnRange, match="column 8 is outside 1-7"):
        board.drop(7)
    with pytest.raises(ColumnRange):
        board.drop(-1)
    for _ in range(6):
        board.drop(0)
    with pytest.raises(ColumnFull, match="column 1 is full"):
        board.drop(0)
    assert issubclass(ColumnFull, EngineError) and issubclass(EngineError, ValueError)


def test_drop_returns_row_and_last() -> None:
    board = Board()
    assert board.last is None
    assert board.drop(3) == 0
    assert board.drop(3) == 1
    assert board.last == (3, 1)
    assert board.height(3) == 2 and board.height(99) == 0
    assert board.at(3, 0) is Disc.RED and board.at(3, 1) is Disc.YELLOW
    assert board.at(-1, 0) is Disc.EMPTY and board.at(0, 6) is Disc.EMPTY


def test_disc_names_and_other() -> None:
    assert [str(d) for d in Disc] == ["empty", "red", "yellow"]
    assert Disc.RED.other() is Disc.YELLOW
    assert Disc.YELLOW.other() is Disc.RED
    assert Disc.EMPTY.other() is Disc.EMPTY


def test_value_semantics() -> None:
    board = Board.decode("4433")
    assert board == Board.decode("4433") and board != Board.decode("4434")
    assert hash(board) == hash(Board.decode("4433"))
    assert repr(board) == "Board.decode('4433')"
    assert eval(repr(board), {"Board": Board}) == board
    assert board.moves == (3, 3, 2, 2)


def test_five_in_a_row_reports_four_containing_last() -> None:
    # Red takes columns 1, 2, 4, 5 on the floor, Yellow the row above; Red's
    # ninth move in column 3 makes five in a row.
    board = Board.decode("112244553")
    assert board.winner is Disc.RED
    assert board.line == (1, 2, 3, 4)
    assert board.last == (2, 0)

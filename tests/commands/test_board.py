from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from c4cli.commands.main import cli
from support import Home


def test_board_ascii(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["board", "--moves", "4433", "--home", str(tmp_path)])
    assert result.exit_code == 0
    assert result.output == ".......\n.......\n.......\n.......\n..YY...\n..RR...\n1234567\n"


def test_board_emoji_and_svg(tmp_path: Path) -> None:
    runner = CliRunner()
    emoji = runner.invoke(cli, ["board", "--moves", "4433", "--format", "emoji"])
    assert emoji.output.splitlines()[-1] == "⚫⚫🔴🔴⚫⚫⚫"
    out = tmp_path / "b.svg"
    svg = runner.invoke(cli, ["board", "--moves", "1122334", "--format", "svg", "--out", str(out)])
    assert svg.exit_code == 0 and svg.output == ""
    assert out.read_text().count('class="win"') == 4


def test_board_json() -> None:
    result = CliRunner().invoke(cli, ["board", "--moves", "1122334", "--json"])
    doc = json.loads(result.output)
    assert doc["winner_color"] == "red" and doc["four"] == [0, 1, 2, 3] and doc["over"] is True
    assert doc["winner"] is None  # an address, and a position has none


def test_board_bad_moves_is_one_line_exit_2() -> None:
    result = CliRunner().invoke(cli, ["board", "--moves", "11223344"])
    assert result.exit_code == 2
    assert result.stderr == "Error: --moves '11223344': move 8: the game is over\n"
    assert result.stdout == ""


def test_bad_option_is_one_line_exit_2() -> None:
    result = CliRunner().invoke(cli, ["board", "--format", "x"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: ")


def test_json_error_document() -> None:
    result = CliRunner().invoke(cli, ["board", "--moves", "9", "--json"])
    assert result.exit_code == 2
    assert json.loads(result.stdout)["ok"] is False


def test_version() -> None:
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0 and result.output.startswith("c4, version ")


def test_board_json_of_a_drawn_game(home: Home) -> None:
    drawn = "315117645176335765636674142222472457245331"  # engine.md's 42-move draw
    doc = json.loads(home.ok("board", "--moves", drawn, "--json").stdout)
    assert doc["winner_color"] is None and doc["draw"] is True and doc["over"] is True
    assert doc["turn_color"] is None and doc["four"] == []
    going = json.loads(home.ok("board", "--moves", "44", "--json").stdout)
    assert going["winner_color"] is None and going["draw"] is False
    assert going["turn_color"] == "red"


def test_board_marks_the_winning_four_as_show_and_watch_do(home: Home) -> None:
    """The four in lower case (r, y) in `c4 board`'s drawing, as in `show` and `watch`."""
    drawn = home.ok("board", "--moves", "1122334").stdout
    assert drawn.splitlines()[-2:] == ["rrrr...", "1234567"]
    assert home.json("board", "--moves", "1122334")["four"] == [0, 1, 2, 3]

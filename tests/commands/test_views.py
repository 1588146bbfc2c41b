"""The views a person reads: show, board GAME, lobby, leaders (plain text when piped)."""

from __future__ import annotations

import json

from support import Home


def play_to_a_win(chain: Home) -> tuple[str, str, str]:
    gid = str(chain.json("offer", "--stake", "10gnot", "alice")["result"][0])
    chain.ok("accept", gid, "bob")
    chain.ok("reveal", gid, "alice")
    game = chain.json("reveal", gid, "bob")["game"]
    first, second = ("alice", "bob") if game["turn"] == 1 else ("bob", "alice")
    for move in range(7):
        chain.ok("play", gid, "4" if move % 2 == 0 else "5", first if move % 2 == 0 else second)
    return gid, first, second


def test_show_an_open_offer(chain: Home) -> None:
    chain.ok("offer", "--stake", "10gnot", "--opponent", "bob", "alice")
    text = chain.ok("show", "1").stdout
    assert text.startswith("Game 1: open, 0 moves\n")
    assert f"red    alice ({chain.address('alice')}) (creator)" in text
    assert "yellow waiting for an opponent" in text
    assert "stake 10 GNOT each, fee 0.1 GNOT" in text
    assert "c4 accept 1 KEY" in text and "\x1b[" not in text  # piped: no escape codes


def test_show_and_board_of_a_won_game(chain: Home) -> None:
    _, first, _ = play_to_a_win(chain)
    text = chain.ok("show", "1").stdout
    assert "Game 1: won, 7 moves" in text
    assert f"winner {first} ({chain.address(first)}): paid 19.9 GNOT" in text
    # The creator (alice) is red, whoever moved first.
    column = "R" if first == "alice" else "Y"
    other = "Y" if column == "R" else "R"
    board = chain.ok("board", "1").stdout.splitlines()
    assert board[2] == f"...{column}..." and board[5] == f"...{column}{other}.."
    assert board[-1] == "1234567"
    svg = chain.ok("board", "1", "--format", "svg").stdout
    assert svg.count('class="win"') == 4
    assert json.loads(chain.ok("show", "1", "--json").stdout)["game"]["status"] == "won"


def test_lobby_and_leaders(chain: Home) -> None:
    chain.ok("offer", "--stake", "2gnot", "carol")
    play_to_a_win(chain)
    lobby = chain.ok("lobby").stdout
    assert "Open offers (new offers pay a fee of 0.1 GNOT):" in lobby
    # Key names (not 42-character addresses) keep the lobby within 80 columns.
    assert "  carol  anyone  " in lobby
    assert max(len(line) for line in lobby.splitlines()) <= 80
    assert "Live games:\n  none" in lobby
    leaders = chain.ok("leaders").stdout
    assert leaders.startswith("Most games won:\n  1  ")
    assert "9.9 GNOT" in leaders
    assert chain.json("lobby")["games"][0]["stake"] == 2_000_000
    assert len(chain.json("leaders")["wins"]) == 1


def test_show_refusals(chain: Home) -> None:
    chain.fails(1, "show", "9", message="game not found")
    chain.fails(2, "show", "x", message="invalid game id 'x': a game is a positive number")
    chain.fails(2, "board", message="give a GAME id or --moves DIGITS (one column 1-7 per move)")

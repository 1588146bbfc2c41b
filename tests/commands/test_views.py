"""The views a person reads: show, board GAME, lobby, leaders (plain text when piped)."""

from __future__ import annotations

import json

from support import Home, game_of, start_game, strong


def play_to_a_win(chain: Home) -> tuple[str, str, str]:
    started = start_game(chain, "4545454", stake="10gnot")
    return started.id, started.first, started.second


def test_show_an_open_offer_to_anyone(chain: Home) -> None:
    chain.ok("offer", "--stake", "10gnot", "alice")
    text = chain.ok("show", "1").stdout
    assert "yellow waiting for an opponent" in text
    assert "- anyone may accept until " in text


def test_show_an_open_offer(chain: Home) -> None:
    chain.ok("offer", "--stake", "10gnot", "--opponent", "bob", "alice")
    text = chain.ok("show", "1").stdout
    assert text.startswith("Game 1: open, 0 moves\n")
    assert f"red    alice ({chain.address('alice')}) (creator)" in text
    assert f"yellow bob ({chain.address('bob')}) (reserved; has not accepted)" in text
    assert f"- bob ({chain.address('bob')}) may accept until " in text
    assert "anyone" not in text
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
    board = chain.ok("board", "1").stdout.splitlines()  # the four in lower case
    four = column.lower()
    assert board[2] == f"...{four}..." and board[5] == f"...{four}{other}.."
    assert board[-1] == "1234567"
    # --json in the drawing's colours (red the creator's), the winner an address.
    drawn = json.loads(chain.ok("board", "1", "--json").stdout)
    winner_color = "red" if first == "alice" else "yellow"
    assert (drawn["winner"], drawn["winner_color"]) == (chain.address(first), winner_color)
    svg = chain.ok("board", "1", "--format", "svg").stdout
    assert svg.count('class="win"') == 4
    assert json.loads(chain.ok("show", "1", "--json").stdout)["game"]["status"] == "won"


def test_lobby_and_leaders(chain: Home) -> None:
    chain.ok("offer", "--stake", "2gnot", "carol")
    play_to_a_win(chain)
    lobby = chain.ok("lobby").stdout
    assert "Open offers (new offers pay a fee of 0.1 GNOT):" in lobby
    # Key names (not 42-character addresses) keep the lobby within 80 columns.
    assert lobby.splitlines()[2].split()[-3:-1] == ["carol", "anyone"]
    assert max(len(line) for line in lobby.splitlines()) <= 80
    assert "Live games:\n  none" in lobby
    leaders = chain.ok("leaders").stdout
    assert leaders.startswith("Most games won:\n  #  player")
    assert leaders.splitlines()[2].startswith("  1  ")
    assert "9.9 GNOT" in leaders
    assert chain.json("lobby")["games"][0]["stake"] == 2_000_000
    assert len(chain.json("leaders")["wins"]) == 1


def test_show_refusals(chain: Home) -> None:
    chain.fails(1, "show", "9", message="game not found")
    chain.fails(2, "show", "x", message="invalid game id 'x': a game is a positive number")
    chain.fails(2, "board", message="give a GAME id or --moves DIGITS (one column 1-7 per move)")


def test_show_says_how_a_game_ended_and_marks_the_four(chain: Home) -> None:
    _, first, _ = play_to_a_win(chain)
    text = chain.ok("show", "1").stdout
    assert ": paid 19.9 GNOT, by four in a row" in text
    # The four discs of column 4 are drawn in lower case; the others stay upper case.
    disc = "r" if first == "alice" else "y"
    drawing = [line for line in text.splitlines() if len(line) == 7 and line != "1234567"]
    assert [line[3] for line in drawing[-4:]] == [disc] * 4
    assert sum(line.count(disc) for line in drawing) == 4
    assert all(line[4] in ".RY" for line in drawing)  # the loser's discs are not marked


def test_show_of_a_resigned_game(chain: Home) -> None:
    start_game(chain, stake="10gnot")
    receipt = chain.run("resign", "1", "bob").stdout
    assert receipt.splitlines()[-2] == (
        f"game 1: won, winner alice ({chain.address('alice')}) (resignation)"
    )
    text = chain.ok("show", "1").stdout
    # The log says which call settled it: a resignation, not "resignation or timeout".
    assert f"winner alice ({chain.address('alice')}): paid 19.9 GNOT, by resignation\n" in text
    assert "r" not in text.split("\n", 5)[-1] and "y" not in text.split("\n", 5)[-1]
    assert chain.json("show", "1")["ending"] == "resignation"


def test_show_of_a_game_won_on_time(chain: Home) -> None:
    first = start_game(chain, "4", stake="10gnot").first
    chain.ok("time", "advance", "91s")
    chain.ok("claim-timeout", "1", "carol")  # anyone may settle it
    text = chain.ok("show", "1").stdout
    assert f"winner {first} ({chain.address(first)}): paid 19.9 GNOT, by timeout\n" in text
    assert chain.json("show", "1")["ending"] == "timeout"
    watched = chain.ok("watch", "1").stdout.splitlines()
    assert f"game 1: won by {first} (timeout)" in watched


def test_the_moves_in_the_order_they_were_played(chain: Home) -> None:
    """GameJSON holds the position only; the log holds the order, and the views give it."""
    moves = "4444413"
    gid = game_of(chain, moves)
    chain.ok("resign", gid, "alice")
    board = chain.json("board", gid)
    assert board["moves"] == moves  # as played
    assert board["position"] == "3144444"  # one order that reaches the board
    assert "  moves 4444413\n" in chain.ok("show", gid).stdout
    assert chain.json("show", gid)["moves"] == moves
    watched = chain.ok("watch", gid).stdout.splitlines()
    assert [line for line in watched if ": column " in line] == [
        f"game {gid}, move {n}: column {c}" for n, c in enumerate(moves)
    ]
    (document,) = watched_json(chain, gid)
    assert (document["moves"], document["seen_from"], document["position"]) == (moves, 0, "3144444")
    assert document["ending"] == "resignation"


def watched_json(chain: Home, gid: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in chain.ok("watch", gid, "--json").stdout.splitlines()]


def test_watch_ends_with_the_board_and_its_four(chain: Home) -> None:
    gid = game_of(chain, "1122334")
    lines = chain.ok("watch", gid).stdout.splitlines()
    assert lines[-1] == "1234567"
    # The first mover's bottom row is the four, in lower case; the other's row is not.
    assert lines[-2] in ("rrrr...", "yyyy...")
    assert lines[-3] == ("YYY...." if lines[-2][0] == "r" else "RRR....")
    (document,) = watched_json(chain, gid)
    assert document["four"] == [0, 1, 2, 3]


def test_lobby_and_show_mark_a_clock_that_ran_out(chain: Home) -> None:
    play = chain.json("offer", "--stake", "2gnot", "alice")["result"][0]
    chain.ok("accept", str(play), "bob")
    chain.ok("time", "advance", "91s")
    chain.ok("offer", "--stake", "3gnot", "carol")  # a fresh block: the clock is read at it
    lobby = chain.ok("lobby").stdout
    live = lobby.split("Live games:\n", 1)[1].splitlines()
    assert live[0].split() == ["game", "pot", "on", "turn", "deadline", "(UTC)"]
    assert live[1].split()[-2:] == ["ran", "out"], lobby
    assert "the clock ran out: anyone may settle it" in chain.ok("show", str(play)).stdout


def test_lobby_columns_stay_aligned_when_piped(chain: Home) -> None:
    chain.ok("offer", "--stake", "2gnot", "alice")
    chain.ok("offer", "--stake", "123.5gnot", "--opponent", "bob", "carol")
    rows = chain.ok("lobby").stdout.split("Live games:")[0].splitlines()[1:]
    assert len(rows) == 3  # the header, two offers
    assert rows[0].index("fee") == rows[1].index("0.1 GNOT")
    # Stakes of different widths: the fee column still starts at the same place.
    assert rows[1].index("0.1 GNOT") == rows[2].index("0.1 GNOT"), rows


def test_key_names_in_json(chain: Home) -> None:
    receipt = chain.json("offer", "--stake", "10gnot", "alice")
    assert receipt["keys"] == {chain.address("alice"): "alice"}
    chain.json("accept", "1", "bob")
    chain.ok("reveal", "1", "alice")
    receipt = chain.json("reveal", "1", "bob")
    turn = receipt["game"]["turnPlayer"]
    assert receipt["keys"][turn] in ("alice", "bob")
    shown = chain.json("show", "1")
    assert shown["keys"] == {chain.address("alice"): "alice", chain.address("bob"): "bob"}


def test_the_json_receipt_of_a_settling_call_says_how_the_game_ended(chain: Home) -> None:
    play_to_a_win(chain)
    assert start_game(chain).id == "2"
    assert chain.json("resign", "2", "alice")["ending"] == "resignation"
    assert chain.json("query", "game", "1")["game"]["status"] == "won"


def test_small_words(chain: Home) -> None:
    """One move is "1 move"; a non-player's reveal says so; an empty mnemonic says so."""
    chain.ok("offer", "--stake", "1gnot", "alice")
    chain.ok("accept", "1", "bob")
    result = chain.fails(2, "reveal", "1", "carol")
    assert result.stderr == "Error: carol is not a player in game 1: it has nothing to reveal\n"
    chain.ok("reveal", "1", "alice")
    game = chain.json("reveal", "1", "bob")["game"]
    chain.ok("play", "1", "4", "alice" if game["turn"] == 1 else "bob")
    assert chain.ok("show", "1").stdout.startswith("Game 1: playing, 1 move\n")
    empty = chain.run("keys", "add", "dora", "--recover", input="\n")
    assert empty.exit_code == 2 and "no mnemonic given" in empty.stderr


def test_board_json_speaks_the_drawings_colours_when_the_creator_moved_second(
    chain: Home,
) -> None:
    """Red is the creator's, whoever moved first: here the acceptor (yellow) moves first
    and wins, and `board --json` says yellow, as the drawing marks it."""
    from c4cli.realm.memory import first_mover
    from c4cli.realm.rules import ACCEPTOR

    alice, bob = chain.address("alice"), chain.address("bob")
    passphrase = strong("pass")
    seed = next(
        strong(f"seed-{n}")
        for n in range(64)
        if first_mover(passphrase, strong(f"seed-{n}"), 1, alice, bob) == ACCEPTOR
    )
    started = start_game(chain, "4545454", passphrase=passphrase, seed=seed)
    assert started.first == "bob"
    drawn = json.loads(chain.ok("board", started.id, "--json").stdout)
    assert (drawn["winner"], drawn["winner_color"]) == (chain.address("bob"), "yellow")
    assert "y" in drawn["board"] and "r" not in drawn["board"]


def test_a_nodes_deadline_of_ten_to_the_twentieth_is_shown_not_a_crash(home: Home) -> None:
    """Issue 47: a node whose game has a deadline (and an offer an expiry) of 10^20:
    the lobby and the game draw, with the latest time RFC 3339 can write."""
    from realm_node import ADDRESS, game, realm_node

    games = [
        game(1, expiresAt=10**20),
        game(2, status="playing", acceptor=ADDRESS, turnPlayer=ADDRESS, deadline=10**20),
    ]
    with realm_node(games) as node:
        lobby = home.run("--remote", node.url, "lobby")
        shown = home.run("--remote", node.url, "show", "2")
    assert lobby.exit_code == 0, lobby.output
    assert "23:59:59" in lobby.stdout
    assert shown.exit_code == 0, shown.output
    assert "deadline 9999-12-31T23:59:59Z" in shown.stdout

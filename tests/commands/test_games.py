"""`c4 games KEY`, `c4 cancel --expired KEY` and `c4 query player` on the local chain."""

from __future__ import annotations

import pytest
from player_scenario import STAKES, comparable, groups, play_the_scenario

from support import Home, start_game


@pytest.fixture
def played(chain: Home) -> tuple[Home, dict[str, int]]:
    ids = play_the_scenario(chain, expire=lambda: chain.ok("time", "advance", "2m"))
    return chain, ids


def test_games_groups_a_players_games_with_exact_amounts(
    played: tuple[Home, dict[str, int]],
) -> None:
    home, ids = played
    document = home.json("games", "alice")
    first = ids["expired"]
    assert groups(document) == {
        "expired": [first, first + 1, first + 2],
        "finished": [ids["won"]],
        "your_move": [ids["live"]],
    }
    assert document["key"] == "alice" and document["address"] == home.address("alice")
    assert document["held_ugnot"] == sum(STAKES) + 1_000_000  # the offers, the live stake
    assert document["takeable_ugnot"] == sum(STAKES)
    record = {"games": 1, "wins": 1, "draws": 0, "won_ugnot": 1_900_000, "net_ugnot": 1_900_000}
    assert document["record"] == record
    (won,) = [g for g in document["games"] if g["group"] == "finished"]
    assert won["outcome"] == "won" and won["delta_ugnot"] == 1_900_000 and won["rival_key"] == "bob"
    bob = home.json("games", "bob")
    assert groups(bob) == {"finished": [ids["won"]], "waiting": [ids["live"]]}
    # Issue 48: what bob won (nothing) is not his net: he lost his stake.
    lost = -2_000_000  # the stake of the game alice won
    assert bob["record"] == {"games": 1, "wins": 0, "draws": 0, "won_ugnot": 0, "net_ugnot": lost}
    assert (
        "record: 1 game, 0 won, 0 drawn; 0 GNOT taken in wins, net -"
        in home.ok("games", "bob").stdout
    )
    shown = home.ok("query", "player", "bob").stdout
    assert f"net of every settled game: {lost}ugnot" in shown
    assert "won: 0ugnot (0 GNOT) beyond the stakes, as the realm counts it" in shown
    only = home.json("games", "alice", "--status", "expired")
    assert [g["group"] for g in only["games"]] == ["expired"] * 3
    text = home.ok("games", "alice").stdout
    assert text.splitlines()[0].endswith(
        "7 GNOT held by the realm, 6 GNOT of it yours to take back now by cancelling your offers"
    )
    assert f"  game {first}  1 GNOT  expired 2026-01-01T00:01:05Z  c4 cancel {first} alice" in text


def test_cancel_expired_takes_back_exactly_the_stakes(played: tuple[Home, dict[str, int]]) -> None:
    home, ids = played
    before = int(home.json("query", "balance", "alice")["ugnot"])
    out = home.ok("cancel", "--expired", "alice").stdout.splitlines()
    assert len(out) == 4 and out[-1] == "taken back: 6 GNOT from 3 expired offers"
    assert out[0].startswith(f"game {ids['expired']} cancelled: 1 GNOT back to alice (g1")
    assert int(home.json("query", "balance", "alice")["ugnot"]) == before + sum(STAKES)
    after = home.json("games", "alice")
    assert "expired" not in groups(after) and after["takeable_ugnot"] == 0
    assert after["held_ugnot"] == 1_000_000  # the live game's stake only
    again = [line for line in home.ok("cancel", "--expired", "alice", "--json").stdout.splitlines()]
    assert again == ['{"cancelled": [], "taken_back_ugnot": 0}']


def test_cancel_expired_stops_at_the_first_refusal_with_what_was_done(chain: Home) -> None:
    """A session key whose spend limit covers one fee: the first cancel lands and says
    so, the second is the chain's refusal (exit 1), and nothing after it is sent."""
    ids = [
        int(chain.json("offer", "--stake", "1gnot", "--valid-for", "1m", "alice")["result"][0])
        for _ in range(3)
    ]
    chain.ok("time", "advance", "2m")
    path = "vm/exec:gno.land/r/samcrew/connect4"
    chain.ok(
        "session",
        "create",
        "--session-key",
        "s",
        "--expires",
        "1h",
        "--allow-paths",
        path,
        "--spend-limit",
        "1ugnot",
        "alice",
    )
    before = int(chain.json("query", "balance", "alice")["ugnot"])
    result = chain.run("cancel", "--expired", "--master", "alice", "--gas-fee", "1ugnot", "s")
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert result.stdout.splitlines() == [
        result.stdout.splitlines()[0]
    ] and result.stdout.startswith(f"game {ids[0]} cancelled: 1 GNOT back to alice")
    assert "spend limit" in result.stderr and result.stderr.count("\n") == 1
    assert int(chain.json("query", "balance", "alice")["ugnot"]) == before + 1_000_000 - 1
    left = chain.json("games", "alice", "--status", "expired")["games"]
    assert [g["id"] for g in left] == ids[1:]


def test_query_player_is_the_realms_record_for_anyone(chain: Home) -> None:
    started = start_game(chain, "4545454", stake="10gnot")
    record = chain.json("query", "player", started.first)
    assert record == {
        "address": chain.address(started.first),
        "games": 1,
        "wins": 1,
        "draws": 0,
        "won_ugnot": 9_900_000,
        "net_ugnot": 9_900_000,
    }
    assert chain.json("query", "player", "carol")["games"] == 0
    assert chain.ok("query", "player", started.second).stdout.splitlines()[1:] == [
        "games: 1",
        "wins: 0",
        "draws: 0",
        "won: 0ugnot (0 GNOT) beyond the stakes, as the realm counts it (its net: losses not "
        "subtracted)",
        "net of every settled game: -10000000ugnot (-10 GNOT)",
    ]


def test_games_json_is_the_same_shape_as_the_node_test_expects(
    played: tuple[Home, dict[str, int]],
) -> None:
    home, _ = played
    document = comparable(home.json("games", "alice"))
    assert set(document) == {"key", "held_ugnot", "takeable_ugnot", "record", "games"}

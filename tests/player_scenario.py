"""The scenario of a player's games, on any home whose alice and bob hold coins: three
offers of alice's left to expire, a game she wins, a game where it is her move. The
local chain's test and the node's run it and expect the same document."""

from __future__ import annotations

from typing import Any

from support import Home, start_game

STAKES = (1_000_000, 2_000_000, 3_000_000)  # the expired offers


def play_the_scenario(home: Home, *, expire: Any, games_first: bool = False) -> dict[str, int]:
    """Play it; ``expire()`` lets the offers expire (the manual clock advanced, or a
    node's blocks waited for: there after the games, which take that long anyway).
    The game ids of each part."""
    offers = [
        int(
            home.json("offer", "--stake", f"{stake}ugnot", "--valid-for", "1m", "alice")["result"][
                0
            ]
        )
        for stake in STAKES
    ]
    if not games_first:
        expire()
    won = start_game(home, stake="2gnot")
    loser = won.second if won.first == "alice" else won.first
    home.ok("resign", won.id, loser)
    live = start_game(home, stake="1gnot")
    if live.first != "alice":
        home.ok("play", live.id, "4", live.first)
    if games_first:
        expire()
    return {"expired": offers[0], "won": int(won.id), "live": int(live.id)}


def groups(document: dict[str, Any]) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for game in document["games"]:
        found.setdefault(game["group"], []).append(game["id"])
    return found


def comparable(document: dict[str, Any]) -> dict[str, Any]:
    """`c4 games --json` without what differs from chain to chain by design (times, and
    the marks a node home gives what it checked)."""
    dropped = ("now", "games", "address", "verified", "unverified", "verified_height", "behind")
    dropped += ("verified_by",)
    return {
        **{k: v for k, v in document.items() if k not in dropped},
        "games": [
            {k: v for k, v in g.items() if k not in ("game", "rival")} for g in document["games"]
        ],
    }

"""`c4 games`, `c4 cancel --expired` and `c4 query player` on a real gnoland: the same
document as on the local chain, requests by pages of games (not one a game), and the
record the realm itself keeps (its ``playerStats``)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from player_scenario import STAKES, comparable, groups, play_the_scenario
from real_gnoland.proxy import proxy_for
from real_gnoland.test_remote import bound_home, costs

from c4cli.client.player import PAGE
from support import Home

pytestmark = pytest.mark.node

TEST1 = "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"
COMMITMENT = "0" * 64


def test_a_players_games_on_a_node_read_as_on_the_local_chain(
    gno_node: Any, tmp_path: Path, chain: Home
) -> None:
    path = "gno.land/r/c4cli/games/connect4"
    node = bound_home(gno_node, path, tmp_path / "node")

    def expire() -> None:  # the offers' minute, by the node's clock
        games = node.json("games", "alice")["games"]
        until = max(g["game"]["expiresAt"] for g in games if g["status"] == "open")
        # This node makes a block only for a transaction: its next is dated by the clock.
        time.sleep(max(0.0, until + 2 - time.time()))

    ids = play_the_scenario(node, expire=expire, games_first=True)
    play_the_scenario(chain, expire=lambda: chain.ok("time", "advance", "2m"))
    on_node = node.json("games", "alice")
    assert groups(on_node) == {
        "expired": [ids["expired"], ids["expired"] + 1, ids["expired"] + 2],
        "finished": [ids["won"]],
        "your_move": [ids["live"]],
    }
    assert comparable(on_node) == comparable(chain.json("games", "alice"))
    before = int(node.json("query", "balance", "alice")["ugnot"])
    lines = [
        json.loads(line)
        for line in node.ok("cancel", "--expired", "alice", "--json").stdout.splitlines()
    ]
    assert lines[-1] == {
        "cancelled": [ids["expired"] + i for i in range(3)],
        "taken_back_ugnot": sum(STAKES),
    }
    paid = sum(costs(receipt) for receipt in lines[:-1])  # gas fees, storage deposits
    assert int(node.json("query", "balance", "alice")["ugnot"]) == before + sum(STAKES) - paid
    assert "expired" not in groups(node.json("games", "alice"))
    # The record c4 counts is the realm's own, read from its playerStats.
    for name in ("alice", "bob"):
        record = node.json("query", "player", name)
        address = record["address"]
        # c4's won_ugnot is the realm's playerStats net (what wins took beyond the stakes).
        fields = {"games": "games", "wins": "wins", "draws": "draws", "net": "won_ugnot"}
        for field, ours in fields.items():
            data = node.json(
                "query",
                "vm/qeval",
                "--data",
                f'{path}.playerStats.Get("{address}").(*stats).{field}',
            )["data"]
            assert data.split(" ")[0].lstrip("(") == str(record[ours]), (name, field, data)


def three_hundred_games(name: str, text: str) -> str:
    """The realm with 300 expired offers of test1's from its first block (no coins
    held: a test of how c4 reads, not of the realm)."""
    if name != "connect4.gno":
        return text
    games = (
        "\tfor i := 0; i < 300; i++ {\n"
        "\t\tgameCount++\n"
        f'\t\tgames.Set(gameKey(gameCount), &Game{{id: gameCount, creator: "{TEST1}", '
        f'stake: 1000000, fee: 100000, commitment: "{COMMITMENT}", status: statusOpen}})\n'
        "\t}\n"
    )
    return text.replace("func init() {\n", "func init() {\n" + games, 1)


def test_games_reads_a_page_of_games_a_request(gno_node: Any, tmp_path: Path) -> None:
    home = bound_home(gno_node, "gno.land/r/c4cli/paged/connect4", tmp_path, three_hundred_games)
    with proxy_for(gno_node.url) as proxy:
        document = home.json("games", "test1", "--remote", proxy.url)
    assert len(document["games"]) == 300 and document["takeable_ugnot"] == 300_000_000
    assert {g["group"] for g in document["games"]} == {"expired"}
    reads = [methods for methods in proxy.requests if "abci_query" in methods]
    # A request a page, the last one finding the end, beside the one that checks the
    # chain and reads its head: 14 requests for 300 games, not 300; and one that proves
    # the realm's code is not c4's (its connect4.gno was patched), so that its digests
    # are not read (issue 64).
    assert len(reads) == 300 // PAGE + 2, [len(r) for r in reads]
    # Beside them, the head proven: once, and once more where it aged or moved while
    # the pages were read (the proof asks the head's commit with it, or alone).
    others = [methods for methods in proxy.requests if "abci_query" not in methods]
    assert len(others) <= 2 and all(set(m) <= {"status", "commit"} for m in others), others
    assert all(len(r) >= PAGE for r in reads)

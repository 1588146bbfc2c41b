"""The realm read as a client reads it: answers in another shape are one clear line."""

from __future__ import annotations

import pytest

from c4cli.chain.interface import Answer
from c4cli.client.realm_client import RealmClient
from c4cli.errors import Unreachable
from c4cli.gotext import quote
from support import Home


class Answers:
    """What a chain answered to vm/qeval, fixed: the realm of another shape."""

    realm_path = "gno.land/r/someone/connect4"

    def __init__(self, value: str) -> None:
        self.value = value

    def query(self, path: str, data: str = "") -> Answer:
        return Answer(7, f"({quote(self.value)} string)")


# A GameJSON as the realm publishes one, an open offer: every field in its place.
_GAME = (
    '{"now":1,"game":{"id":1,"creator":"g1","opponent":"","acceptor":"","stake":1,"fee":0,'
    '"expiresAt":2,"commitment":"","seedCommitment":"","revealed":false,"board":"'
    + "0"
    * 42
    + '","turn":0,"turnPlayer":"","moves":0,"lastCol":0,"lastRow":0,"deadline":0,'
    '"status":"open","winner":""}}'
)


def test_a_whole_game_reads() -> None:
    game = RealmClient(Answers(_GAME)).game(1)
    assert game is not None and game.cells == "0" * 42


@pytest.mark.parametrize(
    ("value", "call"),
    [
        ('{"now":1,"game":{"id":1}}', "game"),
        ("not json", "game"),
        ('{"now":1,"fee":"x","games":[]}', "lobby"),
        ('{"wins":[{"address":"g1"}],"gnot":[]}', "leaders"),
        (_GAME.replace('"board":"' + "0" * 42, '"board":"' + "x" * 42), "game"),  # issue 60
        (_GAME.replace('"board":"' + "0" * 42, '"board":"' + "0" * 41), "game"),
    ],
)
def test_another_shape_is_one_line(value: str, call: str) -> None:
    client = RealmClient(Answers(value))
    with pytest.raises(Unreachable) as caught:
        if call == "game":
            client.game(1)
        elif call == "lobby":
            client.lobby()
        else:
            client.leaders()
    assert "\n" not in str(caught.value)


def test_a_game_read_from_the_chain(chain: Home) -> None:
    """The same reads through the local chain: the view of a real game."""
    from c4cli.local.chain import LocalChain

    chain.ok("offer", "--stake", "10gnot", "--opponent", "bob", "alice")
    game = RealmClient(LocalChain(chain.path)).game(1)
    assert game is not None
    assert (game.id, game.stake, game.status, game.opponent) == (
        1,
        10_000_000,
        "open",
        chain.address("bob"),
    )
    assert game.payout() == 2 * 10_000_000 - 100_000
    assert RealmClient(LocalChain(chain.path)).game(2) is None

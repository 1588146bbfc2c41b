"""The first mover is the low bit of sha256(passphrase|seed|id|creator|acceptor)."""

from __future__ import annotations

import hashlib

import pytest

from c4cli.realm.memory import first_mover
from c4cli.realm.rules import ACCEPTOR, CREATOR
from support import Home, strong


def expected(passphrase: str, seed: str, game_id: int, creator: str, acceptor: str) -> int:
    text = "|".join([passphrase, seed, str(game_id), creator, acceptor])
    return 1 if hashlib.sha256(text.encode()).digest()[0] % 2 == 0 else 2


def test_known_vector() -> None:
    creator = "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"
    acceptor = "g1mtmrdmqfu0aryqfl4aw65n35haw2wdjkh5p4cp"
    # sha256("pass|seed|1|<creator>|<acceptor>") begins 0x77 (odd): the acceptor moves first;
    # with id 2 it begins 0xb0 (even): the creator does.
    assert hashlib.sha256(f"pass|seed|1|{creator}|{acceptor}".encode()).digest()[0] == 0x77
    assert first_mover("pass", "seed", 1, creator, acceptor) == ACCEPTOR
    assert first_mover("pass", "seed", 2, creator, acceptor) == CREATOR
    for game_id in range(1, 50):
        assert first_mover("p", "s", game_id, creator, acceptor) == expected(
            "p", "s", game_id, creator, acceptor
        )


@pytest.mark.parametrize("n", range(6))
def test_through_the_chain(chain: Home, n: int) -> None:
    passphrase, seed = strong(f"creator secret {n}"), strong(f"acceptor seed {n}")
    for _ in range(n % 3):  # vary the game id too
        chain.ok("offer", "--stake", "1gnot", "carol")
    game_id = chain.json("offer", "--stake", "1gnot", "--passphrase", passphrase, "alice")
    gid = str(game_id["result"][0])
    chain.ok("accept", gid, "--seed", seed, "bob")
    chain.ok("reveal", gid, "alice")
    game = chain.json("reveal", gid, "bob")["game"]
    turn = expected(passphrase, seed, int(gid), chain.address("alice"), chain.address("bob"))
    assert game["turn"] == turn
    assert game["turnPlayer"] == chain.address("alice" if turn == 1 else "bob")

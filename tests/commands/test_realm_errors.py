"""Every reachable panic text of the realm, produced by a transaction sent through the chain.

Each refusal must exit 1 with the realm's words verbatim and leave the log as it was.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from support import Home, start_game

PASS = "creator passphrase"
SEED = "acceptor seed"
COMMIT = hashlib.sha256(PASS.encode()).hexdigest()


def offer(chain: Home, key: str = "alice", *extra: str, passphrase: str = PASS) -> int:
    doc = chain.json("offer", "--stake", "10gnot", "--passphrase", passphrase, *extra, key)
    return int(doc["result"][0])


def started(chain: Home) -> tuple[int, dict[str, Any]]:
    """A game past both reveals; returns its id and the GameJSON."""
    started = start_game(chain, stake="10gnot", passphrase=PASS, seed=SEED)
    return int(started.id), chain.game(int(started.id))


def on_turn(chain: Home, game: dict[str, Any]) -> tuple[str, str]:
    alice = chain.address("alice")
    return ("alice", "bob") if game["turnPlayer"] == alice else ("bob", "alice")


def test_payment_and_coin_guards(chain: Home) -> None:
    chain.ok("init", "--force", "--clock", "manual", "--premine", "alice=100000gnot,5foo")
    chain.fails(
        1,
        "call",
        "Offer",
        "",
        "15",
        COMMIT,
        "100000",
        "alice",
        message="send exactly one ugnot coin",
    )
    chain.fails(
        1,
        "call",
        "Offer",
        "",
        "15",
        COMMIT,
        "100000",
        "--send",
        "1000000ugnot,5foo",
        "alice",
        message="send exactly one ugnot coin",
    )
    game_id = offer(chain)
    chain.fails(
        1,
        "call",
        "Cancel",
        str(game_id),
        "--send",
        "1ugnot",
        "alice",
        message="this function does not accept coins",
    )
    chain.fails(1, "cancel", "99", "alice", message="game not found")


def test_offer_validation(chain: Home) -> None:
    alice = chain.address("alice")
    chain.fails(
        1,
        "offer",
        "--stake",
        "10gnot",
        "--opponent",
        "alice",
        "alice",
        message="cannot challenge yourself",
    )
    chain.fails(1, "offer", "--stake", "0.5gnot", "alice", message="stake below minimum of 1 GNOT")
    chain.fails(
        1,
        "offer",
        "--stake",
        "10gnot",
        "--valid-for",
        "61",
        "alice",
        message="validFor must be between 1 and 60 minutes",
    )
    chain.fails(
        1,
        "call",
        "Offer",
        "",
        "0",
        COMMIT,
        "100000",
        "--send",
        "10gnot",
        "alice",
        message="validFor must be between 1 and 60 minutes",
    )
    chain.fails(
        1,
        "offer",
        "--stake",
        "10gnot",
        "--opponent",
        chain.address("bob").upper(),
        "alice",
        message="invalid opponent address (use the lower-case g1… form)",
    )
    chain.fails(
        1,
        "call",
        "Offer",
        "",
        "15",
        COMMIT.upper(),
        "100000",
        "--send",
        "10gnot",
        "alice",
        message="commitment must be 64 lowercase hex chars (sha256 of your passphrase)",
    )
    chain.fails(
        1,
        "offer",
        "--stake",
        "10gnot",
        "--max-fee",
        "0.05gnot",
        "alice",
        message="house fee is 0.1 GNOT, above your maxFee of 0.05 GNOT",
    )
    offer(chain)
    chain.fails(
        1,
        "offer",
        "--stake",
        "10gnot",
        "--passphrase",
        PASS,
        "alice",
        message="commitment already used: generate a fresh secret",
    )
    assert alice  # the same commitment from another address is fine:
    offer(chain, "bob")


def test_accept_checks(chain: Home) -> None:
    game_id = offer(chain, "alice", "--opponent", "bob", "--valid-for", "1")
    gid = str(game_id)
    chain.fails(1, "accept", gid, "alice", message="cannot accept your own offer")
    chain.fails(1, "accept", gid, "carol", message="offer is reserved for another player")
    chain.fails(
        1, "accept", gid, "--send", "9gnot", "bob", message="must send exactly 10000000ugnot"
    )
    chain.fails(
        1,
        "call",
        "Accept",
        gid,
        "nothex",
        "--send",
        "10gnot",
        "bob",
        message="seedCommitment must be 64 lowercase hex chars (sha256 of your seed)",
    )
    chain.fails(1, "accept", gid, "--seed", PASS, "alice", message="cannot accept your own offer")
    chain.ok("time", "advance", "60s")
    chain.fails(1, "accept", gid, "bob", message="offer expired")
    other = offer(chain, "carol", passphrase="carol's")
    chain.ok("accept", str(other), "--seed", SEED, "bob")
    chain.fails(1, "accept", str(other), "alice", message="game is not open")
    third = offer(chain, "carol", passphrase="carol's third")
    chain.fails(
        1,
        "accept",
        str(third),
        "--seed",
        SEED,
        "bob",
        message="commitment already used: generate a fresh secret",
    )


def test_reveal_checks(chain: Home) -> None:
    game_id = offer(chain)
    gid = str(game_id)
    chain.fails(
        1, "call", "Reveal", gid, PASS, "alice", message="game is not awaiting the creator's reveal"
    )
    chain.ok("accept", gid, "--seed", SEED, "bob")
    chain.fails(
        1,
        "call",
        "RevealSeed",
        gid,
        SEED,
        "bob",
        message="game is not awaiting the acceptor's seed",
    )
    chain.fails(1, "call", "Reveal", gid, PASS, "bob", message="only the creator can reveal")
    chain.fails(
        1,
        "reveal",
        gid,
        "--secret",
        "wrong",
        "alice",
        message="passphrase does not match the commitment",
    )
    chain.fails(1, "play", gid, "4", "alice", message="waiting for the creator to reveal")
    chain.ok("reveal", gid, "alice")
    chain.fails(
        1, "call", "RevealSeed", gid, SEED, "alice", message="only the acceptor can reveal the seed"
    )
    chain.fails(
        1, "reveal", gid, "--secret", "wrong", "bob", message="seed does not match the commitment"
    )
    chain.fails(1, "play", gid, "4", "alice", message="waiting for the creator to reveal")
    chain.ok("time", "advance", "91s")
    chain.fails(1, "reveal", gid, "bob", message="reveal clock ran out")


def test_creator_reveal_clock(chain: Home) -> None:
    game_id = offer(chain)
    chain.ok("accept", str(game_id), "--seed", SEED, "bob")
    chain.ok("time", "advance", "91s")
    chain.fails(1, "reveal", str(game_id), "alice", message="reveal clock ran out")


def test_play_checks(chain: Home) -> None:
    game_id, game = started(chain)
    gid = str(game_id)
    mover, other = on_turn(chain, game)
    chain.fails(1, "play", gid, "4", other, message="not your turn")
    chain.fails(1, "play", gid, "4", "carol", message="not your turn")
    chain.fails(
        1, "play", gid, "4", "--move", "3", mover, message="stale move: the game is at move 0"
    )
    chain.fails(1, "play", gid, "8", mover, message="column must be between 1 and 7")
    chain.fails(1, "play", gid, "0", mover, message="column must be between 1 and 7")
    chain.fails(
        1,
        "call",
        "Play",
        gid,
        "4",
        "0",
        "--send",
        "1ugnot",
        mover,
        message="this function does not accept coins",
    )
    players = [mover, other]
    for move in range(6):
        chain.ok("play", gid, "1", players[move % 2])
    chain.fails(1, "play", gid, "1", mover, message="column is full")
    chain.fails(1, "claim-timeout", gid, "carol", message="move clock has not run out")
    chain.ok("time", "advance", "91s")
    chain.fails(1, "play", gid, "2", mover, message="move clock ran out")
    chain.fails(1, "resign", gid, "carol", message="not a player in this game")
    chain.ok("claim-timeout", gid, "carol")
    chain.fails(1, "play", gid, "2", mover, message="game is not in progress")
    chain.fails(1, "claim-timeout", gid, "carol", message="game is not in progress")
    chain.fails(1, "resign", gid, mover, message="game is not in progress")


def test_cancel_checks(chain: Home) -> None:
    game_id = offer(chain, "alice", "--valid-for", "1")
    chain.fails(
        1, "cancel", str(game_id), "bob", message="only the creator can cancel an unexpired offer"
    )
    chain.ok("accept", str(game_id), "--seed", SEED, "bob")
    chain.fails(1, "cancel", str(game_id), "alice", message="game is not open")


def test_owner_checks(chain: Home) -> None:
    chain.fails(1, "set-fee", "0.2gnot", "alice", message="ownable: caller is not owner")
    chain.fails(1, "set-fee", "0.6gnot", "test1", message="fee must be between 0 and 0.5 GNOT")
    chain.fails(
        1, "call", "SetFee", "--", "-1", "test1", message="fee must be between 0 and 0.5 GNOT"
    )
    chain.fails(1, "withdraw-fees", "alice", message="ownable: caller is not owner")
    chain.fails(
        1,
        "withdraw-fees",
        "--to",
        chain.address("bob").upper(),
        "test1",
        message="invalid address (use the lower-case g1… form)",
    )
    chain.fails(1, "transfer-ownership", "bob", "alice", message="ownable: caller is not owner")
    chain.fails(
        1,
        "transfer-ownership",
        chain.address("bob").upper(),
        "test1",
        message="invalid address (use the lower-case g1… form)",
    )
    chain.fails(
        1,
        "call",
        "TransferOwnership",
        "g1notanaddress",
        "test1",
        message="invalid address (use the lower-case g1… form)",
    )
    chain.fails(
        1, "accept-ownership", "bob", message="no ownership transfer pending for this address"
    )
    chain.ok("transfer-ownership", "bob", "test1")
    chain.fails(
        1, "accept-ownership", "carol", message="no ownership transfer pending for this address"
    )
    chain.fails(
        1,
        "call",
        "AcceptOwnership",
        "--send",
        "1ugnot",
        "bob",
        message="this function does not accept coins",
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["Play", "1", "x", "0"],
            'error parsing int "x": strconv.ParseInt: parsing "x": invalid syntax',
        ),
        (["Play", "1", "4"], "wrong number of arguments in call to Play: want 4 got 3"),
        (
            ["AcceptOwnership", "1"],
            "wrong number of arguments in call to AcceptOwnership: want 1 got 2",
        ),
        (
            ["Cancel", "99999999999999999999"],
            'error parsing int "99999999999999999999": strconv.ParseInt: '
            'parsing "99999999999999999999": value out of range',
        ),
        (["Cancel", "+1"], "numbers cannot start with +"),
        (
            ["Cancel", " 1"],
            'error parsing int " 1": strconv.ParseInt: parsing " 1": invalid syntax',
        ),
        (["Cancel", ""], 'error parsing int "": strconv.ParseInt: parsing "": invalid syntax'),
        (
            ["Cancel", "1_0"],
            'error parsing int "1_0": strconv.ParseInt: parsing "1_0": invalid syntax',
        ),
        (
            ["Cancel", "\u0661"],
            'error parsing int "\u0661": strconv.ParseInt: parsing "\u0661": invalid syntax',
        ),
        (["Nope"], "name Nope not declared"),
        (["bad-name"], "func must be a Go identifier"),
        (
            ["GameJSON", "1"],
            "function GameJSON is non-crossing and cannot be called with MsgCall; "
            "query with vm/qeval or use MsgRun",
        ),
    ],
)
def test_arguments_are_parsed_before_the_realm_runs(
    chain: Home, args: list[str], message: str
) -> None:
    chain.fails(1, "call", *args, "alice", message=message)

"""The design record's security review, each point as a transaction through the chain."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from c4cli.chain.clock import format_time
from support import PREMINE, REALM, Home, start_game

NON_PAYABLE = {
    "Reveal": ["1", "x"],
    "RevealSeed": ["1", "x"],
    "Play": ["1", "4", "0"],
    "ClaimTimeout": ["1"],
    "Resign": ["1"],
    "Cancel": ["1"],
    "SetFee": ["0"],
    "WithdrawFees": ["g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"],
    "TransferOwnership": ["g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"],
    "AcceptOwnership": [],
}


@pytest.mark.parametrize("func", sorted(NON_PAYABLE))
def test_coins_to_a_non_payable_function_are_refused(chain: Home, func: str) -> None:
    chain.ok("offer", "--stake", "1gnot", "alice")
    chain.fails(
        1,
        "call",
        func,
        *NON_PAYABLE[func],
        "--send",
        "1ugnot",
        "test1",
        message="this function does not accept coins",
    )
    assert chain.realm_balance() == 1_000_000


@pytest.mark.parametrize("coins", ["1gnot,1foo", "5foo"])
def test_payable_calls_take_exactly_one_ugnot_coin(chain: Home, coins: str) -> None:
    chain.ok(
        "init",
        "--force",
        "--clock",
        "manual",
        "--premine",
        "alice=100gnot,10foo",
        "--premine",
        "bob=100gnot,10foo",
    )
    game = chain.json("offer", "--stake", "2gnot", "alice")["result"][0]
    chain.fails(
        1,
        "call",
        "Offer",
        "",
        "15",
        "a" * 64,
        "100000",
        "--send",
        coins,
        "alice",
        message="send exactly one ugnot coin",
    )
    chain.fails(
        1, "accept", str(game), "--send", coins, "bob", message="send exactly one ugnot coin"
    )


def test_fee_cap_and_snapshot(chain: Home) -> None:
    chain.fails(1, "set-fee", "500001ugnot", "test1", message="fee must be between 0 and 0.5 GNOT")
    chain.ok("set-fee", "0.5gnot", "test1")
    game = str(chain.json("offer", "--stake", "1gnot", "alice")["result"][0])
    chain.ok("set-fee", "0ugnot", "test1")
    assert chain.game(int(game))["fee"] == 500_000  # the live game keeps its terms
    chain.ok("accept", game, "bob")
    chain.ok("resign", game, "bob")
    assert chain.balance("alice") == PREMINE + 1_000_000 - 500_000
    # The cap keeps the fee below every stake: a 1 GNOT game can never pay more than half.
    assert chain.json("query", "fees")["collected_ugnot"] == 500_000


def test_a_mistyped_owner_cannot_strand_ownership(chain: Home) -> None:
    bob = chain.address("bob")
    chain.fails(
        1,
        "transfer-ownership",
        bob.upper(),
        "test1",
        message="invalid address (use the lower-case g1… form)",
    )
    stranger = "g1mtmrdmqfu0aryqfl4aw65n35haw2wdjkh5p4cp"  # valid, but nobody here holds it
    chain.ok("transfer-ownership", stranger, "test1")
    fees = chain.json("query", "fees")
    assert fees["owner"] == chain.address("test1") and fees["pending_owner"] == stranger
    chain.ok("set-fee", "0.2gnot", "test1")  # still the owner
    chain.ok("transfer-ownership", "bob", "test1")  # the typo is simply replaced
    chain.ok("accept-ownership", "bob")
    assert chain.json("query", "fees")["owner"] == bob


def test_refunds_are_exact(chain: Home) -> None:
    odd = 1_234_567
    game = str(chain.json("offer", "--stake", f"{odd}ugnot", "alice")["result"][0])
    chain.ok("cancel", game, "alice")
    game = start_game(chain, stake=f"{odd}ugnot").id
    chain.ok("time", "advance", "91s")
    chain.ok("claim-timeout", game, "carol")  # void: no move was made
    assert chain.balance("alice") == chain.balance("bob") == PREMINE
    assert chain.realm_balance() == 0
    assert chain.json("query", "balance", REALM)["ugnot"] == 0


@pytest.mark.parametrize("offset", [-2, -1, 0, 1, 2])
def test_play_and_claim_timeout_never_both_allowed(
    chain: Home, tmp_path: Path, offset: int
) -> None:
    game, mover, _, started = start_game(chain)
    deadline = started["deadline"]
    # Park the chain so the next block (5 s later) lands at deadline + offset.
    chain.ok("time", "set", format_time(deadline + offset - 5))
    twin = Home(tmp_path / "twin")
    shutil.copytree(chain.path, twin.path)
    played = chain.run("play", game, "4", mover).exit_code == 0
    claimed = twin.run("claim-timeout", game, "carol").exit_code == 0
    assert played != claimed
    assert played == (offset <= 0)

"""Whole games through the installed ``c4``, as a shell user runs them, balances to the ugnot."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from support import GENESIS_UNIX, PREMINE, REALM, Home, strong

STAKE = 10_000_000
FEE = 100_000
DRAWN = "315117645176335765636674142222472457245331"
Shell = Callable[..., Any]


def j(shell: Shell, *args: str) -> Any:
    return json.loads(shell(*args, "--json").stdout)


def refused(shell: Shell, message: str, *args: str) -> None:
    proc = shell(*args, check=False)
    assert proc.returncode == 1, (args, proc.stdout, proc.stderr)
    assert proc.stderr == f"Error: {message}\n"


def balances(shell: Shell) -> dict[str, int]:
    names = ("alice", "bob", "carol", "test1", REALM)
    return {n: j(shell, "query", "balance", n)["ugnot"] for n in names}


def start(shell: Shell, *offer_args: str) -> tuple[str, str, str]:
    """Offer (alice), accept (bob), both reveals; returns the game id, first and second mover."""
    game = str(j(shell, "offer", "--stake", "10gnot", *offer_args, "alice")["result"][0])
    shell("accept", game, "bob")
    shell("reveal", game, "alice")
    doc = j(shell, "reveal", game, "bob")
    first = "alice" if doc["game"]["turn"] == 1 else "bob"
    return game, first, ("bob" if first == "alice" else "alice")


def conserved(shell: Shell, chain: Home) -> None:
    """The realm holds exactly the stakes of open and playing games plus collected fees."""
    active = json.loads(shell("query", "active", "--limit", "100").stdout)["games"]
    held = sum(g["stake"] * (2 if g["status"] == "playing" else 1) for g in active)
    fees = j(shell, "query", "fees")["collected_ugnot"]
    assert chain.realm_balance() == held + fees


def test_won_game_pays_pot_minus_fee(chain: Home, shell: Shell) -> None:
    game, first, second = start(shell)
    for move in range(7):
        mover, column = (first, "4") if move % 2 == 0 else (second, "5")
        shell("play", game, column, mover)
    after = balances(shell)
    assert after[first] == PREMINE - STAKE + 2 * STAKE - FEE
    assert after[second] == PREMINE - STAKE
    assert after[REALM] == FEE
    assert j(shell, "query", "fees")["collected_ugnot"] == FEE
    doc = json.loads(shell("query", "game", game).stdout)["game"]
    assert doc["status"] == "won" and doc["winner"] == chain.address(first)
    leaders = json.loads(shell("query", "leaders").stdout)
    assert leaders == {
        "wins": [{"addr": chain.address(first), "score": 1}],
        "gnot": [{"addr": chain.address(first), "score": STAKE - FEE}],
    }
    conserved(shell, chain)


@pytest.mark.slow
def test_drawn_game_refunds_both(chain: Home, shell: Shell) -> None:
    game, first, second = start(shell)
    for move, char in enumerate(DRAWN):
        shell("play", game, char, first if move % 2 == 0 else second)
    after = balances(shell)
    assert after["alice"] == after["bob"] == PREMINE
    assert after[REALM] == 0
    doc = json.loads(shell("query", "game", game).stdout)["game"]
    assert doc["status"] == "draw" and doc["moves"] == 42 and "0" not in doc["board"]
    assert json.loads(shell("query", "leaders").stdout) == {"wins": [], "gnot": []}


def test_timeout_without_a_move_is_void(chain: Home, shell: Shell) -> None:
    game, _, _ = start(shell)
    shell("time", "advance", "91s")
    shell("claim-timeout", game, "carol")
    after = balances(shell)
    assert after["alice"] == after["bob"] == PREMINE and after[REALM] == 0
    assert json.loads(shell("query", "game", game).stdout)["game"]["status"] == "void"


@pytest.mark.parametrize("who_stalls", ["creator", "acceptor"])
def test_late_reveal_forfeits(chain: Home, shell: Shell, who_stalls: str) -> None:
    game = str(j(shell, "offer", "--stake", "10gnot", "alice")["result"][0])
    shell("accept", game, "bob")
    if who_stalls == "acceptor":
        shell("reveal", game, "alice")
    shell("time", "advance", "91s")
    staller = "alice" if who_stalls == "creator" else "bob"
    refused(shell, "reveal clock ran out", "reveal", game, staller)
    shell("claim-timeout", game, "carol")
    winner, loser = ("bob", "alice") if who_stalls == "creator" else ("alice", "bob")
    after = balances(shell)
    assert after[winner] == PREMINE + STAKE - FEE
    assert after[loser] == PREMINE - STAKE
    assert after[REALM] == FEE


def test_late_move_forfeits(chain: Home, shell: Shell) -> None:
    game, first, second = start(shell)
    shell("play", game, "4", first)
    shell("time", "advance", "91s")
    refused(shell, "move clock ran out", "play", game, "4", second)
    shell("claim-timeout", game, "carol")
    after = balances(shell)
    assert after[first] == PREMINE + STAKE - FEE and after[second] == PREMINE - STAKE


def test_play_and_claim_never_overlap(chain: Home, shell: Shell) -> None:
    game, first, second = start(shell)
    deadline = j(shell, "query", "game", game)["game"]["deadline"]

    def at(unix: int) -> str:
        from c4cli.chain.clock import format_time

        return format_time(unix)

    # The next block lands 5 s after the last: park the chain 5 s before the deadline.
    shell("time", "set", at(deadline - 5))
    refused(shell, "move clock has not run out", "claim-timeout", game, "carol")
    played = j(shell, "play", game, "4", first)
    assert played["time"] == at(deadline)  # exactly at the deadline: still in time
    deadline = played["game"]["deadline"]
    assert deadline == GENESIS_UNIX + (deadline - GENESIS_UNIX)  # set from this block
    shell("time", "set", at(deadline - 4))  # the next block is one second late
    refused(shell, "move clock ran out", "play", game, "5", second)
    claimed = j(shell, "claim-timeout", game, "carol")
    assert claimed["time"] == at(deadline + 1)
    assert claimed["game"]["winner"] == chain.address(first)


def test_late_reveals_refused_and_claim_before_deadline_refused(chain: Home, shell: Shell) -> None:
    game = str(j(shell, "offer", "--stake", "10gnot", "alice")["result"][0])
    shell("accept", game, "bob")
    refused(shell, "move clock has not run out", "claim-timeout", game, "carol")
    shell("reveal", game, "alice")
    refused(shell, "move clock has not run out", "claim-timeout", game, "carol")
    shell("time", "advance", "86s")  # the next block is 91 s after the reveal
    refused(shell, "reveal clock ran out", "reveal", game, "bob")


def test_cancel_refunds_the_creator(chain: Home, shell: Shell) -> None:
    game = str(j(shell, "offer", "--stake", "10gnot", "--valid-for", "1m", "alice")["result"][0])
    assert balances(shell)["alice"] == PREMINE - STAKE
    refused(shell, "only the creator can cancel an unexpired offer", "cancel", game, "carol")
    shell("cancel", game, "alice")
    assert balances(shell)["alice"] == PREMINE
    other = str(j(shell, "offer", "--stake", "10gnot", "--valid-for", "1m", "alice")["result"][0])
    shell("time", "advance", "60s")
    refused(shell, "offer expired", "accept", other, "bob")
    doc = j(shell, "cancel", other, "carol")  # anyone, once expired; the refund goes home
    assert doc["transfers"] == [{"to": chain.address("alice"), "amount": f"{STAKE}ugnot"}]
    after = balances(shell)
    assert after["alice"] == PREMINE and after["carol"] == PREMINE and after[REALM] == 0


def test_set_fee_changes_new_offers_only(chain: Home, shell: Shell) -> None:
    old_game = str(j(shell, "offer", "--stake", "10gnot", "alice")["result"][0])
    shell("set-fee", "0.5gnot", "test1")
    refused(
        shell,
        "house fee is 0.5 GNOT, above your maxFee of 0.1 GNOT",
        "offer",
        "--stake",
        "10gnot",
        "--max-fee",
        "0.1gnot",
        "carol",
    )
    new_game = j(shell, "offer", "--stake", "10gnot", "carol")["game"]
    assert new_game["fee"] == 500_000
    assert json.loads(shell("query", "game", old_game).stdout)["game"]["fee"] == FEE
    assert json.loads(shell("query", "active").stdout)["fee"] == 500_000
    shell("accept", old_game, "bob")
    shell("resign", old_game, "bob")
    assert balances(shell)["alice"] == PREMINE + STAKE - FEE  # the snapshot, not 0.5


def test_withdraw_fees_pays_only_fees(chain: Home, shell: Shell) -> None:
    game, _, _ = start(shell)
    shell("resign", game, "bob")
    open_offer = j(shell, "offer", "--stake", "7gnot", "carol")["game"]
    assert open_offer["status"] == "open"
    doc = j(shell, "withdraw-fees", "--to", "carol", "test1")
    assert doc["transfers"] == [{"to": chain.address("carol"), "amount": f"{FEE}ugnot"}]
    after = balances(shell)
    assert after["carol"] == PREMINE - 7_000_000 + FEE
    assert after[REALM] == 7_000_000  # the open stake stays
    assert j(shell, "withdraw-fees", "test1")["transfers"] == []  # nothing left: no send
    conserved(shell, chain)


def test_two_step_ownership(chain: Home, shell: Shell) -> None:
    shell("transfer-ownership", "bob", "test1")
    assert j(shell, "query", "fees")["pending_owner"] == chain.address("bob")
    refused(shell, "ownable: caller is not owner", "set-fee", "0ugnot", "bob")
    shell("transfer-ownership", "carol", "test1")  # a second call replaces the first
    refused(shell, "no ownership transfer pending for this address", "accept-ownership", "bob")
    shell("accept-ownership", "carol")
    fees = j(shell, "query", "fees")
    assert fees["owner"] == chain.address("carol") and fees["pending_owner"] is None
    refused(shell, "ownable: caller is not owner", "set-fee", "0ugnot", "test1")
    shell("set-fee", "0ugnot", "carol")


@pytest.mark.slow
def test_refusals_move_no_coins(chain: Home, shell: Shell) -> None:
    """Commitment reuse, stale moves and session-key refusals, as a shell user meets them."""
    game, first, second = start(shell, "--passphrase", strong("shared secret"))
    before = balances(shell)
    refused(
        shell,
        "commitment already used: generate a fresh secret",
        "offer",
        "--stake",
        "1gnot",
        "--passphrase",
        strong("shared secret"),
        "alice",
    )
    j(
        shell, "offer", "--stake", "1gnot", "--passphrase", strong("shared secret"), "carol"
    )  # another address
    shell("play", game, "4", first)
    refused(shell, "stale move: the game is at move 1", "play", game, "5", "--move", "0", second)
    shell(
        "session",
        "create",
        "--session-key",
        f"{second}-s",
        "--allow-paths",
        "vm/exec:gno.land/r/samcrew/connect4",
        "--spend-limit",
        "50gnot",
        second,
    )
    refused(
        shell,
        "Resign needs the account's own key, not a session key",
        "resign",
        game,
        "--master",
        second,
        f"{second}-s",
    )
    refused(
        shell,
        "Offer needs the account's own key, not a session key",
        "offer",
        "--stake",
        "1gnot",
        "--master",
        second,
        f"{second}-s",
    )
    shell("play", game, "5", "--move", "1", "--master", second, f"{second}-s")
    after = balances(shell)
    assert after["carol"] == before["carol"] - 1_000_000
    assert after[REALM] == before[REALM] + 1_000_000
    assert after["alice"] == before["alice"] and after["bob"] == before["bob"]
    conserved(shell, chain)

"""`c4 audit` on the local chain: the realm's books after every way a game can end,
fees set and withdrawn, and a discrepancy when coins reach the realm outside its games."""

from __future__ import annotations

import json

from commands.test_scenarios import DRAWN

from c4cli.address import package_address
from c4cli.realm.rules import DEFAULT_PATH
from support import Home, start_game

STAKE = 1_000_000  # start_game's 1gnot
FEE = 100_000  # the realm's default fee, taken from a decisive game's pot


def test_the_books_balance_after_every_kind_of_ending(chain: Home) -> None:
    start_game(chain, "4545454")  # a win: the pot less the fee to the winner
    start_game(chain, DRAWN)  # a draw: both stakes back
    timed_out = start_game(chain, "4")  # the second mover stalls: a win by timeout
    void = start_game(chain)  # nobody moves: void, both stakes back
    chain.ok("time", "advance", "91s")
    chain.ok("claim-timeout", timed_out.id, "carol")
    chain.ok("claim-timeout", void.id, "carol")
    cancelled = str(chain.json("offer", "--stake", "3gnot", "alice")["result"][0])
    chain.ok("cancel", cancelled, "alice")
    chain.json("offer", "--stake", "4gnot", "--valid-for", "1m", "bob")
    chain.ok("time", "advance", "2m")
    chain.ok("cancel", "--expired", "bob")  # an expired offer, taken back
    chain.ok("withdraw-fees", "--to", "carol", "test1")  # the two wins' fees
    chain.ok("set-fee", "0.2gnot", "test1")
    start_game(chain, "4545454", stake="2gnot")  # a win at the new fee, kept
    chain.json("offer", "--stake", "5gnot", "carol")  # an open offer, held
    start_game(chain, "12", stake="6gnot", creator="carol", acceptor="alice")  # live, held
    books = chain.json("audit")
    assert books["discrepancies"] == []
    taken = 2 * STAKE * 4 + 3_000_000 + 4_000_000 + 2 * 2_000_000 + 5_000_000 + 2 * 6_000_000
    assert books["taken_ugnot"] == taken and books["sent_ugnot"] == 0
    assert books["paid_ugnot"] == 2 * (2 * STAKE - FEE) + (2 * 2_000_000 - 200_000)
    assert books["refunded_ugnot"] == 2 * 2 * STAKE + 3_000_000 + 4_000_000
    assert books["withdrawn_ugnot"] == 2 * FEE
    assert books["held_ugnot"] == 5_000_000 + 2 * 6_000_000
    assert books["pending_fees_ugnot"] == 200_000
    left = books["held_ugnot"] + books["pending_fees_ugnot"]
    assert books["left_ugnot"] == books["balance_ugnot"] == left
    assert books["balance_source"] == "the local chain"
    assert books["books_source"] == "the local chain's log"
    text = chain.ok("audit").stdout
    assert text.startswith("the realm's books balance: ") and text.count("\n") == 1, text


def test_coins_sent_outside_a_game_are_a_surplus_not_a_shortfall(chain: Home) -> None:
    """More than the realm owes is solvent: said, exit 0 (issue 60: one ugnot sent to
    the realm's address made every home's audit exit 1, for good)."""
    start_game(chain, "4545454")
    realm = package_address(DEFAULT_PATH)
    chain.ok("send", "--to", realm, "--amount", "7ugnot", "carol")
    result = chain.run("audit", "--json")
    assert result.exit_code == 0, result.output
    books = json.loads(result.stdout)
    assert books["sent_ugnot"] == 7 and books["balance_ugnot"] == books["left_ugnot"]
    assert books["discrepancies"] == [] and books["surplus_ugnot"] == 7
    text = chain.run("audit")
    assert text.exit_code == 0 and "the realm's books balance" in text.stdout
    assert "0.000007 GNOT beyond what it owes" in text.stdout, text.stdout

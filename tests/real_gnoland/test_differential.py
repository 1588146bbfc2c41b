"""The realm in Gno on a real node against c4's Python mirror: the same steps, the same answers.

The tests share one node and one local twin for the session and run in file
order, each scenario starting from where the previous one left the chains.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from c4cli.client import workflow

REALM = "gno.land/r/c4cli/connect4"

pytestmark = pytest.mark.node


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_offer_refusals_and_an_offer(twin: Any) -> None:
    alice = twin.address("alice")
    refused = [
        ("alice", "Offer", ["", "15", sha("a1"), "100000"], 0),
        ("alice", "Offer", [alice, "15", sha("a1"), "100000"], 5_000_000),
        ("alice", "Offer", ["", "0", "x", "0"], 999_999),
        ("alice", "Offer", ["", "61", sha("a1"), "100000"], 1_000_000),
        ("alice", "Offer", [alice.upper(), "60", "x", "0"], 1_000_000),
        ("alice", "Offer", ["g1notanaddress", "60", "x", "0"], 1_000_000),
        ("alice", "Offer", ["", "15", sha("a1").upper(), "0"], 1_000_000),
        ("alice", "Offer", ["", "15", sha("a1"), "99999"], 1_000_000),
        ("alice", "Offer", ["", "15x", sha("a1"), "100000"], 1_000_000),
        ("alice", "Offer", ["", "15", sha("a1")], 1_000_000),
    ]
    for step in refused:
        assert not twin.call(*step).accepted
    outcome = twin.call("alice", "Offer", ["", "15", sha("a1"), "100000"], 10_000_000)
    assert outcome.accepted


def offer(
    twin: Any,
    who: str,
    stake: int,
    secret: str,
    opponent: str = "",
    valid: str = "15",
    max_fee: str = "500000",
) -> int:
    call = workflow.offer_call(
        stake, sha(secret), valid_for=int(valid), opponent=opponent, max_fee=int(max_fee)
    )
    outcome = twin.send(who, call)
    assert outcome.accepted, outcome.text
    return int(outcome.data.split()[0].lstrip("("))


def started(twin: Any, stake: int, tag: str) -> tuple[int, str, str]:
    """A game alice offers and bob accepts, both secrets revealed; (id, first, second)."""
    game = offer(twin, "alice", stake, f"pass {tag}")
    assert twin.send("bob", workflow.accept_call(game, sha(f"seed {tag}"), stake)).accepted
    assert twin.send("alice", workflow.reveal_call(game, f"pass {tag}", acceptor=False)).accepted
    assert twin.send("bob", workflow.reveal_call(game, f"seed {tag}", acceptor=True)).accepted
    state = twin.local.state()
    turn = state.realm.games[game].turn
    return (game, "alice", "bob") if turn == 1 else (game, "bob", "alice")


def test_accept_refusals(twin: Any) -> None:
    game = offer(twin, "alice", 3_000_000, "accept me")
    reserved = offer(twin, "alice", 2_000_000, "for carol", opponent=twin.address("carol"))
    g, r = str(game), str(reserved)
    for who, args, send in [
        ("bob", [g, sha("b1")], 0),
        ("bob", ["999", sha("b1")], 3_000_000),
        ("alice", [g, sha("b1")], 3_000_000),
        ("bob", [r, sha("b1")], 2_000_000),
        ("bob", [g, sha("b1")], 2_999_999),
        ("bob", [g, "abc"], 3_000_000),
        ("bob", [g], 3_000_000),
    ]:
        assert not twin.call(who, "Accept", args, send).accepted
    assert twin.call("bob", "Accept", [g, sha("b1")], 3_000_000).accepted
    assert not twin.call("carol", "Accept", [g, sha("c1")], 3_000_000).accepted
    # bob's seed commitment is spent for every game; carol may use it once.
    assert twin.call("carol", "Accept", [r, sha("b1")], 2_000_000).accepted
    third = offer(twin, "dave", 1_000_000, "third")
    assert not twin.call("carol", "Accept", [str(third), sha("b1")], 1_000_000).accepted
    assert not twin.call("dave", "Offer", ["", "15", sha("third"), "100000"], 1_000_000).accepted


def test_reveals_and_a_game_to_a_win(twin: Any) -> None:
    game = offer(twin, "alice", 5_000_000, "alice's secret")
    g = str(game)
    assert not twin.call("alice", "Reveal", [g, "alice's secret"]).accepted
    assert not twin.call("bob", "RevealSeed", [g, "bob's seed"]).accepted
    assert twin.call("bob", "Accept", [g, sha("bob's seed")], 5_000_000).accepted
    for who, func, args, send in [
        ("bob", "Reveal", [g, "alice's secret"], 0),
        ("bob", "RevealSeed", [g, "bob's seed"], 0),
        ("bob", "Play", [g, "4", "0"], 0),
        ("alice", "Reveal", [g, "alice's secret"], 7),
        ("alice", "Reveal", [g, "wrong"], 0),
    ]:
        assert not twin.call(who, func, args, send).accepted
    assert twin.call("alice", "Reveal", [g, "alice's secret"]).accepted
    assert not twin.call("alice", "Reveal", [g, "alice's secret"]).accepted
    assert not twin.call("alice", "RevealSeed", [g, "bob's seed"]).accepted
    assert not twin.call("bob", "RevealSeed", [g, "wrong"]).accepted
    assert twin.call("bob", "RevealSeed", [g, "bob's seed"]).accepted
    turn = twin.local.state().realm.games[game].turn
    first, second = ("alice", "bob") if turn == 1 else ("bob", "alice")
    for who, args, send in [
        (second, [g, "4", "0"], 0),
        ("carol", [g, "4", "0"], 0),
        (first, [g, "4", "1"], 0),
        (first, [g, "0", "0"], 0),
        (first, [g, "8", "0"], 0),
        (first, [g, "+4", "0"], 0),
        (first, ["77", "1", "0"], 0),
        (first, [g, "4", "0"], 1),
    ]:
        assert not twin.call(who, "Play", args, send).accepted
    for move, column in enumerate("4545454"):
        player = first if move % 2 == 0 else second
        assert twin.call(player, "Play", [g, column, str(move)]).accepted
    assert not twin.call(second, "Play", [g, "1", "7"]).accepted
    assert not twin.call(second, "Resign", [g]).accepted
    assert not twin.call(second, "ClaimTimeout", [g]).accepted


def test_a_full_board_is_a_draw(twin: Any) -> None:
    game, first, second = started(twin, 2_000_000, "draw")
    for move, column in enumerate("315117645176335765636674142222472457245331"):
        player = first if move % 2 == 0 else second
        assert twin.call(player, "Play", [str(game), column, str(move)]).accepted


def test_column_full_and_resign(twin: Any) -> None:
    game, first, second = started(twin, 1_000_000, "full")
    for move in range(6):
        player = first if move % 2 == 0 else second
        assert twin.call(player, "Play", [str(game), "1", str(move)]).accepted
    assert not twin.call(first, "Play", [str(game), "1", "6"]).accepted
    assert not twin.call("carol", "Resign", [str(game)]).accepted
    assert not twin.call(first, "Resign", [str(game)], 5).accepted
    assert twin.call(first, "Resign", [str(game)]).accepted
    # Resigning in the reveal phase.
    other = offer(twin, "carol", 1_500_000, "carol resigns")
    assert twin.call("dave", "Accept", [str(other), sha("dave seed")], 1_500_000).accepted
    assert twin.call("carol", "Resign", [str(other)]).accepted


def test_cancel(twin: Any) -> None:
    game = offer(twin, "dave", 4_000_000, "cancel me")
    g = str(game)
    assert not twin.call("dave", "Cancel", [g], 1).accepted
    assert not twin.call("bob", "Cancel", [g]).accepted
    assert not twin.call("bob", "Cancel", ["999"]).accepted
    assert twin.call("dave", "Cancel", [g]).accepted
    assert not twin.call("dave", "Cancel", [g]).accepted
    assert not twin.call("dave", "Accept", [g, sha("x")], 4_000_000).accepted


def test_fee_changes_snapshot_and_cap(twin: Any) -> None:
    old = offer(twin, "alice", 6_000_000, "old fee")
    for who, args, send in [
        ("alice", ["0"], 0),
        ("test1", ["0"], 1),
        ("test1", ["-1"], 0),
        ("test1", ["500001"], 0),
        ("test1", ["1x"], 0),
    ]:
        assert not twin.call(who, "SetFee", args, send).accepted
    assert twin.call("test1", "SetFee", ["500000"]).accepted
    assert not twin.call("bob", "Offer", ["", "15", sha("new fee"), "100000"], 5_000_000).accepted
    fresh = offer(twin, "bob", 5_000_000, "new fee")
    # The old offer keeps its 0.1 GNOT fee to its settlement.
    assert twin.call("carol", "Accept", [str(old), sha("carol old")], 6_000_000).accepted
    assert twin.call("alice", "Resign", [str(old)]).accepted
    assert twin.call("dave", "Accept", [str(fresh), sha("dave fresh")], 5_000_000).accepted
    assert twin.call("dave", "Resign", [str(fresh)]).accepted
    assert twin.call("test1", "SetFee", ["0"]).accepted
    game, first, _ = started(twin, 1_000_000, "free")
    loser = "bob" if first == "alice" else "alice"
    assert twin.call(loser, "Resign", [str(game)]).accepted
    assert twin.call("test1", "SetFee", ["100000"]).accepted


def test_withdraw_fees(twin: Any) -> None:
    dave = twin.address("dave")
    for who, args, send in [
        ("alice", [dave], 0),
        ("test1", [dave.upper()], 0),
        ("test1", [""], 0),
        ("test1", [dave], 1),
    ]:
        assert not twin.call(who, "WithdrawFees", args, send).accepted
    assert twin.call("test1", "WithdrawFees", [dave]).accepted
    assert twin.call("test1", "WithdrawFees", [dave]).accepted  # nothing left: sends nothing


def test_two_step_ownership(twin: Any) -> None:
    alice, bob, test1 = twin.address("alice"), twin.address("bob"), twin.address("test1")
    assert not twin.call("alice", "TransferOwnership", [alice]).accepted
    assert not twin.call("alice", "AcceptOwnership", []).accepted
    assert not twin.call("test1", "TransferOwnership", ["g1x"]).accepted
    assert not twin.call("test1", "TransferOwnership", [alice], 1).accepted
    assert twin.call("test1", "TransferOwnership", [bob]).accepted
    assert twin.call("test1", "TransferOwnership", [alice]).accepted
    assert not twin.call("bob", "AcceptOwnership", []).accepted
    assert not twin.call("alice", "AcceptOwnership", ["extra"]).accepted
    assert twin.call("alice", "AcceptOwnership", []).accepted
    assert not twin.call("test1", "SetFee", ["1"]).accepted
    assert twin.call("alice", "SetFee", ["250000"]).accepted
    assert twin.call("alice", "TransferOwnership", [test1]).accepted
    assert twin.call("test1", "AcceptOwnership", []).accepted
    assert twin.call("test1", "SetFee", ["100000"]).accepted


def test_calls_the_vm_refuses(twin: Any) -> None:
    for who, func, args in [
        ("alice", "Nope", []),
        ("alice", "Render", [""]),
        ("alice", "GameJSON", ["1"]),
        ("alice", "Play", ["1", "2"]),
        ("alice", "Play", ["1", "2", "3", "4"]),
        ("alice", "Resign", ["99999999999999999999"]),
        ("alice", "Resign", [" 1"]),
    ]:
        assert not twin.call(who, func, args).accepted


def test_pages_and_reads(twin: Any) -> None:
    bob = twin.address("bob")
    twin.compare_reads(
        "reads",
        [
            ("Render", ["new?stake=0.5&validFor=0&opponent=G1X&commitment=abc"]),
            ("Render", [f"new?stake=12.5&opponent={bob}&commitment={sha('x')}"]),
            ("Render", [f"new?stake=3&validFor=60&commitment={sha('y')}"]),
            ("Render", ["new?stake=1.0000001&validFor=+5"]),
            ("Render", ["game/0"]),
            ("Render", ["game/+1"]),
            ("Render", ["game/007"]),
            ("Render", ["game/1x"]),
            ("Render", ["nowhere"]),
            ("GameJSON", ["0"]),
            ("GameJSON", ["-1"]),
            ("ActiveJSON", ["-5", "0"]),
            ("ActiveJSON", ["1", "1000"]),
            ("ActiveJSON", ["2", "-3"]),
        ],
    )


def test_session_keys_move_but_never_touch_stakes(twin: Any) -> None:
    from c4cli.wire import crypto
    from c4cli.wire.tx import call_msg, create_session_msg, revoke_session_msg

    session_pub = crypto.public_key(twin.keys["alice-session"])
    alice = twin.address("alice")
    expires = twin.node.block_time(twin.node.latest_height()) + 3600
    create = create_session_msg(
        alice, session_pub, expires, [f"vm/exec:{REALM}"], "20000000ugnot", 0
    )
    assert twin.submit("alice creates a session", "alice", create).accepted
    session = crypto.address_of(session_pub)
    # The session queries, answered alike by the node and by the local chain.
    for path in (f"auth/accounts/{alice}/sessions", f"auth/accounts/{alice}/session/{session}"):
        node_data, node_log = twin.node.query(path)
        assert not node_log, node_log
        local = twin.local.query(path)
        # Byte for byte, but for the account number: the node holds more accounts
        # (the deployed packages', the whales') than the local chain that mirrors it.
        number = re.compile(r'"account_number": "[0-9]+"')
        twin._same(
            "session queries",
            path,
            number.sub('"account_number": N', node_data),
            number.sub('"account_number": N', local.data),
        )
    game, first, _ = started(twin, 1_000_000, "session")
    g = str(game)
    move = 0
    if first == "bob":
        assert twin.call("bob", "Play", [g, "1", "0"]).accepted
        move = 1
    assert twin.call("alice", "Play", [g, "4", str(move)], session="alice-session").accepted
    for func, args, send in [
        ("Resign", [g], 0),
        ("Offer", ["", "15", sha("session offer"), "100000"], 1_000_000),
        ("Accept", [g, sha("s")], 1_000_000),
        ("SetFee", ["0"], 0),
        ("AcceptOwnership", [], 0),
    ]:
        assert not twin.call("alice", func, args, send, session="alice-session").accepted
    assert twin.submit("alice revokes it", "alice", revoke_session_msg(alice, session_pub)).accepted
    assert twin.call("bob", "Play", [g, "5", str(move + 1)]).accepted
    revoked = call_msg(alice, REALM, "Play", [g, "4", str(move + 2)])
    assert not twin.submit(
        "the revoked session plays", "alice", revoked, session="alice-session"
    ).accepted
    assert twin.call("alice", "Resign", [g]).accepted


@settings(max_examples=3, deadline=None, derandomize=True, database=None)
@given(data=st.data())
def test_generated_games_from_several_keys(twin: Any, data: st.DataObject) -> None:
    """Random sequences of legal and illegal moves, resignations and claims from
    four keys, on one game each: every step compared on both chains."""
    players = ["alice", "bob", "carol", "dave"]
    creator, acceptor = data.draw(st.permutations(players))[:2]
    stake = data.draw(st.integers(1, 3)) * 1_000_000
    tag = f"gen {twin.steps}"
    game = offer(twin, creator, stake, f"pass {tag}")
    g = str(game)
    assert twin.call(acceptor, "Accept", [g, sha(f"seed {tag}")], stake).accepted
    assert twin.call(creator, "Reveal", [g, f"pass {tag}"]).accepted
    assert twin.call(acceptor, "RevealSeed", [g, f"seed {tag}"]).accepted
    for _ in range(data.draw(st.integers(6, 14))):
        state = twin.local.state()
        current = state.realm.games[game]
        moves = len(current.moves)
        on_turn = creator if current.turn == 1 else acceptor
        who = data.draw(st.sampled_from([on_turn, on_turn, on_turn, *players]))
        action = data.draw(st.sampled_from(["Play"] * 8 + ["Resign", "ClaimTimeout", "Cancel"]))
        if action == "Play":
            column = data.draw(st.integers(0, 8) | st.sampled_from([4, 4, 3, 5]))
            move = data.draw(st.sampled_from([moves, moves, moves, moves + 1, moves - 1]))
            twin.call(who, "Play", [g, str(column), str(move)])
        else:
            twin.call(who, action, [g])
        if current.status != "playing" and twin.local.state().realm.games[game].status != "playing":
            break
    if twin.local.state().realm.games[game].status == "playing":
        assert twin.call(creator, "Resign", [g]).accepted

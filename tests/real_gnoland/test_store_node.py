"""Issue 63 on a real gnoland: a balance and an account proven from the app hash.

`c4 query balance` and `c4 query account` read the account's key in the main store
with its proof, held to the header after it that the trusted validators signed, and
print the node's own answer only when it agrees. Through the hostile proxy of
:mod:`real_gnoland.proxy`: a balance forged by 1 ugnot (in ``bank/balances``, in
``auth/accounts``, in the store's value), a proof forged, an answer at another
height: exit 4 each, one line naming what failed. With --trust-node, the node's word
as before, and said.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from real_gnoland.proxy import proxy_for
from real_gnoland.test_proof_node import stranger
from real_gnoland.test_remote import bound_home, home_with_keys

from c4cli.commands.realm_query import NODES_WORD
from c4cli.wire.storeproof import STORE_KEY
from support import Home

pytestmark = pytest.mark.node

REALM_PATH = "gno.land/r/c4cli/store/connect4"
Rule = Callable[[dict[str, Any], Callable[[], Any]], Any]


@pytest.fixture(scope="module")
def bound(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> Home:
    return bound_home(gno_node, REALM_PATH, tmp_path_factory.mktemp("store"))


def test_a_balance_and_an_account_are_proven(bound: Home, gno_node: Any) -> None:
    address = bound.json("keys", "show", "carol")["address"]
    shown = bound.json("query", "balance", "carol")
    assert shown["proven"] is True and shown["height"] >= 2, shown
    assert "verified" not in shown and "unverified" not in shown
    assert shown["ugnot"] == gno_node.balance(address)
    text = bound.ok("query", "balance", "carol")
    assert text.stdout == f"{shown['ugnot']}ugnot\n"
    assert re.fullmatch(r"proven at block \d+ by the trusted validators' signatures\n", text.stderr)
    account = bound.json("query", "account", "carol")
    assert account["BaseAccount"]["address"] == address
    nobody = stranger()  # no account at all: its absence is proven
    assert bound.json("query", "balance", nobody)["ugnot"] == 0


def test_what_this_home_sent_is_what_it_reads(bound: Home) -> None:
    """Read-your-writes: the state after the block that took this home's transaction
    is awaited and proven, not the state one block older."""
    to = stranger()
    bound.ok("send", "--to", to, "--amount", "9ugnot", "carol")
    shown = bound.json("query", "balance", to)
    assert (shown["ugnot"], shown["proven"]) == (9, True), shown


def test_another_clients_send_in_the_last_block_is_read_fresh(
    bound: Home, gno_node: Any, tmp_path: Path
) -> None:
    """The freshest state a header proves is a block old; the node's answer at its last
    block rides with the proof, and where it differs (a send by another client, which
    this home's journal knows nothing of, in the last block) the next block is awaited
    and the state after the send proven: never the block before shown as current."""
    other = home_with_keys(gno_node, tmp_path / "other")
    other.ok("init", "--remote", gno_node.url, "--realm-path", REALM_PATH)
    to = stranger()
    other.ok("send", "--to", to, "--amount", "3ugnot", "carol")
    shown = bound.json("query", "balance", to)
    assert (shown["ugnot"], shown["proven"]) == (3, True), shown


def _query_rule(path_start: str, change: Callable[[dict[str, Any]], None]) -> Rule:
    """An abci_query rule: answers to paths starting ``path_start`` changed by ``change``
    (the response, in place); others pass."""

    def rule(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        document = forward()
        if str(request["params"].get("path", "")).startswith(path_start):
            change(document["result"]["response"])
        return document

    return rule


def _data(response: dict[str, Any], edit: Callable[[Any], Any]) -> None:
    base = response["ResponseBase"]
    base["Data"] = base64.b64encode(
        json.dumps(edit(json.loads(base64.b64decode(base["Data"])))).encode()
    ).decode()


def _one_more(coins: str) -> str:
    amount = int(coins.removesuffix("ugnot"))
    return f"{amount + 1}ugnot"


def _balance_plus_one(response: dict[str, Any]) -> None:
    _data(response, _one_more)


def _account_plus_one(response: dict[str, Any]) -> None:
    def edit(document: dict[str, Any]) -> dict[str, Any]:
        base = document["BaseAccount"]
        base["coins"] = _one_more(base["coins"])
        return document

    _data(response, edit)


def _sequence_plus_one(response: dict[str, Any]) -> None:
    def edit(document: dict[str, Any]) -> dict[str, Any]:
        base = document["BaseAccount"]
        base["sequence"] = str(int(base["sequence"]) + 1)
        return document

    _data(response, edit)


def _stored_plus_one(response: dict[str, Any]) -> None:
    """The amino value itself: its coins' text, one more (a digit raised)."""
    value = base64.b64decode(response["Value"])
    at = value.index(b"ugnot") - 1
    raised = value[:at] + bytes([value[at] + 1 if value[at] < ord("9") else ord("0")])
    response["Value"] = base64.b64encode(raised + value[at + 1 :]).decode()


def _proof_step(response: dict[str, Any]) -> None:
    op = response["Proof"]["ops"][0]
    data = bytearray(base64.b64decode(op["data"]))
    data[-3] ^= 0x01
    op["data"] = base64.b64encode(bytes(data)).decode()


def _height_moved(response: dict[str, Any]) -> None:
    response["Height"] = str(int(response["Height"]) - 1)


FORGED: dict[str, tuple[str, Rule, str]] = {
    "bank/balances, 1 ugnot more": (
        "balance", _query_rule("bank/balances/", _balance_plus_one), "holds"),
    "auth/accounts, 1 ugnot more": (
        "account", _query_rule("auth/accounts/", _account_plus_one), "differs from the one proven"),
    "auth/accounts, the sequence": (
        "account", _query_rule("auth/accounts/", _sequence_plus_one), "sequence"),
    "the store's value, 1 ugnot more": (
        "balance", _query_rule(STORE_KEY, _stored_plus_one), "proof"),
    "a step of the store's proof": ("balance", _query_rule(STORE_KEY, _proof_step), "proof"),
    "the height of the store's answer": (
        "balance", _query_rule(STORE_KEY, _height_moved), "asked at"),
}  # fmt: skip


@pytest.mark.parametrize("forgery", sorted(FORGED))
def test_a_forged_balance_or_account_is_exit_4(bound: Home, gno_node: Any, forgery: str) -> None:
    what, rule, named = FORGED[forgery]
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = rule
        refused = bound.run("--remote", proxy.url, "query", what, "carol")
        taken = bound.run("--remote", proxy.url, "--trust-node", "query", what, "carol")
    assert refused.exit_code == 4, refused.output
    assert refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and named in refused.stderr, refused.stderr
    assert "carol" in refused.stderr or bound.json("keys", "show", "carol")["address"] in (
        refused.stderr
    )
    # --trust-node: the node's answer, as before, and said (the store is never asked).
    assert taken.exit_code == 0, taken.output
    assert taken.stderr == f"{NODES_WORD}\n"


def test_gnokeys_paths_are_proven_and_print_gnokeys_lines(bound: Home, gno_node: Any) -> None:
    """`c4 query bank/balances/ADDR` (and auth/accounts): gnokey's two lines on stdout,
    the proof's block on stderr; a forged answer is exit 4 there too."""
    address = bound.json("keys", "show", "carol")["address"]
    path = f"bank/balances/{address}"
    shown = bound.ok("query", path)
    assert re.fullmatch(r'height: \d+\ndata: "\d+ugnot"\n', shown.stdout), shown.stdout
    assert shown.stderr.startswith("proven at block ")
    document = bound.json("query", f"auth/accounts/{address}")
    assert document["proven"] is True and document["proven_at"] >= 2, document
    assert document["data"]["BaseAccount"]["address"] == address
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = _query_rule("bank/balances/", _balance_plus_one)
        refused = bound.run("--remote", proxy.url, "query", path)
    assert refused.exit_code == 4 and "holds" in refused.stderr, refused.output


def _expiry_plus_one(response: dict[str, Any]) -> None:
    def edit(listed: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for item in listed:
            session = item.get("BaseSessionAccount", item)
            session["expires_at"] = str(int(session["expires_at"]) + 1)
        return listed

    _data(response, edit)


def test_each_session_listed_is_proven(bound: Home, gno_node: Any) -> None:
    """`c4 session list`: each session held to its key in the main store (its expiry,
    paths and allowance); a forged expiry is exit 4."""
    bound.ok("session", "create", "carol", "--session-key", "carol-s", "--expires", "1h",
             "--allow-paths", f"vm/exec:{REALM_PATH}")  # fmt: skip
    listed = bound.json("session", "list", "carol")
    session = bound.json("keys", "show", "carol-s")["address"]
    assert [item["address"] for item in listed] == [session]
    assert listed[0]["proven_at"] >= 2 and listed[0]["allow_paths"] == [f"vm/exec:{REALM_PATH}"]
    text = bound.ok("session", "list", "carol")
    assert "that the list is whole is the node's word" in text.stderr
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = _query_rule("auth/accounts/", _expiry_plus_one)
        refused = bound.run("--remote", proxy.url, "session", "list", "carol")
    assert refused.exit_code == 4 and "expires_at" in refused.stderr, refused.output


def test_a_height_is_proven_or_refused_in_one_line(bound: Home) -> None:
    """--height: a block past the chain is a bad input (exit 2, as on the local chain);
    block 1, whose state tm2 proves nothing of, is exit 4 saying so; a past block's
    state is proven at that block."""
    past = bound.run("query", "balance", "carol", "--height", "999999999")
    assert past.exit_code == 2 and "is not on this chain" in past.stderr, past.output
    first = bound.run("query", "balance", "carol", "--height", "1")
    assert first.exit_code == 4 and "no state before block 2" in first.stderr, first.output
    now = bound.json("query", "balance", "carol")["height"]
    earlier = bound.json("query", "balance", "carol", "--height", str(now - 1))
    assert (earlier["proven"], earlier["height"]) == (True, now - 1)


def _numbers_changed(field: str, by: int) -> Callable[[dict[str, Any]], None]:
    def change(response: dict[str, Any]) -> None:
        def edit(document: dict[str, Any]) -> dict[str, Any]:
            base = document["BaseAccount"]
            base[field] = str(int(base[field]) + by)
            return document

        _data(response, edit)

    return change


NUMBERS: dict[str, tuple[str, int]] = {
    "a sequence ahead": ("sequence", 1),
    "a sequence behind": ("sequence", -1),
    "another account number": ("account_number", 1),
}


def _journal_lines(home: Home) -> int:
    journal = home.path / "journal.jsonl"
    return len(journal.read_text().splitlines()) if journal.exists() else 0


@pytest.mark.parametrize("forgery", sorted(NUMBERS))
def test_forged_numbers_are_exit_4_before_anything_is_signed(
    bound: Home, gno_node: Any, forgery: str
) -> None:
    """The account number and sequence a transaction is signed for are proven before
    the first signature: a node that says others is exit 4, and what it was sent to
    simulate carries no signature (a placeholder of 64 zero bytes); nothing is
    broadcast, nothing journaled. A sequence behind is caught by this home's own
    landing of the one before (its journal), whatever state the proof reads."""
    from c4cli.wire.std import decode_tx

    field, by = NUMBERS[forgery]
    bound.ok("send", "--to", stranger(), "--amount", "1ugnot", "carol")  # a sequence above 0
    before = _journal_lines(bound)
    sent: list[bytes] = []

    def rule(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        params = request["params"]
        if params.get("path") == ".app/simulate":
            sent.append(base64.b64decode(params["data"]))
        document = forward()
        if str(params.get("path", "")).startswith("auth/accounts/"):
            _numbers_changed(field, by)(document["result"]["response"])
        return document

    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = rule
        refused = bound.run("--remote", proxy.url, "send", "--to", stranger(),
                            "--amount", "1ugnot", "carol")  # fmt: skip
        seen = list(proxy.seen)
    assert refused.exit_code == 4, refused.output
    assert refused.stderr.count("\n") == 1, refused.stderr
    assert "nothing was signed" in refused.stderr and f"{field.replace('_', ' ')} " in (
        refused.stderr
    ), refused.stderr
    assert "broadcast_tx_commit" not in seen and _journal_lines(bound) == before
    for raw in sent:
        assert all(sig.signature == bytes(64) for sig in decode_tx(raw).signatures), raw


def test_a_second_transaction_at_once_is_proven_by_the_first_ones_landing(
    bound: Home, gno_node: Any
) -> None:
    """Read-your-writes for the numbers: right after this home's transaction landed, the
    state a header proves may be the block before it; the sequence the node says is
    one more, which the first transaction's proven landing explains: no block awaited,
    still three requests."""
    bound.ok("send", "--to", stranger(), "--amount", "1ugnot", "carol")
    with proxy_for(gno_node.url) as proxy:
        again = bound.run("--remote", proxy.url, "send", "--to", stranger(),
                          "--amount", "1ugnot", "carol", "--json")  # fmt: skip
        requests = list(proxy.requests)
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["numbers_proven_at"] >= 2, again.stdout
    assert len(requests) == 3 and requests[1] == ["abci_query", "commit", "abci_query"], requests


def test_the_gas_price_is_proven_and_a_forged_one_is_exit_4(bound: Home, gno_node: Any) -> None:
    """`c4 query auth/gasprice`: gnokey's answer, held to the price the main store keeps
    under ``gasPrice``; a price raised by the node is exit 4, naming both."""
    shown = bound.json("query", "auth/gasprice")
    assert shown["proven"] is True and shown["proven_at"] >= 2, shown
    assert json.loads(shown["data"]) == {"gas": "1000", "price": "1ugnot"}, shown

    def raised(response: dict[str, Any]) -> None:
        _data(response, lambda price: {**price, "price": "2ugnot"})

    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = _query_rule("auth/gasprice", raised)
        refused = bound.run("--remote", proxy.url, "query", "auth/gasprice")
    assert refused.exit_code == 4 and refused.stderr.count("\n") == 1, refused.output
    assert "the gas price is 2ugnot per 1000 gas; the proof at block" in refused.stderr

"""Where money moves on a real gno.land node, with a proxy that rewrites chosen answers.

Each test sends real transactions to the session's gnoland through
:mod:`node.proxy`, which passes everything on except what the test makes it
do: hold a broadcast's answer, forge one, hand back another transaction's, ask
a rogue gas price, trickle its headers, or claim another chain.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from real_gnoland.proxy import (
    abci_answer,
    abci_path,
    answer,
    interrupted_while_held,
    proxy_for,
    tx_hash_of,
)
from real_gnoland.test_remote import bound_home, deploy_copy, home_with_keys

from c4cli.home.journal import entries as journal_entries
from support import Home

pytestmark = pytest.mark.node

REALM_PATH = "gno.land/r/c4cli/money/connect4"
FEE = ("--gas-wanted", "50000000", "--gas-fee", "100000ugnot")


@pytest.fixture(scope="module")
def bound(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> Home:
    """A home bound to the node, on a realm of its own."""
    return bound_home(gno_node, REALM_PATH, tmp_path_factory.mktemp("money"))


def ugnot(home: Home, name: str) -> int:
    return int(home.json("query", "balance", name)["ugnot"])


def journal(home: Home) -> list[dict[str, Any]]:
    return home.sent()


def c4_env(home: Home, **extra: str) -> dict[str, str]:
    env = dict(os.environ, C4_HOME=str(home.path), C4_PASSWORD="")
    env.pop("C4_FAULT", None)
    env.update(extra)
    return env


def c4_bin() -> str:
    return str(Path(sys.executable).with_name("c4"))


def test_a_rogue_gas_price_is_refused_before_signing(bound: Home, gno_node: Any) -> None:
    """A node asking 1000 ugnot per gas unit: c4 pays no such fee unasked (exit 2, what it
    asked, nothing sent); --fee-cap is the user's own bound."""

    def rogue(request: dict[str, Any], forward: Callable[[], dict[str, Any]]) -> Any:
        if abci_path(request) == "auth/gasprice":
            return abci_answer(request, json.dumps({"gas": 1, "price": "1000ugnot"}).encode())
        return forward()

    before = ugnot(bound, "carol")
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = rogue
        result = bound.run(
            "--remote", proxy.url, "send", "--to", "bob", "--amount", "1ugnot", "carol"
        )
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("Error: the node asks a fee of ")
        assert "above the 1 GNOT c4 pays without being told; nothing was signed" in result.stderr
        assert "broadcast_tx_commit" not in proxy.seen
    assert ugnot(bound, "carol") == before


def test_a_refused_call_with_explicit_gas_costs_nothing(bound: Home) -> None:
    """With --gas-wanted given, the call is still simulated first: the realm's refusal
    comes back in its words and no fee is paid."""
    before, entries = ugnot(bound, "carol"), len(journal(bound))
    result = bound.run("play", "999", "4", *FEE, "carol")
    assert result.exit_code == 1 and result.stderr == "Error: game not found\n"
    assert ugnot(bound, "carol") == before
    assert len(journal(bound)) == entries


def test_a_refusal_that_lands_is_reported_and_journaled(bound: Home) -> None:
    """--simulate skip sends it untested: it lands refused, pays its fee, and c4 says
    so with its height and hash, exit 1, and lists it in `c4 log`."""
    before = ugnot(bound, "carol")
    result = bound.run("play", "999", "4", *FEE, "--simulate", "skip", "carol")
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("Error: game not found; the transaction landed in block ")
    # Proven by the next block's results hash, or, where no block came within 5 s
    # (the session's node makes blocks only with transactions), said to be unproven.
    ending = result.stderr.rstrip().partition("and paid its fee of 100000ugnot")[2]
    landed = re.search(r"landed in block (\d+)", result.stderr)
    assert landed is not None
    unproven = f" (the refusal is the node's word: block {int(landed[1]) + 1} is not made yet)"
    assert ending in ("", unproven), result.stderr
    assert ugnot(bound, "carol") == before - 100000
    last = journal(bound)[-1]
    assert (last["tx_status"], last["func"], last["error"]) == ("refused", "Play", "game not found")
    assert last["hash"] in result.stderr


def test_a_forged_broadcast_answer_is_pending_then_settled(bound: Home, gno_node: Any) -> None:
    """A proxy answering success without forwarding: c4 finds no such transaction in the
    block it names, says it was sent and not yet seen (exit 4), and journals it as
    pending, not as landed. The next transaction of that account sends the same bytes
    again (the same hash: at most once on chain), then its own."""

    def forged(request: dict[str, Any], forward: Callable[[], dict[str, Any]]) -> Any:
        height = gno_node.latest_height()
        return answer(
            request,
            {
                "check_tx": {"ResponseBase": {"Error": None}},
                "deliver_tx": {"ResponseBase": {"Error": None, "Data": ""}, "GasUsed": "1"},
                "hash": tx_hash_of(request),
                "height": str(height),
            },
        )

    bob = ugnot(bound, "bob")
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["broadcast_tx_commit"] = forged
        result = bound.run(
            "--remote",
            proxy.url,
            "send",
            "--to",
            "bob",
            "--amount",
            "7ugnot",
            *FEE,
            "carol",
            env={"C4_TIMEOUT": "2"},
        )
    assert result.exit_code == 4, result.output
    assert "the transaction was sent (TX HASH " in result.stderr
    assert "is pending, not yet seen in a block" in result.stderr
    pending = journal(bound)[-1]
    assert pending["tx_status"] == "pending" and pending["hash"] in result.stderr
    assert ugnot(bound, "bob") == bob  # it never reached the node
    settled = bound.run("send", "--to", "bob", "--amount", "1ugnot", *FEE, "carol")
    assert settled.exit_code == 0, settled.output
    assert f"note: transaction {pending['hash']}, sent earlier, landed at height" in settled.stderr
    assert ugnot(bound, "bob") == bob + 7 + 1
    statuses = {e["hash"]: e["tx_status"] for e in journal(bound)}
    assert statuses[pending["hash"]] == "landed"


def test_another_transactions_answer_is_not_believed(bound: Home, gno_node: Any) -> None:
    """The broadcast is forwarded but its answer names another hash: c4 asks the node for
    its own by hash and reports that one."""

    def swapped(request: dict[str, Any], forward: Callable[[], dict[str, Any]]) -> Any:
        document = forward()
        document["result"]["hash"] = base64.b64encode(b"\x01" * 32).decode()
        return document

    bob = ugnot(bound, "bob")
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["broadcast_tx_commit"] = swapped
        result = bound.run(
            "--remote",
            proxy.url,
            "--json",
            "send",
            "--to",
            "bob",
            "--amount",
            "3ugnot",
            *FEE,
            "carol",
        )
    assert result.exit_code == 0, result.output
    receipt = json.loads(result.stdout)
    assert receipt["hash"] != base64.b64encode(b"\x01" * 32).decode()
    assert journal(bound)[-1]["hash"] == receipt["hash"]
    assert ugnot(bound, "bob") == bob + 3


def test_a_signal_while_waiting_for_the_block_says_sent_and_keeps_the_secret(
    bound: Home, gno_node: Any
) -> None:
    """Ctrl-C after the offer left for the node: never "nothing was recorded"; the journal
    holds it as pending, the secret is kept, and the next command of that account
    finds it landed."""

    code, err = interrupted_while_held(
        gno_node.url,
        lambda url: (
            [c4_bin(), "--remote", url, "offer", "--stake", "1gnot", *FEE, "alice"],
            c4_env(bound),
        ),
    )
    assert code == 130, err
    assert err.startswith("Error: interrupted: the transaction was sent (TX HASH "), err
    tx_hash = err.split("TX HASH ")[1].split(")")[0]
    assert "nothing was recorded" not in err
    # The journal file as the signal left it (`c4 log` would look the hash up, and
    # list it as landed once its block is in).
    entry = next(e for e in journal_entries(bound.path) if e.hash == tx_hash)
    assert entry.status == "pending"
    secrets = list((bound.path / "secrets" / bound.address("alice")).glob("*"))
    assert secrets, "the offer's secret was deleted"
    time.sleep(1.5)  # its block
    after = bound.run("send", "--to", "bob", "--amount", "1ugnot", *FEE, "alice")
    assert after.exit_code == 0, after.output
    entry = next(e for e in journal(bound) if e["hash"] == tx_hash)
    assert entry["tx_status"] == "landed" and entry["func"] == "Offer"


def test_a_full_disk_at_the_journal_after_landing_keeps_the_secret(bound: Home) -> None:
    """The offer landed; the journal cannot take the line: exit 3 naming the TX HASH,
    the secret kept, the game on the node."""
    result = bound.run(
        "offer", "--stake", "1gnot", *FEE, "bob", env={"C4_FAULT": "journal-landed:ENOSPC"}
    )
    assert result.exit_code == 3, result.output
    assert "the transaction is on the node (TX HASH " in result.stderr
    assert list((bound.path / "secrets" / bound.address("bob")).glob("*"))


def test_a_full_disk_before_the_broadcast_sends_nothing(bound: Home) -> None:
    before = ugnot(bound, "bob")
    result = bound.run(
        "send",
        "--to",
        "carol",
        "--amount",
        "1ugnot",
        *FEE,
        "bob",
        env={"C4_FAULT": "journal-pending:ENOSPC"},
    )
    assert result.exit_code == 3 and "nothing was sent" in result.stderr, result.output
    assert ugnot(bound, "bob") == before


def test_another_chain_behind_the_url_is_refused(bound: Home, gno_node: Any) -> None:
    def elsewhere(request: dict[str, Any], forward: Callable[[], dict[str, Any]]) -> Any:
        document = forward()
        document["result"]["node_info"]["network"] = "other-chain"
        return document

    with proxy_for(gno_node.url) as proxy:
        proxy.rules["status"] = elsewhere
        result = bound.run("--remote", proxy.url, "lobby")
    assert result.exit_code == 4
    assert "is on chain 'other-chain', not 'dev'" in result.stderr


def test_a_rolled_back_chain_is_refused(bound: Home, gno_node: Any) -> None:
    def behind(request: dict[str, Any], forward: Callable[[], dict[str, Any]]) -> Any:
        document = forward()
        document["result"]["sync_info"]["latest_block_height"] = "1"
        return document

    assert any(isinstance(e.get("height"), int) and e["height"] > 1 for e in journal(bound))
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["status"] = behind
        result = bound.run("--remote", proxy.url, "time")
    assert result.exit_code == 4 and "is at height 1, below height " in result.stderr


def test_a_trickling_server_is_cut_off_at_the_deadline(bound: Home, gno_node: Any) -> None:
    with proxy_for(gno_node.url) as proxy:
        proxy.trickle_headers = True
        started = time.monotonic()
        result = bound.run("--remote", proxy.url, "time", env={"C4_TIMEOUT": "2"})
        took = time.monotonic() - started
    assert result.exit_code == 4 and "did not answer within 2 s" in result.stderr
    assert took < 5, took


def test_absurd_answers_are_exit_4_never_a_number(bound: Home, gno_node: Any) -> None:
    def negative(request: dict[str, Any], forward: Callable[[], dict[str, Any]]) -> Any:
        if abci_path(request).startswith("bank/balances/"):
            return abci_answer(request, b'"-5ugnot"')
        return forward()

    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = negative
        result = bound.run("--remote", proxy.url, "query", "balance", "bob")
    assert result.exit_code == 4 and "a balance that is not coins" in result.stderr
    assert "0ugnot" not in result.output


def test_credentials_in_a_url_are_sent_as_basic_auth_and_never_printed(
    bound: Home, gno_node: Any
) -> None:
    with proxy_for(gno_node.url) as proxy:
        port = proxy.server_address[1]
        url = f"http://user:s3cret@127.0.0.1:{port}/v1/APIKEY42"
        ok = bound.run("--remote", url, "time")
        assert ok.exit_code == 0, ok.output
        assert proxy.authorization == [base64.b64encode(b"user:s3cret").decode()]
    failed = bound.run("--remote", "http://user:s3cret@127.0.0.1:1/v1/APIKEY42", "time")
    assert failed.exit_code == 4
    assert "s3cret" not in failed.output + failed.stderr and "APIKEY42" not in failed.stderr


def test_claim_timeout_waits_for_a_block_dated_after_the_deadline(
    gno_node: Any, tmp_path: Path
) -> None:
    """A realm copy with a 3-second move clock. Once the deadline has passed by the wall
    clock, `show` does not claim the clock ran out (the node's next block decides);
    claim-timeout --wait tries (free simulations) until a block dated after the
    deadline lets it through, while other traffic makes blocks."""
    path = "gno.land/r/c4cli/quick/connect4"
    home = bound_home(
        gno_node, path, tmp_path, lambda name, text: text.replace("= 90 //", "= 3 //")
    )
    game = home.json("offer", "--stake", "1gnot", "alice")["result"][0]
    home.ok("accept", str(game), "bob")
    home.ok("reveal", str(game), "alice")
    home.ok("reveal", str(game), "bob")
    time.sleep(4)
    shown = home.ok("show", str(game)).stdout
    assert "the node's next block decides" in shown and "ran out" not in shown
    traffic = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys, time\n"
            "for _ in range(6):\n"
            "    time.sleep(1)\n"
            f"    subprocess.run([{c4_bin()!r}, 'send', '--to', 'test1', '--amount', '1ugnot',"
            " 'carol'], capture_output=True)\n",
        ],
        env=c4_env(home),
    )
    try:
        result = home.run("claim-timeout", str(game), "test1", "--wait", "20")
    finally:
        traffic.wait(timeout=60)
    assert result.exit_code == 0, result.output
    assert home.game(game)["status"] in ("won", "void")


def test_a_pot_near_int64_pays_alike_on_both_chains(gno_node: Any, tmp_path: Path) -> None:
    """Two accounts hold nearly 2^62 ugnot each at genesis, on the node and on a local chain
    premined the same, and stake nearly all of it: the pot (nearly 2^63) and the payout
    less the fee are the same to the ugnot on both, as the GnoVM's int64 computes them.
    A genesis past int64 is refused by gnoland ("cannot compute supply"), so no larger
    pot can exist; the local chain refuses it in the same words."""
    from real_gnoland.twin import WHALE_FUNDS

    from c4cli.home.keys import Keyring

    local = Home(tmp_path / "local")
    node = Home(tmp_path / "node")
    for home in (local, node):
        keyring = Keyring(home.path)
        for name, key in gno_node.whales.items():
            keyring.add(name, key, "")
    deploy_copy(gno_node, "gno.land/r/c4cli/whales/connect4", tmp_path / "realm")
    node.ok("init", "--remote", gno_node.url, "--realm-path", "gno.land/r/c4cli/whales/connect4")
    premine = [f"--premine=whale{n}={WHALE_FUNDS}ugnot" for n in (1, 2)]
    local.ok("init", "--clock", "manual", *premine, "--deployer", "whale1")
    stake = f"{WHALE_FUNDS - 10**13}ugnot"
    paid = []
    for home in (node, local):
        game = home.json("offer", "--stake", stake, *FEE, "whale1")["result"][0]
        home.ok("accept", str(game), *FEE, "whale2")
        home.ok("reveal", str(game), *FEE, "whale1")
        home.ok("reveal", str(game), *FEE, "whale2")
        receipt = home.json("resign", str(game), *FEE, "whale1")
        paid.append(receipt["transfers"])
    assert paid[0] == paid[1]
    assert paid[1] == [
        {"to": local.address("whale2"), "amount": f"{2 * (WHALE_FUNDS - 10**13) - 100000}ugnot"}
    ]
    past = local.run("init", "--force", "--premine", f"whale1={2**63 - 1}ugnot")
    assert past.exit_code == 2
    assert past.stderr == 'Error: cannot compute supply: balances of "ugnot" sum past int64\n'


def test_a_read_back_that_times_out_after_the_offer_landed_keeps_everything(
    bound: Home, gno_node: Any
) -> None:
    """The offer is in a block; reading the game back then times out. The command
    still succeeds (a warning names the TX HASH), the journal lists it, the secret is
    kept."""

    def stalls_after_broadcast(
        request: dict[str, Any], forward: Callable[[], dict[str, Any]]
    ) -> Any:
        if "broadcast_tx_commit" in proxy.seen and abci_path(request) == "vm/qeval":
            time.sleep(4)
            return None
        return forward()

    secrets = bound.path / "secrets" / bound.address("carol")
    before = set(secrets.glob("*")) if secrets.exists() else set()
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["abci_query"] = stalls_after_broadcast
        result = bound.run(
            "--remote",
            proxy.url,
            "offer",
            "--stake",
            "1gnot",
            *FEE,
            "carol",
            env={"C4_TIMEOUT": "2"},
        )
    assert result.exit_code == 0, result.output
    assert "warning: the transaction is recorded (TX HASH " in result.stderr
    assert "could not be read back" in result.stderr
    assert journal(bound)[-1]["tx_status"] == "landed"
    assert len(set(secrets.glob("*")) - before) == 1


def test_a_node_this_home_is_not_bound_to_signs_only_for_a_given_chain_id(
    gno_node: Any, tmp_path: Path
) -> None:
    """--remote on a home bound to no node reads freely; it signs only for the chain id
    the user names, never for whatever the node says it is."""
    home = home_with_keys(gno_node, tmp_path)
    args = ("--remote", gno_node.url, "send", "--to", "bob", "--amount", "1ugnot", *FEE)
    refused = home.run(*args, "carol")
    assert refused.exit_code == 2
    assert "pass --chain-id dev (the chain it reports) to sign for that chain" in refused.stderr
    assert home.run(*args, "--chain-id", "other", "carol").exit_code == 4
    assert home.run(*args, "--chain-id", "dev", "carol").exit_code == 0

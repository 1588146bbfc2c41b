"""Issue 40 through the hostile proxy: a node's word about blocks is not proof.

Each case sends real coins through :mod:`node.proxy` while it forges one thing of
what proves a landing: a precommit's signature, a validator outside the set, too
little voting power, a header that does not hash to what was signed, a block whose
transactions are not its data hash's, a validator set of the attacker's. The node
itself takes the transaction (the proxy forwards the broadcast), so the forgery is
all that stands between c4 and a receipt. Each time: exit 4 and one line naming what
failed; the transaction pending in the journal, never landed on the forger's word;
then an honest command settles it as landed and sends its own, the recipient paid
exactly once each, and the home not bricked.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from real_gnoland.proxy import after_broadcast, proxy_for
from real_gnoland.test_proof_node import status_of, stranger
from real_gnoland.test_remote import bound_home
from real_gnoland.tm2json import header_hash, validators_hash, vote_sign_bytes

from c4cli.wire.merkle import merkle_root
from support import Home

pytestmark = pytest.mark.node

REALM_PATH = "gno.land/r/c4cli/light/connect4"
Forge = Callable[[dict[str, Any]], None]  # changes a commit answer's signed header in place


@pytest.fixture(scope="module")
def bound(gno_node: Any, tmp_path_factory: pytest.TempPathFactory) -> Home:
    return bound_home(gno_node, REALM_PATH, tmp_path_factory.mktemp("light"))


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


class Attacker:
    """A validator set of one key the attacker holds, and its power over headers."""

    def __init__(self) -> None:
        self.key = Ed25519PrivateKey.from_private_bytes(os.urandom(32))
        public = self.key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.address = "g1" + hashlib.sha256(public).hexdigest()[:38]  # any text will do
        self.validators = [
            {
                "address": self.address,
                "pub_key": {"@type": "/tm.PubKeyEd25519", "value": b64(public)},
                "voting_power": "100",
                "proposer_priority": "0",
            }
        ]

    def take_over(self, signed: dict[str, Any]) -> None:
        """The header names the attacker's set, and the attacker alone signs it."""
        header, commit = signed["header"], signed["commit"]
        own = validators_hash(self.validators)
        assert own is not None
        header["validators_hash"] = header["next_validators_hash"] = b64(own)
        block_hash = header_hash(header)
        assert block_hash is not None
        vote = copy.deepcopy(next(v for v in commit["precommits"] if v))
        vote["block_id"]["hash"] = commit["block_id"]["hash"] = b64(block_hash)
        vote["validator_address"], vote["validator_index"] = self.address, "0"
        vote["signature"] = b64(self.key.sign(vote_sign_bytes("dev", vote)))
        commit["precommits"] = [vote]


def flip_a_signature(signed: dict[str, Any]) -> None:
    vote = next(v for v in signed["commit"]["precommits"] if v)
    raw = bytearray(base64.b64decode(vote["signature"]))
    raw[7] ^= 1
    vote["signature"] = b64(bytes(raw))


def a_stranger_signs(signed: dict[str, Any]) -> None:
    """The precommit claimed by a validator that is not in the set (its own signature)."""
    attacker = Attacker()
    vote = next(v for v in signed["commit"]["precommits"] if v)
    vote["validator_address"] = attacker.address
    vote["signature"] = b64(attacker.key.sign(vote_sign_bytes("dev", vote)))


def too_little_power(signed: dict[str, Any]) -> None:
    signed["commit"]["precommits"] = [None for _ in signed["commit"]["precommits"]]


def another_header(signed: dict[str, Any]) -> None:
    """The header says another app hash than the one its validators signed."""
    signed["header"]["app_hash"] = b64(hashlib.sha256(b"another state").digest())


CASES: dict[str, tuple[Forge, str]] = {
    "a signature changed": (flip_a_signature, "precommit 0's signature is forged"),
    "a validator not in the set": (a_stranger_signs, "precommit 0 is not its validator's"),
    "less than 2/3 of the power": (too_little_power, "not more than 2/3"),
    "a header that does not hash": (another_header, "does not hash to the block id signed"),
}


def forging(forge: Forge) -> Callable[[dict[str, Any], Callable[[], Any]], Any]:
    """A proxy rule for ``commit`` and ``block``: the node's answer, forged alike in both
    (the block's header is the commit's, so each case fails on its own forgery)."""

    def rule(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        document = forward()
        result = document.get("result")
        if request["method"] == "commit" and result:
            forge(result["signed_header"])
        if request["method"] == "block" and result and forge is another_header:
            forge(result["block"])
        return document

    return rule


def through(proxy: Any) -> Callable[..., Any]:
    """``c4 --remote PROXY …`` in the home, with a short look-up deadline."""

    def run(home: Home, *args: str) -> Any:
        return home.run("--remote", proxy.url, *args, env={"C4_TIMEOUT": "3"})

    return run


def settled_honestly(
    bound: Home, gno_node: Any, proxy: Any, result: Any, to: str, words: str
) -> None:
    """The forged landing refused in one line, and the transaction still pending as far
    as the forger shows (its `c4 log`); the honest node settles it (landed), and a send
    lands its own: paid exactly once each."""
    assert result.exit_code == 4, result.output
    assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr
    assert "not believed" in result.stderr and "is pending" in result.stderr, result.stderr
    pending = re.search(r"TX HASH (\S+)\)", result.stderr)
    assert pending is not None
    tx_hash = pending.group(1)
    listed = through(proxy)(bound, "log", "--json")
    assert listed.exit_code == 0, listed.output
    statuses = {
        tx["hash"]: tx["tx_status"] for block in json.loads(listed.stdout) for tx in block["txs"]
    }
    assert statuses[tx_hash] == "pending"  # the forger's proof never moves it
    assert gno_node.balance(to) == 5  # it did land: the forger only hid the proof
    proxy.rules.clear()
    assert status_of(bound, tx_hash) == "landed"  # proven through the honest node
    again = bound.run("send", "--to", to, "--amount", "5ugnot", "carol")
    assert again.exit_code == 0, again.output
    assert gno_node.balance(to) == 5 + 5
    shown = bound.json("tx", tx_hash)
    assert shown["verified"] is True and shown["proof"]["height"] == shown["height"]


@pytest.mark.parametrize("case", list(CASES))
def test_a_forged_proof_leaves_the_transaction_pending(
    bound: Home, gno_node: Any, case: str
) -> None:
    forge, words = CASES[case]
    to = stranger()
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["commit"] = proxy.rules["block"] = after_broadcast(proxy, forging(forge))
        result = through(proxy)(bound, "send", "--to", to, "--amount", "5ugnot", "carol")
        settled_honestly(bound, gno_node, proxy, result, to, words)


@pytest.mark.parametrize("case", ["a signature changed", "less than 2/3 of the power"])
def test_a_forged_commit_before_signing_sends_nothing(
    bound: Home, gno_node: Any, case: str
) -> None:
    """The commit of the header that proves the account's numbers, forged: exit 4 before
    anything is signed, nothing broadcast or journaled."""
    forge, words = CASES[case]
    journal = bound.path / "journal.jsonl"
    before = journal.read_bytes() if journal.exists() else b""
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["commit"] = forging(forge)
        result = through(proxy)(bound, "send", "--to", stranger(), "--amount", "5ugnot", "carol")
        seen = list(proxy.seen)
    assert result.exit_code == 4 and words in result.stderr, result.output
    assert "broadcast_tx_commit" not in seen, seen
    assert (journal.read_bytes() if journal.exists() else b"") == before


def test_a_block_whose_transactions_are_not_its_data_hashs(bound: Home, gno_node: Any) -> None:
    """The block that rides after the broadcast holds one more transaction than its
    header's data hash covers."""

    def padded(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        document = forward()
        txs = document["result"]["block"]["data"]["txs"]
        if txs:
            txs.append(txs[0])
        return document

    to = stranger()
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["block"] = padded
        result = through(proxy)(bound, "send", "--to", to, "--amount", "5ugnot", "carol")
        settled_honestly(bound, gno_node, proxy, result, to, "do not hash to its data hash")


def test_a_forged_block_with_its_own_data_hash_is_caught_by_its_header(
    bound: Home, gno_node: Any
) -> None:
    """A forger who fixes the data hash after adding a transaction changes the header:
    it no longer hashes to the block id its validators signed."""

    def refitted(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        document = forward()
        block = document["result"]["block"]
        txs = block["data"]["txs"]
        if txs:
            txs.append(b64(b"a transaction never sent"))
            root = merkle_root([hashlib.sha256(base64.b64decode(t)).digest() for t in txs])
            assert root is not None
            block["header"]["data_hash"] = b64(root)
        return document

    to = stranger()
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["block"] = refitted
        result = through(proxy)(bound, "send", "--to", to, "--amount", "5ugnot", "carol")
        words = "does not hash to the block id signed"
        settled_honestly(bound, gno_node, proxy, result, to, words)


def test_a_forged_validator_set_is_not_followed(bound: Home, gno_node: Any) -> None:
    """The proxy's headers name the attacker's validator set, whose key signs them, and
    its ``validators`` answer that set: a change of set the trusted validators do not
    vouch for. Not followed, and trust.toml unchanged."""
    attacker = Attacker()
    trusted = (bound.path / "trust.toml").read_bytes()

    def take_over(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        document = forward()
        result = document.get("result")
        if request["method"] == "commit" and result:
            attacker.take_over(result["signed_header"])
        if request["method"] == "block" and result:
            header = result["block"]["header"]
            header["validators_hash"] = header["next_validators_hash"] = b64(
                validators_hash(attacker.validators) or b""
            )
        if request["method"] == "validators" and result:
            result["validators"] = attacker.validators
        return document

    to = stranger()
    with proxy_for(gno_node.url) as proxy:
        for method in ("commit", "block", "validators"):
            proxy.rules[method] = after_broadcast(proxy, take_over)
        result = through(proxy)(bound, "send", "--to", to, "--amount", "5ugnot", "carol")
        shown = through(proxy)(bound, "time")
        assert "its validator set changed from the one trusted at height" in result.stderr
        settled_honestly(bound, gno_node, proxy, result, to, "vouches for it: not followed")
    assert shown.exit_code == 4 and shown.stderr.count("\n") == 1, shown.stderr
    assert "not followed" in shown.stderr
    assert (bound.path / "trust.toml").read_bytes() == trusted


def test_trust_node_takes_the_nodes_word_and_says_so(bound: Home, gno_node: Any) -> None:
    """--trust-node: the same forged signature goes unchecked, and the receipt says the
    block is the node's word (text and --json)."""
    to = stranger()
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["commit"] = forging(flip_a_signature)
        text = bound.run("--remote", proxy.url, "--trust-node", "send", "--to", to,
                         "--amount", "5ugnot", "carol")  # fmt: skip
        sent = bound.ok("--remote", proxy.url, "send", "--to", to, "--amount", "5ugnot",
                        "carol", "--json", env={"C4_TRUST_NODE": "1"})  # fmt: skip
    doc = json.loads(sent.stdout)
    assert text.exit_code == 0, text.output
    assert "VERIFIED:   no, the node's word: --trust-node" in text.stdout
    assert (doc["verified"], doc["proof"]) == (False, None)
    assert doc["unverified"].startswith("--trust-node")
    assert gno_node.balance(to) == 10
    honest = bound.run("send", "--to", to, "--amount", "5ugnot", "carol")
    assert re.search(r"VERIFIED:   block \d+ \([0-9A-F]{16}…\) signed by 10 of 10", honest.stdout)
    # `c4 tx` proves the earlier transaction's block and, the next block made, its result
    # (unless told to take the node's word).
    shown = bound.ok("tx", doc["hash"]).stdout
    found = re.search(
        r"\nverified: block (\d+) \([0-9A-F]{16}…\) signed by 10 of 10 voting power", shown
    )
    assert found is not None, shown
    # Its result too, by the next block's results hash (that block exists by now).
    assert f"voting power, its result by block {int(found.group(1)) + 1}\n" in shown
    taken = bound.ok("--trust-node", "tx", doc["hash"]).stdout
    assert "\nverified: no, the node's word: --trust-node" in taken


def test_init_trusts_on_first_use_or_the_block_named(
    bound: Home, gno_node: Any, tmp_path: Path
) -> None:
    """`c4 init --remote` shows the set's fingerprint; --trust HEIGHT:HASH trusts the set
    that signed the block named, and a hash the node's block does not have is refused
    with nothing written."""
    commit = gno_node.rpc("commit", height="3")["signed_header"]
    block_hash = header_hash(commit["header"])
    assert block_hash is not None
    first = Home(tmp_path / "first")
    trust = first.json("init", "--remote", gno_node.url, "--realm-path", REALM_PATH)["trust"]
    assert trust["source"] == "first use" and re.fullmatch(r"[0-9A-F]{64}", trust["fingerprint"])
    shown = Home(tmp_path / "shown").ok(
        "init", "--remote", gno_node.url, "--realm-path", REALM_PATH
    )
    assert f"(first use): fingerprint {trust['fingerprint']}" in shown.stdout
    named = Home(tmp_path / "named")
    at = f"3:{block_hash.hex()}"
    doc = named.json("init", "--remote", gno_node.url, "--realm-path", REALM_PATH, "--trust", at)
    assert doc["trust"]["height"] == 3 and doc["trust"]["source"] == f"--trust {at.upper()}"
    assert doc["trust"]["block_hash"] == block_hash.hex().upper()
    # Issue 48: the hash as the RPC gives it (base64) names the same block.
    as_given = f"3:{base64.b64encode(block_hash).decode()}"
    again = Home(tmp_path / "again").json(
        "init", "--remote", gno_node.url, "--realm-path", REALM_PATH, "--trust", as_given
    )
    assert again["trust"]["block_hash"] == block_hash.hex().upper()
    wrong = Home(tmp_path / "wrong")
    refused = wrong.run(
        "init", "--remote", gno_node.url, "--realm-path", REALM_PATH, "--trust", f"3:{'00' * 32}"
    )
    assert refused.exit_code == 4 and "not the 0000" in refused.stderr, refused.output
    assert not (wrong.path / "config.toml").exists() and not (wrong.path / "trust.toml").exists()
    garbage = wrong.run("init", "--remote", gno_node.url, "--trust", "three:abc")
    assert garbage.exit_code == 2 and "invalid --trust 'three:abc'" in garbage.stderr


def forged_refusal(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
    """The node took and landed the transaction; its answer is made a refusal in the
    block (a user who believed it would send again, and pay twice)."""
    document = forward()
    base = document["result"]["deliver_tx"]["ResponseBase"]
    base["Error"] = {"@type": "/abci.StringError", "value": "forged refusal"}
    base["Log"], base["Data"], base["Events"] = "forged refusal", None, None
    return document


def forged_results(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
    """``block_results`` made to agree with the forged refusal."""
    document = forward()
    for deliver in document["result"]["results"]["deliver_tx"] or []:
        base = deliver["ResponseBase"]
        base["Error"] = {"@type": "/abci.StringError", "value": "forged refusal"}
        base["Log"], base["Data"], base["Events"] = "forged refusal", None, None
    return document


@pytest.mark.parametrize("results", ["honest", "forged alike"])
def test_a_forged_refusal_in_the_block_is_held_to_the_next_header(
    bound: Home, gno_node: Any, results: str
) -> None:
    """A refusal in a block is what a user answers by sending again: c4 waits for the
    next block and holds the result to its ``last_results_hash``. The forger's refusal
    is not the result committed (or, with block_results forged to agree, those do not
    hash to the header): not believed, pending, then settled as landed."""
    to = stranger()
    with proxy_for(gno_node.url) as proxy:
        proxy.rules["broadcast_tx_commit"] = forged_refusal
        if results == "forged alike":
            proxy.rules["block_results"] = forged_results
            result = through(proxy)(bound, "send", "--to", to, "--amount", "5ugnot", "carol")
            words = "its results do not hash to block"
            settled_honestly(bound, gno_node, proxy, result, to, words)
            return
        result = through(proxy)(bound, "send", "--to", to, "--amount", "5ugnot", "carol")
        # Only the broadcast's answer lied: a look-up through the same proxy proves the
        # result committed, and `c4 log` settles it as landed.
        assert result.exit_code == 4 and result.stderr.count("\n") == 1, result.stderr
        assert "the transaction's result is not the one committed: not believed" in result.stderr
        assert "forged refusal" not in result.stderr and "is pending" in result.stderr
        found = re.search(r"TX HASH (\S+)\)", result.stderr)
        assert found is not None
        listed = through(proxy)(bound, "log", "--json")
        statuses = {t["hash"]: t["tx_status"] for b in json.loads(listed.stdout) for t in b["txs"]}
        assert statuses[found.group(1)] == "landed"
    assert gno_node.balance(to) == 5


def logged_until(home: Home, words: str) -> Any:
    """`c4 log` again, while the block after the transaction's (whose header proves its
    result) is not made yet, until it says ``words`` (20 s at most): its last run."""
    deadline = time.monotonic() + 20
    while True:
        shown = home.run("log")
        assert shown.exit_code == 0, shown.output
        if words in shown.stderr or time.monotonic() > deadline:
            return shown
        time.sleep(0.5)


def refusal_noting(landed_at: list[int]) -> Callable[[dict[str, Any], Callable[[], Any]], Any]:
    """A rule for the broadcast: the refusal forged, the block it landed in noted."""

    def rule(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        document = forged_refusal(request, forward)
        landed_at.append(int(document["result"]["height"]))
        return document

    return rule


def test_a_result_taken_on_the_nodes_word_is_rechecked_once_proven(
    bound: Home, gno_node: Any
) -> None:
    """Issue 47: a forged refusal whose next block the proxy hides (the node's word:
    the block after is not made in time) is journaled refused, unproven; the next `c4
    log` through an honest node proves it landed, says so, and journals it landed."""
    to = stranger()
    landed_at: list[int] = []
    refused_and_hidden = refusal_noting(landed_at)

    def no_next_block(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        asked = int(request.get("params", {}).get("height") or 0)
        if landed_at and asked > landed_at[0]:
            error = {"code": -32603, "message": "Internal error", "data": "height too high"}
            return {"jsonrpc": "2.0", "id": request["id"], "error": error}
        return forward()

    with proxy_for(gno_node.url) as proxy:
        proxy.rules["broadcast_tx_commit"] = refused_and_hidden
        proxy.rules["commit"] = no_next_block
        result = through(proxy)(bound, "send", "--to", to, "--amount", "5ugnot", "carol")
    assert result.exit_code == 1, result.output
    assert "forged refusal" in result.stderr and "the refusal is the node's word" in result.stderr
    found = re.search(r"TX HASH (\S+)\)", result.stderr)
    assert found is not None
    tx_hash = found.group(1)
    said = (
        f"note: transaction {tx_hash}, journaled as refused on the node's word, is proven "
        f"landed at height {landed_at[0]}"
    )
    shown = logged_until(bound, said)
    assert said in shown.stderr, shown.stderr
    assert status_of(bound, tx_hash) == "landed"
    assert "journaled as" not in bound.run("log").stderr  # said once: proven now
    assert gno_node.balance(to) == 5


def test_a_forgotten_landing_comes_back_when_its_block_proves_it(
    bound: Home, gno_node: Any
) -> None:
    """A mistaken `c4 log --forget-above`: the landing it dropped is proven again by the
    next `c4 log`, said, and journaled landed."""
    to = stranger()
    sent = bound.json("send", "--to", to, "--amount", "5ugnot", "carol")
    tx_hash, height = sent["hash"], sent["height"]
    forgot = bound.json("log", "--forget-above", str(height - 1))
    assert tx_hash in forgot["forgotten"]
    said = (
        f"note: transaction {tx_hash}, journaled as dropped on the user's word, is proven "
        f"landed at height {height}"
    )
    shown = logged_until(bound, said)
    assert said in shown.stderr, shown.stderr
    assert status_of(bound, tx_hash) == "landed"


def test_another_blocks_commit_and_results_prove_no_refusal(bound: Home, gno_node: Any) -> None:
    """Issue 47 (1): the proxy forges a refusal and, asked for the block after the
    transaction's, answers the real, signed commit of block 3 and the results of
    block 2: another block's, never believed of this one (the user would send
    again and pay twice)."""
    to = stranger()
    landed_at: list[int] = []
    refused = refusal_noting(landed_at)

    def another(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        asked = int(request.get("params", {}).get("height") or 0)
        if not landed_at or asked not in (landed_at[0], landed_at[0] + 1):
            return forward()
        if request["method"] == "block_results":
            return forged_results(
                {**request, "params": {"height": "2"}},
                lambda: proxy.forward(json.dumps({**request, "params": {"height": "2"}}).encode()),
            )
        if asked == landed_at[0] + 1:
            return proxy.forward(json.dumps({**request, "params": {"height": "3"}}).encode())
        return forward()

    with proxy_for(gno_node.url) as proxy:
        proxy.rules["broadcast_tx_commit"] = refused
        proxy.rules["commit"] = proxy.rules["block_results"] = another
        result = through(proxy)(bound, "send", "--to", to, "--amount", "5ugnot", "carol")
        words = f"answered the commit of block 3 when asked for block {landed_at[0] + 1}'s"
        settled_honestly(bound, gno_node, proxy, result, to, words)


def test_an_older_signed_head_is_refused_through_a_proxy(bound: Home, gno_node: Any) -> None:
    """Issue 47 (3): the proxy answers the last commit with the real, signed one of a
    block well before the head this home has proven: refused, and the head kept."""
    seen = bound.json("time")["height"]
    trust = (bound.path / "trust.toml").read_text()
    assert f"height = {seen}\n" in trust

    def older(request: dict[str, Any], forward: Callable[[], Any]) -> Any:
        if request.get("params", {}).get("height"):
            return forward()
        return proxy.forward(json.dumps({**request, "params": {"height": "2"}}).encode())

    with proxy_for(gno_node.url) as proxy:
        proxy.rules["commit"] = older
        shown = through(proxy)(bound, "time")
    assert shown.exit_code == 4 and shown.stderr.count("\n") == 1, shown.output
    assert f"shows block 2 as its last, below block {seen} this home has verified" in shown.stderr
    assert bound.json("time")["height"] >= seen

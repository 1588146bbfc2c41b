"""c4's light-client checks (c4cli/node/light/headers.py) against gno v1.7.1's own output: a real
gnoland's headers hash to the block ids its validators signed, its validator set to
the header's hash, its precommits verify over c4's canonical vote bytes, and a block
of several transactions holds them by its data hash. Forgeries of each are caught."""

from __future__ import annotations

import base64
import copy
import hashlib
import time
from typing import Any

import pytest
from real_gnoland.gnonode import GAS_FEE, GAS_WANTED
from real_gnoland.twin import PLAYERS, address_of_key

from c4cli.errors import Unverified
from c4cli.node.light.headers import verify_commit
from c4cli.wire.abci import ResponseDeliverTx, results_hash
from c4cli.wire.blocks import Commit, Header, Validator, validators_hash
from c4cli.wire.merkle import merkle_root
from c4cli.wire.rpc import ResultBlock, ResultBlockResults, ResultCommit, ResultValidators
from c4cli.wire.std import encode_tx
from c4cli.wire.tx import call_msg, fee, send_msg, signed_tx

pytestmark = pytest.mark.node


def signed(gno_node: Any, height: int) -> tuple[dict[str, Any], dict[str, Any], list[Any]]:
    """Block ``height``'s header and commit, and the validator set at that height, as
    the node's JSON gives them."""
    result = gno_node.rpc("commit", height=str(height))["signed_header"]
    validators = gno_node.rpc("validators", height=str(height))["validators"]
    return result["header"], result["commit"], validators


def typed(
    header: dict[str, Any], commit: dict[str, Any], validators: list[Any]
) -> tuple[Header, Commit, list[Validator]]:
    return (
        Header.from_json(header),
        Commit.from_json(commit),
        [Validator.from_json(v) for v in validators],
    )


def b64(value: str) -> bytes:
    return base64.b64decode(value)


def signed_by(gno_node: Any, name: str, msg: Any) -> bytes:
    """``msg`` signed by player ``name`` for the account's sequence now, as bytes."""
    key = gno_node.keys[name]
    number, sequence = gno_node.account(address_of_key(key))
    tx = signed_tx(
        [msg],
        fee(GAS_WANTED, GAS_FEE),
        "",
        private_key=key,
        chain_id="dev",
        account_number=number,
        sequence=sequence,
    )
    return encode_tx(tx)


def several_in_one_block(gno_node: Any) -> int:
    """Three sends by three players broadcast at once (sync): the height of a block that
    holds more than one of them."""
    hashes = []
    for name in PLAYERS[:3]:
        sender = address_of_key(gno_node.keys[name])
        raw = signed_by(
            gno_node, name, send_msg(sender, address_of_key(gno_node.keys["dave"]), "1ugnot")
        )
        answer = gno_node.rpc("broadcast_tx_sync", tx=base64.b64encode(raw).decode())
        assert answer["error"] is None, answer
        hashes.append(base64.b64encode(hashlib.sha256(raw).digest()).decode())
    heights = set()
    for tx_hash in hashes:
        for _ in range(100):
            try:
                heights.add(int(gno_node.rpc("tx", hash=tx_hash)["height"]))
                break
            except Exception:  # not in a block yet
                time.sleep(0.1)
    for height in sorted(heights):
        if int(gno_node.rpc("block", height=str(height))["block"]["header"]["num_txs"]) > 1:
            return height
    pytest.fail(f"the three sends landed in blocks {sorted(heights)}, none with two")


def test_gnolands_headers_commits_and_validators_verify(gno_node: Any) -> None:
    top = int(gno_node.rpc("status")["sync_info"]["latest_block_height"])
    for height in range(2, min(top, 12)):
        header, commit, validators = typed(*signed(gno_node, height))
        assert header.hash() == commit.block_id.hash, height
        assert validators_hash(validators) == header.validators_hash, height
        assert verify_commit("dev", header, commit, validators) == sum(
            v.voting_power for v in validators
        )


def test_gnolands_answers_are_written_back_as_gnoland_wrote_them(gno_node: Any) -> None:
    """The wire's values read a real gnoland's amino JSON and write it back the same, to
    the byte: what c4 serve (and a gateway) answers is what gnoland would."""
    top = int(gno_node.rpc("status")["sync_info"]["latest_block_height"])
    for height in range(2, min(top, 8)):
        for method, kind in (
            ("commit", ResultCommit),
            ("validators", ResultValidators),
            ("block", ResultBlock),
            ("block_results", ResultBlockResults),
        ):
            answer = gno_node.rpc(method, height=str(height))
            written = kind.from_json(answer).to_json()  # type: ignore[attr-defined]
            if method == "block_results":  # only the deliver results are c4's to read
                answer = answer["results"]["deliver_tx"] or None
                written = written["results"]["deliver_tx"]
            assert written == answer, (method, height)


def test_a_block_of_several_transactions_is_held_by_its_data_hash(gno_node: Any) -> None:
    height = several_in_one_block(gno_node)
    block = gno_node.rpc("block", height=str(height))["block"]
    txs = [b64(tx) for tx in block["data"]["txs"]]
    assert len(txs) > 1
    root = merkle_root([hashlib.sha256(tx).digest() for tx in txs])
    assert root == b64(block["header"]["data_hash"])
    assert verify_commit("dev", *typed(*signed(gno_node, height))) > 0


@pytest.mark.parametrize(
    ("forge", "words"),
    [
        (lambda h, c, v: h.update(app_hash=base64.b64encode(b"x" * 32).decode()), "does not hash"),
        (lambda h, c, v: h.update(height=str(int(h["height"]) + 1)), "does not hash"),
        (lambda h, c, v: c["precommits"][0].update(signature=_flip(c["precommits"][0])), "forged"),
        (lambda h, c, v: v[0].update(voting_power="11"), "not the set trusted"),
        (lambda h, c, v: c["precommits"].__setitem__(0, None), "not more than 2/3"),
    ],
    ids=["app hash", "height", "signature", "validator set", "no signature"],
)
def test_each_forgery_is_named(gno_node: Any, forge: Any, words: str) -> None:
    header, commit, validators = (copy.deepcopy(x) for x in signed(gno_node, 3))
    forge(header, commit, validators)
    with pytest.raises(Unverified, match=words):
        verify_commit("dev", *typed(header, commit, validators))
    with pytest.raises(Unverified):
        verify_commit("another-chain", *typed(*signed(gno_node, 3)))


def _flip(vote: dict[str, Any]) -> str:
    raw = bytearray(b64(vote["signature"]))
    raw[0] ^= 1
    return base64.b64encode(bytes(raw)).decode()


EMITTER = "gno.land/r/c4cli/light/emitter"


def test_block_results_hash_to_the_next_headers_last_results_hash(
    gno_node: Any, tmp_path: Any
) -> None:
    """A block's results as tm2 commits them in the next header: a deploy whose init
    emits a realm's event (with its storage deposit), a call the realm refuses in its
    block (a string error), and sends (the bank's transfers), each block's
    ``last_results_hash`` recomputed from ``block_results`` by c4."""
    from c4cli.home.keys import DEV_MNEMONIC

    package = tmp_path / "emitter"
    package.mkdir()
    (package / "gnomod.toml").write_text(f'module = "{EMITTER}"\ngno = "0.9"\n')
    (package / "emitter.gno").write_text(
        'package emitter\n\nimport "chain"\n\nvar deployed = "yes"\n\nfunc init() {\n'
        '\tchain.Emit("Deployed", "by", "test", "empty", "")\n\tchain.Emit("Bare")\n}\n\n'
        'func Boom(cur realm) string {\n\tpanic("boom: " + deployed)\n}\n'
    )
    gno_node.deploy(package, EMITTER, DEV_MNEMONIC)
    sender = address_of_key(gno_node.keys["dave"])
    answer = gno_node.broadcast(signed_by(gno_node, "dave", call_msg(sender, EMITTER, "Boom", [])))
    refused_at = int(answer["height"])
    assert answer["deliver_tx"]["ResponseBase"]["Error"]["@type"] == "/abci.StringError"
    several = several_in_one_block(gno_node)
    kinds: set[str] = set()
    top = int(gno_node.rpc("status")["sync_info"]["latest_block_height"])
    while top <= max(refused_at, several):  # the next header of each is needed
        time.sleep(0.2)
        top = int(gno_node.rpc("status")["sync_info"]["latest_block_height"])
    for height in range(2, top):
        results = gno_node.rpc("block_results", height=str(height))["results"]["deliver_tx"] or []
        following = gno_node.rpc("block", height=str(height + 1))["block"]["header"]
        want = following["last_results_hash"]
        typed_results = [ResponseDeliverTx.from_json(r) for r in results]
        assert results_hash(typed_results) == (b64(want) if want else None), height
        for deliver in results:
            base = deliver["ResponseBase"]
            kinds |= {str(e["@type"]) for e in base.get("Events") or []}
            kinds |= {str(base["Error"]["@type"])} if base.get("Error") else set()
    expected = {"/tm.Event", "/tm.StorageDepositEvent", "/bank.TransferEvent", "/abci.StringError"}
    assert kinds >= expected, kinds

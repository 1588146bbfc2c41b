"""Issue 47's attacks on the light client, on headers built and signed here (the
hostile node is the synthetic chain of test_light_follow.py, answering as a
transport does).

1. A commit of another block answered for the block after a transaction's: the
   results it proves are that other block's, never this transaction's.
2. A set that lists one validator several times, its vote copied into each slot:
   with one stolen key of four, nothing is followed and nothing forged believed.
3. An older signed header shown as the last: the home's head never goes down.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from real_gnoland.test_light_follow import CHAIN, KEYS, Chain, Key, b64, in_order, verifier

from c4cli.chain.trust import TrustedSet
from c4cli.errors import Unverified
from c4cli.home.trust import TrustFile
from c4cli.node.light import headers as light
from c4cli.node.light import verify
from c4cli.node.light.verify import Verifier, establish
from c4cli.wire.abci import ResponseDeliverTx
from c4cli.wire.blocks import Commit, Header, Validator, Vote

A = in_order(KEYS[0:4])
STOLEN = A[2]  # one validator of four: a quarter of the power


def verify_commit(chain_id: str, header: Any, commit: Any, rows: Any) -> int:
    """c4's check of a header and commit as a node's JSON gives them."""
    return light.verify_commit(
        chain_id, Header.from_json(header), Commit.from_json(commit), _set(rows)
    )


def trusted_power(chain_id: str, header: Any, commit: Any, rows: Any) -> int:
    return light.trusted_power(
        chain_id, Header.from_json(header), Commit.from_json(commit), _set(rows)
    )


def _set(rows: Any) -> list[Validator]:
    return [Validator.from_json(row) for row in rows]


def success() -> dict[str, Any]:
    return {"ResponseBase": {"Error": None, "Data": b64(b"(1 uint64)"), "Events": None}}


def refusal() -> dict[str, Any]:
    error = {"@type": "/std.InsufficientFundsError", "value": None}
    return {"ResponseBase": {"Error": error, "Data": None, "Events": None}}


# -- 1: a commit belongs to its block ----------------------------------------------------


def test_the_commit_of_another_block_does_not_prove_a_transactions_result() -> None:
    """Block 3 holds the user's successful send; block 7 a refused one. The forger
    answers block 8's real, signed commit and block 7's results when asked for block
    4's and block 3's: believed, the send would be a proven refusal and sent again."""
    chain = Chain({1: A}, 12, results={3: [success()], 7: [refusal()]})
    check, _ = verifier(chain)
    landed = check.at(3)
    honest = check.result(landed, 0, ResponseDeliverTx.from_json(success()))
    assert honest.result_unproven == ""
    with pytest.raises(Unverified, match="the transaction's result is not the one committed"):
        check.result(
            landed, 0, ResponseDeliverTx.from_json(refusal())
        )  # the honest node's results are not a refusal

    answer = chain.call

    def another_block(method: str, params: dict[str, Any], timeout: object = None) -> Any:
        height = int(params.get("height") or chain.head)
        if method == "commit" and height == 4:
            return answer(method, {"height": "8"})
        if method == "block_results" and height == 3:
            return answer(method, {"height": "7"})
        return answer(method, params)

    chain.call = another_block  # type: ignore[method-assign]
    with pytest.raises(Unverified, match="answered the commit of block 8 when asked for block 4"):
        check.result(landed, 0, ResponseDeliverTx.from_json(refusal()))


def test_a_next_header_that_does_not_follow_the_block_proves_nothing() -> None:
    """Block 4 of a fork the validators also signed (its block 3 another): its results
    hash covers the fork's block 3, not the one that holds the transaction."""
    chain = Chain({1: A}, 12, results={3: [success()]})
    fork = Chain({1: A}, 12, results={3: [refusal()]}, salt=b"fork")
    check, _ = verifier(chain)
    landed = check.at(3)
    answer = chain.call

    def forked(method: str, params: dict[str, Any], timeout: object = None) -> Any:
        height = int(params.get("height") or chain.head)
        if (method == "commit" and height == 4) or method == "block_results":
            return fork.call(method, params)
        return answer(method, params)

    chain.call = forked  # type: ignore[method-assign]
    with pytest.raises(Unverified, match="block 4 as synthetic gave it does not follow block 3"):
        check.result(landed, 0, ResponseDeliverTx.from_json(refusal()))


# -- 2: one validator counts once --------------------------------------------------------


def duplicated(key: Key, times: int, height: int) -> Chain:
    """A chain whose set from ``height`` on lists ``key`` ``times`` times (one key
    signing every slot), as a forger holding that key alone would serve it."""
    return Chain({1: A, height: [key] * times}, height + 10)


def test_a_set_listing_one_validator_twice_is_refused_and_never_saved() -> None:
    honest = Chain({1: A}, 30)
    honest.forged_at(30, duplicated(STOLEN, 3, 30))
    check, store = verifier(honest)
    with pytest.raises(Unverified, match=r"block 30: its validator set changed .* not followed"):
        check.at(30)
    assert store.saved == []  # nothing of the forger's is trusted
    assert check.at(29).height == 29  # the honest chain still proves


def test_a_vote_named_twice_counts_once() -> None:
    """The trusted set's power in a commit whose precommits name one validator three
    times is that validator's, once (tm2's VerifyFutureCommit)."""
    forged = duplicated(STOLEN, 3, 5)
    header, commit = forged.blocks[5]
    assert trusted_power(CHAIN, header, commit, [k.row for k in A]) == 10
    with pytest.raises(Unverified, match="lists one validator twice"):
        verify_commit(CHAIN, header, commit, forged.rows(5))


def test_one_key_under_another_address_is_no_validator() -> None:
    """A set row whose address is not its key's: the signature would count for a name
    it does not own."""
    rows = [dict(k.row) for k in A]
    rows[0] = {**rows[0], "pub_key": STOLEN.row["pub_key"]}
    chain = Chain({1: A}, 3)
    header, commit = chain.blocks[2]
    with pytest.raises(Unverified, match="validator 0's address is not its key's"):
        verify_commit(CHAIN, header, commit, rows)


def test_a_commit_has_a_slot_for_each_validator() -> None:
    chain = Chain({1: A}, 3)
    header, commit = copy.deepcopy(chain.blocks[2])
    commit["precommits"] = commit["precommits"][:3]
    with pytest.raises(Unverified, match="3 precommits for 4 validators"):
        verify_commit(CHAIN, header, commit, chain.rows(2))


def test_a_follow_needs_two_thirds_of_the_trusted_power() -> None:
    """tm2 follows a new set on more than 2/3 of the old set's power: half of A signing
    a set of its own choosing with two strangers is not enough, whatever the stolen
    keys (the set is refused, as bisection reaches a block A signed whole)."""
    half = in_order([A[0], A[1], KEYS[9], KEYS[10]])
    honest = Chain({1: A}, 20)
    honest.forged_at(20, Chain({1: A, 20: half}, 20))
    check, store = verifier(honest)
    with pytest.raises(Unverified, match="not followed"):
        check.at(20)
    assert store.saved == []


def test_the_trusted_set_itself_may_not_list_a_validator_twice() -> None:
    chain = Chain({1: [STOLEN, STOLEN]}, 3)
    with pytest.raises(Unverified, match="lists one validator twice"):
        establish(chain, CHAIN, height=1, source="test")  # type: ignore[arg-type]


# -- 3: the head never goes down -----------------------------------------------------------


def test_an_older_signed_header_never_lowers_the_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(verify, "BEHIND_WAIT", 0.3)
    chain = Chain({1: A}, 40)
    trust = TrustFile(tmp_path)
    trust.save(establish(chain, CHAIN, height=1, source="test"))  # type: ignore[arg-type]
    assert Verifier(chain, trust).latest().height == 40  # type: ignore[arg-type]
    kept = trust.load()
    assert kept is not None and (kept.height, kept.source) == (40, "test")
    assert kept.block_hash == (Header.from_json(chain.blocks[40][0]).hash() or b"").hex().upper()

    chain.head = 10  # the node (or a proxy) shows block 10 as its last
    with pytest.raises(Unverified, match="shows block 10 as its last, below block 40"):
        Verifier(chain, trust).latest()  # type: ignore[arg-type]
    again = trust.load()
    assert again is not None and again.height == 40

    chain.head = 40  # the honest head again, and one block more later
    assert Verifier(chain, trust).latest().height == 40  # type: ignore[arg-type]


def test_a_kept_head_never_replaces_a_followed_set(tmp_path: Path) -> None:
    """Two commands at once: one followed a new set, the other proved a later head of
    the old one. The later write of the old set is dropped, not laid over the new."""
    chain = Chain({1: A}, 40)
    trust = TrustFile(tmp_path)
    first = establish(chain, CHAIN, height=1, source="test")  # type: ignore[arg-type]
    trust.save(first)
    others = tuple(_set(k.row for k in in_order(KEYS[4:8])))
    trust.save(TrustedSet(CHAIN, 30, "AB" * 32, "", others, "f"))
    followed = trust.load()
    assert followed is not None
    trust.advance(first._replace(height=39))
    assert trust.load() == followed
    trust.advance(followed._replace(height=35))
    kept = trust.load()
    assert kept is not None and kept.height == 35 and kept.source == "f"
    trust.advance(followed._replace(height=31))  # lower: never
    kept = trust.load()
    assert kept is not None and kept.height == 35


def test_a_stolen_key_cannot_sign_a_vote_for_its_fellows() -> None:
    """Sanity of the forger's tools: a vote signed by the stolen key verifies for it
    only; dressed as another validator's, it is a forgery."""
    chain = Chain({1: A}, 3)
    header, commit = copy.deepcopy(chain.blocks[2])
    victim = next(i for i, k in enumerate(A) if k is not STOLEN)
    vote = commit["precommits"][victim]
    vote["signature"] = b64(STOLEN.private.sign(Vote.from_json(vote).sign_bytes(CHAIN)))
    with pytest.raises(Unverified, match=f"precommit {victim}'s signature is forged"):
        verify_commit(CHAIN, header, commit, chain.rows(2))

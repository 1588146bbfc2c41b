"""The node client's money rules against an in-process node (tests/fakenode.py), in
milliseconds and without gnoland: only proof moves a transaction out of pending, and
nothing is ever paid twice. The gnoland-backed tests (tests/real_gnoland/) are the end-to-end net
for the same rules; these reach the corners a real node will not go on demand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fakenode import (
    ALICE,
    ALICE_KEY,
    BOB,
    FEE,
    SKIP,
    FakeLink,
    FakeNode,
    Ledger,
    held,
    lost,
    tx_hash,
)

from c4cli.chain.interface import Receipt, Signer
from c4cli.errors import Refused, Unreachable
from c4cli.home.journal import Journal
from c4cli.node.chain import NodeChain, open_node
from c4cli.node.net.transport import OtherChain, Unusable
from c4cli.node.sending.delivery import Submission, Superseded
from c4cli.node.spec import NodeSpec
from c4cli.settings import Settings
from c4cli.wire.std import encode_tx
from c4cli.wire.tx import Tx, send_msg, signed_tx

A, B = "http://a:26657", "http://b:26657"


class World:
    """A chain of one or two nodes, a home's journal, and alice's client of it."""

    def __init__(self, home: Path, *, urls: str = A, chain_id: str = "dev", seen: int = 0) -> None:
        self.ledger = Ledger({ALICE: 10**9, BOB: 0})
        self.nodes = {A: FakeNode(self.ledger), B: FakeNode(self.ledger)}
        self.link = FakeLink(self.nodes)
        self.journal = Journal(home)
        self.urls, self.chain_id, self.seen = urls, chain_id, seen

    def client(self) -> NodeChain:
        spec = NodeSpec(
            self.urls, "gno.land/r/c4cli/connect4", self.chain_id, self.journal, self.seen,
            deadlines=Settings.read().deadlines(),  # as a run reads $C4_TIMEOUT
        )  # fmt: skip
        return open_node(spec, self.link)

    def send(self, ugnot: int, chain: NodeChain | None = None) -> Receipt:
        signer = Signer(ALICE, ALICE_KEY)
        build = lambda reader: [send_msg(ALICE, BOB, f"{ugnot}ugnot")]  # noqa: E731
        return (chain or self.client()).submit(signer, build, FEE, "", policy=SKIP)

    def bob(self) -> int:
        return self.ledger.accounts[BOB][2]

    def statuses(self) -> list[str]:
        return [entry.status for entry in self.journal.typed()]


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    monkeypatch.setenv("C4_TIMEOUT", "1")
    return World(tmp_path)


def test_a_send_is_two_requests_and_lands_once(world: World) -> None:
    receipt = world.send(5)
    assert receipt.height == 2 and world.bob() == 5
    # The chain's check rides with the account's numbers; the block and the node's
    # height ride after the broadcast: nothing more is asked.
    assert world.nodes[A].seen == [
        ["status", "abci_query"],
        ["broadcast_tx_commit", "block", "status"],
    ]
    assert world.statuses() == ["landed"]


def test_the_journal_names_the_sequences_its_landings_took(world: World) -> None:
    """What explains a sequence a node says above the one proven a block before: each
    sequence this home's landed transactions took, per account (and session)."""
    world.send(5)
    world.send(6)
    assert world.journal.landed_sequences(ALICE, None) == {0, 1}
    assert world.journal.landed_sequences(ALICE, BOB) == set()  # another signer: a session
    assert world.journal.landed_sequences(BOB, None) == set()


def test_a_lost_answer_is_found_by_hash_not_sent_again(world: World) -> None:
    world.nodes[A].misbehave["broadcast_tx_commit"] = lost
    receipt = world.send(5)
    assert receipt.height == 2 and world.bob() == 5  # paid once
    assert world.statuses() == ["landed"]


def test_a_held_broadcast_stays_pending_and_the_next_command_settles_it(world: World) -> None:
    world.nodes[A].misbehave["broadcast_tx_commit"] = held
    with pytest.raises(Unreachable, match="is pending"):
        world.send(5)
    assert world.statuses() == ["pending"] and world.bob() == 0
    del world.nodes[A].misbehave["broadcast_tx_commit"]
    # The next transaction of the account sends the pending bytes again (the same hash:
    # it lands once at most), then its own, for the next sequence.
    receipt = world.send(7)
    assert world.bob() == 12 and receipt.height == 3
    assert world.statuses() == ["landed", "landed"]


def test_a_forged_success_is_not_believed(world: World) -> None:
    def forged(call: dict[str, Any], forward: Any) -> Any:
        import base64

        raw = base64.b64decode(call["params"]["tx"])
        result = {"ResponseBase": {"Error": None}, "GasUsed": "1"}
        answer = {"check_tx": result, "deliver_tx": result, "hash": tx_hash(raw), "height": "9"}
        return {"jsonrpc": "2.0", "id": call["id"], "result": answer}

    world.nodes[A].misbehave["broadcast_tx_commit"] = forged
    with pytest.raises(Unreachable):
        world.send(5)
    assert world.statuses() == ["pending"] and world.bob() == 0
    assert world.journal.seen_height() == 0  # a forged height is never seen


def test_another_chain_is_refused_before_anything_is_signed(tmp_path: Path) -> None:
    world = World(tmp_path, chain_id="test5")
    with pytest.raises(OtherChain, match="is on chain 'dev', not 'test5'"):
        world.send(5)
    assert world.statuses() == [] and world.nodes[A].seen == [["status", "abci_query"]]


def test_a_node_rolled_back_below_what_the_home_saw_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("C4_TIMEOUT", "0.3")
    world = World(tmp_path, seen=50)
    with pytest.raises(Unusable, match="below height 50 where this home saw"):
        world.send(5)
    assert world.statuses() == [] and world.bob() == 0


def test_failover_reads_on_the_next_node_and_never_sends_twice(world: World) -> None:
    world.urls = f"{A},{B}"
    world.nodes[A].down = True
    assert world.send(5).height == 2
    assert world.nodes[B].seen[0] == ["status", "abci_query"]
    # A broadcast lost on a node is looked up, on every node, by its hash: never sent
    # to another.
    world.nodes[A].down = False
    world.nodes[A].misbehave["broadcast_tx_commit"] = lost
    world.nodes[A].misbehave["tx"] = held
    assert world.send(6).height == 3 and world.bob() == 11
    sent_to_b = [m for m in world.nodes[B].seen if "broadcast_tx_commit" in m]
    assert len(sent_to_b) == 1  # the first send's, when A was down; never the second's


def alices_send(ugnot: int, memo: str = "") -> Tx:
    """Alice's send signed for her first sequence, as any client of her key signs it."""
    msgs = [send_msg(ALICE, BOB, f"{ugnot}ugnot")]
    return signed_tx(
        msgs, FEE, memo, private_key=ALICE_KEY, chain_id="dev", account_number=1, sequence=0
    )


def test_a_transaction_another_client_superseded_is_dropped_on_the_blocks_proof(
    world: World,
) -> None:
    chain = world.client()

    def other_client_first(call: dict[str, Any], forward: Any) -> Any:
        # Another client of the key takes the same sequence, then c4's bytes are lost.
        world.ledger.commit(encode_tx(alices_send(100, "other")))
        world.ledger.empty_block()
        raise Unreachable("http://a:26657 did not answer within 1 s")

    world.nodes[A].misbehave["broadcast_tx_commit"] = other_client_first
    with pytest.raises(Superseded, match="took sequence 0"):
        chain.sender.delivery.broadcast(Signer(ALICE, ALICE_KEY), alices_send(5), 0, Submission())
    assert world.bob() == 100
    assert world.statuses() == ["dropped"]


@pytest.mark.parametrize("how", ["reversed", "one missing"])
def test_a_batch_answered_out_of_order_or_short_is_read_by_id_or_asked_again(
    world: World, how: str
) -> None:
    world.nodes[A].batch_order = (
        (lambda documents: documents[::-1])
        if how == "reversed"
        else (lambda documents: documents[:-1])
    )
    receipt = world.send(5)
    assert receipt.height == 2 and world.bob() == 5 and world.statuses() == ["landed"]
    broadcasts = [m for m in world.nodes[A].seen if "broadcast_tx_commit" in m]
    assert len(broadcasts) == 1  # a short answer to a broadcast is looked up, not resent


@pytest.mark.parametrize("kind", ["/std.UnauthorizedError", "/std.InsufficientFundsError"])
def test_what_a_refusal_does_hangs_on_tm2s_error_type_not_its_words(
    world: World, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A signature refused in CheckTx (tm2's UnauthorizedError) while the sequence
    stands may be an old node's refusal of the current sign payload: signed once more
    over the legacy one. Any other refusal, in the very same words, stands."""
    node = world.nodes[A]

    def refused(call: dict[str, Any], forward: Any) -> Any:
        import base64

        del node.misbehave["broadcast_tx_commit"]
        words = "signature verification failed; verify correct account, sequence, and chain-id"
        check = {"ResponseBase": {"Error": {"@type": kind}, "Log": words}}
        raw = base64.b64decode(call["params"]["tx"])
        answer = {"check_tx": check, "deliver_tx": {}, "hash": tx_hash(raw), "height": "0"}
        return {"jsonrpc": "2.0", "id": call["id"], "result": answer}

    node.misbehave["broadcast_tx_commit"] = refused
    if kind == "/std.UnauthorizedError":
        assert world.send(5).height == 2 and world.bob() == 5
        assert "took the legacy one" in capsys.readouterr().err
        assert world.statuses() == ["dropped", "landed"]
    else:
        with pytest.raises(Refused, match="signature verification failed") as refusal:
            world.send(5)
        assert refusal.value.kind == kind and world.bob() == 0
        assert world.statuses() == ["dropped"]


def test_a_refusal_before_a_block_is_believed_only_while_the_sequence_stands(
    world: World,
) -> None:
    def refused(call: dict[str, Any], forward: Any) -> Any:
        answer = forward()
        answer["result"]["check_tx"] = {
            "ResponseBase": {"Error": {"@type": "/std.InsufficientFundsError"}, "Log": "poor"}
        }
        return answer  # the node said no, and took the transaction anyway

    world.nodes[A].misbehave["broadcast_tx_commit"] = refused
    receipt = world.send(5)
    assert receipt.height == 2 and world.statuses() == ["landed"]


def test_a_node_behind_this_commands_own_landing_is_not_read_after_a_failover(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read-your-writes within one command (a bot's, a watch's): once its transaction
    landed at height 2 on A and A went down, B, still at height 1, is not believed (it
    would show the game before the move, and a bot would play the same move again)."""
    monkeypatch.setenv("C4_TIMEOUT", "0.3")
    world = World(tmp_path, urls=f"{A},{B}")
    world.nodes[B] = FakeNode(Ledger({ALICE: 10**9, BOB: 0}))  # a chain a block behind
    chain = world.client()
    assert world.send(5, chain).height == 2
    world.nodes[A].down = True
    with pytest.raises(Unreachable, match="is at height 1, below height 2 where this home"):
        chain.head()


def test_a_nodes_answers_are_typed_once_and_a_shape_it_never_sends_is_one_line() -> None:
    """Issue 49: status, headers and commits are decoded at the client's edge into typed
    values; anything else (a height that is no int64, a hash that is no text, a vote
    that is no object) is refused there, never read further."""
    from c4cli.errors import Unreachable
    from c4cli.node.net.transport import read_status
    from c4cli.wire.blocks import BlockID, Commit, Header, Time

    said = read_status(
        "node",
        {"node_info": {"network": "dev"},
         "sync_info": {"latest_block_height": "7", "latest_block_time": "2026-01-01T00:00:07Z",
                       "catching_up": False}},
    )  # fmt: skip
    assert (said.network, said.latest_block_height, said.catching_up) == ("dev", 7, False)
    assert said.latest_block_time == Time(1767225607)
    sync = {"latest_block_height": "7"}
    for bad in (
        {},
        {"node_info": {"network": 5}, "sync_info": sync},
        {"node_info": {"network": "dev"}, "sync_info": {"latest_block_height": "-1"}},
        {"node_info": {"network": "dev"}, "sync_info": {**sync, "latest_block_time": "t"}},
    ):
        with pytest.raises(Unreachable, match=r"^node answered status in a shape it never has$"):
            read_status("node", bad)
    header = {
        "version": "v1", "chain_id": "dev", "height": "3", "time": "2026-01-01T00:00:00Z",
        "num_txs": "0", "total_txs": "1", "app_version": "", "data_hash": None,
    }  # fmt: skip
    typed = Header.from_json(header)
    assert typed.height == 3 and typed.last_block_id == BlockID()
    assert typed.validators_hash == b""  # left out by the node: empty, as tm2 reads it
    assert typed.hash() is None  # a header without validators has no hash, as tm2's
    for field, value in (("height", True), ("height", "x"), ("data_hash", 5), ("time", None)):
        with pytest.raises((TypeError, ValueError)):
            Header.from_json({**header, field: value})
    with pytest.raises(TypeError):
        Commit.from_json({"block_id": {}, "precommits": ["not a vote"]})

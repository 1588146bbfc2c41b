"""`c4 export GAME --proof FILE`: a game's record with what proves it, gathered from
a node and proven on the way (:mod:`c4cli.client.proofdoc` says what the file holds).

The record is the realm's ``GameRecord(id)`` once its sha256 is the digest the realm
committed, proven after the freshest block a header proves (where the node's last
block changed the game, the state after it, once the next block proves it, as a read
is: client/proven.py); the realm's package is proven at the same block. Each of the
game's transactions this home knows (its history where `c4 sync` keeps one, else
those it sent) is taken with its block, the next block's header and the block's
results, all proven by the validators' signatures before anything is written. The
file is then checked as `c4 verify-record` checks it, against the home's trusted set.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence

from c4cli.chain.interface import GameCall
from c4cli.client.proofdoc import GameProof, Included, SignedBlock
from c4cli.client.proven import LOOKS
from c4cli.errors import BadInput, Refused, Unverified
from c4cli.gotext import parse_result
from c4cli.node.light.verify import Verifier, results_committed
from c4cli.node.net import rpc
from c4cli.node.net.rpc import Malformed
from c4cli.node.reader import NodeReader
from c4cli.realm import commitments
from c4cli.wire.abci import ResponseQuery, Unencodable
from c4cli.wire.merkle import aunts
from c4cli.wire.paths import QEVAL
from c4cli.wire.storeproof import package_key


def gather(chain: object, game_id: int, calls: Sequence[GameCall]) -> GameProof:
    """Game ``game_id``'s record on ``chain`` and its proof, with the transactions
    ``calls`` names."""
    reader = getattr(chain, "reader", None)
    if not isinstance(reader, NodeReader):
        raise BadInput(
            "a record's proof carries the signatures of a node's validators: the local "
            "chain has none (its own log proves it: `c4 verify`)"
        )
    verifier = reader.verifier
    if verifier is None:
        raise BadInput(
            f"a record's proof carries what the validators signed, and this home takes the "
            f"word of {reader.redacted}: bind it with its validators trusted "
            "(`c4 init --remote URL --force`)"
        )
    path = reader.realm_path
    height, record, proofs = _record(reader, verifier, game_id)
    blocks = {height + 1: _signed_block(verifier, height + 1)}
    included = []
    seen: set[str] = set()
    for call in sorted(calls, key=lambda c: c.height):
        if call.hash in seen:
            continue
        seen.add(call.hash)
        found, pair = _included(verifier, call)
        included.append(found)
        blocks.update(pair)
    return GameProof(
        chain_id=reader.chain_id,
        realm_path=path,
        game=game_id,
        height=height,
        record=record,
        record_proof=proofs[0].proof,
        code=proofs[1].value,
        code_proof=proofs[1].proof,
        validators=tuple(verifier.trusted().validators),
        blocks=tuple(blocks[h] for h in sorted(blocks)),
        transactions=tuple(sorted(included, key=lambda t: (t.height, t.position))),
    )


def _record(
    reader: NodeReader, verifier: Verifier, game_id: int
) -> tuple[int, bytes, list[ResponseQuery]]:
    """The state proven (its block), the game's record and the store's answers (with
    their proofs) of its digest and the realm's code."""
    path = reader.realm_path
    keys = [
        (commitments.store_key(path, commitments.game_key(game_id)), f"game {game_id}'s digest"),
        (package_key(path), "the realm's code"),
    ]
    asked = [(QEVAL, f"{path}.GameRecord({game_id})".encode())]
    height = 0
    for _ in range(LOOKS):
        reads = verifier.stored_all(keys, asked, height)
        digest, code = reads.stored
        at = digest.height
        if code.value is None:
            raise BadInput(f"no realm at {path} by block {at}: there is no game to prove")
        if digest.value is None:
            raise BadInput(
                f"game {game_id}: the realm at {path} committed no record of it by block {at} "
                "(no such game, or a realm that commits nothing: its record has no proof)"
            )
        try:
            answer = reader.answer(QEVAL, reads.answers[0])
            text, _ = parse_result(answer.data)
        except (Refused, ValueError) as exc:
            raise Unverified(
                f"{reader.redacted} would not give game {game_id}'s record: {exc}"
            ) from None
        record = text.encode("utf-8", "surrogateescape")
        if commitments.digest(record) == digest.value:
            return at, record, reads.proofs
        height = at + 1  # the node's last block changed the game: the state after it
    raise Unverified(
        f"game {game_id}'s record as {reader.redacted} gave it is not the one the realm "
        f"committed by block {height - 1} (its sha256 is not the digest proven), nor later"
    )


def _signed_block(verifier: Verifier, height: int) -> SignedBlock:
    signed = verifier.signed(height)
    return SignedBlock(signed.header, signed.commit)


def _included(verifier: Verifier, call: GameCall) -> tuple[Included, dict[int, SignedBlock]]:
    """Transaction ``call`` in its block, and that block's and the next one's headers
    with their commits, all proven (one request)."""
    height = call.height
    block, commit, after = rpc.block(height), rpc.commit(height), rpc.commit(height + 1)
    results = rpc.block_results(height)
    replies = verifier.rpc.batch([commit, block, after, results])
    header = verifier.signed_in(replies, commit, height)
    next_header = verifier.signed_in(replies, after, height + 1)
    try:
        found, deliver = replies[block], replies[results].deliver_tx
    except Malformed as wrong:
        raise Unverified(str(wrong)) from None
    verifier.block(found, replies[commit])
    if next_header.last_block_id.hash != header.hash():
        raise Unverified(f"block {height + 1} as the node gave it does not follow block {height}")
    txs = list(found.block.txs)
    hashes = [hashlib.sha256(tx).digest() for tx in txs]
    mine = [n for n, tx_hash in enumerate(hashes) if _b64(tx_hash) == call.hash]
    if not mine or len(deliver) != len(txs):
        raise Unverified(f"transaction {call.hash} is not in block {height} as the node gives it")
    try:
        results_committed(height, deliver, next_header)
        leaves = [result.result_bytes() for result in deliver]
    except Unencodable as unknown:
        raise Unverified(f"block {height}'s results hold {unknown}: not carried") from None
    index = mine[0]
    included = Included(
        height,
        index,
        len(txs),
        txs[index],
        tuple(aunts(hashes, index)),
        leaves[index],
        tuple(aunts(leaves, index)),
    )
    pair = {
        height: SignedBlock(header, replies[commit].commit),
        height + 1: SignedBlock(next_header, replies[after].commit),
    }
    return included, pair


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()

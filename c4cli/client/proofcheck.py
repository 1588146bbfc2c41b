"""`c4 verify-record`: a game's record held to its proof with no node at all.

What the file carries (:mod:`c4cli.client.proofdoc`) is believed in this order, each
step refusing (exit 4) with one line that names what failed:

1. the validators: their fingerprint is the one given, or they signed the block a
   trust point names (its height and hash, from a source the user trusts);
2. every block: its header hashes to the block id that more than two thirds of
   their voting power signed, on the file's chain;
3. the state: the realm's package and the game's digest, each led by its proof to
   the app hash of the block after the state's; the package is c4's realm (its Gno
   files byte for byte, as `c4 show` holds it), and the record's sha256 is the
   digest, so the record is the game as the realm committed it;
4. each transaction: its bytes led to its block's data hash, its result to the next
   block's results hash; a call of the realm about this game, and each move it
   played is the record's move at that number.

A game whose transactions are not all in the file is still proven by its record;
the check says how many of its moves their transactions carry.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from typing import NamedTuple

from c4cli.chain.interface import GameCall
from c4cli.client.proofdoc import GameProof, Included, SignedBlock
from c4cli.client.proven import code_differs
from c4cli.client.realm_client import GameView
from c4cli.errors import Unverified
from c4cli.escape import printable
from c4cli.jsonvalue import Document
from c4cli.node.light.headers import verify_commit
from c4cli.node.light.store import proven_under
from c4cli.realm import abi, commitments, rules
from c4cli.realm.commitments import RecordError
from c4cli.realm.memory import Game, GameBook, RealmState
from c4cli.wire import ics23
from c4cli.wire.abci import ProofOp
from c4cli.wire.blocks import Header, fingerprint
from c4cli.wire.ics23 import ProofError
from c4cli.wire.merkle import root_from_aunts
from c4cli.wire.msgs import MsgCall
from c4cli.wire.protowire import DecodeError
from c4cli.wire.results import call_values
from c4cli.wire.std import decode_tx
from c4cli.wire.storeproof import package_key


class Anchor(NamedTuple):
    """What the check trusts: a validator set's fingerprint, or a block (its height and
    hash, hex) whose signers are the set."""

    fingerprint: str = ""
    height: int = 0
    block_hash: str = ""


class ProvenRecord(NamedTuple):
    """A record proven: the game, the block whose header proves its state (its time and
    the power that signed it), the set's fingerprint, the realm's calls about the game
    its transactions made (delivered ones), how many it carried the chain refused, and
    how many of the game's moves their transactions carry."""

    proof: GameProof
    game: Game
    view: GameView
    proven_by: int
    signed: int
    total: int
    fingerprint: str
    calls: list[GameCall]
    refused: int
    moves_carried: int


def check(proof: GameProof, anchor: Anchor) -> ProvenRecord:
    """``proof`` held to ``anchor`` (see the module's steps); Unverified naming the first
    thing that fails."""
    trusted = _trusted(proof, anchor)
    blocks = _blocks(proof)
    power = {h: _signed(proof, block) for h, block in blocks.items()}
    after = proof.height + 1
    header = _block_at(blocks, after, f"the state after block {proof.height}").header
    game = _state(proof, header)
    calls, refused = [], 0
    last = (0, -1)
    for number, included in enumerate(proof.transactions, 1):
        if (included.height, included.position) <= last:
            raise Unverified(f"transaction {number} is listed out of its blocks' order")
        last = (included.height, included.position)
        call, ok = _transaction(proof, blocks, number, included)
        if ok:
            calls.append(call)
        else:
            refused += 1
    carried = _moves(game, calls)
    state = RealmState(proof.realm_path, "")
    state.games = GameBook.known({game.id: game}, game.id)
    time = header.time.seconds
    document = json.loads(abi.read(state, time, "GameJSON", [str(game.id)])[0])
    total = sum(v.voting_power for v in proof.validators)
    return ProvenRecord(
        proof,
        game,
        GameView(document["game"], time),
        after,
        power[after],
        total,
        trusted,
        calls,
        refused,
        carried,
    )


def _trusted(proof: GameProof, anchor: Anchor) -> str:
    """The fingerprint of the set the file carries, once the anchor trusts it."""
    mine = fingerprint(proof.validators)
    if anchor.fingerprint and anchor.fingerprint.upper() != mine:
        raise Unverified(
            f"the validators this file carries are not the set trusted: their fingerprint is "
            f"{mine}, not {anchor.fingerprint.upper()}"
        )
    if anchor.height:
        found = next((b for b in proof.blocks if b.header.height == anchor.height), None)
        if found is None:
            raise Unverified(f"the file carries no block {anchor.height}, the trust point's")
        own = (found.header.hash() or b"").hex().upper()
        if own != anchor.block_hash.upper():
            raise Unverified(
                f"block {anchor.height} in the file has hash {own}, not the "
                f"{anchor.block_hash.upper()} trusted"
            )
        if found.header.validators_hash.hex().upper() != mine:
            raise Unverified(
                f"block {anchor.height}, the trust point, was not signed by the validators "
                "this file carries"
            )
    if not anchor.fingerprint and not anchor.height:
        raise Unverified("nothing to trust: a fingerprint or a trust point is needed")
    return mine


def _blocks(proof: GameProof) -> dict[int, SignedBlock]:
    found: dict[int, SignedBlock] = {}
    for block in proof.blocks:
        height = block.header.height
        if found and height <= max(found):
            raise Unverified(f"the file lists block {height} twice or out of order")
        found[height] = block
    return found


def _block_at(blocks: dict[int, SignedBlock], height: int, what: str) -> SignedBlock:
    found = blocks.get(height)
    if found is None:
        raise Unverified(f"the file carries no block {height}, which proves {what}")
    return found


def _signed(proof: GameProof, block: SignedBlock) -> int:
    header = block.header
    if header.chain_id != proof.chain_id:
        raise Unverified(
            f"block {header.height} is of chain {header.chain_id!r}, not {proof.chain_id!r}"
        )
    return verify_commit(proof.chain_id, header, block.commit, proof.validators)


def _state(proof: GameProof, header: Header) -> Game:
    """The game the record holds, once its digest and the realm's code are proven."""
    at, realm = proof.height, proof.realm_path
    key = commitments.store_key(realm, commitments.game_key(proof.game))
    digest = commitments.digest(proof.record)
    what = f"game {proof.game}'s digest"
    if _value_in(proof.record_proof, what, at) != digest:
        raise Unverified(
            f"game {proof.game}'s record is not the one the realm committed by block {at}: "
            "its sha256 is not the digest proven"
        )
    proven_under(proof.record_proof, key, digest, header, what)
    code = proof.code
    proven_under(proof.code_proof, package_key(realm), code, header, f"the code of {realm}")
    differs = code_differs(code, realm)
    if differs:
        raise Unverified(
            f"the realm's code proven at block {at} is not c4's ({differs}): what it "
            "commits is not read as c4's"
        )
    try:
        game = commitments.parse_game(proof.record)
    except RecordError as exc:
        raise Unverified(f"game {proof.game}'s record does not read: {exc}") from None
    if game.id != proof.game:
        raise Unverified(f"the record proven is game {game.id}'s, not game {proof.game}'s")
    return game


def _value_in(ops: Sequence[ProofOp], what: str, at: int) -> bytes:
    """The value the store's proof of ``what`` says is there (b"" where it is none)."""
    try:
        found = ics23.decode(ops[0].data)
    except (IndexError, ProofError) as exc:
        raise Unverified(f"the proof of {what} at block {at} does not read: {exc}") from None
    return getattr(found, "value", b"")


def _transaction(
    proof: GameProof, blocks: dict[int, SignedBlock], number: int, included: Included
) -> tuple[GameCall, bool]:
    """Transaction ``number`` held to its blocks: what it called of the realm, and
    whether the chain delivered it."""
    height = included.height
    where = f"transaction {number} (block {height}, #{included.position})"
    header = _block_at(blocks, height, where).header
    next_header = _block_at(blocks, height + 1, f"{where}'s result").header
    leaf = hashlib.sha256(included.tx).digest()
    root = root_from_aunts(leaf, included.position, included.total, list(included.aunts))
    if included.total != header.num_txs or root != header.data_hash:
        raise Unverified(f"{where}: its bytes and path do not lead to block {height}'s data hash")
    if next_header.last_block_id.hash != header.hash():
        raise Unverified(f"block {height + 1} in the file does not follow block {height}")
    root = root_from_aunts(
        included.result, included.position, included.total, list(included.result_aunts)
    )
    if root != next_header.last_results_hash:
        raise Unverified(
            f"{where}: its result and path do not lead to block {height + 1}'s results hash"
        )
    try:
        response = included.response()
        tx = decode_tx(included.tx)
        readable = response.result_bytes() == included.result
    except (DecodeError, UnicodeDecodeError, ValueError):
        readable = False
    if not readable:
        raise Unverified(f"{where}: c4 cannot read it or its result")
    calls = [m for m in tx.msgs if isinstance(m, MsgCall) and m.pkg_path == proof.realm_path]
    values = [value for value, _ in call_values(response.data.decode("utf-8", "replace"))]
    about = [_game_of(call, values) == proof.game for call in calls]
    if not any(about):
        raise Unverified(f"{where} calls the realm about no game {proof.game}")
    call = GameCall(
        height,
        base64.b64encode(leaf).decode(),
        calls[0].caller,
        [c.func for c in calls],
        [list(c.args) for c in calls],
        header.time.seconds,
    )
    return call, response.error is None


def _game_of(call: MsgCall, values: list[str]) -> int | None:
    """The game ``call`` is about, as the realm's rules read one (None: none)."""
    try:
        return rules.game_of_call(call.func, list(call.args), values)
    except ValueError:
        return None


def _moves(game: Game, calls: list[GameCall]) -> int:
    """How many of the record's moves the delivered ``calls`` carry, once each move a
    call played is the record's at that number."""
    carried: set[int] = set()
    for call in calls:
        for func, args in zip(call.funcs, call.args, strict=True):
            if func != "Play" or len(args) < 3 or args[0] != str(game.id):
                continue
            column, move = args[1], int(args[2]) if args[2].isdigit() else -1
            recorded = game.moves[move] if 0 <= move < len(game.moves) else ""
            if recorded != column:
                has = f"column {recorded} there" if recorded else f"{len(game.moves)} moves"
                raise Unverified(
                    f"the transaction at block {call.height} plays column {column} as move "
                    f"{move + 1}; the record proven has {has}"
                )
            carried.add(move)
    return len(carried)


def summary(checked: ProvenRecord) -> Document:
    """What was proven, for --json."""
    proof = checked.proof
    return {
        "verified": True,
        "verified_by": "proof",
        "verified_height": proof.height,
        "signed_height": checked.proven_by,
        "signed_power": checked.signed,
        "total_power": checked.total,
        "fingerprint": checked.fingerprint,
        "chain_id": proof.chain_id,
        "realm_path": proof.realm_path,
        "game": proof.game,
        "status": str(checked.game.status),
        "move_count": len(checked.game.moves),
        "moves_carried": checked.moves_carried,
        "transactions": len(proof.transactions),
        "refused": checked.refused,
    }


def verdict(checked: ProvenRecord, head: str) -> list[str]:
    """What was proven, in a few lines (the file's words escaped)."""
    proof, game = checked.proof, checked.game
    count = len(proof.transactions)
    refused = f"; {checked.refused} of them the chain refused" if checked.refused else ""
    return [
        f"{head}: game {proof.game} of {printable(proof.realm_path)} on chain "
        f"{printable(proof.chain_id)}, as the realm committed it after block {proof.height}",
        f"  signed at block {checked.proven_by} by {checked.signed} of {checked.total} voting "
        f"power of the validators {checked.fingerprint}",
        f"  {count} transaction{'' if count == 1 else 's'} in their blocks with their results, "
        f"carrying {checked.moves_carried} of its {len(game.moves)} moves{refused}",
    ]

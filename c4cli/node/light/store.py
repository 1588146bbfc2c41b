"""A value of gno.land's main store, read from a node and proven: the key's proof held
to the app hash in a header the trusted validators signed (wire/storeproof.py).

The app hash after block H is in header H+1, so the freshest state a node can prove
is the one after the block before its last: a read at "the last block" reads that
state, against the last header the light client proved (kept while fresh: a read
after another costs one round trip, else two, one more than the node's word). When
this home saw one of its own transactions land after that state (read-your-writes:
the journal's seen height), the block that proves it is waited for, a few seconds at
most; the answer always says the block whose state it is. A value the node will not
prove (a height it pruned, a height of 1 or less, which tm2 refuses to prove) is not
believed: exit 4, naming the key.
"""

from __future__ import annotations

import time as wallclock
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from c4cli.chain.trust import Stored
from c4cli.errors import BadInput, Unreachable, Unverified
from c4cli.node.net import rpc
from c4cli.node.net.rpc import Ask
from c4cli.wire.abci import ProofOp, ResponseQuery
from c4cli.wire.ics23 import ProofError
from c4cli.wire.storeproof import STORE_KEY, app_hash_of

if TYPE_CHECKING:
    from c4cli.node.light.verify import Verifier
    from c4cli.wire.blocks import Header
    from c4cli.wire.rpc import ResultABCIQuery, ResultCommit

CALLS = 10  # proofs asked in one request
FIRST_PROVEN = 2  # tm2 proves no state before block 2
NEXT_BLOCK_WAIT = 3.0  # seconds the block that proves the last state is waited for
POLL = 0.55  # over the time the head proven is kept (verify.FRESH): asked again each time


def read(verifier: Verifier, key: bytes, what: str, height: int = 0, *, after: int = 0) -> Stored:
    """``key`` (``what`` names it in a refusal) after block ``height`` (0: the last the
    node can prove, see above, and at least block ``after``: awaited, a few seconds at
    most), proven; Unverified when any part does not hold."""
    return read_with(verifier, key, what, (), height, after=after)[0]


def read_with(
    verifier: Verifier,
    key: bytes,
    what: str,
    paths: Sequence[str],
    height: int = 0,
    *,
    after: int = 0,
    latest: bool = False,
) -> tuple[Stored, list[ResultABCIQuery | Unreachable]]:
    """:func:`read`, and the node's answers to the queries ``paths`` at the same block
    (then, with ``latest``, at its last block too), asked in the request that asks the
    proof."""
    queries = [(path, b"") for path in paths]
    found = read_all(verifier, [(key, what)], queries, height, after=after, latest=latest)
    return found.stored[0], found.answers


class Reads(NamedTuple):
    """What :func:`read_all` proved and was answered, and the header that proves it."""

    stored: list[Stored]
    answers: list[ResultABCIQuery | Unreachable]
    header: Header
    proofs: list[ResponseQuery]  # the store's answer for each key, its proof in it


def read_all(
    verifier: Verifier,
    keys: Sequence[tuple[bytes, str]],
    queries: Sequence[tuple[str, bytes]],
    height: int = 0,
    *,
    after: int = 0,
    latest: bool = False,
    last_only: bool = False,
) -> Reads:
    """Each of ``keys`` (a key, and what names it) after block ``height`` (as
    :func:`read` has it), proven against one header, and the node's answers to
    ``queries`` (path, data) at the same block (then, with ``latest``, at its last
    block too; with ``last_only``, at its last block alone), all in one request."""
    what = keys[0][1]
    head = _head_said(verifier, height, after) if last_only else 0
    at = head - 1 if head else 0
    if not head:
        at, header = _state(verifier, what, height, after)
        _provable(what, at)
    proofs = [rpc.abci_query(STORE_KEY, key, at, prove=True) for key, _ in keys]
    heights = [0] if last_only else [at, 0] if latest else [at]
    asked = [rpc.abci_query(path, data, when) for when in heights for path, data in queries]
    if head:  # the proofs ride with the head's commit: one request
        _, replies = verifier.latest_with([*proofs, *asked])
        header = verifier.held_header(head) or verifier.proven_header(head)
    else:
        replies = verifier.rpc.batch([*proofs, *asked])
    responses = [
        _at(verifier, name, replies[proof].response, at)
        for (_, name), proof in zip(keys, proofs, strict=True)
    ]
    found = [
        _held(verifier, key, name, response, header)
        for (key, name), response in zip(keys, responses, strict=True)
    ]
    return Reads(found, [replies.get(query) for query in asked], header, responses)


def _head_said(verifier: Verifier, height: int, after: int) -> int:
    """The node's last block as the status this command just read says it, where the
    head is to be proven anew and the state read is the one before it (the proofs can
    then ride with the head's commit); 0 where not (no fresh status: the head is
    proven first)."""
    if height or verifier.head_fresh():
        return 0
    said = verifier.transport.fresh_status_height
    wanted = max(verifier.transport.seen_height, after, FIRST_PROVEN)
    return said if said - 1 >= wanted else 0


def _state(verifier: Verifier, what: str, height: int, after: int) -> tuple[int, Header]:
    """The block whose state is read (see :func:`read`) and the proven header after it."""
    header = verifier.latest_header()
    if height:
        if height > header.height:
            raise BadInput(
                f"height {height} is not on this chain (its last block is {header.height})"
            )
        if height < header.height - 1:
            return height, verifier.proven_header(height + 1)
        if height == header.height - 1:
            return height, header
        return height, _awaited(verifier, what, height)
    at, seen = header.height - 1, max(verifier.transport.seen_height, after)
    seen = max(seen, FIRST_PROVEN)  # a new chain's first state tm2 proves: awaited
    if seen > at:  # a state after that one is asked for: the block that proves it, awaited
        awaited = _next(verifier, seen + 1)
        if awaited is not None:
            at, header = seen, awaited
    return at, header


def after_block(verifier: Verifier, key: bytes, what: str, height: int) -> Stored:
    """``key`` after block ``height``, the node's last or the one before: the block after
    it, which proves it, awaited (a few seconds at most); Unverified when it does not
    come in time."""
    header = _awaited(verifier, what, height)
    return _held(verifier, key, what, _ask(verifier, key, what, height), header)


def _awaited(verifier: Verifier, what: str, height: int) -> Header:
    header = _next(verifier, height + 1)
    if header is None:
        raise Unverified(f"{what} after block {height} is not proven yet: no block since")
    return header


def read_many(verifier: Verifier, keys: Sequence[tuple[bytes, str]], height: int) -> list[Stored]:
    """Each of ``keys`` (a key, and what names it) after block ``height``, proven against
    one header (the block after it: awaited, a few seconds at most, when ``height`` is
    the last block), ``CALLS`` proofs a request."""
    _provable("the state", height)
    _, header = _state(verifier, "the state", height, 0)
    found: list[Stored] = []
    for part in range(0, len(keys), CALLS):
        asked = keys[part : part + CALLS]
        calls = [rpc.abci_query(STORE_KEY, key, height, prove=True) for key, _ in asked]
        replies = verifier.rpc.batch(calls)
        for (key, what), call in zip(asked, calls, strict=True):
            response = _at(verifier, what, replies[call].response, height)
            found.append(_held(verifier, key, what, response, header))
    return found


class Asked(NamedTuple):
    """The reads that prove ``key`` after block ``height``, to ride in a request made for
    something else: the store's answer with its proof, and the commit of the block
    after it (None: the verifier holds that header already)."""

    key: bytes
    what: str
    height: int
    proof: Ask[ResultABCIQuery]
    commit: Ask[ResultCommit] | None
    header: Header | None  # the block after's, held (None: its commit is asked)

    @property
    def calls(self) -> list[Ask[Any]]:
        return [self.proof] if self.commit is None else [self.commit, self.proof]


def ask(verifier: Verifier, key: bytes, what: str, height: int) -> Asked:
    """What proves ``key`` after block ``height`` (a block the node made, so the one
    after it may not be made yet: only the one before it is asked when it is not)."""
    _provable(what, height)
    proof = rpc.abci_query(STORE_KEY, key, height, prove=True)
    header = verifier.held_header(height + 1)
    commit = None if header is not None else rpc.commit(height + 1)
    return Asked(key, what, height, proof, commit, header)


def answered(verifier: Verifier, asked: Asked, replies: rpc.Replies) -> Stored:
    """The value ``asked`` for, proven from ``replies`` (Unverified when it is not)."""
    header = asked.header
    if header is None:
        assert asked.commit is not None, "a header not held is asked for"
        header = verifier.signed_in(replies, asked.commit, asked.height + 1)
    response = _at(verifier, asked.what, replies[asked.proof].response, asked.height)
    return _held(verifier, asked.key, asked.what, response, header)


def _next(verifier: Verifier, height: int) -> Header | None:
    """Block ``height``'s header, proven, once the chain makes it (None: not in time).
    It is waited for through the last block, proven as the head is (never by asking a
    node for a block it has not made: a failover reads that as the node failing)."""
    deadline = wallclock.monotonic() + NEXT_BLOCK_WAIT
    while True:
        last = verifier.latest_header()
        if last.height == height:
            return last
        if last.height > height:
            return verifier.proven_header(height)
        if wallclock.monotonic() >= deadline:
            return None
        wallclock.sleep(POLL)


def _ask(verifier: Verifier, key: bytes, what: str, height: int) -> ResponseQuery:
    """The store's answer for ``key`` at ``height``, with its proof."""
    _provable(what, height)
    proof = rpc.abci_query(STORE_KEY, key, height, prove=True)
    return _at(verifier, what, verifier.rpc.ask(proof).response, height)


def _provable(what: str, height: int) -> None:
    if height <= 1:  # tm2 refuses to prove it (an internal error, in its words)
        raise Unverified(f"{what} at block {height} cannot be proven: no state before block 2 is")


def _at(verifier: Verifier, what: str, response: ResponseQuery, height: int) -> ResponseQuery:
    """``response``, the store's answer asked at ``height``, if it proves that height's
    state (a refusal, or an answer of another height, is not believed)."""
    node = verifier.redacted
    if response.refused:
        said = response.log or (response.error.type_url if response.error else "")
        raise Unverified(f"{node} would not prove {what}: {said}")
    if response.height != height:
        raise Unverified(f"{node} proved {what} at block {response.height}, asked at {height}")
    return response


def _held(
    verifier: Verifier, key: bytes, what: str, response: ResponseQuery, header: Header
) -> Stored:
    """The answered value, once its proof ends in ``header``'s app hash."""
    node, at = verifier.redacted, response.height
    if response.key != key:
        raise Unverified(f"{node} answered the proof of another key than {what}'s")
    value = response.value or None
    try:
        app_hash = app_hash_of(response.proof, key, value)
    except ProofError as exc:
        raise Unverified(f"{node}'s proof of {what} at block {at}: {exc}") from None
    assert header.height == at + 1, "the header after the state read"
    if header.app_hash != app_hash:
        raise Unverified(
            f"{node}'s proof of {what} at block {at} ends in another app hash than block "
            f"{at + 1}'s header, which the validators signed"
        )
    return Stored(key, value, at)


def proven_under(
    ops: Sequence[ProofOp], key: bytes, value: bytes | None, header: Header, what: str
) -> None:
    """``value`` (None: nothing) at ``key`` in the state ``header`` (a header proven
    already) follows, held by the proof ``ops`` to its app hash; Unverified naming
    ``what`` when it is not."""
    at = header.height - 1
    try:
        app_hash = app_hash_of(ops, key, value)
    except ProofError as exc:
        raise Unverified(f"the proof of {what} at block {at}: {exc}") from None
    if app_hash != header.app_hash:
        raise Unverified(
            f"the proof of {what} at block {at} ends in another app hash than block "
            f"{header.height}'s, which the validators signed"
        )

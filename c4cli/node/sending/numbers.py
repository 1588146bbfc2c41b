"""The account number and sequence a transaction is signed for, proven before anything
is signed.

A node that lies about them could have c4 sign for a sequence the account has not
reached yet, keep the bytes, and send them once it has: a transaction its signer no
longer meant. So on a home that proves (not ``--trust-node``), nothing is signed, not
even for a simulation, before the numbers the node said (at its block A, the last its
status named before it answered, or later) are held to the account (or session) its
main store proves against a header the trusted validators signed
(:mod:`c4cli.node.light.store`), after block A when the light client holds header
A+1 already, else after block A-1: that proof rides, with header A's commit, in the
request that simulates the transaction (tm2 runs a call or a send without checking
its signature, so a placeholder is simulated), and costs no request of its own.

The numbers said must be the ones proven, or a sequence higher by transactions of
this home that took each sequence between (landed, as its journal keeps them: each
in a block the validators signed; that it ran, so its fee was paid and its sequence
taken, is its result's word, proven once the block after it is). Another account
number, a sequence lower than the one proven or than one this home's landed
transactions took, is a lie at once. A sequence higher and not explained so
(another client of the account, or a lie): the state after the last block is proven
once the next block is made (a few seconds at most), and the node must say the same
there. Any refusal is exit 4 and names what differed; nothing was signed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from c4cli.chain.interface import SentLog, Signer
from c4cli.errors import Unverified
from c4cli.node.light import store
from c4cli.node.reader import account_path
from c4cli.wire import stored
from c4cli.wire.protowire import DecodeError
from c4cli.wire.storeproof import account_key, session_key

if TYPE_CHECKING:
    from c4cli.node.light.verify import Verifier
    from c4cli.node.net.rpc import Ask, Replies
    from c4cli.node.reader import NodeReader, Numbers

MOST_EXPLAINED = 64  # sequences of this home's own landings that may explain a difference


class Check(NamedTuple):
    """The numbers a node said, and what proves them (None: the block before A is not
    provable, so the next block is awaited)."""

    signer: Signer
    said: Numbers
    name: str
    key: bytes
    asked: store.Asked | None

    @property
    def calls(self) -> list[Ask[object]]:
        return [] if self.asked is None else list(self.asked.calls)


def ask(verifier: Verifier, signer: Signer, said: Numbers) -> Check:
    """What proves ``said``, the node's numbers for ``signer``, at the freshest state
    provable without waiting."""
    if signer.session_addr is None:
        key, name = account_key(signer.address), f"the account {signer.address}"
    else:
        key = session_key(signer.address, signer.session_addr)
        name = f"the session key {signer.session_addr} of {signer.address}"
    at = said.height if verifier.held_header(said.height + 1) else said.height - 1
    asked = store.ask(verifier, key, name, at) if at > 1 else None
    return Check(signer, said, name, key, asked)


def settle(
    reader: NodeReader, check: Check, replies: Replies | None, journal: SentLog | None
) -> tuple[Numbers, int]:
    """The numbers to sign for, and the block after which they are proven: ``check``'s,
    held to its proof (in ``replies``, the answers of the request it rode in), or the
    ones proven after the last block once the next block proves them, where the node
    says the same there; Unverified when the node's numbers are not the ones proven."""
    verifier = reader.verifier
    assert verifier is not None, "numbers are checked where blocks are proven"
    said, name = check.said, check.name
    taken = _taken(check, journal)
    if taken and said.sequence <= max(taken):
        raise Unverified(
            f"the node says {name} is at sequence {said.sequence}; a transaction of this "
            f"home took sequence {max(taken)}, its block proven; nothing was signed"
        )
    if check.asked is not None:
        assert replies is not None, "a proof asked rides in a request"
        proven = store.answered(verifier, check.asked, replies)
        found = _numbers(proven.value, name, proven.height)
        if found == (said.number, said.sequence):
            return said, proven.height
        if found is not None and (found[0] != said.number or said.sequence < found[1]):
            raise Unverified(_differ(said, found, name, proven.height))
        if found is not None and _explained(said.sequence, found[1], taken):
            return said, proven.height
    # The account changed since (another client of it, or a lie): the state after the
    # last block, proven once the next one is made, and the node's numbers there.
    last = verifier.latest_header().height
    proven = store.after_block(verifier, check.key, name, last)
    found = _numbers(proven.value, name, last)
    if found == (said.number, said.sequence):
        return said, last
    there = reader.account_numbers(
        check.signer, reader.query(account_path(check.signer), height=last)
    )
    if found != (there.number, there.sequence):
        raise Unverified(_differ(there._replace(height=last), found, name, last))
    return there, last


class Signing:
    """The numbers one transaction is signed for: the node's, until their proof is
    settled (riding in a request made for something else, or asked on its own before
    the first signature); None for ``proven_at`` where the node's word is taken."""

    def __init__(
        self, reader: NodeReader, journal: SentLog | None, signer: Signer, said: Numbers
    ) -> None:
        self.reader, self.journal = reader, journal
        self.number, self.sequence = said.number, said.sequence
        verifier = reader.verifier
        self.check = None if verifier is None else ask(verifier, signer, said)
        self.proven_at: int | None = None

    @property
    def pending(self) -> bool:
        return self.check is not None

    def riders(self) -> list[Ask[object]]:
        """The calls that prove the numbers, to ride in the caller's next request (which
        must then :meth:`settle` them with its replies)."""
        return [] if self.check is None else self.check.calls

    def settle(self, replies: Replies | None = None) -> None:
        """The numbers proven (asked now when no ``replies`` carry their proof), once."""
        check, self.check = self.check, None
        if check is None:
            return
        if replies is None and check.calls:
            replies = self.reader.rpc.batch(check.calls)
        numbers, self.proven_at = settle(self.reader, check, replies, self.journal)
        self.number, self.sequence = numbers.number, numbers.sequence


def _numbers(value: bytes | None, name: str, height: int) -> tuple[int, int] | None:
    """The (number, sequence) of the account proven (None: no account)."""
    try:
        account = None if value is None else stored.account(value)
    except (DecodeError, ValueError) as exc:
        raise Unverified(f"{name} proven at block {height} is not one: {exc}") from None
    return None if account is None else (account.number, account.sequence)


def _taken(check: Check, journal: SentLog | None) -> frozenset[int]:
    """The sequences this home's transactions of the account took (landed)."""
    if journal is None:
        return frozenset()
    return journal.landed_sequences(check.signer.address, check.signer.session_addr)


def _explained(said: int, proven: int, taken: frozenset[int]) -> bool:
    """Whether this home's transactions took each sequence from the one proven to the
    one said: then the account is at least there, and a signature for it lands now or
    never."""
    if not 0 < said - proven <= MOST_EXPLAINED:
        return False
    return all(sequence in taken for sequence in range(proven, said))


def _differ(said: Numbers, found: tuple[int, int] | None, name: str, height: int) -> str:
    held = "none" if found is None else f"number {found[0]}, sequence {found[1]}"
    return (
        f"the node says {name} has account number {said.number}, sequence {said.sequence} "
        f"(at block {said.height}); the proof after block {height}: {held}; nothing was signed"
    )

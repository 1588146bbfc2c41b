"""The node client's light client: what a node says of its blocks, proven or refused.

A home trusts one validator set (its ``trust.toml``, a :class:`TrustStore`). A block
is believed when its header hashes to the block id that more than two thirds of
that set's voting power signed (:func:`~c4cli.node.light.headers.verify_commit`) and its
transactions hash to the header's data hash. A header whose validators are another
set is believed only through the set already trusted, as tm2's
``VerifyFutureCommit`` holds it: the new set must hash to the header's
``validators_hash`` and sign it by more than two thirds, and more than two thirds of
the trusted power must have signed it too, each trusted validator counted once (or,
for the block right after the trusted one, the new set must be the one that block
named next). When the old set vouches too little, a header half way is proven first
(bisection); a change that cannot be followed so is refused (exit 4) and never
trusted on a node's word. A followed change is saved, and said. A set that lists one
validator (an address or a key) twice is no set.

A commit is taken only for the height asked. The last block proven is the home's
head, kept in ``trust.toml`` and never lowered: a node that shows an older signed
block as its last is waited for a moment, then refused.

A transaction's result is held to the next header's ``last_results_hash``
(:meth:`Verifier.result`) where that header is asked for and follows the block (its
``last_block_id``); what no verified header covers is the node's word, and said to
be: a result not held so, and every ``abci_query`` answer.
"""

from __future__ import annotations

import time as wallclock
from collections.abc import Mapping, Sequence
from typing import Any

from c4cli.address import decode_bech32
from c4cli.chain.trust import Proven, Stored, TrustedSet, TrustStore
from c4cli.errors import NoValidators, Unreachable, Unverified, warn_once
from c4cli.node.light import store
from c4cli.node.light.headers import signed_hash, trusted_power, verify_commit
from c4cli.node.net import rpc
from c4cli.node.net.rpc import Ask, Malformed, Rpc
from c4cli.node.net.transport import NoMethod, Transport
from c4cli.wire import blocks
from c4cli.wire.abci import ResponseDeliverTx, Unencodable, results_hash
from c4cli.wire.blocks import Commit, Header, Validator, validators_hash
from c4cli.wire.rpc import ResultABCIQuery, ResultBlock, ResultCommit

FRESH = 0.5  # seconds a proven last block is the head before it is asked again
BEHIND_WAIT = 3.0  # seconds a node whose last block is below the home's head is waited for
BISECTIONS = 32  # headers proven half way at most to follow one change of the set


class Verifier:
    """Blocks and headers of a node held to the validator set a home trusts."""

    def __init__(self, transport: Transport, store: TrustStore) -> None:
        self.transport = transport
        self.rpc = Rpc(transport)
        self.store = store
        self._trusted: TrustedSet | None = None
        self._stored = 0  # the height trust.toml holds for the set
        self._latest: tuple[Proven, float] | None = None
        self._latest_header: Header | None = None  # the header of _latest

    @property
    def redacted(self) -> str:
        return self.transport.redacted

    def trusted(self) -> TrustedSet:
        """The set this home trusts; a home bound before it kept one trusts its node's
        set now, on first use, and says so with the set's fingerprint."""
        if self._trusted is None:
            chain_id = self.transport.checked_chain_id()
            found = self.store.load()
            if found is None:
                found = establish(self.transport, chain_id, source="first use")
                self.store.save(found)
                warn_once(
                    f"note: this home now trusts the {len(found.validators)} validator(s) of "
                    f"chain {chain_id!r} that {self.redacted} showed at height {found.height} "
                    f"(fingerprint {fingerprint(found)}): compare it with a source you trust"
                )
            elif found.chain_id != chain_id:
                raise Unverified(
                    f"this home trusts the validators of chain {found.chain_id!r}, not "
                    f"{chain_id!r}: `c4 init --remote URL --force` places trust again"
                )
            self._trusted = found
            self._stored = found.height
        return self._trusted

    # -- what is proven -------------------------------------------------------------------

    def block(self, block: ResultBlock, commit: ResultCommit | None = None) -> Proven:
        """A ``block`` answer proven: its transactions by its header's data hash, its header
        by ``commit`` (that height's ``commit`` answer; asked for when it is None or of
        another height)."""
        header = block.block.header
        height = header.height
        if block.block.data_hash() != (header.data_hash or None):
            raise Unverified(f"block {height}: its transactions do not hash to its data hash")
        if commit is None or commit.header.height != height:
            commit = self._signed(height)
        return self.header(header, commit.commit)

    def latest(self) -> Proven:
        """The node's last block, proven (its height and time are the chain's); the one
        proven last while under half a second old, as a status is kept."""
        return self.latest_with(())[0]

    def head_fresh(self) -> bool:
        """Whether the last block proven is still taken as the head (see :meth:`latest`)."""
        return self._latest is not None and wallclock.monotonic() - self._latest[1] < FRESH

    def latest_with(self, riders: Sequence[Ask[Any]]) -> tuple[Proven, rpc.Replies]:
        """:meth:`latest`, and the answers of ``riders``, asked in the same request."""
        if self._latest is not None and self.head_fresh():
            return self._latest[0], self.rpc.batch(riders)
        deadline = wallclock.monotonic() + BEHIND_WAIT
        while True:
            # Asked first: the request that checks the chain carries it.
            signed, rode = ask_commit(self.rpc, 0, riders)
            known = self.trusted().height  # the highest block proven: kept, or this command's
            proven = self.header(signed.header, signed.commit)
            if proven.height >= known:
                break
            if wallclock.monotonic() >= deadline:
                raise Unverified(
                    f"{self.redacted} shows block {proven.height} as its last, below block "
                    f"{known} this home has verified: an older block is not the head; refused"
                )
            wallclock.sleep(0.25)
        self._latest = proven, wallclock.monotonic()
        self._latest_header = signed.header
        self._keep_head()
        return proven, rode

    def _keep_head(self) -> None:
        """The highest block proven, kept in the home: later commands never go below it."""
        trusted = self.trusted()
        if trusted.height > self._stored:
            self.store.advance(trusted)
            self._stored = trusted.height

    def at(self, height: int) -> Proven:
        """Block ``height``'s header, proven."""
        return self.header(*self.signed(height)[:2])

    def signed(self, height: int) -> ResultCommit:
        """Block ``height``'s header and the commit that signed it, proven."""
        signed = self._signed(height)
        self.header(signed.header, signed.commit)
        return signed

    def latest_header(self) -> Header:
        """The last block's header, proven (kept while fresh, as :meth:`latest` is)."""
        self.latest()
        assert self._latest_header is not None, "latest() keeps the header it proves"
        return self._latest_header

    def stored(self, key: bytes, what: str, height: int = 0, *, after: int = 0) -> Stored:
        """The main store's value at ``key``, proven (node/light/store.py)."""
        return store.read(self, key, what, height, after=after)

    def stored_with(
        self, key: bytes, what: str, paths: Sequence[str], height: int = 0, *, latest: bool = False
    ) -> tuple[Stored, list[ResultABCIQuery | Unreachable]]:
        """:meth:`stored`, and the node's answers to ``paths`` at the block whose state is
        proven (and with ``latest`` at its last block too), asked with the proof."""
        return store.read_with(self, key, what, paths, height, latest=latest)

    def stored_all(
        self,
        keys: Sequence[tuple[bytes, str]],
        queries: Sequence[tuple[str, bytes]],
        height: int = 0,
    ) -> store.Reads:
        """Each of ``keys`` proven against one header, and the node's answers to
        ``queries`` at its last block, in one request (node/light/store.py)."""
        return store.read_all(self, keys, queries, height, last_only=True)

    def proven_header(self, height: int) -> Header:
        """Block ``height``'s header (its app hash: the state after the block before),
        proven (the last one proven, when it is that block's: it stays proven)."""
        if self._latest_header is not None and self._latest_header.height == height:
            return self._latest_header
        signed = self._signed(height)
        self.header(signed.header, signed.commit)
        return signed.header

    def header(self, header: Header, commit: Commit, depth: int = 0) -> Proven:
        """``header`` proven by ``commit``: signed by more than 2/3 of the set trusted for
        it (followed from the home's where it changed)."""
        chain_id = self.transport.checked_chain_id()
        if header.chain_id != chain_id:
            raise Unverified(
                f"block {header.height} is of chain {header.chain_id!r}, not {chain_id!r}"
            )
        validators = self._set_for(header, commit, depth)
        power = verify_commit(chain_id, header, commit, validators)
        height = header.height
        block_hash = _hex(header.hash())
        trusted = self.trusted()
        if height > trusted.height:
            # The set's latest proven header: what a change right after it must name.
            self._trusted = trusted._replace(
                height=height,
                block_hash=block_hash,
                next_hash=_hex(header.next_validators_hash),
            )
        total = sum(v.voting_power for v in validators)
        return Proven(height, block_hash, header.time.seconds, power, total)

    def result(
        self, proven: Proven, index: int, claimed: ResponseDeliverTx, *, wait: float = 0.0
    ) -> Proven:
        """``proven`` (a block holding a transaction at ``index`` whose result a node gave
        as ``claimed``) with that result held to the next header's ``last_results_hash``:
        proven, or why it is the node's word (the next block not made within ``wait``
        seconds, a type c4 cannot encode); Unverified when the results committed are
        not the ones given."""
        height = proven.height
        deadline = wallclock.monotonic() + wait
        while True:
            try:
                signed = self._signed(height + 1)
                break
            except Unverified:
                raise
            except Unreachable:
                if wallclock.monotonic() >= deadline:
                    return proven._replace(result_unproven=f"block {height + 1} is not made yet")
                wallclock.sleep(0.5)
        header = signed.header
        self.header(header, signed.commit)
        if _hex(header.last_block_id.hash) != proven.block_hash:
            raise Unverified(
                f"block {height + 1} as {self.redacted} gave it does not follow block {height} "
                f"({proven.block_hash[:16]}…): its results are another block's"
            )
        try:
            results = self.rpc.block_results(height).deliver_tx
        except Malformed as wrong:
            raise Unverified(str(wrong)) from None
        if not 0 <= index < len(results):
            raise Unverified(
                f"{self.redacted} answered block_results {height} in a shape it never has"
            )
        try:
            results_committed(height, results, header)
            mine = results[index].result_bytes() == claimed.result_bytes()
        except Unencodable as unknown:
            return proven._replace(result_unproven=f"its block's results hold {unknown}")
        if not mine:
            raise Unverified(f"block {height}: the transaction's result is not the one committed")
        return proven._replace(result_unproven="")

    # -- following the set ---------------------------------------------------------------

    def _set_for(self, header: Header, commit: Commit, depth: int) -> Sequence[Validator]:
        trusted = self.trusted()
        if header.validators_hash == validators_hash(trusted.validators):
            return trusted.validators
        return self._follow(header, commit, depth)

    def _follow(self, header: Header, commit: Commit, depth: int) -> Sequence[Validator]:
        """The new validator set ``header`` names, once the trusted set vouches for it."""
        trusted = self.trusted()
        chain_id = self.transport.checked_chain_id()
        height = header.height
        if height <= trusted.height:
            raise Unverified(
                f"block {height} is signed by a validator set other than the one trusted "
                f"from height {trusted.height}, and comes before it: it cannot be verified"
            )
        claimed = self._validators(height, header)
        named_next = (
            height == trusted.height + 1 and _hex(header.validators_hash) == trusted.next_hash
        )
        if not named_next:
            old = sum(v.voting_power for v in trusted.validators)
            vouched = trusted_power(chain_id, header, commit, trusted.validators)
            if 3 * vouched <= 2 * old:
                if depth >= BISECTIONS or height - trusted.height < 2:
                    raise Unverified(
                        f"block {height}: its validator set changed from the one trusted at "
                        f"height {trusted.height}, and only {vouched} of that set's {old} "
                        "voting power vouches for it: not followed"
                    )
                middle = self._signed((trusted.height + height) // 2)
                self.header(middle.header, middle.commit, depth + 1)
                return self._set_for(header, commit, depth + 1)
        verify_commit(chain_id, header, commit, claimed)
        followed = TrustedSet(
            chain_id,
            height,
            _hex(signed_hash(header, commit)),
            _hex(header.next_validators_hash),
            tuple(claimed),
            f"followed from height {trusted.height}",
        )
        self.store.save(followed)
        self._trusted = followed
        warn_once(
            f"note: the validator set of chain {chain_id!r} changed by height {height}; "
            f"followed from the set trusted at height {trusted.height} (fingerprint now "
            f"{fingerprint(followed)})"
        )
        return followed.validators

    def _validators(self, height: int, header: Header) -> tuple[Validator, ...]:
        """The validator set at ``height`` as the node gives it, once it hashes to the
        header's ``validators_hash``."""
        found = validator_set(self.rpc, height)
        if validators_hash(found) != header.validators_hash:
            raise Unverified(
                f"block {height}: the validator set {self.redacted} gave does not hash to "
                "the header's"
            )
        return found

    def held_header(self, height: int) -> Header | None:
        """Block ``height``'s header if it is the last this verifier proved (None if not)."""
        header = self._latest_header
        return header if header is not None and header.height == height else None

    def signed_in(self, replies: rpc.Replies, asked: Ask[ResultCommit], height: int) -> Header:
        """Block ``height``'s header, proven by the commit answered to ``asked`` (a call of
        a request that carried other reads too)."""
        try:
            signed = replies[asked]
        except Malformed as wrong:
            raise Unverified(str(wrong)) from None
        self.header(_of_height(self.redacted, signed, height).header, signed.commit)
        return signed.header

    def _signed(self, height: int) -> ResultCommit:
        """Block ``height``'s header and commit, once the node answered that height's."""
        return _of_height(self.redacted, ask_commit(self.rpc, height)[0], height)


def _of_height(node: str, signed: ResultCommit, height: int) -> ResultCommit:
    """``signed``, a commit answer, if it is block ``height``'s."""
    answered = signed.header.height
    if answered != height:
        raise Unverified(
            f"{node} answered the commit of block {answered} when asked for block {height}'s"
        )
    return signed


def results_committed(height: int, results: Sequence[ResponseDeliverTx], after: Header) -> None:
    """Block ``height``'s results held to the results hash the next block's header
    (``after``, proven) commits: Unverified when they are not the ones committed;
    Unencodable (raised) for a type whose encoding c4 does not know."""
    if results_hash(results) != (after.last_results_hash or None):
        raise Unverified(
            f"block {height}: its results do not hash to block {height + 1}'s last_results_hash"
        )


def establish(
    transport: Transport,
    chain_id: str,
    *,
    height: int = 0,
    block_hash: str = "",
    validators: Sequence[Mapping[str, Any]] | None = None,  # a genesis's: read here
    source: str,
) -> TrustedSet:
    """A validator set to trust: the node's at ``height`` (0: its last block), held to
    ``block_hash`` when the user gave one, or ``validators`` known beforehand (a
    genesis c4 wrote); its commit must verify with it either way."""
    node = transport.redacted
    asker = Rpc(transport)
    signed = ask_commit(asker, height)[0]
    header, commit = signed.header, signed.commit
    at = header.height
    own = _hex(header.hash())
    if block_hash and own != block_hash.upper():
        raise Unverified(
            f"block {at} of {node} has hash {own}, not the {block_hash.upper()} trusted"
        )
    if validators is None:
        found = validator_set(asker, at)
    else:
        # A genesis lists its validators in any order; tm2 keeps a set by address bytes.
        try:
            given = [Validator.from_json(v) for v in validators]
        except (KeyError, TypeError, ValueError):
            raise Unverified("the genesis lists a validator in a shape it never has") from None
        found = tuple(sorted(given, key=_address_bytes))
    if header.chain_id != chain_id:
        raise Unverified(f"block {at} of {node} is of chain {header.chain_id!r}")
    verify_commit(chain_id, header, commit, found)
    return TrustedSet(chain_id, at, own, _hex(header.next_validators_hash), found, source)


def ask_commit(
    asker: Rpc, height: int, riders: Sequence[Ask[Any]] = ()
) -> tuple[ResultCommit, rpc.Replies]:
    """A ``commit`` answer (``height`` 0: the last block's), and the answers of the
    ``riders`` asked after it in the same request; NoValidators from a node that has
    no such method (c4 serve: a chain without validators), Unverified for a commit in
    a shape it never has."""
    asked = rpc.commit(height)
    try:
        replies = asker.batch([asked, *riders])
        return replies[asked], replies
    except NoMethod as said:
        raise NoValidators(
            f"{said}: a node without validators (such as c4 serve) proves no block"
        ) from None
    except Malformed as wrong:
        raise Unverified(str(wrong)) from None


def fingerprint(trusted: TrustedSet) -> str:
    """A trusted set's fingerprint (:func:`c4cli.wire.blocks.fingerprint`)."""
    return blocks.fingerprint(trusted.validators)


def validator_set(asker: Rpc, height: int) -> tuple[Validator, ...]:
    """The node's validator set at ``height``."""
    try:
        return asker.validators(height).validators
    except Malformed as wrong:
        raise Unverified(str(wrong)) from None


def _address_bytes(validator: Validator) -> bytes:
    decoded = decode_bech32(validator.address)
    return b"" if decoded is None else decoded[1]


def _hex(raw: bytes | None) -> str:
    return (raw or b"").hex().upper()

"""The node client's light client: what a node says of its blocks, proven or refused.

A home trusts one validator set (its ``trust.toml``, a :class:`TrustStore`). A block
is believed when its header hashes to the block id that more than two thirds of
that set's voting power signed (:func:`~c4cli.node.light.verify_commit`) and its
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

import base64
import time as wallclock
from collections.abc import Mapping, Sequence
from typing import Any

from c4cli.address import decode_bech32
from c4cli.chain.trust import Proven, TrustedSet, TrustStore, Validator
from c4cli.errors import NoValidators, Unreachable, Unverified, warn_once
from c4cli.node import answers
from c4cli.node.answers import Commit, Header, Signed
from c4cli.node.light import (
    Unencodable,
    data_hash,
    header_hash,
    result_bytes,
    results_hash,
    signed_hash,
    trusted_power,
    validators_hash,
    verify_commit,
)
from c4cli.node.transport import NO_METHOD, NodeSaid, RpcCall, Transport

FRESH = 0.5  # seconds a proven last block is the head before it is asked again
BEHIND_WAIT = 3.0  # seconds a node whose last block is below the home's head is waited for
BISECTIONS = 32  # headers proven half way at most to follow one change of the set


class Verifier:
    """Blocks and headers of a node held to the validator set a home trusts."""

    def __init__(self, transport: Transport, store: TrustStore) -> None:
        self.transport = transport
        self.store = store
        self._trusted: TrustedSet | None = None
        self._stored = 0  # the height trust.toml holds for the set
        self._latest: tuple[Proven, float] | None = None

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

    def block(self, block: Any, commit: Any = None) -> Proven:
        """A ``block`` answer proven: its transactions by its header's data hash, its header
        by ``commit`` (that height's ``commit`` answer; asked for when it is None or of
        another height)."""
        found = answers.field(self.redacted, block, "block", "header")
        data = answers.field(self.redacted, block, "block", "data")
        txs = (data.get("txs") if isinstance(data, dict) else None) or []
        if not isinstance(found, dict):
            raise Unverified(f"{self.redacted} answered a block without a header")
        try:
            header = answers.header(found)
        except (KeyError, TypeError, ValueError):
            raise Unverified(
                f"{self.redacted} answered block {found.get('height')} in a shape it never has"
            ) from None
        height = _height(self.redacted, header)
        if not isinstance(txs, list) or data_hash(txs) != _b64(header.get("data_hash")):
            raise Unverified(f"block {height}: its transactions do not hash to its data hash")
        signed = signed_of(self.redacted, commit) if commit is not None else None
        if signed is None or _height(self.redacted, signed[0]) != height:
            signed = self._signed(height)
        return self.header(header, signed[1])

    def latest(self) -> Proven:
        """The node's last block, proven (its height and time are the chain's); the one
        proven last while under half a second old, as a status is kept."""
        return self.latest_with(())[0]

    def latest_with(self, riders: Sequence[RpcCall]) -> tuple[Proven, list[Any]]:
        """:meth:`latest`, and the answers of ``riders``, asked in the same request."""
        if self._latest is not None and wallclock.monotonic() - self._latest[1] < FRESH:
            return self._latest[0], self.transport.calls(riders) if riders else []
        deadline = wallclock.monotonic() + BEHIND_WAIT
        while True:
            # Asked first: the request that checks the chain carries it.
            answer, rode = ask_commit(self.transport, 0, riders)
            header, commit = signed_of(self.redacted, answer)
            known = self.trusted().height  # the highest block proven: kept, or this command's
            proven = self.header(header, commit)
            if proven.height >= known:
                break
            if wallclock.monotonic() >= deadline:
                raise Unverified(
                    f"{self.redacted} shows block {proven.height} as its last, below block "
                    f"{known} this home has verified: an older block is not the head; refused"
                )
            wallclock.sleep(0.25)
        self._latest = proven, wallclock.monotonic()
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
        header, commit = self._signed(height)
        return self.header(header, commit)

    def header(self, header: Header, commit: Commit, depth: int = 0) -> Proven:
        """``header`` proven by ``commit``: signed by more than 2/3 of the set trusted for
        it (followed from the home's where it changed)."""
        chain_id = self.transport.checked_chain_id()
        if header.get("chain_id") != chain_id:
            raise Unverified(
                f"block {header.get('height')} is of chain {header.get('chain_id')!r}, "
                f"not {chain_id!r}"
            )
        try:
            validators = self._set_for(header, commit, depth)
            power = verify_commit(chain_id, header, commit, validators)
            moment = answers.unix_time(str(header["time"]))
        except (KeyError, TypeError, ValueError):
            raise Unverified(
                f"{self.redacted} answered block {header.get('height')} in a shape it never has"
            ) from None
        height = _height(self.redacted, header)
        block_hash = _hex(header_hash(header))
        trusted = self.trusted()
        if height > trusted.height:
            # The set's latest proven header: what a change right after it must name.
            self._trusted = trusted._replace(
                height=height,
                block_hash=block_hash,
                next_hash=_hex(_b64(header.get("next_validators_hash"))),
            )
        total = sum(int(v["voting_power"]) for v in validators)
        return Proven(height, block_hash, moment, power, total)

    def result(self, proven: Proven, index: int, claimed: Any, *, wait: float = 0.0) -> Proven:
        """``proven`` (a block holding a transaction at ``index`` whose result a node gave
        as ``claimed``) with that result held to the next header's ``last_results_hash``:
        proven, or why it is the node's word (the next block not made within ``wait``
        seconds, a type c4 cannot encode); Unverified when the results committed are
        not the ones given."""
        height = proven.height
        deadline = wallclock.monotonic() + wait
        while True:
            try:
                header, commit = self._signed(height + 1)
                break
            except Unverified:
                raise
            except Unreachable:
                if wallclock.monotonic() >= deadline:
                    return proven._replace(result_unproven=f"block {height + 1} is not made yet")
                wallclock.sleep(0.5)
        self.header(header, commit)
        follows = (header.get("last_block_id") or {}).get("hash")
        if _hex(_b64(follows)) != proven.block_hash:
            raise Unverified(
                f"block {height + 1} as {self.redacted} gave it does not follow block {height} "
                f"({proven.block_hash[:16]}…): its results are another block's"
            )
        answer = self.transport.call("block_results", {"height": str(height)})
        try:
            results = answers.block_results(self.redacted, height, answer)
        except Unreachable as wrong:
            raise Unverified(str(wrong)) from None
        try:
            results_committed(self.redacted, height, results, header)
            mine = result_bytes(results[index]) == result_bytes(claimed)
        except Unencodable as unknown:
            return proven._replace(result_unproven=f"its block's results hold {unknown}")
        except (KeyError, TypeError, IndexError, ValueError):
            raise Unverified(
                f"{self.redacted} answered block_results {height} in a shape it never has"
            ) from None
        if not mine:
            raise Unverified(f"block {height}: the transaction's result is not the one committed")
        return proven._replace(result_unproven="")

    # -- following the set ---------------------------------------------------------------

    def _set_for(self, header: Header, commit: Commit, depth: int) -> Sequence[Validator]:
        trusted = self.trusted()
        if _b64(header.get("validators_hash")) == validators_hash(trusted.validators):
            return trusted.validators
        return self._follow(header, commit, depth)

    def _follow(self, header: Header, commit: Commit, depth: int) -> Sequence[Validator]:
        """The new validator set ``header`` names, once the trusted set vouches for it."""
        trusted = self.trusted()
        chain_id = self.transport.checked_chain_id()
        height = _height(self.redacted, header)
        if height <= trusted.height:
            raise Unverified(
                f"block {height} is signed by a validator set other than the one trusted "
                f"from height {trusted.height}, and comes before it: it cannot be verified"
            )
        claimed = self._validators(height, header)
        named_next = (
            height == trusted.height + 1
            and _hex(_b64(header.get("validators_hash"))) == trusted.next_hash
        )
        if not named_next:
            old = sum(int(v["voting_power"]) for v in trusted.validators)
            vouched = trusted_power(chain_id, header, commit, trusted.validators)
            if 3 * vouched <= 2 * old:
                if depth >= BISECTIONS or height - trusted.height < 2:
                    raise Unverified(
                        f"block {height}: its validator set changed from the one trusted at "
                        f"height {trusted.height}, and only {vouched} of that set's {old} "
                        "voting power vouches for it: not followed"
                    )
                middle, middle_commit = self._signed((trusted.height + height) // 2)
                self.header(middle, middle_commit, depth + 1)
                return self._set_for(header, commit, depth + 1)
        verify_commit(chain_id, header, commit, claimed)
        followed = TrustedSet(
            chain_id,
            height,
            _hex(signed_hash(header, commit)),
            _hex(_b64(header.get("next_validators_hash"))),
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
        found = validator_set(
            self.redacted, self.transport.call("validators", {"height": str(height)})
        )
        if validators_hash(found) != _b64(header.get("validators_hash")):
            raise Unverified(
                f"block {height}: the validator set {self.redacted} gave does not hash to "
                "the header's"
            )
        return found

    def _signed(self, height: int) -> Signed:
        """Block ``height``'s header and commit, once the node answered that height's."""
        header, commit = signed_of(self.redacted, ask_commit(self.transport, height)[0])
        answered = _height(self.redacted, header)
        if answered != height:
            raise Unverified(
                f"{self.redacted} answered the commit of block {answered} when asked for "
                f"block {height}'s"
            )
        return Signed(header, commit)


def results_committed(node: str, height: int, results: list[Any], after: Header) -> None:
    """Block ``height``'s results (as ``node`` gave them) held to the results hash the
    next block's header (``after``, proven) commits: Unverified when they are not the
    ones committed; Unencodable (raised) for a type whose encoding c4 does not know."""
    try:
        committed = results_hash(results)
    except Unencodable:
        raise
    except (KeyError, TypeError, IndexError, ValueError, AttributeError):
        raise Unverified(
            f"{node} answered block_results {height} in a shape it never has"
        ) from None
    if committed != _b64(after.get("last_results_hash")):
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
    header, commit = signed_of(node, ask_commit(transport, height)[0])
    at = _height(node, header)
    own = _hex(header_hash(header))
    if block_hash and own != block_hash.upper():
        raise Unverified(
            f"block {at} of {node} has hash {own}, not the {block_hash.upper()} trusted"
        )
    if validators is None:
        found = validator_set(node, transport.call("validators", {"height": str(at)}))
    else:
        # A genesis lists its validators in any order; tm2 keeps a set by address bytes.
        found = tuple(sorted((answers.validator(v) for v in validators), key=_address_bytes))
    if header.get("chain_id") != chain_id:
        raise Unverified(f"block {at} of {node} is of chain {header.get('chain_id')!r}")
    verify_commit(chain_id, header, commit, found)
    return TrustedSet(
        chain_id, at, own, _hex(_b64(header.get("next_validators_hash"))), found, source
    )


def ask_commit(
    transport: Transport, height: int, riders: Sequence[RpcCall] = ()
) -> tuple[Any, list[Any]]:
    """A ``commit`` answer (``height`` 0: the last block's), and the answers of the
    ``riders`` asked after it in the same request (each a result or its Unreachable);
    NoValidators from a node that has no such method (c4 serve: a chain without
    validators)."""
    asked = RpcCall("commit", {"height": str(height)} if height else {})
    try:
        answer, *rode = transport.calls([asked, *riders]) if riders else [transport.call(*asked)]
    except NodeSaid as failed:
        answer, rode = failed, []
    if isinstance(answer, NodeSaid) and answer.kind == NO_METHOD:
        raise NoValidators(
            f"{answer}: a node without validators (such as c4 serve) proves no block"
        )
    if isinstance(answer, Unreachable):
        raise answer
    return answer, rode


def fingerprint(trusted: TrustedSet) -> str:
    """A trusted set's fingerprint: its validators hash (hex), as a header names it."""
    return _hex(validators_hash(trusted.validators))


def signed_of(node: str, answer: Any) -> Signed:
    """A ``commit`` answer's header and commit, typed."""
    try:
        return answers.signed(answer)
    except (KeyError, TypeError, ValueError):
        raise Unverified(f"{node} answered commit in a shape it never has") from None


def validator_set(node: str, answer: Any) -> tuple[Validator, ...]:
    """A ``validators`` answer's set, each validator as c4 keeps one."""
    try:
        return tuple(answers.validator(v) for v in answer["validators"])
    except (KeyError, TypeError, ValueError):
        raise Unverified(f"{node} answered validators in a shape it never has") from None


def _address_bytes(validator: Validator) -> bytes:
    decoded = decode_bech32(str(validator["address"]))
    return b"" if decoded is None else decoded[1]


def _height(node: str, header: Header) -> int:
    try:
        return answers.int64(header["height"])
    except (KeyError, TypeError, ValueError):
        raise Unverified(f"{node} answered a header without a height") from None


def _b64(value: Any) -> bytes | None:
    try:
        return base64.b64decode(str(value), validate=True) if value else None
    except ValueError:
        return b"?"  # matches no hash


def _hex(raw: bytes | None) -> str:
    return (raw or b"").hex().upper()

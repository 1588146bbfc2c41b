"""What a node client proves of a node's blocks, and the validator set it holds them to.

A :class:`TrustedSet` is kept by the home (``trust.toml``, :mod:`c4cli.home.trust`)
and handed to the node client as a :class:`TrustStore`, as the journal is; a
:class:`Proven` block rides in each receipt (:class:`~c4cli.chain.interface.Receipt`).
"""

from __future__ import annotations

from typing import NamedTuple, Protocol, TypedDict

PubKeyJSON = TypedDict("PubKeyJSON", {"@type": str, "value": str})


class Validator(TypedDict):
    """A validator as tm2's ``validators`` lists one (its power as text, as tm2's JSON
    writes an int64), and as c4 keeps one."""

    address: str
    pub_key: PubKeyJSON
    voting_power: str


class Proven(NamedTuple):
    """A block proven by the validators' signatures: its height, hash (hex), time, the
    voting power that signed it of the trusted set's whole, and whether a transaction's
    result in it is proven too."""

    height: int
    block_hash: str
    time: int
    signed: int
    total: int
    # The transaction's result held to the next header's ``last_results_hash`` ("")
    # or why it is the node's word (that block not made yet, a type c4 cannot encode).
    result_unproven: str = "the next block not awaited"


class TrustedSet(NamedTuple):
    """The validator set a home trusts for a node's chain (``trust.toml``): read at block
    ``height`` (its hash, and the hash of the set named to follow it, hex), each
    validator as tm2's ``validators`` lists one, and how the trust came (``source``)."""

    chain_id: str
    height: int
    block_hash: str
    next_hash: str
    validators: tuple[Validator, ...]
    source: str


class TrustStore(Protocol):
    """Where a node client keeps the validator set it trusts: the home's ``trust.toml``
    (:mod:`c4cli.home.trust`), handed in by whoever opens the node, as the journal is."""

    def load(self) -> TrustedSet | None: ...

    def save(self, trusted: TrustedSet) -> None: ...

    def advance(self, trusted: TrustedSet) -> None:
        """The set kept, proven up to a higher block: written only while the store still
        holds that set below that height (a later head or a followed set is never
        overwritten by an older one)."""
        ...

    def forget(self) -> None: ...

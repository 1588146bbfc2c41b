"""Which node a command talks to, and as whom: the value a node client is opened from."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from c4cli.chain.interface import SentLog
    from c4cli.chain.trust import TrustStore


class NodeSpec(NamedTuple):
    """A node client's making: the URL (one, or several of one chain), the realm, the
    chain id to hold the node to (None: whatever it reports, for reading only), the
    home's journal and the highest block it saw a transaction land in, whether the home
    is bound to another chain or none (``unbound``: sign only for a chain id the user
    named), what to say when the node refuses the connection, and the validator set
    its blocks are held to (``trust``; None: believed on the node's word, for the
    reason ``unproven`` gives)."""

    url: str
    realm_path: str
    chain_id: str | None = None
    journal: SentLog | None = None
    seen_height: int = 0
    unbound: bool = False
    down_hint: str = ""
    trust: TrustStore | None = None
    unproven: str = "a node this home is not bound to: no validator set is trusted for it"

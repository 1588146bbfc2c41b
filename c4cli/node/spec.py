"""Which node a command talks to, and as whom: the value a node client is opened from."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from c4cli.settings import Deadlines

if TYPE_CHECKING:
    from c4cli.chain.interface import SentLog
    from c4cli.chain.trust import RealmHistory
    from c4cli.node.light.verify import Verifier
    from c4cli.node.net.transport import Transport
    from c4cli.node.reader import NodeReader

# What makes a command's verifier over its transport, once one is needed.
Prover = Callable[["Transport"], "Verifier"]
# What opens the home's history of the realm for a reader whose blocks are proven, once
# one is asked for: None while the home keeps none (`c4 sync` begins it).
Historian = Callable[["NodeReader"], "RealmHistory | None"]


class NodeSpec(NamedTuple):
    """A node client's making: the URL (one, or several of one chain), the realm, the
    chain id to hold the node to (None: whatever it reports, for reading only), the
    home's journal and the highest block it saw a transaction land in, whether the home
    is bound to another chain or none (``unbound``: sign only for a chain id the user
    named), what to say when the node refuses the connection, and what holds its
    blocks to the validator set the home trusts (``prover``, which makes the
    verifier at its first use; None: believed on the node's word, for the reason
    ``unproven`` gives), what opens the home's history of the realm (``historian``;
    None: a home that keeps none), and how long the node has to answer (the run's
    ``deadlines``)."""

    url: str
    realm_path: str
    chain_id: str | None = None
    journal: SentLog | None = None
    seen_height: int = 0
    unbound: bool = False
    down_hint: str = ""
    prover: Prover | None = None
    unproven: str = "a node this home is not bound to: no validator set is trusted for it"
    historian: Historian | None = None
    deadlines: Deadlines = Deadlines()

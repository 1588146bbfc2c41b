"""The options of a command that sends a transaction, as one typed value.

Click's commands (:func:`c4cli.commands.options.tx_options`) and the fast lanes read
the same defaults from :class:`TxOptions`: a plain `c4 play` sends what `c4 play`
through click sends, because there is one set of defaults to send.
"""

from __future__ import annotations

from typing import Any, NamedTuple

SIMULATE_DEFAULT = "test"


class TxOptions(NamedTuple):
    """gnokey maketx's options, as c4 takes them (see ``c4 play --help``)."""

    gas_fee: str | None = None  # None: 0ugnot locally, the node's price on a node
    gas_wanted: int | None = None  # None: the default, or the simulated gas on a node
    memo: str = ""
    generate_only: bool = False
    simulate: str = SIMULATE_DEFAULT
    fee_cap: str | None = None  # None: $C4_FEE_CAP, config.toml's, else 1gnot
    chain_id: str | None = None
    master: str | None = None
    password_stdin: bool = False
    as_json: bool = False

    @classmethod
    def taken_from(cls, given: dict[str, Any]) -> TxOptions:
        """The options among a click command's parameters, taken out of ``given``."""
        return cls(**{name: given.pop(name) for name in cls._fields if name in given})

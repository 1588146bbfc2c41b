"""The home's config: whether it talks to a gno.land node instead of a local log.

``<home>/config.toml`` is written by ``c4 init --remote URL``::

    [remote]
    url = "http://127.0.0.1:26657"
    chain_id = "dev"
    realm_path = "gno.land/r/samcrew/connect4"

and may say, at the top, the most gas fee c4 pays when it picks the fee itself
(``fee_cap = "2gnot"``; ``--fee-cap`` and ``$C4_FEE_CAP`` come first).

A home without it has a local chain (``<home>/chain``), or none yet.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import tomli_w

from c4cli.errors import HomeDamaged
from c4cli.files import write_private

CONFIG = "config.toml"


class Remote(NamedTuple):
    """A node a home talks to: its RPC URL, its chain id and the realm's path on it, and
    whether the home takes the node's word for its blocks (bound with --trust-node)."""

    url: str
    chain_id: str
    realm_path: str
    trust_node: bool = False


def _document(home: Path, what: str) -> dict[str, object] | None:
    """config.toml parsed, or None for a home without one; ``what`` says what a file
    that is not TOML fails to be."""
    path = home / CONFIG
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise HomeDamaged(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise HomeDamaged(f"{path} is not {what}") from None
    # Only for a home that has a config: the local path stays light. rtoml (the log's
    # reader) loads in a fifth of the time tomllib takes to compile its patterns.
    import rtoml

    try:
        document = rtoml.loads(text)
    except rtoml.TomlParsingError:
        raise HomeDamaged(f"{path} is not {what}") from None
    assert isinstance(document, dict)
    return document


_NOT_A_CONFIG = "a c4 config (a [remote] with url, chain_id, realm_path, each a non-empty string)"


def read_remote(home: Path) -> Remote | None:
    """The node this home is bound to, or None for a local home."""
    document = _document(home, _NOT_A_CONFIG)
    table = None if document is None else document.get("remote")
    if table is None:
        return None
    try:
        if not isinstance(table, dict):
            raise TypeError("not a table")
        values = (table["url"], table["chain_id"], table["realm_path"])
        if not all(isinstance(value, str) and value for value in values):
            raise TypeError("not text")
        trust_node = table.get("trust_node", False)
        if not isinstance(trust_node, bool):
            raise TypeError("not a boolean")
        return Remote(*values, trust_node=trust_node)
    except (KeyError, TypeError):
        raise HomeDamaged(f"{home / CONFIG} is not {_NOT_A_CONFIG}") from None


def read_fee_cap(home: Path) -> str | None:
    """config.toml's ``fee_cap`` (top level): the most gas fee c4 pays unasked."""
    document = _document(home, "TOML")
    value = None if document is None else document.get("fee_cap")
    if value is None:
        return None
    if not isinstance(value, str):
        raise HomeDamaged(f'{home / CONFIG}: fee_cap must be a string of coins, e.g. "2gnot"')
    return value


def write_remote(home: Path, remote: Remote) -> None:
    document: dict[str, object] = {}
    cap = read_fee_cap(home) if (home / CONFIG).exists() else None
    if cap is not None:
        document["fee_cap"] = cap  # a re-init keeps the user's ceiling
    table = remote._asdict()
    if not remote.trust_node:
        del table["trust_node"]  # a home that proves its node's blocks, as before
    document["remote"] = table
    text = tomli_w.dumps(document)
    write_private(home / CONFIG, text.encode(), fault="key-write")


def forget_remote(home: Path) -> None:
    """Unbind the home from its node (``c4 init --force`` making a local chain)."""
    (home / CONFIG).unlink(missing_ok=True)

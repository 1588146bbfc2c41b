"""What one command line says once, read without loading click.

A --home, --json, --remote or --realm-path given to a group (`c4 --home DIR query …`,
`c4 time --json advance 1s`) is kept in the click context's meta, which the whole
command line shares, and is the default of the same option on every command below
it. Only click's group puts it there: a command line a fast lane runs has no group
options (and click is not even loaded, unless a passphrase prompt needed it), so the
environment alone speaks for it.

A node's client is opened once per command line and shared by its parts (the
transaction and the view of its game after it): it has checked the chain already
and knows its head of a moment ago. ``begin`` starts a command line afresh.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from c4cli.chain.interface import Chain

META = "c4cli.options."

_opened: dict[tuple[object, ...], Chain] = {}


def begin() -> None:
    """A new command line (the group's entry and the lane's; tests run many in one process)."""
    _opened.clear()


def opened() -> dict[tuple[object, ...], Chain]:
    """The node clients this command line has opened, by what they were opened for."""
    return _opened


def from_group(name: str, fallback: Callable[[], Any]) -> Callable[[], Any]:
    """A default: the value a group above was given for option ``name``, else ``fallback()``."""

    def default() -> Any:
        click = sys.modules.get("click")  # not loaded (a fast lane): no group options
        ctx = click.get_current_context(silent=True) if click is not None else None
        if ctx is not None and META + name in ctx.meta:
            return ctx.meta[META + name]
        return fallback()

    return default


def home_from_env() -> str:
    """The home a command line names by no --home: $C4_HOME, else ./state."""
    return os.environ.get("C4_HOME") or "state"


def remote_from_env() -> str | None:
    return os.environ.get("C4_REMOTE") or None


def realm_path_from_env() -> str | None:
    return os.environ.get("C4_REALM_PATH") or None


def remote_realm_path() -> str | None:
    """The realm --realm-path (or $C4_REALM_PATH) names for --remote on an unbound home."""
    path: str | None = from_group("group_realm_path", realm_path_from_env)()
    return path


def trust_node_from_env() -> bool:
    return os.environ.get("C4_TRUST_NODE", "") not in ("", "0")


def trust_node() -> bool:
    """Whether --trust-node (or $C4_TRUST_NODE=1) takes the node's word for its blocks."""
    taken: bool = from_group("trust_node", trust_node_from_env)()
    return taken


def remote_url() -> str | None:
    """The node --remote (or $C4_REMOTE) names for this command line, if any."""
    url: str | None = from_group("remote", remote_from_env)()
    return url

"""What c4 takes from its environment, read in one place: every ``$C4_*`` variable, and
the paths it finds there (the cache, gno's binaries and sources).

A run (``c4cli/commands/run.py``) reads them once, as it begins, and passes on what
its parts need: the node's deadlines travel in the node client's spec, the caps and
passphrases to the commands that take them. What stands below every run (the engine's
book and solver, the fault points a test sets, the notes' quietness) asks
:func:`current`: the run's settings, or, outside any run, the environment as it is.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

from c4cli.errors import BadInput

READ_DEADLINE = 10.0  # seconds for a whole answer of a node ($C4_TIMEOUT)
BLOCK_DEADLINE = 60.0  # seconds a broadcast waits for its block ($C4_BLOCK_TIMEOUT)


class Deadlines(NamedTuple):
    """How long a node has: for any one answer (``read``), and for the block that holds
    a broadcast (``block``; past it the transaction is reported sent and pending, and
    its hash looked up for at most ``read`` more)."""

    read: float = READ_DEADLINE
    block: float = BLOCK_DEADLINE


DEFAULT_DEADLINES = Deadlines()


def _flag(text: str | None) -> bool:
    return (text or "") not in ("", "0")


class Settings(NamedTuple):
    """The environment of one run, as c4 reads it."""

    home: str | None = None
    remote: str | None = None
    realm_path: str | None = None
    chain_id: str | None = None
    trust_node: bool = False
    quiet: bool = False
    debug: bool = False
    fee_cap: str | None = None
    send_cap: str | None = None
    book: str | None = None
    solver: str | None = None
    fault: str = ""
    timeout: str = ""
    block_timeout: str = ""
    passwords: Mapping[str, str] = MappingProxyType({})  # $C4_*PASSWORD, even empty
    cache_home: Path = Path.home() / ".cache"
    gno_bin: str = ""
    gnoroot: str = ""
    gomodcache: str = ""

    @classmethod
    def read(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        return cls(
            home=env.get("C4_HOME") or None,
            remote=env.get("C4_REMOTE") or None,
            realm_path=env.get("C4_REALM_PATH") or None,
            chain_id=env.get("C4_CHAIN_ID") or None,
            trust_node=_flag(env.get("C4_TRUST_NODE")),
            quiet=_flag(env.get("C4_QUIET")),
            debug=bool(env.get("C4_DEBUG")),
            fee_cap=env.get("C4_FEE_CAP"),
            send_cap=env.get("C4_SEND_CAP"),
            book=env.get("C4_BOOK"),
            solver=env.get("C4_SOLVER"),
            fault=env.get("C4_FAULT", ""),
            timeout=env.get("C4_TIMEOUT", ""),
            block_timeout=env.get("C4_BLOCK_TIMEOUT", ""),
            passwords={
                name: env[name]
                for name in ("C4_PASSWORD", "C4_ARMOR_PASSWORD", "C4_NEW_PASSWORD")
                if name in env
            },
            cache_home=Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache"),
            gno_bin=env.get("GNO_BIN", ""),
            gnoroot=env.get("GNOROOT", ""),
            gomodcache=env.get("GOMODCACHE") or str(Path.home() / "go" / "pkg" / "mod"),
        )

    def deadlines(self) -> Deadlines:
        """$C4_TIMEOUT and $C4_BLOCK_TIMEOUT, each a number of seconds (exit 2 else)."""
        return Deadlines(
            _seconds("C4_TIMEOUT", self.timeout, READ_DEADLINE),
            _seconds("C4_BLOCK_TIMEOUT", self.block_timeout, BLOCK_DEADLINE),
        )


def _seconds(variable: str, text: str, default: float) -> float:
    try:
        value = float(text) if text else default
    except ValueError:
        raise BadInput(f"invalid ${variable} {text!r}: a number of seconds") from None
    if not 0 < value <= 3600:
        raise BadInput(f"invalid ${variable} {text!r}: from a fraction of a second to 3600")
    return value


_CURRENT: ContextVar[Settings | None] = ContextVar("c4_settings", default=None)


def use(settings: Settings | None) -> None:
    """Make ``settings`` the run's (its invocation does, as it begins); None once the
    run's command has returned (what runs after it reads the environment again)."""
    _CURRENT.set(settings)


def current() -> Settings:
    """The run's settings; outside a run (a test calling a part, a thread started
    without the run's context), the environment as it is now."""
    found = _CURRENT.get()
    return found if found is not None else Settings.read()

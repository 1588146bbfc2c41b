"""One run of ``c4``: what its command line says, and what it opened and sent.

Either front end builds it once, from the same argv and environment: click's group
(``commands/main.py``) or a fast lane's parser (``cli/lanes.py``). Options given to a
group (``c4 --home DIR query …``) are written into it as click reads them, and are
the defaults of the same options on the command below; a command's own option
overrides them. What a run owns is here too, and nowhere else: its outbox (what it
let go of: ``c4cli.outbox``), its notes (each warning once, and quiet or not:
``c4cli.errors``), and the node clients it opened, shared by its parts (a move and
the view of its game after it).

The backends see the outbox and the notes through context variables this module
sets (:meth:`Invocation.begin`), so a thread or a test outside any run notes nothing.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Concatenate, Literal, ParamSpec, TypeVar, overload

from c4cli import errors, outbox, settings
from c4cli.home.config import read_remote

if TYPE_CHECKING:
    from c4cli.chain.interface import Chain, ChainReader
    from c4cli.home.keys import Keyring

# The words a front end looks for before it has parsed anything: a failure of the
# parse itself is worded as the command line asked (one JSON document, or one line).
JSON_FLAG = "--json"


def json_asked(argv: Sequence[str]) -> bool:
    """Whether ``argv`` asks for JSON, read before (or without) a parse: the one place
    c4 reads the flag from the raw command line."""
    return JSON_FLAG in argv


class Invocation:
    """What one command line says (home, output, target, trust) and what it owns."""

    def __init__(self, argv: Sequence[str], env: settings.Settings | None = None) -> None:
        self.settings = env = settings.Settings.read() if env is None else env
        self.argv = list(argv)
        self.home = Path(env.home or "state")
        self.json = False
        self.remote: str | None = env.remote
        self.realm_path: str | None = env.realm_path
        self.chain_id: str | None = env.chain_id
        self.trust_node = env.trust_node
        self.impersonate: str | None = None  # c4 --impersonate ADDR: the address that acts
        self.outbox = outbox.Outbox()
        self.notes = errors.Notes(env.quiet)  # quiet as $C4_QUIET says, until --quiet
        self.given: set[str] = set()  # the options given on the command line (by name)
        self.failing = False  # its failure's line is being written
        self._opened: dict[tuple[object, ...], Chain] = {}
        self._keyrings: dict[Path, Keyring] = {}

    def begin(self, *, transacting: bool = False) -> Invocation:
        """Make this the run in progress (the process's, or a test's next command line).
        ``transacting``: the command may sign or append, so a signal from now on says
        whether anything was recorded."""
        _CURRENT.set(self)
        settings.use(self.settings)
        outbox.CURRENT.set(self.outbox)
        errors.NOTES.set(self.notes)
        if transacting:
            self.outbox.transacting = True
        return self

    def end(self) -> None:
        """The run's command returned: its settings stand no more for the environment
        (a test's next part, in the same process, reads the environment as it is)."""
        settings.use(None)

    @property
    def json_failure(self) -> bool:
        """Whether a failure is one JSON document: as parsed, or, before the parse
        ends, as the raw command line asks."""
        return self.json or json_asked(self.argv)

    def set_quiet(self, quiet: bool) -> None:
        self.notes.quiet = quiet

    def keyring(self, home: Path) -> Keyring:
        """The home's keys, one keyring for the run: a key file a command reads in
        several of its parts (the acting address, the signer, the names it shows) is
        read once."""
        if home not in self._keyrings:
            from c4cli.home.keys import Keyring

            self._keyrings[home] = Keyring(home)
        return self._keyrings[home]

    # -- the chain it opens ---------------------------------------------------------

    def open_reader(self, home: Path) -> ChainReader:
        """The chain a query reads: on a node, its client without the sending half (a
        command line that only asks loads no signing)."""
        return self._opened_now(home, self.chain_id, sending=False)

    def open_chain(self, home: Path, *, chain_id: str | None = None) -> Chain:
        """The chain this command line uses: the node --remote (or $C4_REMOTE, or the
        home's config) names, else the home's own log; a home with neither is exit 3.
        A chain id comes from --chain-id, else $C4_CHAIN_ID.

        A chain is opened once per run and shared by its parts (the transaction, and
        the view of its game after it): a node's client has checked the chain already
        and knows its head of a moment ago; the local chain checks its log against its
        checkpoint on each read, as it always does."""
        if self.impersonate is not None and (self.remote is not None or read_remote(home)):
            raise errors.BadInput(
                "--impersonate acts on a local chain only: a node takes no transaction "
                "that its account's key did not sign"
            )
        wanted = chain_id or self.chain_id
        key = (home, self.remote, self.realm_path, wanted, self.trust_node)
        if key in self._opened:
            return self._opened[key]
        chain = self._opened[key] = self._opened_now(home, wanted, sending=True)
        return chain

    @overload
    def _opened_now(self, home: Path, chain_id: str | None, *, sending: Literal[True]) -> Chain: ...

    @overload
    def _opened_now(
        self, home: Path, chain_id: str | None, *, sending: Literal[False]
    ) -> ChainReader: ...

    def _opened_now(self, home: Path, chain_id: str | None, *, sending: bool) -> ChainReader:
        """The chain as the door opens it (whole, or a node's client without its sending
        half), for this run's node, realm, trust and deadlines."""
        from c4cli.client import connect

        door = connect.open_chain if sending else connect.open_reader
        return door(
            home, url=self.remote, realm_path=self.realm_path, chain_id=chain_id,
            trust_node=self.trust_node, deadlines=self.settings.deadlines(),
        )  # fmt: skip


_CURRENT: ContextVar[Invocation | None] = ContextVar("c4_invocation", default=None)


def current() -> Invocation:
    """The run in progress; before one is built (a signal as c4 starts, a test calling a
    command's body directly), a fresh run of the process's own command line, begun."""
    found = _CURRENT.get()
    return found if found is not None else Invocation(sys.argv[1:]).begin()


P = ParamSpec("P")
R = TypeVar("R")


def takes_run(body: Callable[Concatenate[Invocation, P], R]) -> Callable[P, R]:
    """A command's body handed the run it is part of, as its first argument: the one
    its front end built and began (click's group, or a fast lane)."""

    @functools.wraps(body)
    def command(*args: P.args, **kwargs: P.kwargs) -> R:
        return body(current(), *args, **kwargs)

    return command

"""The four ways a command fails, each with the exit code the CLI promises.

Every layer raises these (or subclasses), so the command layer maps a failure to
its exit code in one place and never guesses from a message.
"""

from __future__ import annotations

import contextlib
import re
import sys
from contextvars import ContextVar


class C4Error(Exception):
    """A failure with a one-line message meant for the user."""

    exit_code = 1


# The refusals c4 acts on that carry no type of their own (a realm's panic, the VM's
# words for a name a package does not declare) are known by their words alone. Those
# words are read here, once, as a refusal is made (by the local executor, or from a
# node's answer), into a code; nothing else reads a refusal's words.
CLOCK_RUNNING = "clock running"  # ClaimTimeout before the move clock ran out
COMMITMENT_USED = "commitment used"  # a commitment the realm has seen before
UNDECLARED = "undeclared"  # a name the package does not declare (a realm's version)
_WORDS = (  # compiled on a refusal's first reading (re's own cache), not at start-up
    (r"move clock has not run out", CLOCK_RUNNING, re.fullmatch),
    (r"commitment already used\b", COMMITMENT_USED, re.match),
    (r"\bname \S+ not declared\b", UNDECLARED, re.search),
)


class Refused(C4Error):
    """The chain or the realm refused a transaction or query (exit 1). ``kind`` is the
    refusal's error type as tm2 names it (``/std.UnauthorizedError``), where known;
    ``code`` one of the codes above, for a refusal with no type of its own: what c4
    acts on, never the words."""

    exit_code = 1

    def __init__(self, message: str, *, kind: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.code = next((code for words, code, how in _WORDS if how(words, message)), "")


# tm2's error types for the refusals c4 acts on or passes on (the words go in the log).
UNKNOWN_ADDRESS = "/std.UnknownAddressError"
INSUFFICIENT_FUNDS = "/std.InsufficientFundsError"
INVALID_PKG_PATH = "/vm.InvalidPkgPathError"


class UnknownAccount(Refused):
    """gno.land's refusal of an account that does not exist: it never received coins."""

    def __init__(self, address: str) -> None:
        super().__init__(f"unknown address: account {address} does not exist", kind=UNKNOWN_ADDRESS)
        self.address = address


class SessionNotFound(Refused):
    """A session key that its master's account does not hold (never made, or revoked)."""

    def __init__(self, session: str, master: str) -> None:
        super().__init__(f"session {session} not found for account {master}")
        self.session = session
        self.master = master


class PackageNotFound(Refused):
    """A package path the chain does not hold (gno.land's words and type)."""

    def __init__(self, path: object) -> None:
        super().__init__(f"package not found: {path}", kind=INVALID_PKG_PATH)


class BadInput(C4Error):
    """Input that cannot become a transaction or query: caught before signing (exit 2)."""

    exit_code = 2


class UnboundNode(BadInput):
    """A node this home is not bound to, asked to sign or send for the chain it claims:
    refused (the command layer says which option names the chain)."""

    def __init__(self, node: str, chain_id: str, action: str) -> None:
        super().__init__(f"{node} is not the node this home is bound to")
        self.chain_id = chain_id
        self.action = action  # "sign for", "send to"


class FeeAboveCap(BadInput):
    """A fee c4 would pick, above what it pays without being told: nothing is signed
    (the command layer says which options pay it or raise the bound)."""


class GasBelowUse(BadInput):
    """Gas given for a transaction below what its simulation used: nothing is sent
    (the command layer says which option gives more, or leaves it to the simulation)."""

    def __init__(self, wanted: int, used: int, enough: int, fee: str) -> None:
        super().__init__(
            f"{wanted} gas wanted is less than the {used} gas the simulation used; nothing was sent"
        )
        self.wanted, self.used, self.enough, self.fee = wanted, used, enough, fee


class ChainExists(BadInput):
    """A home that holds a chain already, asked to make one (the command layer says
    which option replaces it)."""


class HomeInUse(BadInput):
    """A home bound to a node or holding a chain, asked to take another: ``would`` is
    what forcing it does (the command layer names the option)."""

    def __init__(self, message: str, would: str) -> None:
        super().__init__(message)
        self.would = would


class BadTrustPoint(BadInput):
    """A trust point (a block's ``HEIGHT:HASH``) that does not read as one."""

    def __init__(self, given: str) -> None:
        super().__init__(
            "HEIGHT:HASH, a block's height and its hash in 64 hex digits or in base64 as "
            "the RPC gives it (from a source you trust)"
        )
        self.given = given


class BoundElsewhere(BadInput):
    """A realm path or chain id asked of a home bound to another: ``what`` says which
    (``realm_path``, ``chain_id``), ``given`` the value asked."""

    def __init__(self, message: str, what: str, given: str) -> None:
        super().__init__(message)
        self.what = what
        self.given = given


class NoAccountNumbers(BadInput):
    """Signing offline for an account the chain does not have yet, with no account
    number and sequence given (the command layer names the options)."""


class NoMaxFee(BadInput):
    """A house-fee bound asked of a realm whose Offer takes none."""


class NoKeptSecret(BadInput):
    """A reveal with no secret kept in the home for it (the command layer names the
    option that gives one)."""


class NodeOnly(BadInput):
    """A query the local chain cannot answer as a node would (the command layer says
    which option asks a node)."""


class BadQueryData(BadInput):
    """A query's data in a shape its path does not take: ``data`` as given, ``shape`` the
    one it takes (the command layer names the option it came from)."""

    def __init__(self, data: str, shape: str) -> None:
        super().__init__(f"invalid query data {data!r}: use {shape}")
        self.data = data
        self.shape = shape


class PathOutOfRange(BadInput):
    """A derivation path's account or index past BIP32's unhardened range (the command
    layer names the options)."""


class HomeDamaged(C4Error):
    """The home is missing, damaged or tampered with (exit 3). ``file``, when given,
    is the file at fault, and the message begins with it."""

    exit_code = 3

    def __init__(self, message: str, *, file: object = None) -> None:
        super().__init__(message if file is None else f"{file}: {message}")
        self.file = file


class SecretDamaged(HomeDamaged):
    """A kept secret that does not match its commitment (the command layer says which
    option reveals with the secret from elsewhere)."""


class DiskError(C4Error):
    """The home's files cannot be written or read: disk full, read-only, I/O error,
    permissions (exit 3, like any home c4 cannot use)."""

    exit_code = 3


class Unreachable(C4Error):
    """The chain could not be reached, or answered something that is not an answer (exit 4)."""

    exit_code = 4


class Unverified(Unreachable):
    """A node's header, commit, validator set or answer that does not prove what it
    claims, or that the blocks its validators signed contradict (exit 4: believed of
    no node)."""


class NoValidators(Unreachable):
    """A node that serves no commit (a chain without validators, such as c4 serve): no
    block of it can be proven (the command layer says which option takes its word)."""


def disk_error(path: object, exc: OSError, consequence: str) -> DiskError:
    """One line naming the file, what the system said, and what it means for the user."""
    reason = exc.strerror or type(exc).__name__
    return DiskError(f"cannot write {path}: {reason}; {consequence}")


class Notes:
    """The warnings of one run of c4 (its invocation owns them: ``c4cli/commands/run.py``): each
    said once, and those not about money dropped when the run is quiet."""

    __slots__ = ("quiet", "said")

    def __init__(self, quiet: bool = False) -> None:
        self.quiet = quiet  # $C4_QUIET, until --quiet says so
        self.said: set[str] = set()


# The notes of the run in progress, set by its invocation. Outside a run (a test that
# calls a backend, a thread started without the run's context) every warning is said.
NOTES: ContextVar[Notes | None] = ContextVar("c4_notes", default=None)


def notice(message: str) -> None:
    """A warning that is not about money (a key kept without a passphrase, a cache
    that could not be saved, a wait for a lock): one line on stderr, unless the
    command was asked to be quiet. Whatever says where a transaction or a stake
    stands goes through :func:`warn_once`, which nothing silences."""
    notes = NOTES.get()
    if notes is None or not notes.quiet:
        warn_once(message)


def warn_once(message: str) -> None:
    """One warning line on stderr, at most once per run for the same words."""
    notes = NOTES.get()
    if notes is not None:
        if message in notes.said:
            return
        notes.said.add(message)
    # stderr closed or full: the line is lost, never the command.
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.write(message + "\n")

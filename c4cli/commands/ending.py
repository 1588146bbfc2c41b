"""How a command line ends: one line for a failure, an exit code, and no tear-down.

Click-free on purpose: the fast lanes (``cli/lanes.py``) end their commands here
without loading click, and the click group ends every other command here too, so
the two can never word a failure differently.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from c4cli import outbox, settings
from c4cli.commands.run import current
from c4cli.errors import (
    BadInput,
    BadQueryData,
    BadTrustPoint,
    BoundElsewhere,
    C4Error,
    ChainExists,
    FeeAboveCap,
    GasBelowUse,
    HomeInUse,
    NoAccountNumbers,
    NodeOnly,
    NoKeptSecret,
    NoMaxFee,
    NoValidators,
    PathOutOfRange,
    SecretDamaged,
    UnboundNode,
)
from c4cli.escape import printable
from c4cli.interrupts import Interrupted, install

EXIT_BROKEN_PIPE = 128 + 13  # what a shell reports for a process SIGPIPE ended


class PipeClosed(BaseException):
    """stdout's reader went away, or stdout cannot be written at all (closed, a full
    disk, /dev/full): a BaseException, so click does not handle it. ``reason``: what
    the system said, for anything but a reader gone."""

    def __init__(self, reason: str = "") -> None:
        super().__init__(reason)
        self.reason = reason


def check_text(arg: str) -> None:
    """Refuse an argument that is not valid UTF-8: nothing signed may hold one.

    The shell hands Python undecodable bytes as lone surrogates, which could be
    neither signed nor written to the log.
    """
    try:
        arg.encode()
    except UnicodeEncodeError:
        raise BadInput(f"argument {arg!r} is not valid UTF-8") from None


def echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    """A line on stdout (or stderr), flushed: what ``click.echo`` does with our text,
    which is escaped before it gets here and so carries no terminal codes to strip."""
    stream = sys.stderr if err else sys.stdout
    if err:
        # stderr says, it never decides: a line it cannot take is lost, not the command.
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.write(text + "\n" if nl else text)
            stream.flush()
        return
    if stream is None:  # closed by the shell (`>&-`): nowhere to write
        raise PipeClosed("closed")
    try:
        stream.write(text + "\n" if nl else text)
        stream.flush()
    except BrokenPipeError:
        raise PipeClosed() from None
    except (OSError, ValueError) as exc:
        raise PipeClosed(getattr(exc, "strerror", None) or str(exc) or "closed") from None


def emit_json(document: object) -> None:
    echo(json.dumps(document, ensure_ascii=False))


def stdout_broken() -> bool:
    """Whether stdout cannot take what is waiting in its buffer (a full disk,
    /dev/full): click's own echo failed there, not the home."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        return True
    return False


def quiet_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush cannot fail again. A
    stdout the shell closed (``>&-``) is left alone: its descriptor may now be one of
    c4's own files."""
    if sys.stdout is None:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def after_sending(message: str) -> str:
    """An error that comes after a transaction left says so, unless it already does:
    a user who reads only "timed out" would send again and pay twice."""
    item = outbox.standing()
    if item is None or item.tx_hash in message:
        return message
    return f"{message}; {item.describe()}"


# Each failure a backend words without the command line, and the line it becomes here,
# where the options are (the first kind that fits; a subclass before its base).
_WORDING: tuple[tuple[type[C4Error], Callable[[Any], str]], ...] = (
    (UnboundNode, lambda e: (
        f"{e}: pass --chain-id {e.chain_id} (the chain it reports) to {e.action} that chain"
    )),
    (FeeAboveCap, lambda e: f"{e}: pass --gas-fee to pay it, or raise --fee-cap"),
    (GasBelowUse, lambda e: (
        f"--gas-wanted {e.wanted} is less than the {e.used} gas the simulation used; "
        f"nothing was sent: give at least {e.enough} (a fee of {e.fee} at the node's "
        "gas price), or leave --gas-wanted out"
    )),
    (ChainExists, lambda e: f"{e}: pass --force to replace it"),
    (HomeInUse, lambda e: f"{e}: pass --force to {e.would}"),
    (BadTrustPoint, lambda e: f"invalid --trust {e.given!r}: {e}"),
    (BoundElsewhere, lambda e: (
        f"{'--realm-path' if e.what == 'realm_path' else '--chain-id'} {e.given!r}: {e}"
    )),
    (NoAccountNumbers, lambda e: f"{e}, or give --account-number and --account-sequence"),
    (NoMaxFee, lambda e: f"--max-fee: {e}"),
    (NoKeptSecret, lambda e: f"{e}: pass --secret"),
    (SecretDamaged, lambda e: f"{e}: if you have the secret elsewhere, reveal with --secret"),
    (NodeOnly, lambda e: f"{e} (ask a node with --remote)"),
    (NoValidators, lambda e: (
        f"{e}: one of your own is used with --trust-node (or $C4_TRUST_NODE=1)"
    )),
    (BadQueryData, lambda e: f"invalid --data {e.data!r}: use {e.shape}"),
    (PathOutOfRange, lambda e: "--account and --index must be between 0 and 2147483647"),
)  # fmt: skip


def worded(exc: C4Error) -> str:
    """A failure's line, in the command line's words: the chains, the node client and
    the keys say what happened; which option to pass (or which option was wrong) is
    added here, where the options are."""
    for kind, words in _WORDING:
        if isinstance(exc, kind):
            return words(exc)
    return str(exc)


def handle_signals() -> None:
    """Ctrl-C and SIGTERM end the command in its one line (see interrupts.install)."""
    install(report_interrupted)


def report_interrupted(stop: Interrupted) -> None:
    """The line for a signal, then exit: appends are never cut in two (see
    interrupts.deferred), and a broadcast is "sent" from the moment its bytes may
    have left, so it says which side of it the signal fell on."""
    state = outbox.interrupted_state()
    message = f"{stop.name}: {state}" if state else stop.name
    fail(message, stop.exit_code, json_mode=current().json_failure)


def fail(message: str, code: int, *, json_mode: bool) -> NoReturn:
    """Report a failure as promised: one line on stderr (or one JSON document), then exit.

    The message may carry the chain's words (a realm's panic text, a node's log):
    control characters are escaped, so none of them reaches a terminal.
    """
    current().failing = True
    message = printable(" ".join(message.split()))
    try:
        if json_mode:
            emit_json({"ok": False, "error": message})
        else:
            echo(f"Error: {message}", err=True)
    except PipeClosed:
        quiet_stdout()  # the code still says what happened
    sys.exit(code)


def settle(exc: BaseException) -> NoReturn:
    """The end of a command that raised ``exc``: its line and exit code."""
    json_mode = current().json_failure
    if isinstance(exc, C4Error):
        fail(after_sending(worded(exc)), exc.exit_code, json_mode=json_mode)
    if isinstance(exc, BrokenPipeError | PipeClosed):
        # The reader went away (`c4 offer … | grep -q OK!`): not a failure of the
        # command, whose transaction (if any) stands. Exit as a process killed by
        # SIGPIPE does, silently, as every tool in a shell pipeline does. A stdout
        # that cannot be written at all (closed, full) is the same for the
        # transaction; stderr says so, where it can, with the transaction's fate.
        quiet_stdout()
        reason = exc.reason if isinstance(exc, PipeClosed) else ""
        item = outbox.standing()
        if reason:
            fate = f"; {item.describe()}" if item is not None else ""
            with contextlib.suppress(OSError, ValueError, AttributeError):
                sys.stderr.write(f"c4: stdout could not be written ({reason}){fate}\n")
                sys.stderr.flush()
        sys.exit(EXIT_BROKEN_PIPE)
    if isinstance(exc, Interrupted):
        report_interrupted(exc)
    if isinstance(exc, OSError):
        # The home (or a file named on the command line) cannot be read or written.
        where = f"{exc.filename}: " if exc.filename else ""
        fail(f"{where}{exc.strerror or exc}", 3, json_mode=json_mode)
    if isinstance(exc, Exception) and not settings.current().debug:
        # A bug, not a user error: still one line and a non-zero exit; C4_DEBUG shows it.
        fail(f"internal error: {type(exc).__name__}: {exc}", 1, json_mode=json_mode)
    raise exc


def finish(code: int) -> NoReturn:
    """Flush and leave without tearing the interpreter down.

    Everything c4 writes is on disk (fsynced, or committed to the cache) before
    a command returns, so the exit skips the clean-up of every loaded module,
    which costs a short command a fifth of its time.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            code = code or EXIT_BROKEN_PIPE
    os._exit(code)


def exit_code(exc: SystemExit) -> int:
    return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)

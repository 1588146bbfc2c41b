"""The ``c4`` entry point: the command group and the one place errors become exit codes."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import Any

import click

from c4cli import __version__, outbox
from c4cli.commands.options import group_options
from c4cli.errors import BadInput, C4Error
from c4cli.escape import printable
from c4cli.interrupts import Interrupted
from c4cli.interrupts import install as install_signal_handlers

# Subcommands are imported lazily, so `c4 query …` never pays for the modules of
# `c4 keys …` (or for rich, or for a crypto backend it does not use).
_COMMANDS: dict[str, tuple[str, str]] = {
    "accept": ("c4cli.commands.game", "accept"),
    "accept-ownership": ("c4cli.commands.owner", "accept_ownership"),
    "board": ("c4cli.commands.views", "board"),
    "broadcast": ("c4cli.commands.offline", "broadcast"),
    "bot": ("c4cli.commands.bot", "bot"),
    "call": ("c4cli.commands.game", "call"),
    "cancel": ("c4cli.commands.game", "cancel"),
    "claim-timeout": ("c4cli.commands.game", "claim_timeout"),
    "hint": ("c4cli.commands.solve", "hint"),
    "init": ("c4cli.commands.chain", "init"),
    "keys": ("c4cli.commands.keys", "keys"),
    "leaders": ("c4cli.commands.views", "leaders"),
    "lobby": ("c4cli.commands.views", "lobby"),
    "log": ("c4cli.commands.history", "log"),
    "multisign": ("c4cli.commands.offline", "multisign"),
    "node": ("c4cli.commands.node", "node"),
    "offer": ("c4cli.commands.game", "offer"),
    "play": ("c4cli.commands.game", "play"),
    "query": ("c4cli.commands.query", "query"),
    "resign": ("c4cli.commands.game", "resign"),
    "reveal": ("c4cli.commands.game", "reveal"),
    "send": ("c4cli.commands.chain", "send"),
    "session": ("c4cli.commands.session", "session"),
    "set-fee": ("c4cli.commands.owner", "set_fee"),
    "show": ("c4cli.commands.views", "show"),
    "sign": ("c4cli.commands.offline", "sign"),
    "solve": ("c4cli.commands.solve", "solve"),
    "demo": ("c4cli.commands.demo", "demo"),
    "time": ("c4cli.commands.chain", "time_group"),
    "transfer-ownership": ("c4cli.commands.owner", "transfer_ownership"),
    "tx": ("c4cli.commands.history", "tx_cmd"),
    "verify": ("c4cli.commands.chain", "verify"),
    "watch": ("c4cli.commands.bot", "watch"),
    "withdraw-fees": ("c4cli.commands.owner", "withdraw_fees"),
}


class PipeClosed(BaseException):
    """stdout's reader went away (a BaseException, so click does not handle it)."""


class C4Group(click.Group):
    """A group that loads subcommands on demand and reports every failure as one line."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in _COMMANDS:
            return None
        module_name, attr = _COMMANDS[cmd_name]
        module = __import__(module_name, fromlist=[attr])
        command: click.Command = getattr(module, attr)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        # click turns a closed stdout into exit 1 by itself; c4 reports it as the
        # shell expects (see main), so it must get past click's own handler.
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise PipeClosed() from None

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        **extra: Any,
    ) -> None:
        argv = list(sys.argv[1:] if args is None else args)
        outbox.reset()
        if not read_only(argv):
            outbox.transacting()  # a signal from now on says whether anything was recorded
        try:
            for arg in argv:
                check_text(arg)
            super().main(argv, prog_name=prog_name or "c4", standalone_mode=False, **extra)
        except C4Error as exc:
            fail(after_sending(str(exc)), exc.exit_code, json_mode="--json" in argv)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.exceptions.NoArgsIsHelpError as exc:
            # `c4`, `c4 keys`, `c4 session` alone: the help, as --help shows it.
            click.echo(exc.ctx.get_help() if exc.ctx else exc.format_message())
            sys.exit(0)
        except click.exceptions.Abort:
            fail("aborted", 1, json_mode="--json" in argv)
        except click.ClickException as exc:
            fail(exc.format_message(), exc.exit_code, json_mode="--json" in argv)
        except (BrokenPipeError, PipeClosed):
            # The reader went away (`c4 offer … | grep -q OK!`): not a failure of the
            # command, whose transaction (if any) stands. Exit as a process killed by
            # SIGPIPE does, silently, as every tool in a shell pipeline does.
            quiet_stdout()
            sys.exit(EXIT_BROKEN_PIPE)
        except Interrupted as stop:
            report_interrupted(stop, argv)
        except OSError as exc:
            # The home (or a file named on the command line) cannot be read or written.
            where = f"{exc.filename}: " if exc.filename else ""
            fail(f"{where}{exc.strerror or exc}", 3, json_mode="--json" in argv)
        except Exception as exc:
            # A bug, not a user error: still one line and a non-zero exit; C4_DEBUG shows it.
            if os.environ.get("C4_DEBUG"):
                raise
            fail(f"internal error: {type(exc).__name__}: {exc}", 1, json_mode="--json" in argv)
        sys.exit(0)


# Commands that never sign or append: an interruption of one is only that.
READ_ONLY = {"board", "hint", "leaders", "lobby", "log", "query", "show", "solve", "tx", "watch"}


def read_only(argv: list[str]) -> bool:
    """Whether the command line names a command that only reads."""
    command = next((arg for arg in argv if arg in _COMMANDS), None)
    return command in READ_ONLY or "--help" in argv or "-h" in argv


def check_text(arg: str) -> None:
    """Refuse an argument that is not valid UTF-8: nothing signed may hold one.

    The shell hands Python undecodable bytes as lone surrogates, which could be
    neither signed nor written to the log.
    """
    try:
        arg.encode()
    except UnicodeEncodeError:
        raise BadInput(f"argument {arg!r} is not valid UTF-8") from None


EXIT_BROKEN_PIPE = 128 + 13  # what a shell reports for a process SIGPIPE ended


def quiet_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush cannot fail again."""
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


def report_interrupted(stop: Interrupted, argv: Sequence[str] | None = None) -> None:
    """The line for a signal, then exit: appends are never cut in two (see
    interrupts.deferred), and a broadcast is "sent" from the moment its bytes may
    have left, so it says which side of it the signal fell on."""
    argv = sys.argv[1:] if argv is None else argv
    state = outbox.interrupted_state()
    message = f"{stop.name}: {state}" if state else stop.name
    fail(message, stop.exit_code, json_mode="--json" in argv)


def fail(message: str, code: int, *, json_mode: bool) -> None:
    """Report a failure as promised: one line on stderr (or one JSON document), then exit.

    The message may carry the chain's words (a realm's panic text, a node's log):
    control characters are escaped, so none of them reaches a terminal.
    """
    message = printable(" ".join(message.split()))
    try:
        if json_mode:
            click.echo(json.dumps({"ok": False, "error": message}))
        else:
            click.echo(f"Error: {message}", err=True)
    except BrokenPipeError:
        quiet_stdout()
    sys.exit(code)


@click.group(cls=C4Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="c4")
@group_options
def cli() -> None:
    """c4: staked Connect Four on a local gno.land in one folder.

    Keys, signatures and transactions are gno.land's own; the chain is a TOML
    block log in the home folder (--home, $C4_HOME, else ./state).

    \b
    Example:
      c4 demo                              # a whole staked game on a fresh chain
      c4 init --clock manual && c4 offer --stake 5gnot test1
    """


def main() -> None:
    """The console script: run, flush, and leave without tearing the interpreter down.

    Everything c4 writes is on disk (fsynced, or committed to the cache) before
    a command returns, so the exit skips the clean-up of every loaded module,
    which costs a short command a fifth of its time.
    """
    code: int = 0
    install_signal_handlers(report_interrupted)  # again, and for a signal Python would drop
    try:
        cli.main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except Interrupted as stop:  # a signal while the failure line itself was written
        code = stop.exit_code
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        code = code or EXIT_BROKEN_PIPE
    os._exit(code)

"""The ``c4`` entry point: the command group and the one place errors become exit codes."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import click

from c4cli import __version__
from c4cli.commands.ending import (
    PipeClosed,
    check_text,
    exit_code,
    fail,
    finish,
    handle_signals,
    report_interrupted,
    settle,
    stdout_broken,
)
from c4cli.commands.options import group_options
from c4cli.commands.run import Invocation, current
from c4cli.interrupts import Interrupted, deferred

# Subcommands are imported lazily, so `c4 query …` never pays for the modules of
# `c4 keys …` (or for rich, or for a crypto backend it does not use).
_COMMANDS: dict[str, tuple[str, str]] = {
    "accept": ("c4cli.commands.game", "accept"),
    "accept-ownership": ("c4cli.commands.owner", "accept_ownership"),
    "audit": ("c4cli.commands.audit", "audit"),
    "board": ("c4cli.commands.views", "board"),
    "broadcast": ("c4cli.commands.offline", "broadcast"),
    "bot": ("c4cli.commands.bot", "bot"),
    "call": ("c4cli.commands.game", "call"),
    "cancel": ("c4cli.commands.player", "cancel"),
    "claim-timeout": ("c4cli.commands.game", "claim_timeout"),
    "completion": ("c4cli.commands.complete", "completion"),
    "games": ("c4cli.commands.player", "games"),
    "hint": ("c4cli.commands.solve", "hint"),
    "init": ("c4cli.commands.init", "init"),
    "keys": ("c4cli.commands.keys", "keys"),
    "leaders": ("c4cli.commands.tables", "leaders"),
    "lobby": ("c4cli.commands.tables", "lobby"),
    "log": ("c4cli.commands.history", "log"),
    "multisign": ("c4cli.commands.offline", "multisign"),
    "node": ("c4cli.commands.node", "node"),
    "offer": ("c4cli.commands.game", "offer"),
    "play": ("c4cli.commands.game", "play"),
    "query": ("c4cli.commands.query", "query"),
    "resign": ("c4cli.commands.game", "resign"),
    "reveal": ("c4cli.commands.game", "reveal"),
    "revert": ("c4cli.commands.serve", "revert"),
    "review": ("c4cli.commands.review", "review_cmd"),
    "export": ("c4cli.commands.export", "export"),
    "send": ("c4cli.commands.chain", "send"),
    "serve": ("c4cli.commands.serve", "serve"),
    "session": ("c4cli.commands.session", "session"),
    "set-fee": ("c4cli.commands.owner", "set_fee"),
    "show": ("c4cli.commands.views", "show"),
    "sign": ("c4cli.commands.offline", "sign"),
    "snapshot": ("c4cli.commands.serve", "snapshot"),
    "solve": ("c4cli.commands.solve", "solve"),
    "sync": ("c4cli.commands.sync", "sync"),
    "demo": ("c4cli.commands.demo", "demo"),
    "cheat": ("c4cli.commands.cheat", "cheat"),
    "time": ("c4cli.commands.chain", "time_group"),
    "transfer-ownership": ("c4cli.commands.owner", "transfer_ownership"),
    "trust": ("c4cli.commands.trust", "trust"),
    "tx": ("c4cli.commands.history", "tx_cmd"),
    "verify": ("c4cli.commands.chain", "verify"),
    "verify-record": ("c4cli.commands.verify_record", "verify_record"),
    "watch": ("c4cli.commands.bot", "watch"),
    "withdraw-fees": ("c4cli.commands.owner", "withdraw_fees"),
}


# `c4 --help` lists the commands by what they are for, as gh and cargo do.
SECTIONS: dict[str, tuple[str, ...]] = {
    "Play a game": (
        "offer", "accept", "reveal", "play", "resign", "claim-timeout", "cancel", "bot", "call",
    ),
    "Views and the solver": (
        "show", "board", "lobby", "leaders", "watch", "games", "hint", "solve", "review",
        "export", "verify-record",
    ),
    "Keys, sessions and signing": ("keys", "session", "send", "sign", "multisign", "broadcast"),
    "The realm's owner": (
        "set-fee", "withdraw-fees", "transfer-ownership", "accept-ownership", "audit",
    ),
    "The chain and its tools": (
        "init", "demo", "query", "log", "tx", "time", "cheat", "verify", "snapshot", "revert",
        "serve", "completion",
    ),
    "Nodes": ("node", "trust", "sync"),
}  # fmt: skip


class C4Group(click.Group):
    """A group that loads subcommands on demand and reports every failure as one line."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands in their sections, each with its first sentence, whole (wrapped)."""
        for title, names in SECTIONS.items():
            rows = []
            for name in names:
                command = self.get_command(ctx, name)
                if command is not None and not command.hidden:
                    rows.append((name, command.get_short_help_str(limit=200)))
            with formatter.section(title):
                formatter.write_dl(rows)

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
        except OSError as exc:
            if exc.filename is None and stdout_broken():
                raise PipeClosed(exc.strerror or str(exc)) from None
            raise

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        **extra: Any,
    ) -> None:
        argv = list(sys.argv[1:] if args is None else args)
        try:
            self._main(argv, prog_name, **extra)
        finally:
            current().end()

    def _main(self, argv: list[str], prog_name: str | None, **extra: Any) -> None:
        try:
            # A signal while the run is being built is acted on once it has begun, so
            # its line is the run's (JSON or not; "nothing was recorded").
            with deferred():
                Invocation(argv).begin(transacting=not read_only(argv))
            for arg in argv:
                check_text(arg)
            super().main(argv, prog_name=prog_name or "c4", standalone_mode=False, **extra)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.exceptions.NoArgsIsHelpError as exc:
            # `c4`, `c4 keys`, `c4 session` alone: the help, as --help shows it.
            click.echo(exc.ctx.get_help() if exc.ctx else exc.format_message())
            sys.exit(0)
        except click.exceptions.Abort:
            fail("aborted", 1, json_mode=current().json_failure)
        except click.exceptions.NoSuchOption as exc:
            fail(_negative(exc, argv), exc.exit_code, json_mode=current().json_failure)
        except click.ClickException as exc:
            fail(exc.format_message(), exc.exit_code, json_mode=current().json_failure)
        except (Exception, PipeClosed, Interrupted) as exc:
            settle(exc)
        sys.exit(0)


def _negative(exc: click.exceptions.NoSuchOption, argv: list[str]) -> str:
    """Click's words for an unknown option, unless it is a negative number (`set-fee
    -1gnot`, `play 1 -1 KEY`): then what it is and what to do."""
    word = next((arg for arg in argv if arg.startswith(exc.option_name)), exc.option_name)
    if not word[1:2].isdigit():
        return exc.format_message()
    return (
        f"{word!r} is read as an option: no amount, column, game id or duration is negative "
        "(a negative argument of `c4 call` goes after `--`: c4 call FUNC -- -1 KEY)"
    )


# Commands that never sign or append: an interruption of one is only that.
READ_ONLY = {
    "audit",
    "board",
    "games",
    "hint",
    "leaders",
    "lobby",
    "log",
    "query",
    "show",
    "solve",
    "sync",
    "trust",
    "tx",
    "watch",
}


def read_only(argv: list[str]) -> bool:
    """Whether the command line names a command that only reads."""
    command = next((arg for arg in argv if arg in _COMMANDS), None)
    return command in READ_ONLY or "--help" in argv or "-h" in argv


EXIT_CODES = """\b
Exit codes:
  0         success
  1         the chain or the realm refused (its words)
  2         bad usage or input, caught before anything was signed
  3         the home is missing, damaged or cannot be written
  4         the chain could not be reached, answered garbage, or is another chain
  130, 143  Ctrl-C, SIGTERM (the line says whether anything was recorded)
  141       stdout closed or unwritable: the transaction, if any, stands
With --json, a failure is one document: {"ok": false, "error": "..."}."""


@click.group(
    cls=C4Group, context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_CODES
)
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
    """The console script: run, then leave as ending.finish does."""
    code: int = 0
    handle_signals()  # again, and for a signal Python would drop
    try:
        cli.main()
    except SystemExit as exc:
        code = exit_code(exc)
    except Interrupted as stop:
        code = stop.exit_code
        if not current().failing:  # before the run could say it: said now, once
            try:
                report_interrupted(stop)
            except SystemExit as said:
                code = exit_code(said)
            except Interrupted:
                pass  # a second signal while the line was written: the code stands
    finish(code)

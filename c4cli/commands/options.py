"""Options shared by every command, declared once."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from c4cli.address import canonical
from c4cli.chain.interface import SIMULATE_MODES
from c4cli.commands import complete

# emit_json lives where the fast lane can reach it without click; commands take it from here.
from c4cli.commands.ending import emit_json as emit_json
from c4cli.commands.run import current
from c4cli.commands.txopts import TxOptions
from c4cli.wire.tx import DEFAULT_GAS_WANTED

F = TypeVar("F", bound=Callable[..., Any])
DEFAULTS = TxOptions()


# Each common option's parameter name, and the field of the run it sets.
FIELDS = {
    "home": "home",
    "as_json": "json",
    "remote": "remote",
    "trust_node": "trust_node",
    "group_realm_path": "realm_path",
}


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Write an option into the run (``commands/run.py``): given to a group, it is the
    default of the same option on the command below (whose default reads the run)."""
    source = ctx.get_parameter_source(param.name or "")
    if source is not None and source is not click.core.ParameterSource.DEFAULT:
        run = current()
        setattr(run, FIELDS[param.name or ""], value)
        run.given.add(param.name or "")
    return value


def from_run(name: str) -> Callable[[], Any]:
    """An option's default: the run's value of it (the environment's, or a group's)."""
    return lambda: getattr(current(), FIELDS[name])


def _home(*, expose: bool = True) -> Callable[[F], F]:
    return click.option(
        "--home",
        type=click.Path(file_okay=False, path_type=Path),
        default=from_run("home"),
        show_default="$C4_HOME or ./state",
        callback=_remember,
        expose_value=expose,
        help="The folder that holds keys, secrets and the chain.",
    )


def _json(*, expose: bool = True) -> Callable[[F], F]:
    return click.option(
        "--json",
        "as_json",
        is_flag=True,
        default=from_run("as_json"),
        callback=_remember,
        expose_value=expose,
        help="Print one JSON document on stdout.",
    )


def _remote(*, expose: bool = False) -> Callable[[F], F]:
    return click.option(
        "--remote",
        metavar="URL",
        default=from_run("remote"),
        show_default="$C4_REMOTE, else the home's config",
        callback=_remember,
        expose_value=expose,
        help="A gno.land node's RPC URL to use instead of the home's chain (several of "
        "one chain, comma-separated: the first that serves is used).",
    )


def _trust_node(*, expose: bool = False) -> Callable[[F], F]:
    return click.option(
        "--trust-node",
        is_flag=True,
        default=from_run("trust_node"),
        callback=_remember,
        expose_value=expose,
        help="Take the node's word for its blocks instead of checking its validators' "
        "signatures (a node you run yourself; $C4_TRUST_NODE=1 too).",
    )


def _quiet_given(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if value:
        current().set_quiet(True)
    return value


def quiet_option(func: F) -> F:
    """--quiet, as gnokey's -quiet: notices that are not about money are dropped (also
    $C4_QUIET=1); what says where a transaction or a stake stands never is."""
    return click.option(
        "--quiet",
        is_flag=True,
        callback=_quiet_given,
        expose_value=False,
        help="Drop warnings that are not about money ($C4_QUIET=1 too).",
    )(func)


def _realm_path(func: F) -> F:
    return click.option(
        "--realm-path",
        "group_realm_path",
        metavar="PATH",
        default=from_run("group_realm_path"),
        show_default="$C4_REALM_PATH, else the home's config, else gno.land/r/samcrew/connect4",
        callback=_remember,
        expose_value=False,
        help="The realm --remote acts on, for a home bound to no node.",
    )(func)


def _impersonated(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None:
        address = canonical(value)
        if address is None:
            raise click.BadParameter(f"{value!r} is not a g1 address", ctx, param)
        current().impersonate = address
    return value


def _impersonate(func: F) -> F:
    return click.option(
        "--impersonate",
        metavar="ADDR",
        callback=_impersonated,
        expose_value=False,
        help="Act as this address without its key, on a local chain whose genesis allows "
        "it (a fork's does; c4 init --impersonation): KEY is then left out.",
    )(func)


def key_argument(*, keys_only: bool = False) -> Callable[[F], F]:
    """KEY, the key that signs: left out under `c4 --impersonate ADDR` (the address acts),
    or given as that very address."""

    def fill(ctx: click.Context, param: click.Parameter, value: str | None) -> str:
        acting = current().impersonate
        if acting is None:
            if value is None:
                raise click.MissingParameter(ctx=ctx, param=param)
            return value
        if value is not None and value != acting:
            raise click.BadParameter(
                f"--impersonate {acting} acts: give no KEY, or that address", ctx, param
            )
        return acting

    return click.argument(
        "key",
        metavar="KEY",
        required=False,
        callback=fill,
        shell_complete=complete.keys if keys_only else complete.signers,
    )


def home_option(func: F) -> F:
    return _home()(func)


def json_option(func: F) -> F:
    return _json()(func)


def common_options(func: F) -> F:
    """--home, --json, --remote, --trust-node and --quiet: every command takes them (a
    group passes them down)."""
    return home_option(json_option(_remote()(_trust_node()(quiet_option(func)))))


def local_options(func: F) -> F:
    """--home, --json and --quiet, for commands that act on the home and never on a node
    (keys)."""
    return home_option(json_option(quiet_option(func)))


def local_group_options(func: F) -> F:
    """--home, --json and --quiet on a group whose commands never reach a node."""
    return _home(expose=False)(_json(expose=False)(quiet_option(func)))


def group_options(func: F) -> F:
    """--home, --json, --remote, --trust-node and --quiet on a group, for the commands
    below it (``c4 --home X lobby``), and --realm-path, the realm that --remote acts on
    for a home bound to no node."""
    return _home(expose=False)(
        _json(expose=False)(_remote()(_trust_node()(quiet_option(_realm_path(_impersonate(func))))))
    )


if TYPE_CHECKING:  # click's ParamType is generic from 8.3 on; 8.2 takes no argument
    _IntParam = click.ParamType[int]
else:
    _IntParam = click.ParamType


class Int64(_IntParam):
    """A whole number as gnokey and the realm read one: ASCII digits only (no ``1_0``,
    no Arabic-Indic digits), from 0 to int64's largest, so nothing out of range is ever signed."""

    name = "integer"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        text = str(value)
        if not (text.isascii() and text.isdigit()) or len(text) > 19 or int(text) >= 2**63:
            self.fail(f"{text!r} is not a whole number from 0 to {2**63 - 1}", param, ctx)
        return int(text)


INT64 = Int64()


class TxOption(click.Option):
    """One of the options every transaction takes (:func:`tx_options`)."""


# The options every command takes (common_options), by parameter name.
COMMON = {"home", "as_json", "remote", "trust_node", "quiet"}


class TxCommand(click.Command):
    """A transaction's command: its help shows its own options first, then the ones
    every transaction takes and the ones every command takes, each set once."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        own: list[tuple[str, str]] = []
        shared: list[tuple[str, str]] = []
        common: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None or isinstance(param, click.Argument):
                continue  # arguments have a section of their own, as click lists them
            if isinstance(param, TxOption):
                shared.append(record)
            elif param.name in COMMON:
                common.append(record)
            else:
                own.append(record)
        for title, rows in (
            ("Options", own),
            ("Transaction options (every transaction takes them)", shared),
            ("Common options", common),
        ):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def tx_options(func: F) -> F:
    """The options every transaction command takes, as gnokey's maketx: handed to the
    command as one :class:`TxOptions` (``tx``), --json among them."""

    @functools.wraps(func)
    def taking(*args: Any, **given: Any) -> Any:
        tx = TxOptions.taken_from(given)
        return func(*args, tx=tx, **given)

    wrapped: F = cast("F", taking)
    for option in reversed(
        [
            click.option(
                "--gas-fee",
                cls=TxOption,
                metavar="COINS",
                show_default="0ugnot; on a node, what its gas price asks for the gas wanted",
                help="The fee paid for gas, as gnokey's -gas-fee.",
            ),
            click.option(
                "--gas-wanted",
                cls=TxOption,
                type=INT64,
                metavar="GAS",
                show_default=f"{DEFAULT_GAS_WANTED}; on a node, the simulated gas plus a margin",
                help="The most gas the transaction may use, as gnokey's -gas-wanted.",
            ),
            click.option(
                "--memo",
                cls=TxOption,
                default=DEFAULTS.memo,
                help="A note carried in the transaction.",
            ),
            click.option(
                "--generate-only",
                cls=TxOption,
                is_flag=True,
                help="Print the unsigned transaction (amino JSON, as gnokey maketx "
                "-broadcast=false) and send nothing; KEY may be an address, a multisig's. "
                "On a node, gas and fee not given are estimated.",
            ),
            click.option(
                "--simulate",
                cls=TxOption,
                type=click.Choice(SIMULATE_MODES),
                default=DEFAULTS.simulate,
                show_default=True,
                help="As gnokey's -simulate: test runs the transaction first and sends it "
                "only if it passes (a refusal costs nothing); skip sends it untested; only "
                "runs it and sends nothing.",
            ),
            click.option(
                "--fee-cap",
                cls=TxOption,
                metavar="COINS",
                help="The most gas fee c4 pays when it picks the fee itself from a node's gas "
                "price; above it, nothing is signed. Default: $C4_FEE_CAP, else config.toml's "
                "fee_cap, else 1gnot.",
            ),
            click.option(
                "--chain-id",
                cls=TxOption,
                metavar="ID",
                help="The chain to sign for, when --remote names a node this home is not "
                "bound to (a bound home signs for its own chain id only).",
            ),
            click.option(
                "--master",
                cls=TxOption,
                metavar="NAME_OR_ADDR",
                help="Sign with session key KEY on behalf of this master account.",
                shell_complete=complete.keys,
            ),
            click.option(
                "--password-stdin",
                cls=TxOption,
                is_flag=True,
                help="Read the key's passphrase from the first line of stdin.",
            ),
        ]
    ):
        wrapped = option(wrapped)
    return wrapped

"""Options shared by every command, declared once."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

# emit_json lives where the fast lane can reach it without click; commands take it from here.
from c4cli.commands.ending import emit_json as emit_json
from c4cli.errors import BadInput

F = TypeVar("F", bound=Callable[..., Any])


# A --home or --json given to a group (`c4 --home DIR query …`, `c4 time --json
# advance 1s`) is kept in the context's meta, which the whole command line shares,
# and is the default of the same option on every command below it.
_META = "c4cli.options."


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    source = ctx.get_parameter_source(param.name or "")
    if source is not None and source is not click.core.ParameterSource.DEFAULT:
        ctx.meta[_META + (param.name or "")] = value
    return value


def from_group(name: str, fallback: Callable[[], Any]) -> Callable[[], Any]:
    """A default: the value a group above was given for option ``name``, else ``fallback()``."""

    def default() -> Any:
        ctx = click.get_current_context(silent=True)
        if ctx is not None and _META + name in ctx.meta:
            return ctx.meta[_META + name]
        return fallback()

    return default


def _home(*, expose: bool = True) -> Callable[[F], F]:
    return click.option(
        "--home",
        type=click.Path(file_okay=False, path_type=Path),
        default=from_group("home", lambda: os.environ.get("C4_HOME") or "state"),
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
        default=from_group("as_json", lambda: False),
        callback=_remember,
        expose_value=expose,
        help="Print one JSON document on stdout.",
    )


def _remote_from_env() -> str | None:
    return os.environ.get("C4_REMOTE") or None


def _remote(*, expose: bool = False) -> Callable[[F], F]:
    return click.option(
        "--remote",
        metavar="URL",
        default=from_group("remote", _remote_from_env),
        show_default="$C4_REMOTE, else the home's config",
        callback=_remember,
        expose_value=expose,
        help="A gno.land node's RPC URL to use instead of the home's chain (several of "
        "one chain, comma-separated: the first that serves is used).",
    )


def _realm_path_from_env() -> str | None:
    return os.environ.get("C4_REALM_PATH") or None


def _realm_path(func: F) -> F:
    return click.option(
        "--realm-path",
        "group_realm_path",
        metavar="PATH",
        default=from_group("group_realm_path", _realm_path_from_env),
        show_default="$C4_REALM_PATH, else the home's config, else gno.land/r/samcrew/connect4",
        callback=_remember,
        expose_value=False,
        help="The realm --remote acts on, for a home bound to no node.",
    )(func)


def remote_realm_path() -> str | None:
    """The realm --realm-path (or $C4_REALM_PATH) names for --remote on an unbound home."""
    path: str | None = from_group("group_realm_path", _realm_path_from_env)()
    return path


def remote_url() -> str | None:
    """The node --remote (or $C4_REMOTE) names for this command line, if any."""
    url: str | None = from_group("remote", _remote_from_env)()
    return url


def home_option(func: F) -> F:
    return _home()(func)


def json_option(func: F) -> F:
    return _json()(func)


def common_options(func: F) -> F:
    """--home, --json and --remote: every command takes them (a group passes them down)."""
    return home_option(json_option(_remote()(func)))


def local_options(func: F) -> F:
    """--home and --json, for commands that act on the home and never on a node (keys)."""
    return home_option(json_option(func))


def local_group_options(func: F) -> F:
    """--home and --json on a group whose commands never reach a node."""
    return _home(expose=False)(_json(expose=False)(func))


def group_options(func: F) -> F:
    """--home, --json and --remote on a group, for the commands below it (``c4 --home X lobby``),
    and --realm-path, the realm that --remote acts on for a home bound to no node."""
    return _home(expose=False)(_json(expose=False)(_remote()(_realm_path(func))))


def game_id_arg(text: str) -> int:
    """A GAME argument: a positive decimal id (the realm answers for ids it never made)."""
    if not text.isascii() or not text.isdigit() or len(text) > 18:
        raise BadInput(f"invalid game id {text!r}: a game is a positive number")
    return int(text)

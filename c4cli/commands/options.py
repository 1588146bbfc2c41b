"""Options shared by every command, declared once."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def home_option(func: F) -> F:
    return click.option(
        "--home",
        type=click.Path(file_okay=False, path_type=Path),
        default=lambda: os.environ.get("C4_HOME") or "state",
        show_default="$C4_HOME or ./state",
        help="The folder that holds keys, secrets and the chain.",
    )(func)


def json_option(func: F) -> F:
    return click.option(
        "--json", "as_json", is_flag=True, help="Print one JSON document on stdout."
    )(func)


def common_options(func: F) -> F:
    """--home and --json: every command takes both."""
    return home_option(json_option(func))


def game_id_arg(text: str) -> int:
    """A GAME argument: a positive decimal id (the realm answers for ids it never made)."""
    if not text.isascii() or not text.isdigit() or len(text) > 18:
        from c4cli.errors import BadInput

        raise BadInput(f"invalid game id {text!r}: a game is a positive number")
    return int(text)


def emit_json(document: Any) -> None:
    import json

    click.echo(json.dumps(document, ensure_ascii=False))

"""The realm's tables for a person: the lobby (open offers, live games) and the two
leaderboards.

On a terminal they are rich tables (loaded only here); piped, plain columns with
no escape codes.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from c4cli.chain.clock import format_time
from c4cli.client.realm_client import RealmClient, Status
from c4cli.client.verified import Verification, marks_of, verification_of
from c4cli.coins import gnot
from c4cli.commands.options import common_options, emit_json
from c4cli.commands.run import Invocation, takes_run
from c4cli.commands.text import names, who
from c4cli.commands.views import next_block_time, on_terminal, terminal
from c4cli.escape import printable


@click.command()
@common_options
@takes_run
def lobby(run: Invocation, home: Path, as_json: bool) -> None:
    """Open offers and live games.

    Times are UTC. Offers that have expired are left out, and a live game whose
    move clock has run out by the next block is marked "ran out": anyone may
    settle it with `c4 claim-timeout`.

    \b
    Example:
      c4 lobby
    """
    realm = RealmClient(run.open_chain(home))
    lobby = realm.lobby(0, 100)
    if as_json:
        # ActiveJSON as the realm gives it, with the fee for new offers in it whatever
        # the realm's version (the one deployed on gno.land leaves it out).
        document = json.loads(realm.active_json(0, 100))
        emit_json({"now": document["now"], "fee": lobby.fee, **document, **marks_of(realm.reader)})
        return
    known = names(home)
    landing, exact = next_block_time(home)  # what a call sent now would be judged at
    offers = [g for g in lobby.games if g.status == Status.OPEN and not g.offer_expired(landing)]
    live = [g for g in lobby.games if g.status == Status.PLAYING]
    offer_rows = [
        [
            str(g.id),
            gnot(g.stake),
            gnot(g.fee),
            _short(g.creator, known),
            _short(g.opponent, known) if g.opponent else "anyone",
            format_time(g.expires_at)[11:19],
        ]
        for g in offers
    ]
    live_rows = [
        [
            str(g.id),
            gnot(2 * g.stake),
            _short(g.player(g.turn), known) if g.turn else "reveal",
            ("ran out" if exact else "past?")
            if g.clock_ran_out(landing)
            else format_time(g.deadline)[11:19],
        ]
        for g in live
    ]
    _table(
        f"Open offers (new offers pay a fee of {gnot(lobby.fee)})",
        ["game", "stake", "fee", "creator", "open to", "until (UTC)"],
        offer_rows,
    )
    _table("Live games", ["game", "pot", "on turn", "deadline (UTC)"], live_rows)
    _say_verification(verification_of(realm.reader))


def _say_verification(verification: Verification | None) -> None:
    """The line that says whether a node's tables are what its signed blocks make."""
    if verification is not None:
        click.echo(printable(verification.text()))


def _short(address: str, known: dict[str, str]) -> str:
    """A key name, or an address cut to fit a table (g1abcd…wxyz)."""
    return known.get(address) or f"{address[:6]}…{address[-4:]}"


@click.command()
@common_options
@takes_run
def leaders(run: Invocation, home: Path, as_json: bool) -> None:
    """The two leaderboards: most games won, most GNOT won.

    \b
    Example:
      c4 leaders
    """
    realm = RealmClient(run.open_chain(home))
    if as_json:
        emit_json({**json.loads(realm.leaders_json()), **marks_of(realm.reader)})
        return
    wins, won = realm.leaders()
    known = names(home)
    _table(
        "Most games won",
        ["#", "player", "wins"],
        [[str(i), who(a, known), str(s)] for i, (a, s) in enumerate(wins, 1)],
    )
    _table(
        "Most GNOT won",
        ["#", "player", "won"],
        [[str(i), who(a, known), gnot(s)] for i, (a, s) in enumerate(won, 1)],
    )
    _say_verification(verification_of(realm.reader))


def _table(title: str, headers: list[str], rows: list[list[str]]) -> None:
    if on_terminal():
        from rich import table, text

        drawn = table.Table(title=title, title_justify="left")
        for header in headers:
            drawn.add_column(header)
        for row in rows:  # cells as plain text: a realm's text is never markup
            drawn.add_row(*(text.Text(printable(cell)) for cell in row))
        terminal().print(drawn if rows else text.Text(f"{title}: none"))
        return
    click.echo(f"{title}:")
    if not rows:
        click.echo("  none")
        return
    # Piped: a header line, then one line per row, each column padded to its widest
    # cell so the columns stay aligned (a script splits on runs of two spaces).
    rows = [headers, *rows]
    widths = [max(len(cell) for cell in column) for column in zip(*rows, strict=True)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=True)]
        click.echo(printable(("  " + "  ".join(cells)).rstrip()))

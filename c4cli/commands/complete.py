"""Shell completion that knows the home: key names where a KEY goes, the game ids that
fit where a GAME goes, columns where a COLUMN goes (click's completion protocol, for
bash, zsh and fish: `c4 completion SHELL` prints the script).

Completion reads and never writes: keys from their files, games from the realm's
ActiveJSON, on a local chain only while its cache answers as the log stands (a
replay would save it) and on a node with a short deadline. Anything that fails
completes nothing rather than print an error into the user's command line.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from click.shell_completion import CompletionItem, get_completion_class

from c4cli import settings
from c4cli.address import is_address
from c4cli.client import connect
from c4cli.client.realm_client import GameView, RealmClient, Status
from c4cli.coins import gnot
from c4cli.commands.run import current
from c4cli.errors import C4Error
from c4cli.escape import printable
from c4cli.home.keys import LOCAL, Keyring
from c4cli.settings import Deadlines

if TYPE_CHECKING:
    from c4cli.chain.interface import ChainReader

# Commands whose GAME is a game being played; accept's is an open offer, cancel's an
# offer of the home's keys; the views take any live game.
PLAYING = {"play", "bot", "hint", "resign", "claim-timeout", "reveal"}
DEADLINE = 1.0  # seconds a node has to answer a completion, unless $C4_TIMEOUT says


def home_of(ctx: click.Context) -> Path:
    """The --home this command line names (on the command or its group), else the
    default's: $C4_HOME, else ./state."""
    while ctx is not None:
        home = ctx.params.get("home")
        if home:
            return Path(home)
        ctx = ctx.parent  # type: ignore[assignment]
    return current().home


def keys(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The home's key names, each with its address."""
    try:
        infos = Keyring(home_of(ctx)).list(strict=False)
    except (C4Error, OSError):
        return []
    return [CompletionItem(i.name, help=i.address) for i in infos if i.name.startswith(incomplete)]


def signers(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The home's keys that can sign (not a public key or a multisig), each with its
    address; for a move, the key on turn in that game first."""
    try:
        infos = [i for i in Keyring(home_of(ctx)).list(strict=False) if i.kind == LOCAL]
    except (C4Error, OSError):
        return []
    found = [CompletionItem(i.name, help=i.address) for i in infos if i.name.startswith(incomplete)]
    game = str(ctx.params.get("game_id") or "")
    if (ctx.command.name or "") in PLAYING and game.isdigit():
        on_turn = _on_turn(home_of(ctx), int(game))
        found.sort(key=lambda item: item.help != on_turn)  # stable: the rest as listed
    return found


def _on_turn(home: Path, game_id: int) -> str:
    """The address on turn in a game ("" where it cannot be read now)."""
    try:
        reader = _reader(home)
        game = None if reader is None else RealmClient(reader).game(game_id)
    except (C4Error, OSError):
        return ""
    return "" if game is None else game.turn_player


QUERIES = {
    "game": "a game's GameJSON (GAME)",
    "active": "the lobby's ActiveJSON",
    "leaders": "LeadersJSON",
    "render": "the realm's Render (PATH)",
    "balance": "an account's ugnot (ADDR_OR_NAME)",
    "account": "an account (ADDR_OR_NAME)",
    "player": "a player's record (ADDR_OR_NAME)",
    "fees": "the fee, what was collected, the owner",
    "vm/qeval": "gnokey's path (--data)",
    "vm/qrender": "gnokey's path (--data)",
    "vm/qfuncs": "gnokey's path (--data)",
    "vm/qfile": "gnokey's path (--data)",
    "vm/qdoc": "gnokey's path (--data)",
    "bank/balances/": "gnokey's path (ADDR)",
    "auth/accounts/": "gnokey's path (ADDR)",
}


def query_what(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """What `c4 query` reads."""
    return [CompletionItem(w, help=h) for w, h in QUERIES.items() if w.startswith(incomplete)]


def query_arg(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """`c4 query`'s second word: a game for `game`, a key for the account reads."""
    what = str(ctx.params.get("what") or "")
    if what == "game":
        return games(ctx, param, incomplete)
    if what in ("balance", "account", "player"):
        return keys(ctx, param, incomplete)
    return []


def columns(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    choices = [CompletionItem(str(c)) for c in range(1, 8)]
    choices.append(CompletionItem("best", help="the solver's move"))
    return [c for c in choices if c.value.startswith(incomplete)]


def games(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The game ids that fit the command: open offers for `accept`, the home's open
    offers for `cancel`, played games for a move (those waiting for a key of this
    home first), live games for a view."""
    home = home_of(ctx)
    try:
        known = {i.address: i.name for i in Keyring(home).list(strict=False)}
        live = _live_games(home)
    except (C4Error, OSError):
        return []
    command = ctx.command.name or ""
    if command == "accept":
        chosen = [g for g in live if g.status == Status.OPEN]
    elif command == "cancel":
        chosen = [g for g in live if g.status == Status.OPEN and g.creator in known]
    elif command in PLAYING:
        playing = [g for g in live if g.status == Status.PLAYING]
        chosen = sorted(playing, key=lambda g: g.turn_player not in known)  # ours first
    else:
        chosen = live
    found = [CompletionItem(str(g.id), help=_about(g, known)) for g in chosen]
    return [item for item in found if item.value.startswith(incomplete)]


def _live_games(home: Path) -> list[GameView]:
    reader = _reader(home)
    return [] if reader is None else RealmClient(reader).lobby(0, 100).games


def _reader(home: Path) -> ChainReader | None:
    """The home's chain as a completion may read it (a short deadline on a node; None
    for a local chain whose cache is stale)."""
    env = settings.current()
    read = env.deadlines().read if env.timeout else DEADLINE
    return connect.idle_reader(home, url=env.remote, deadlines=Deadlines(read))


def _about(game: GameView, known: dict[str, str]) -> str:
    """A game's line of help: its stake and who offered it or moves next, by key name or
    address. A node's text is taken only where it is an address, and the line is
    escaped whole: it goes into the shell's line protocol and onto the terminal."""
    if game.status == Status.OPEN:
        about = f"{gnot(game.stake)} offered by {_who(game.creator, known)}"
    else:
        mover = _who(game.turn_player, known) if game.turn_player else "the reveals"
        about = f"{gnot(game.stake)} each, {mover} to move"
    return printable(about)


def _who(address: str, known: dict[str, str]) -> str:
    """The home's name for ``address``, the address itself, or "?" for text that is none."""
    if address in known:
        return known[address]
    return address if is_address(address) else "?"


SCRIPTS = ("bash", "zsh", "fish")


@click.command("completion")
@click.argument("shell", type=click.Choice(SCRIPTS))
def completion(shell: str) -> None:
    """Print the completion script for SHELL: key names, game ids and columns.

    \b
    Example:
      eval "$(c4 completion bash)"      # in ~/.bashrc
      c4 completion fish > ~/.config/fish/completions/c4.fish
    """
    found = get_completion_class(shell)
    assert found is not None  # click has bash, zsh and fish
    ctx = click.get_current_context()
    root = ctx.find_root().command
    click.echo(found(root, {}, "c4", "_C4_COMPLETE").source())

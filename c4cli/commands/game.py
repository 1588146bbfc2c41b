"""Game transactions: each command builds one vm/m_call and leaves every rule to the realm."""

from __future__ import annotations

import time as wallclock
from pathlib import Path

import click

from c4cli import outbox
from c4cli.address import is_address
from c4cli.chain.clock import format_time
from c4cli.chain.interface import Receipt
from c4cli.client import workflow
from c4cli.client.realm_client import GameView, RealmClient, Status, game_of
from c4cli.coins import format_coins, gnot, parse_amount, parse_ugnot
from c4cli.commands import complete
from c4cli.commands.calls import play_column, run_call
from c4cli.commands.options import INT64, TxCommand, common_options, key_argument, tx_options
from c4cli.commands.params import Seconds
from c4cli.commands.run import Invocation, current, takes_run
from c4cli.commands.text import game_id_arg, parse_duration
from c4cli.commands.transact import acting_address
from c4cli.commands.txopts import TxOptions
from c4cli.commitment import commitment_of
from c4cli.engine import solver
from c4cli.errors import CLOCK_RUNNING, BadInput, Refused
from c4cli.home.secrets import SecretStore, new_secret, refuse_weak


def _game_arg(text: str) -> int:
    return game_id_arg(text)


def address_arg(home: Path, text: str) -> str:
    """An address exactly as typed (the realm judges its spelling; an address is always
    that address, as gnokey reads one), else a local key's address."""
    if is_address(text):
        current().keyring(home).resolve(text)  # says so, where a key of the home is named like it
        return text
    keyring = current().keyring(home)
    if keyring.exists(text):
        return keyring.info(text).address
    raise BadInput(f"{text!r} is neither a local key nor a g1 address")


def _valid_for_minutes(text: str) -> int:
    """--valid-for: whole minutes, as ``15m`` or ``1h``. A bare number is refused: c4
    reads one as seconds everywhere else, and the realm counts minutes."""
    bare = text.strip()
    if bare.isascii() and bare.isdigit():
        raise BadInput(
            f"invalid --valid-for {text!r}: give its unit, e.g. {bare}m (a duration without "
            "a unit is seconds in c4, and an offer lives whole minutes)"
        )
    why = f"invalid --valid-for {text!r}: whole minutes, e.g. 15m or 1h"
    try:
        seconds = parse_duration(text, what="--valid-for")
    except BadInput:
        raise BadInput(why) from None
    if seconds % 60:
        raise BadInput(why)
    return seconds // 60


@click.command(cls=TxCommand)
@click.option("--stake", required=True, metavar="COINS", help="Your stake, e.g. 10gnot.")
@click.option(
    "--valid-for",
    default="15m",
    show_default=True,
    metavar="MINUTES",
    help="Offer lifetime in whole minutes, with its unit: 15m, 1h.",
)
@click.option(
    "--opponent",
    metavar="ADDR_OR_NAME",
    help="Reserve the game for one player.",
    shell_complete=complete.keys,
)
@click.option("--max-fee", metavar="COINS", help="Highest house fee you accept (default: now's).")
@click.option("--passphrase", help="Your secret; default: 32 random bytes, kept in the home.")
@key_argument()
@tx_options
@common_options
def offer(
    stake: str,
    valid_for: str,
    opponent: str | None,
    max_fee: str | None,
    passphrase: str | None,
    key: str,
    home: Path,
    tx: TxOptions,
) -> None:
    """Offer a staked game (Offer). Sends the stake and only the hash of your secret.

    \b
    Example:
      c4 offer --stake 10gnot --valid-for 15m alice
    """
    stake_ugnot = parse_ugnot(stake)
    if stake_ugnot == 0:
        raise BadInput(
            f"invalid --stake {stake!r}: a game needs a stake (the realm's minimum is "
            f"{gnot(workflow.MIN_STAKE)}, e.g. --stake 1gnot)"
        )
    minutes = _valid_for_minutes(valid_for)
    rival = address_arg(home, opponent) if opponent else ""
    cap = None if max_fee is None else parse_ugnot(max_fee)
    signer = acting_address(home, key, tx.master)
    if passphrase is not None:
        refuse_weak(passphrase, "--passphrase")
    secret = passphrase if passphrase is not None else new_secret()
    commitment = commitment_of(secret)

    build = workflow.offer(stake_ugnot, commitment, valid_for=minutes, opponent=rival, max_fee=cap)

    def human(game: GameView | None, receipt: Receipt, known: dict[str, str]) -> str:
        if game is None:  # recorded, but not read back (a warning said why)
            return f"game {game_of(receipt.result)} offered"
        return (
            f"game {game.id} offered: stake {gnot(game.stake)}, fee {gnot(game.fee)}, "
            f"open until {format_time(game.expires_at)}"
        )

    with SecretStore(home).kept(signer, secret):
        run_call(home, key, build, tx=tx, human=human)


@click.command(cls=TxCommand)
@click.argument("game_id", metavar="GAME", shell_complete=complete.games)
@click.option("--seed", help="Your secret; default: 32 random bytes, kept in the home.")
@click.option("--send", "send", metavar="COINS", help="Override the stake sent.")
@key_argument()
@tx_options
@common_options
def accept(
    game_id: str, seed: str | None, send: str | None, key: str, home: Path, tx: TxOptions
) -> None:
    """Accept an offer (Accept), sending exactly its stake and the hash of your seed.

    \b
    Example:
      c4 accept 1 bob
    """
    gid = _game_arg(game_id)
    coins = None if send is None else format_coins(parse_amount(send))
    signer = acting_address(home, key, tx.master)
    if seed is not None:
        refuse_weak(seed, "--seed")
    secret = seed if seed is not None else new_secret()
    commitment = commitment_of(secret)

    with SecretStore(home).kept(signer, secret):
        run_call(home, key, workflow.accept(gid, commitment, send=coins), tx=tx)


@click.command(cls=TxCommand)
@click.argument("game_id", metavar="GAME", shell_complete=complete.games)
@click.option("--secret", help="The passphrase or seed; default: the one kept in the home.")
@key_argument()
@tx_options
@common_options
def reveal(game_id: str, secret: str | None, key: str, home: Path, tx: TxOptions) -> None:
    """Reveal your secret: Reveal for the creator, RevealSeed for the acceptor.

    \b
    Example:
      c4 reveal 1 alice
    """
    gid = _game_arg(game_id)
    signer = acting_address(home, key, tx.master)
    build = workflow.reveal(gid, signer, secret=secret, secrets=SecretStore(home), key=key)
    run_call(home, key, build, tx=tx)


@click.command(cls=TxCommand)
@click.argument("game_id", metavar="GAME", shell_complete=complete.games)
@click.argument("column", metavar="COLUMN|best", shell_complete=complete.columns)
@click.option("--move", type=INT64, help="The move count you saw (default: the current one).")
@key_argument()
@tx_options
@common_options
@takes_run
def play(
    run: Invocation,
    game_id: str,
    column: str,
    move: int | None,
    key: str,
    home: Path,
    tx: TxOptions,
) -> None:
    """Drop a disc in COLUMN (1-7) of GAME (Play); `best` plays the solver's choice.

    `best` is the lowest column with the best exact score for the side to move
    (see `c4 solve`), worked out from the game as it stands before the move is
    sent. The move is pinned to that position: if another move lands first, the
    realm refuses this one and nothing is played.

    \b
    Example:
      c4 play 1 4 alice
      c4 play 1 4 --move 6 alice   # a script that may retry pins the move
      c4 play 1 best alice
    """
    gid = _game_arg(game_id)
    if column == "best":
        # Solved outside the chain's lock (an early position may take a while),
        # so other writers are not held up; the pinned move count keeps it honest.
        game = RealmClient(run.open_chain(home)).game(gid)
        column = str(best_column(gid, game))
        if move is None and game is not None:
            move = game.moves
    play_column(home, gid, column, move, key, tx)


def best_column(gid: int, game: GameView | None) -> int:
    """The solver's choice for the side to move in a game that is being played."""
    if game is None or game.status != Status.PLAYING or game.turn == 0:
        raise BadInput(f"game {gid} has no move to play now: no best column")
    return solver.best_move(game.board())


def _simple(func: str, example: str, summary: str) -> click.Command:
    """A command that calls ``func(GAME)`` and nothing more."""

    @click.argument("game_id", metavar="GAME", shell_complete=complete.games)
    @key_argument()
    @tx_options
    @common_options
    def command(game_id: str, key: str, home: Path, tx: TxOptions) -> None:
        gid = _game_arg(game_id)
        run_call(home, key, workflow.given(workflow.game_call(func, gid)), tx=tx)

    command.__doc__ = f"{summary}\n\n\b\nExample:\n  {example}"
    return click.command(func_name(func), cls=TxCommand)(command)


def func_name(func: str) -> str:
    return "".join(f"-{c.lower()}" if c.isupper() else c for c in func).lstrip("-")


@click.command("claim-timeout", cls=TxCommand)
@click.argument("game_id", metavar="GAME", shell_complete=complete.games)
@click.option(
    "--wait",
    "wait",
    type=Seconds(0, 3600),
    default=0,
    metavar="SECONDS",
    help="If the realm says the clock has not run out yet (on a node, the next block's "
    "time decides, and it may lag this machine's clock), try again each second for up "
    "to this long. Each try is simulated first, so a refused one costs nothing.",
)
@key_argument()
@tx_options
@common_options
def claim_timeout(game_id: str, wait: int, key: str, home: Path, tx: TxOptions) -> None:
    """Settle a game whose clock ran out (ClaimTimeout); anyone may call it.

    \b
    Example:
      c4 claim-timeout 1 bob
      c4 claim-timeout 1 bob --wait 30
    """
    gid = _game_arg(game_id)
    give_up = wallclock.monotonic() + wait
    while True:
        try:
            claim = workflow.given(workflow.game_call("ClaimTimeout", gid))
            run_call(home, key, claim, tx=tx)
            return
        except Refused as refused:
            # Only a refusal that cost nothing is tried again (a landed one says so).
            late = refused.code == CLOCK_RUNNING and outbox.standing() is None
            if not late or wallclock.monotonic() + 1 > give_up:
                raise
        wallclock.sleep(1)


resign = _simple("Resign", "c4 resign 1 bob", "Give up a game you play in (Resign).")


@click.command("call", cls=TxCommand)
@click.argument("func")
@click.argument("args", nargs=-1)
@click.option("--send", "send", metavar="COINS", default="", help="Coins sent with the call.")
@key_argument()
@tx_options
@common_options
def call(func: str, args: tuple[str, ...], send: str, key: str, home: Path, tx: TxOptions) -> None:
    """Call any realm function with string arguments, exactly as given (vm/m_call).

    \b
    Example:
      c4 call Play 1 4 0 alice
      c4 call Offer "" 15 "$COMMITMENT" 100000 --send 10gnot alice
    """
    coins = format_coins(parse_amount(send)) if send else ""
    run_call(home, key, workflow.given(workflow.Call(func, list(args), coins)), tx=tx)

"""Game transactions: each command builds one vm/m_call and leaves every rule to the realm."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from c4cli.chain.clock import format_time
from c4cli.chain.coins import UGNOT, format_coins, gnot, parse_amount, parse_ugnot
from c4cli.chain.keys import Keyring
from c4cli.chain.node import LocalChain, Receipt
from c4cli.chain.secrets import SecretStore, commitment_of, new_secret
from c4cli.chain.state import ChainState
from c4cli.chain.tx import call_msg
from c4cli.commands.common import (
    acting_address,
    parse_duration,
    print_receipt,
    submit,
    tx_options,
)
from c4cli.commands.options import common_options, game_id_arg
from c4cli.errors import BadInput, Refused
from c4cli.realm.address import is_address
from c4cli.realm.connect4 import PLAYING, WON, Game
from c4cli.realm.views import game_json

# A call as built inside the chain's lock: (function, string args, coins sent).
Call = tuple[str, list[str], str]
Build = Callable[[ChainState], Call]


def _game_arg(text: str) -> str:
    return str(game_id_arg(text))


def address_arg(home: Path, text: str) -> str:
    """A local key's address, or an address exactly as typed (the realm judges its spelling)."""
    keyring = Keyring(home)
    if keyring.exists(text):
        return keyring.info(text).address
    if is_address(text):
        return text
    raise BadInput(f"{text!r} is neither a local key nor a g1 address")


def _game(state: ChainState, game_id: str) -> Game:
    game = state.realm.games.get(int(game_id))
    if game is None:
        raise Refused("game not found")
    return game


def run_call(
    home: Path,
    key: str,
    build: Build,
    *,
    opts: dict[str, Any],
    human: Callable[[ChainState, Receipt], str] | None = None,
) -> None:
    """Sign and submit one realm call; print the gnokey receipt (or JSON) and a human line.

    ``build`` runs against the state the call will execute on, inside the lock,
    so defaults read from the chain (the stake, the move count) cannot go stale.
    """
    signer = acting_address(home, key, opts["master"])

    def msgs(state: ChainState) -> list[dict[str, Any]]:
        func, args, send = build(state)
        return [call_msg(signer, state.genesis.realm_path, func, args, send)]

    receipt = submit(home, key, msgs, opts)
    state = receipt.state
    game = None
    if receipt.result.game_id is not None:
        game = json.loads(game_json(state.realm, state.time, receipt.result.game_id))["game"]
    print_receipt(
        receipt,
        as_json=opts["as_json"],
        gas_wanted=opts["gas_wanted"],
        human=(human or _settled)(state, receipt),
        game=game,
    )


def _settled(state: ChainState, receipt: Receipt) -> str:
    """One line on what a call did to its game, for a person reading the terminal."""
    if receipt.result.game_id is None:
        return ""
    game = state.realm.games[receipt.result.game_id]
    lines = [f"game {game.id}: {game.status}"]
    if game.status == WON:
        lines[0] += f", winner {game.winner}"
    elif game.status == PLAYING and game.turn:
        lines[0] += f", move {len(game.moves)}, {game.player(game.turn)} to play"
    elif game.status == PLAYING:
        waiting = f"{game.acceptor}'s seed" if game.revealed else f"{game.creator}'s reveal"
        lines[0] += f", waiting for {waiting}"
    for to, amount in receipt.result.transfers:
        lines.append(f"paid {gnot(amount)} to {to}")
    return "\n".join(lines)


def _valid_for_minutes(text: str) -> str:
    """--valid-for: whole minutes, as ``15m``, ``1h`` or a bare number of minutes."""
    why = f"invalid --valid-for {text!r}: whole minutes, e.g. 15m or 1h (a bare number is minutes)"
    try:
        seconds = parse_duration(text, what="--valid-for", bare="m")
    except BadInput:
        raise BadInput(why) from None
    if seconds % 60:
        raise BadInput(why)
    return str(seconds // 60)


@click.command()
@click.option("--stake", required=True, metavar="COINS", help="Your stake, e.g. 10gnot.")
@click.option(
    "--valid-for",
    default="15m",
    show_default=True,
    metavar="MINUTES",
    help="Offer lifetime in whole minutes: 15m, 1h, or a bare number of minutes.",
)
@click.option("--opponent", metavar="ADDR_OR_NAME", help="Reserve the game for one player.")
@click.option("--max-fee", metavar="COINS", help="Highest house fee you accept (default: now's).")
@click.option("--passphrase", help="Your secret; default: 32 random bytes, kept in the home.")
@click.argument("key")
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
    **opts: Any,
) -> None:
    """Offer a staked game (Offer). Sends the stake and only the hash of your secret.

    \b
    Example:
      c4 offer --stake 10gnot --valid-for 15m alice
    """
    stake_ugnot = parse_ugnot(stake)
    minutes = _valid_for_minutes(valid_for)
    rival = address_arg(home, opponent) if opponent else ""
    cap = None if max_fee is None else str(parse_ugnot(max_fee))
    signer = acting_address(home, key, opts["master"])
    secret = passphrase if passphrase is not None else new_secret()
    commitment = commitment_of(secret)

    def build(state: ChainState) -> Call:
        fee = cap if cap is not None else str(state.realm.fee)
        sent = f"{stake_ugnot}{UGNOT}" if stake_ugnot else ""
        return "Offer", [rival, minutes, commitment, fee], sent

    def human(state: ChainState, receipt: Receipt) -> str:
        game = state.realm.games[int(receipt.result.values[0][0])]
        return (
            f"game {game.id} offered: stake {gnot(game.stake)}, fee {gnot(game.fee)}, "
            f"open until {format_time(game.expires_at)}"
        )

    with SecretStore(home).kept(signer, secret):
        run_call(home, key, build, opts=opts, human=human)


@click.command()
@click.argument("game_id", metavar="GAME")
@click.option("--seed", help="Your secret; default: 32 random bytes, kept in the home.")
@click.option("--send", "send", metavar="COINS", help="Override the stake sent.")
@click.argument("key")
@tx_options
@common_options
def accept(
    game_id: str, seed: str | None, send: str | None, key: str, home: Path, **opts: Any
) -> None:
    """Accept an offer (Accept), sending exactly its stake and the hash of your seed.

    \b
    Example:
      c4 accept 1 bob
    """
    gid = _game_arg(game_id)
    coins = None if send is None else format_coins(parse_amount(send))
    signer = acting_address(home, key, opts["master"])
    secret = seed if seed is not None else new_secret()
    commitment = commitment_of(secret)

    def build(state: ChainState) -> Call:
        sent = coins if coins is not None else f"{_game(state, gid).stake}{UGNOT}"
        return "Accept", [gid, commitment], sent

    with SecretStore(home).kept(signer, secret):
        run_call(home, key, build, opts=opts)


@click.command()
@click.argument("game_id", metavar="GAME")
@click.option("--secret", help="The passphrase or seed; default: the one kept in the home.")
@click.argument("key")
@tx_options
@common_options
def reveal(game_id: str, secret: str | None, key: str, home: Path, **opts: Any) -> None:
    """Reveal your secret: Reveal for the creator, RevealSeed for the acceptor.

    \b
    Example:
      c4 reveal 1 alice
    """
    gid = _game_arg(game_id)
    signer = acting_address(home, key, opts["master"])
    store = SecretStore(home)

    def build(state: ChainState) -> Call:
        game = _game(state, gid)
        acceptor = signer == game.acceptor
        value = secret
        if value is None:
            value = store.find(signer, game.seed_commitment if acceptor else game.commitment)
        if value is None:
            raise BadInput(f"no kept secret for game {gid} and key {key}: pass --secret")
        return ("RevealSeed" if acceptor else "Reveal"), [gid, value], ""

    run_call(home, key, build, opts=opts)


@click.command()
@click.argument("game_id", metavar="GAME")
@click.argument("column", metavar="COLUMN|best")
@click.option("--move", type=int, help="The move count you saw (default: the current one).")
@click.argument("key")
@tx_options
@common_options
def play(game_id: str, column: str, move: int | None, key: str, home: Path, **opts: Any) -> None:
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
    if column != "best" and not (column.lstrip("-").isdigit() and column.isascii()):
        raise BadInput(f"invalid column {column!r}: use 1-7, or best")
    if column == "best":
        # Solved outside the chain's lock (an early position may take a while),
        # so other writers are not held up; the pinned move count keeps it honest.
        game = LocalChain(home).state().realm.games.get(int(gid))
        column = str(_best_column(gid, game))
        if move is None and game is not None:
            move = len(game.moves)

    def build(state: ChainState) -> Call:
        game = state.realm.games.get(int(gid))
        seen = move if move is not None else (len(game.moves) if game else 0)
        return "Play", [gid, column, str(seen)], ""

    run_call(home, key, build, opts=opts)


def _best_column(gid: str, game: Game | None) -> int:
    """The solver's choice for the side to move in a game that is being played."""
    from c4cli.engine import solver

    if game is None or game.status != "playing" or game.turn == 0:
        raise BadInput(f"game {gid} has no move to play now: no best column")
    return solver.best_columns(solver.solve_all(game.moves))[0]


def _simple(func: str, example: str, summary: str) -> click.Command:
    """A command that calls ``func(GAME)`` and nothing more."""

    @click.argument("game_id", metavar="GAME")
    @click.argument("key")
    @tx_options
    @common_options
    def command(game_id: str, key: str, home: Path, **opts: Any) -> None:
        gid = _game_arg(game_id)
        run_call(home, key, lambda state: (func, [gid], ""), opts=opts)

    command.__doc__ = f"{summary}\n\n\b\nExample:\n  {example}"
    return click.command(func_name(func))(command)


def func_name(func: str) -> str:
    return "".join(f"-{c.lower()}" if c.isupper() else c for c in func).lstrip("-")


claim_timeout = _simple(
    "ClaimTimeout",
    "c4 claim-timeout 1 bob",
    "Settle a game whose clock ran out (ClaimTimeout); anyone may call it.",
)
cancel = _simple(
    "Cancel",
    "c4 cancel 1 alice",
    "Cancel an open offer (Cancel): the creator any time, anyone once expired.",
)
resign = _simple("Resign", "c4 resign 1 bob", "Give up a game you play in (Resign).")


@click.command("set-fee")
@click.argument("amount", metavar="COINS")
@click.argument("key")
@tx_options
@common_options
def set_fee(amount: str, key: str, home: Path, **opts: Any) -> None:
    """Set the house fee for new offers (SetFee, owner only).

    \b
    Example:
      c4 set-fee 0.2gnot test1
    """
    ugnot = str(parse_ugnot(amount))
    run_call(home, key, lambda state: ("SetFee", [ugnot], ""), opts=opts)


@click.command("withdraw-fees")
@click.option("--to", "to", metavar="ADDR_OR_NAME", help="Default: the signer.")
@click.argument("key")
@tx_options
@common_options
def withdraw_fees(to: str | None, key: str, home: Path, **opts: Any) -> None:
    """Send the collected fees, never stakes, to an address (WithdrawFees, owner only).

    \b
    Example:
      c4 withdraw-fees --to treasury test1
    """
    target = address_arg(home, to) if to else acting_address(home, key, opts["master"])
    run_call(home, key, lambda state: ("WithdrawFees", [target], ""), opts=opts)


@click.command("transfer-ownership")
@click.argument("new_owner", metavar="ADDR_OR_NAME")
@click.argument("key")
@tx_options
@common_options
def transfer_ownership(new_owner: str, key: str, home: Path, **opts: Any) -> None:
    """Name a new owner (TransferOwnership); it takes over once it accepts.

    \b
    Example:
      c4 transfer-ownership carol test1
    """
    target = address_arg(home, new_owner)
    run_call(home, key, lambda state: ("TransferOwnership", [target], ""), opts=opts)


@click.command("accept-ownership")
@click.argument("key")
@tx_options
@common_options
def accept_ownership(key: str, home: Path, **opts: Any) -> None:
    """Become the owner you were named as (AcceptOwnership).

    \b
    Example:
      c4 accept-ownership carol
    """
    run_call(home, key, lambda state: ("AcceptOwnership", [], ""), opts=opts)


@click.command("call")
@click.argument("func")
@click.argument("args", nargs=-1)
@click.option("--send", "send", metavar="COINS", default="", help="Coins sent with the call.")
@click.argument("key")
@tx_options
@common_options
def call(func: str, args: tuple[str, ...], send: str, key: str, home: Path, **opts: Any) -> None:
    """Call any realm function with string arguments, exactly as given (vm/m_call).

    \b
    Example:
      c4 call Play 1 4 0 alice
      c4 call Offer "" 15 "$COMMITMENT" 100000 --send 10gnot alice
    """
    coins = format_coins(parse_amount(send)) if send else ""
    run_call(home, key, lambda state: (func, list(args), coins), opts=opts)

"""Game transactions: each command builds one vm/m_call and leaves every rule to the realm."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from c4cli import outbox
from c4cli.address import is_address
from c4cli.chain.clock import format_time
from c4cli.chain.interface import Reader, Receipt
from c4cli.chain.tx import Msg, call_msg
from c4cli.client.realm_client import GameView, RealmClient, game_of
from c4cli.coins import UGNOT, format_coins, gnot, parse_amount, parse_ugnot
from c4cli.commands.options import common_options, game_id_arg
from c4cli.commands.text import names, parse_duration, who
from c4cli.commands.transact import acting_address, open_chain, print_receipt, submit, tx_options
from c4cli.commitment import commitment_of
from c4cli.errors import BadInput, C4Error, Refused, warn_once
from c4cli.home.keys import Keyring
from c4cli.home.secrets import SecretStore, new_secret

# A call as built from the chain at the moment it is signed: (function, string
# args, coins sent). On the local chain that is inside the lock it runs under.
Call = tuple[str, list[str], str]
BuildCall = Callable[[RealmClient], Call]


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


def _game(realm: RealmClient, game_id: str) -> GameView:
    game = realm.game(int(game_id))
    if game is None:
        raise Refused("game not found")
    return game


Human = Callable[[GameView | None, Receipt, dict[str, str]], str]


def run_call(
    home: Path,
    key: str,
    build: BuildCall,
    *,
    opts: dict[str, Any],
    human: Human | None = None,
) -> None:
    """Sign and submit one realm call; print the gnokey receipt (or JSON) and a human line.

    ``build`` reads the chain the call will execute on (inside the lock, on the
    local chain), so defaults read from it (the stake, the move count) cannot
    go stale. The game the call was about is read back once it landed.
    """
    signer = acting_address(home, key, opts["master"])

    def msgs(reader: Reader) -> list[Msg]:
        func, args, send = build(RealmClient(reader))
        return [call_msg(signer, reader.realm_path, func, args, send)]

    receipt = submit(home, key, msgs, opts)
    # From here on the transaction is in a block: nothing below may fail the command.
    game = None
    about = game_of(receipt.result)
    if about is not None and not receipt.simulated:
        try:
            game = RealmClient(open_chain(home)).game(about)
        except C4Error as exc:
            warn_once(
                f"warning: the transaction is recorded (TX HASH {receipt.result.hash}), "
                f"but game {about} could not be read back: {exc}"
            )
    known = names(home)
    ending = None if game is None else game.ending(_settling_call(receipt))
    print_receipt(
        receipt,
        as_json=opts["as_json"],
        human=(human or _settled)(game, receipt, known),
        game=None if game is None else game.document,
        known=known,
        extra={} if ending is None else {"ending": str(ending)},
    )


def _settled(game: GameView | None, receipt: Receipt, known: dict[str, str]) -> str:
    """One line on what a call did, for a person reading the terminal."""
    lines = [_status_line(game, known, _settling_call(receipt))] if game is not None else []
    lines += [f"paid {gnot(amount)} to {who(to, known)}" for to, amount in receipt.result.transfers]
    return "\n".join(lines)


def _settling_call(receipt: Receipt) -> str | None:
    """The realm function a transaction called last: what settled a game it ended."""
    return receipt.result.funcs[-1] if receipt.result.funcs else None


def _status_line(game: GameView, known: dict[str, str], settled_by: str | None = None) -> str:
    line = f"game {game.id}: {game.status}"
    if game.status == "won":
        line += f", winner {who(game.winner, known)} ({game.ending(settled_by)})"
    elif game.status == "playing" and game.turn:
        line += f", move {game.moves}, {who(game.player(game.turn), known)} to play"
    elif game.status == "playing":
        owed = (
            f"{who(game.acceptor, known)}'s seed"
            if game.revealed
            else f"{who(game.creator, known)}'s reveal"
        )
        line += f", waiting for {owed}"
    return line


def _owner_line(text: str) -> Human:
    """The human line of an owner command: what changed, in one line."""
    return lambda game, receipt, known: (
        text
        + "".join(
            f"; paid {gnot(amount)} to {who(to, known)}" for to, amount in receipt.result.transfers
        )
    )


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

    def build(realm: RealmClient) -> Call:
        # The realm's own parameters, by name: a realm without maxFee (the samcrew
        # realm on gno.land) is sent the arguments it takes, in its order.
        params = realm.params("Offer")
        if params is None:
            raise Refused(f"function Offer not found in {realm.reader.realm_path}")
        if "maxFee" not in params and cap is not None:
            raise BadInput(f"--max-fee: the realm at {realm.reader.realm_path} takes no maxFee")
        values = {"opponent": rival, "validFor": minutes, "commitment": commitment}
        if "maxFee" in params:
            values["maxFee"] = cap if cap is not None else str(realm.fee())
        unknown = [name for name in params if name not in values]
        if unknown:
            raise BadInput(f"the realm's Offer takes {', '.join(unknown)}, which c4 cannot fill in")
        sent = f"{stake_ugnot}{UGNOT}" if stake_ugnot else ""
        return "Offer", [values[name] for name in params], sent

    def human(game: GameView | None, receipt: Receipt, known: dict[str, str]) -> str:
        if game is None:  # recorded, but not read back (a warning said why)
            return f"game {game_of(receipt.result)} offered"
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

    def build(realm: RealmClient) -> Call:
        sent = coins if coins is not None else f"{_game(realm, gid).stake}{UGNOT}"
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

    def build(realm: RealmClient) -> Call:
        game = _game(realm, gid)
        acceptor = signer == game.acceptor
        value = secret
        if value is None:
            value = store.find(signer, game.seed_commitment if acceptor else game.commitment)
        if value is None and signer not in (game.creator, game.acceptor):
            raise BadInput(f"{key} is not a player in game {gid}: it has nothing to reveal")
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
        game = RealmClient(open_chain(home)).game(int(gid))
        column = str(best_column(gid, game))
        if move is None and game is not None:
            move = game.moves

    def build(realm: RealmClient) -> Call:
        game = realm.game(int(gid))
        seen = move if move is not None else (game.moves if game else 0)
        return "Play", [gid, column, str(seen)], ""

    run_call(home, key, build, opts=opts)


def best_column(gid: str, game: GameView | None) -> int:
    """The solver's choice for the side to move in a game that is being played."""
    from c4cli.engine import solver

    if game is None or game.status != "playing" or game.turn == 0:
        raise BadInput(f"game {gid} has no move to play now: no best column")
    return solver.best_columns(solver.solve_all(game.board()))[0]


def _simple(func: str, example: str, summary: str) -> click.Command:
    """A command that calls ``func(GAME)`` and nothing more."""

    @click.argument("game_id", metavar="GAME")
    @click.argument("key")
    @tx_options
    @common_options
    def command(game_id: str, key: str, home: Path, **opts: Any) -> None:
        gid = _game_arg(game_id)
        run_call(home, key, lambda realm: (func, [gid], ""), opts=opts)

    command.__doc__ = f"{summary}\n\n\b\nExample:\n  {example}"
    return click.command(func_name(func))(command)


def func_name(func: str) -> str:
    return "".join(f"-{c.lower()}" if c.isupper() else c for c in func).lstrip("-")


NOT_RUN_OUT = "move clock has not run out"


@click.command("claim-timeout")
@click.argument("game_id", metavar="GAME")
@click.option(
    "--wait",
    "wait",
    type=click.IntRange(min=0, max=3600),
    default=0,
    metavar="SECONDS",
    help="If the realm says the clock has not run out yet (on a node, the next block's "
    "time decides, and it may lag this machine's clock), try again each second for up "
    "to this long. Each try is simulated first, so a refused one costs nothing.",
)
@click.argument("key")
@tx_options
@common_options
def claim_timeout(game_id: str, wait: int, key: str, home: Path, **opts: Any) -> None:
    """Settle a game whose clock ran out (ClaimTimeout); anyone may call it.

    \b
    Example:
      c4 claim-timeout 1 bob
      c4 claim-timeout 1 bob --wait 30
    """
    import time as wallclock

    gid = _game_arg(game_id)
    give_up = wallclock.monotonic() + wait
    while True:
        try:
            run_call(home, key, lambda realm: ("ClaimTimeout", [gid], ""), opts=opts)
            return
        except Refused as refused:
            # Only a refusal that cost nothing is tried again (a landed one says so).
            late = str(refused) == NOT_RUN_OUT and outbox.standing() is None
            if not late or wallclock.monotonic() + 1 > give_up:
                raise
        wallclock.sleep(1)


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
    ugnot = parse_ugnot(amount)
    run_call(
        home,
        key,
        lambda realm: ("SetFee", [str(ugnot)], ""),
        opts=opts,
        human=_owner_line(f"house fee for new offers set to {gnot(ugnot)}"),
    )


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
    run_call(
        home,
        key,
        lambda realm: ("WithdrawFees", [target], ""),
        opts=opts,
        human=lambda game, receipt, known: (
            "; ".join(
                f"fees withdrawn: {gnot(amount)} to {who(to, known)}"
                for to, amount in receipt.result.transfers
            )
            or "fees withdrawn: nothing was collected"
        ),
    )


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
    line = f"ownership offered to {who(target, names(home))}; it takes over once it accepts"
    run_call(
        home,
        key,
        lambda realm: ("TransferOwnership", [target], ""),
        opts=opts,
        human=_owner_line(line),
    )


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
    line = f"{key} now owns the realm"
    run_call(
        home, key, lambda realm: ("AcceptOwnership", [], ""), opts=opts, human=_owner_line(line)
    )


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
    run_call(home, key, lambda realm: (func, list(args), coins), opts=opts)

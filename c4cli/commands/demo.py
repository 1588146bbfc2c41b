"""c4 demo: one whole staked game on a fresh local chain, step by step."""

from __future__ import annotations

import json
import shlex
import tempfile
from pathlib import Path

import click

from c4cli.chain.clock import format_time, parse_time
from c4cli.chain.interface import Receipt, Signer
from c4cli.client import genesis, workflow
from c4cli.client.realm_client import game_of
from c4cli.coins import gnot, ugnot_in
from c4cli.commands.options import quiet_option
from c4cli.commands.run import current
from c4cli.commands.text import call_text
from c4cli.commands.text import names as key_names
from c4cli.errors import BadInput
from c4cli.home.keys import DEV_KEY, Keyring
from c4cli.home.secrets import SecretStore
from c4cli.local.genesis import DEFAULT_REALM_PATH
from c4cli.wire import crypto
from c4cli.wire.msgs import MsgCall

STAKE = 10_000_000
GENESIS_TIME = "2026-01-01T00:00:00Z"


def _signer(keyring: Keyring, name: str) -> Signer:
    info, private_key = keyring.unlock(name, lambda: None)
    return Signer(info.address, private_key)


@click.command()
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    default=lambda: current().home if "home" in current().given else None,
    help="Play in this (new or empty) folder; default: a new folder under the system's temp.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    default=lambda: current().json,
    help="Print only the final summary as JSON.",
)
@quiet_option
def demo(home: Path | None, as_json: bool) -> None:
    """Play one whole staked game on a fresh chain: keys, offer, accept, reveals, moves.

    The chain is kept, in a new folder under the system's temporary folder unless
    --home names a new or empty one; the end says where, for `c4 verify` or `c4 log`.
    The chain clock is manual, so the run is the same every time except for the
    secrets.

    \b
    Example:
      c4 demo
      c4 demo --home ./demo-chain && c4 log --home ./demo-chain
    """
    if home is not None:
        if home.exists() and any(home.iterdir()):
            raise BadInput(f"{home} is not empty: the demo needs a new or empty folder")
    else:
        home = Path(tempfile.mkdtemp(prefix="c4-demo-"))
    _play(home, as_json)


def _play(home: Path, as_json: bool) -> None:
    say = (lambda text: None) if as_json else click.echo
    keyring = Keyring(home)
    genesis.with_dev_key(keyring)
    for name in ("alice", "bob"):
        keyring.add(name, crypto.derive_private_key(crypto.new_mnemonic()), "")
    alice, bob = (_signer(keyring, n) for n in ("alice", "bob"))
    names = key_names(home)  # alice, bob and test1, by address
    plan = genesis.LocalPlan(
        "dev", True, parse_time(GENESIS_TIME), "manual", 5, DEFAULT_REALM_PATH, DEV_KEY, [],
        None, False, False,
    )  # fmt: skip
    chain = genesis.make_local(home, plan, force=False).chain
    say(f"A fresh chain in {home}: manual clock from {GENESIS_TIME}, 5 s per block.")
    say(f"alice and bob each hold {gnot(genesis.PREMINE_UGNOT)}; {DEV_KEY} owns the realm.\n")

    def balance(address: str) -> int:
        coins = json.loads(chain.query(f"bank/balances/{address}").data)
        return ugnot_in(coins)

    start = {a: balance(a) for a in names}
    table = workflow.Table(chain, SecretStore(home))

    def shown(who: Signer, receipt: Receipt) -> Receipt:
        msg = receipt.result.tx.msgs[0]
        args = list(msg.args) if isinstance(msg, MsgCall) else []
        say(
            f"  height {receipt.height:>2}  {format_time(receipt.time)}  "
            f"{names[who.address]:<5} {call_text(msg.name, args, short=True)}"
        )
        return receipt

    say(f"alice offers {gnot(STAKE)}, committing to a secret she keeps; bob accepts:")
    game_id = game_of(shown(alice, table.offer(alice, STAKE)).result)
    assert game_id is not None
    shown(bob, table.accept(bob, game_id))
    say("both reveal; the first mover is drawn from the two secrets:")
    shown(alice, table.reveal(alice, game_id))
    shown(bob, table.reveal(bob, game_id))
    game = table.game(game_id)
    first = alice if game.player(game.turn) == alice.address else bob
    second = bob if first is alice else alice
    say(f"{names[first.address]} moves first and stacks column 4; the other answers in 5:")
    for move in range(7):
        mover, column = (first, 4) if move % 2 == 0 else (second, 5)
        shown(mover, table.play(mover, game_id, column))
    game = table.game(game_id)
    say("\n" + game.board().text(swap_colors=game.creator_is_yellow))
    fees = table.realm_client.fees()
    wins, won = table.realm_client.leaders()
    height = chain.head().height
    summary = {
        "game": game_id,
        "winner": game.winner,
        "winner_key": names[game.winner],
        "payout_ugnot": game.payout(),
        "fee_collected_ugnot": fees.collected,
        "balances": [{"address": a, "key": names[a], "ugnot": balance(a)} for a in names],
        # LeadersJSON's shape, as `c4 leaders --json` gives it, with each key's name.
        "leaders": {
            "wins": [{"addr": a, "score": s, "key": names.get(a)} for a, s in wins],
            "gnot": [{"addr": a, "score": s, "key": names.get(a)} for a, s in won],
        },
        "height": height,
        "home": str(home),
    }
    if as_json:
        click.echo(json.dumps(summary))
        return
    say(f"{names[game.winner]} wins {gnot(game.payout())} (the pot less the fee).\n")
    say("balances:")
    for address, name in names.items():
        change = balance(address) - start[address]
        sign = "+" if change >= 0 else "-"
        say(f"  {name:<6}{gnot(balance(address)):>18}  ({sign}{gnot(abs(change))})")
    say(f"fee collected by the realm: {gnot(fees.collected)}")
    say("leaderboards:")
    for title, board in (("wins", wins), ("gnot", won)):
        ranks = ", ".join(f"{names[a]} {s if title == 'wins' else gnot(s)}" for a, s in board)
        say(f"  {title}: {ranks}")
    say(f"\n{height} blocks, kept in {home}; replay and check every one with:")
    say(f"  c4 verify --home {shlex.quote(str(home))}")

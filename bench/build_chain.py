"""Build a local chain of N real signed transactions: whole staked games, not filler.

    python bench/build_chain.py 100000 /tmp/c4-bench/100k [--workers 2]

Sixteen keys play games in pairs: offer, accept, both reveals, then seven moves
to a win (11 transactions a game; the last game may stop part-way to make N).
Every transaction is signed with its key, in parallel worker processes, then
executed in order through the chain's own executor (``ChainState.apply_block``,
the code every command replays) and written with the log's own block writer.
The chain is the same a user would get by running the commands one by one,
only without starting a process per transaction.
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from c4cli.chain.clock import format_time, parse_time
from c4cli.client import workflow
from c4cli.commitment import commitment_of
from c4cli.home.keys import Keyring
from c4cli.local.blocks import tx_entry
from c4cli.local.chain import LocalChain
from c4cli.local.genesis import Genesis, block_hash
from c4cli.local.log import render_block
from c4cli.realm.memory import first_mover
from c4cli.realm.rules import CREATOR, DEFAULT_PATH
from c4cli.wire import crypto
from c4cli.wire.msgs import Msg
from c4cli.wire.tx import fee, signed_tx

PLAYERS = 16
STAKE = 1_000_000  # ugnot
FEE = fee(2_000_000, "0ugnot")


def key_of(n: int) -> bytes:
    return hashlib.sha256(f"c4 bench player {n}".encode()).digest()


def game_txs(game: int, addresses: list[str], moves: str) -> list[tuple[int, Msg]]:
    """One game's transactions: offer, accept, both reveals, then ``moves`` (columns 1-7).

    The players are a pair of the sixteen keys; the first mover is the realm's
    formula over the two secrets, the id and the two addresses, so who plays
    which move is known in advance.
    """
    a = (2 * (game - 1)) % PLAYERS
    b = a + 1
    creator, acceptor = addresses[a], addresses[b]
    passphrase, seed = f"pass-{game}", f"seed-{game}"
    commitment = commitment_of(passphrase)
    seed_commitment = commitment_of(seed)
    calls = [
        (a, workflow.offer_call(STAKE, commitment, valid_for=60, max_fee=500_000)),
        (b, workflow.accept_call(game, seed_commitment, STAKE)),
        (a, workflow.reveal_call(game, passphrase, acceptor=False)),
        (b, workflow.reveal_call(game, seed, acceptor=True)),
    ]
    first = first_mover(passphrase, seed, game, creator, acceptor)
    movers = (a, b) if first == CREATOR else (b, a)
    calls += [
        (movers[number % 2], workflow.play_call(game, column, number))
        for number, column in enumerate(moves)
    ]
    return [(player, call.msg(addresses[player], DEFAULT_PATH)) for player, call in calls]


def plan(total: int, addresses: list[str]) -> list[tuple[int, Msg]]:
    """``total`` transactions of games won in seven moves (columns 4 and 5), in order."""
    txs: list[tuple[int, Msg]] = []
    game = 0
    while len(txs) < total:
        game += 1
        txs.extend(game_txs(game, addresses, "4545454"))
    return txs[:total]


def sign_range(
    args: tuple[list[tuple[int, Msg, int, int]], str],
) -> list[dict[str, Any]]:
    work, chain_id = args
    out = []
    for player, msg, number, sequence in work:
        tx = signed_tx(
            [msg],
            FEE,
            "",
            private_key=key_of(player),
            chain_id=chain_id,
            account_number=number,
            sequence=sequence,
        )
        out.append(tx_entry(tx, number, sequence))
    return out


def keys(home: Path) -> list[str]:
    """A fresh home with the sixteen players' keys; their addresses."""
    if home.exists():
        shutil.rmtree(home)
    keyring = Keyring(home)
    for n in range(PLAYERS):
        keyring.add(f"p{n}", key_of(n), "")
    return [keyring.info(f"p{n}").address for n in range(PLAYERS)]


def build(home: Path, planned: list[tuple[int, Msg]], workers: int) -> None:
    """A chain at ``home`` (holding :func:`keys`) made of the planned transactions."""
    addresses = [Keyring(home).info(f"p{n}").address for n in range(PLAYERS)]
    genesis = Genesis(
        chain_id="dev",
        time=parse_time("2026-01-01T00:00:00Z"),
        clock="manual",
        block_interval=5,
        realm_path=DEFAULT_PATH,
        deployer=addresses[0],
        balances=tuple((a, "10000000000000ugnot") for a in addresses),
    )
    chain = LocalChain(home)
    state = chain.init(genesis)
    started = time.perf_counter()
    numbers = {a: state.accounts[a].number for a in addresses}
    sequences = dict.fromkeys(addresses, 0)
    work = []
    for player, msg in planned:
        address = addresses[player]
        work.append((player, msg, numbers[address], sequences[address]))
        sequences[address] += 1
    size = max(1, len(work) // (workers * 8))
    pieces = [(work[i : i + size], "dev") for i in range(0, len(work), size)]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        entries = [e for part in pool.map(sign_range, pieces) for e in part]
    signed = time.perf_counter()
    with open(chain.log.path, "ab") as log:
        for entry in entries:
            record: dict[str, Any] = {
                "height": state.height + 1,
                "time": format_time(state.time + 5),
                "prev_hash": state.last_hash,
                "txs": [entry],
            }
            record["hash"] = block_hash(record)
            state.apply_block(record, new=True)  # the executor every command replays
            log.write(render_block(record))
        log.flush()
        os.fsync(log.fileno())
    written = time.perf_counter()
    chain.cache.discard()
    print(
        f"{home}: {len(entries)} transactions, {state.height} blocks, "
        f"{len(state.realm.games)} games; signed in {signed - started:.1f} s "
        f"({workers} processes), executed and written in {written - signed:.1f} s; "
        f"log {chain.log.path.stat().st_size / 1e6:.1f} MB",
        file=sys.stderr,
    )
    assert crypto.address_of(crypto.public_key(key_of(0))) == addresses[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("transactions", type=int)
    parser.add_argument("home", type=Path)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    addresses = keys(args.home)
    build(args.home, plan(args.transactions, addresses), args.workers)


if __name__ == "__main__":
    main()

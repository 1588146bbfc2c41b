"""A verified read against the realm's history: `c4 show`, `lobby` and `audit` on a
node home at a few sizes of history, beside the same command with --trust-node.

    python bench/verified_reads.py [--at 500,5000,20000] [--rounds 5]

Starts a gnoland v1.7.1 (scripts/install-gno.sh) that makes a block every 20 ms,
deploys the realm, and fills it
with whole games, one call a transaction (bench/fill.py). At each size a home that
took part in nothing is synced once, its first command (which makes the
checkpoint) is timed, then each command runs ``--rounds`` times in turns with its
--trust-node twin, and the medians are printed. A second home, synced at the first
size and left, catches up at the last one: the time of its first `c4 show`.

`c4 play` is timed in a game of the filler's first two keys, added to the home: the
41 moves of a drawn game before its last, verified and with --trust-node in turns.

Issue 61's targets: at 20,000 realm transactions a verified `c4 show`, `lobby` and `play`
within 1.3x of --trust-node and within 1.2x of the same at 500; `c4 audit` within 2x
of `c4 show`; a home away for 15,000 transactions catches up at most 1 ms each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

from fill import GNO, STAKE, Filler, fast_node, key_of  # noqa: E402
from real_gnoland.gnonode import GnoNode  # noqa: E402

from c4cli.client import workflow  # noqa: E402
from c4cli.commitment import commitment_of  # noqa: E402
from c4cli.home.keys import DEV_MNEMONIC, Keyring  # noqa: E402
from c4cli.realm.memory import first_mover  # noqa: E402
from c4cli.realm.rules import CREATOR  # noqa: E402

REALM_PATH = "gno.land/r/c4cli/connect4"
C4 = str(Path(sys.executable).with_name("c4"))
CALLS_A_GAME = 11
DRAWN = "315117645176335765636674142222472457245331"  # 42 moves, nobody wins


def timed(home: Path, *args: str) -> float:
    env = dict(os.environ, C4_HOME=str(home), C4_PASSWORD="", C4_QUIET="1")
    began = time.perf_counter()
    run = subprocess.run([C4, *args], env=env, capture_output=True, text=True, timeout=900)
    took = time.perf_counter() - began
    assert run.returncode in (0, 1), (args, run.stdout, run.stderr)
    return took * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--at", default="500,5000,20000", help="Realm transactions.")
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    sizes = sorted({int(n) for n in options.at.split(",")})
    folder = Path(tempfile.mkdtemp(prefix="c4-verified-reads-"))
    # A block every 20 ms, with transactions or without, as on a chain in use: the block
    # that proves a transaction's result comes at once (with blocks only for
    # transactions, tm2 makes it a second later, and a verified command right after a
    # move waits for it: the light client's price, not the history's).
    node = fast_node(folder, empty_blocks=True)
    try:
        node.deploy(GNO / "r" / "c4cli" / "connect4", REALM_PATH, DEV_MNEMONIC)
        filler = Filler(node, REALM_PATH)
        away = folder / "away"
        for size in sizes:
            filler.games(max(size // CALLS_A_GAME - filler.made, 0), per_tx=1)
            measure(node, filler, folder / f"at-{size}", size, options.rounds)
            if size == sizes[0]:
                timed_init(away, node.url)
                timed(away, "sync")
        took = timed(away, "show", "1")
        print(f"a home synced at {sizes[0]} and back at {sizes[-1]}: first `c4 show` {took:.0f} ms")
    finally:
        node.stop()


def timed_init(home: Path, url: str) -> None:
    timed(home, "init", "--remote", url, "--realm-path", REALM_PATH)


def plays(filler: Filler, home: Path) -> dict[str, list[float]]:
    """`c4 play` verified and with --trust-node, in turns, in one more game of players 0
    and 1 (their keys added to ``home``): each a real move, sent and landed, the 41
    moves of a drawn game before its last; then the filler's sequences read again."""
    game = filler.made + 1
    filler.made += 1
    passphrase, seed = f"bench-{game}", f"bench-seed-{game}"
    a, b = 0, 1
    filler.send(a, [workflow.offer_call(STAKE, commitment_of(passphrase), valid_for=60,
                                        max_fee=500_000)])  # fmt: skip
    filler.send(b, [workflow.accept_call(game, commitment_of(seed), STAKE)])
    filler.send(a, [workflow.reveal_call(game, passphrase, acceptor=False)])
    filler.send(b, [workflow.reveal_call(game, seed, acceptor=True)])
    filler.settle_sent()
    keyring = Keyring(home)
    for n in (a, b):
        keyring.add(f"p{n}", key_of(n), "")
    first = first_mover(passphrase, seed, game, filler.players[a], filler.players[b])
    movers = ("p0", "p1") if first == CREATOR else ("p1", "p0")
    found: dict[str, list[float]] = {"play": [], "play --trust-node": []}
    for number, column in enumerate(DRAWN):  # 41 moves timed, in turns; the 42nd draws
        trusting = ["--trust-node"] if number % 2 else []
        name = "play --trust-node" if trusting else "play"
        took = timed(home, *trusting, "play", str(game), column, movers[number % 2])
        if number < len(DRAWN) - 1:
            found[name].append(took)
    filler.resync()
    return found


def measure(node: GnoNode, filler: Filler, home: Path, size: int, rounds: int) -> None:
    timed_init(home, node.url)
    synced = timed(home, "sync")
    first = timed(home, "show", "1")
    commands = {"show": ["show", "1"], "lobby": ["lobby"], "audit": ["audit"]}
    found: dict[str, list[float]] = {}
    found.update(plays(filler, home))
    for _ in range(rounds):
        for name, args in commands.items():
            found.setdefault(name, []).append(timed(home, *args))
            if name != "audit":
                found.setdefault(f"{name} --trust-node", []).append(
                    timed(home, "--trust-node", *args)
                )
    load = os.getloadavg()[0]
    medians = {name: statistics.median(times) for name, times in found.items()}
    print(f"{size} realm transactions (load {load:.2f}): sync {synced:.0f} ms, first show "
          f"{first:.0f} ms")  # fmt: skip
    for name, value in medians.items():
        print(f"  {name:<20} {value:7.0f} ms")


if __name__ == "__main__":
    main()

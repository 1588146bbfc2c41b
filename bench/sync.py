"""`c4 sync` from nothing on a long chain, near the node and across a wide-area link.

    python bench/sync.py [--blocks 10000] [--txs 500] [--rtt 50] [--tls]

Starts a gnoland on 127.0.0.1 (gno's binaries from scripts/install-gno.sh) that
makes a block every few milliseconds, with transactions or without, deploys the
realm in gno/, and has two keys send ``--txs`` realm transactions (whole games of
``c4`` moves, in turns with the empty blocks) until the chain is ``--blocks`` long.
Then a home that took part in nothing runs ``c4 sync``:

- near the node, and across tests/real_gnoland/wan.py's link (``--rtt`` ms, ``--tls``): the
  time from nothing to the head, the requests it sent, the realm's transactions kept;
- the index's size on disk, and the sync's peak memory (its resident set);
- a command on the synced home (``c4 show`` of a game, which brings the history up
  to the head first): its requests across the link, beside the same command on a
  home that keeps no history (what checking the node's word costs), and gnokey's
  ``query vm/qeval`` of the same GameJSON, which proves nothing.

Then `c4 init --fork` of the realm across the same link, from nothing (it keeps a
history of the node of its own, in the user's cache folder), and again at the same
height, from its cache.

Targets (issue 50): across the 50 ms link, a chain of 10,000 blocks holding 500 realm
transactions syncs from nothing in at most 10 s; a command on a synced home pays at
most one round trip more than on a home that keeps no history; the index of 100,000
realm transactions fits in 50 MiB (here: the size per transaction, times 100,000).
Issue 51: the fork in at most 15 s the first time, at most 2 s from the cache.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from real_gnoland.gnonode import GnoNode, install_gno  # noqa: E402
from real_gnoland.wan import Counts, Link  # noqa: E402

from c4cli.home.keys import DEV_MNEMONIC  # noqa: E402

REALM_PATH = "gno.land/r/c4cli/connect4"
PACKAGE_PATH = "gno.land/p/c4cli/gno4"
TEST1 = "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"  # the dev mnemonic's key: deploys the realm
C4 = str(Path(sys.executable).with_name("c4"))
GAME = "4545454"  # 11 transactions a game: offer, accept, two reveals, seven moves


def c4(home: Path, *args: str, env: dict[str, str] | None = None) -> str:
    run = subprocess.run(
        [C4, *args],
        env=dict(os.environ, C4_HOME=str(home), C4_PASSWORD="", C4_QUIET="1", **(env or {})),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, (args, run.stdout, run.stderr)
    return run.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=10_000, help="The chain's length.")
    parser.add_argument("--txs", type=int, default=500, help="Realm transactions in it.")
    parser.add_argument("--rtt", type=float, default=50, help="The link's round trip, in ms.")
    parser.add_argument("--tls", action="store_true", help="Reach the node over HTTPS.")
    options = parser.parse_args()
    bin_dir, gnoroot = install_gno()
    folder = Path(tempfile.mkdtemp(prefix="c4-sync-bench-"))
    player = folder / "player"
    keys = {name: json.loads(c4(player, "keys", "add", name, "--json")) for name in "ab"}
    funded = {str(key["address"]): 10**13 for key in keys.values()} | {TEST1: 10**12}
    node = GnoNode(bin_dir, gnoroot, folder / "node")
    node.create(funded, empty_blocks=True)
    node.configure({"consensus.timeout_commit": "20ms", "consensus.timeout_propose": "100ms"})
    node.launch()
    try:
        gno = HERE.parent / "gno"
        node.deploy(gno / "p" / "c4cli" / "gno4", PACKAGE_PATH, DEV_MNEMONIC)
        node.deploy(gno / "r" / "c4cli" / "connect4", REALM_PATH, DEV_MNEMONIC)
        c4(player, "init", "--remote", node.url, "--realm-path", REALM_PATH)
        made = build(node, player, options)
        print(f"chain: {node.latest_height()} blocks, {made} realm transactions by c4")
        measure(node, folder, options, made)
    finally:
        node.stop()


def build(node: GnoNode, player: Path, options: argparse.Namespace) -> int:
    """Whole games until ``--txs`` realm transactions, then empty blocks until the
    chain is ``--blocks`` long; the transactions sent."""
    sent = 0
    first_key = json.loads(c4(player, "keys", "show", "a", "--json"))["address"]
    while sent + len(GAME) + 4 <= options.txs:
        offer = json.loads(c4(player, "offer", "--stake", "1gnot", "a", "--json"))
        game = str(offer["result"][0])
        c4(player, "accept", game, "b")
        c4(player, "reveal", game, "a")
        turn = json.loads(c4(player, "reveal", game, "b", "--json"))["game"]["turnPlayer"]
        first = "a" if turn == first_key else "b"
        second = "b" if first == "a" else "a"
        for move, column in enumerate(GAME):
            c4(player, "play", game, column, first if move % 2 == 0 else second)
        sent += len(GAME) + 4
        # Spread the games along the chain, as on a real one.
        spread = options.blocks * sent // max(options.txs, 1)
        while node.latest_height() < min(spread, options.blocks):
            time.sleep(0.2)
    while node.latest_height() < options.blocks:
        time.sleep(0.5)
    return sent


def synced(home: Path, url: str, env: dict[str, str]) -> tuple[float, dict[str, object], float]:
    """A home that took part in nothing, bound to ``url``, synced from nothing: the
    seconds, `c4 sync --json`'s document, and the sync's peak resident set (MiB)."""
    c4(home, "init", "--remote", url, "--realm-path", REALM_PATH, env=env)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    began = time.perf_counter()
    document = json.loads(c4(home, "sync", "--json", env=env))
    seconds = time.perf_counter() - began
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, document, max(peak, before) / 1024


def measure(node: GnoNode, folder: Path, options: argparse.Namespace, made: int) -> None:
    seconds, document, peak = synced(folder / "near", node.url, {})
    index = Path(str(document["index"]))
    size = sum(p.stat().st_size for p in (index, Path(f"{index}-wal")) if p.exists())
    txs = int(str(document["txs"]))
    with sqlite3.connect(index) as db:  # the deployment's source, once a chain: set apart
        deployed = db.execute("SELECT COALESCE(SUM(LENGTH(tx)), 0) FROM txs WHERE kind = 'deploy'")
        source = int(deployed.fetchone()[0])
    each = (size - source) / max(txs - 1, 1)
    print(f"near the node: {seconds:.2f} s, {document['read']}, peak RSS {peak:.0f} MiB")
    print(
        f"index: {size / 1024:.0f} KiB for {txs} transactions ({source / 1024:.0f} KiB of them "
        f"the deployment's source); {each:.0f} B a transaction beside it"
    )
    print(f"  100,000 transactions: about {each * 100_000 / 2**20:.0f} MiB")
    port = int(node.url.rsplit(":", 1)[1])
    link = Link(port, rtt_ms=options.rtt, tls=options.tls, folder=folder)
    env = {"SSL_CERT_FILE": str(link.cert_file)} if options.tls else {}
    before = link.counts()
    seconds, document, peak = synced(folder / "far", link.url, env)
    spent = delta(before, link.counts())
    print(
        f"across the link ({options.rtt:.0f} ms{', TLS' if options.tls else ''}): "
        f"{seconds:.2f} s, {spent.requests} requests on {spent.connections} connections"
    )
    # A command on the synced home, beside the same on a home that keeps no history.
    bare = folder / "bare"
    c4(bare, "init", "--remote", link.url, "--realm-path", REALM_PATH, env=env)
    for name, home in (("synced home", folder / "far"), ("no history", bare)):
        last = node.latest_height()
        if home != bare:  # read up to now, then the show reads what came since
            last = int(str(json.loads(c4(home, "sync", "--json", env=env))["height"]))
        before = link.counts()
        began = time.perf_counter()
        c4(home, "show", "1", env=env)
        took = time.perf_counter() - began
        spent = delta(before, link.counts())
        since = f", {node.latest_height() - last} blocks made since its last read"
        print(
            f"c4 show 1, {name}{since if home != bare else ''}: {took * 1000:.0f} ms, "
            f"{spent.requests} requests"
        )
    forks(folder, link, env)
    print(f"(the chain had {made} realm transactions by c4 in {node.latest_height()} blocks)")


def forks(folder: Path, link: Link, env: dict[str, str]) -> None:
    """`c4 init --fork` across the link from nothing (its own history of the node, in a
    cache folder of its own), then the same height again from the cache: the link's
    requests of the second should be none."""
    cache = dict(env, XDG_CACHE_HOME=str(folder / "fork-cache"))
    taken: list[int] = []
    for name in ("first", "again"):
        target = link.url if not taken else f"{link.url}@{taken[0]}"
        before = link.counts()
        began = time.perf_counter()
        made = json.loads(
            c4(folder / f"fork-{name}", "init", "--fork", target, "--realm-path", REALM_PATH,
               "--json", env=cache)
        )  # fmt: skip
        took = time.perf_counter() - began
        spent = delta(before, link.counts())
        taken.append(int(made["origin"]["height"]))
        print(
            f"c4 init --fork, {name}: {took:.2f} s, {spent.requests} requests "
            f"(block {made['origin']['height']}, {len(made['balances'])} home keys funded)"
        )


def delta(before: Counts, after: Counts) -> Counts:
    return Counts(*(b - a for a, b in zip(before, after, strict=True)))


if __name__ == "__main__":
    main()

"""gnokey direct against gnokey through `c4 serve --upstream` (the verifying gateway),
interleaved, near the node or across a wide-area link.

    python bench/gateway.py [--rounds 9] [--rtt MS] [--tls]

Starts a gnoland on 127.0.0.1 with the realm deployed (as bench/remote.py does), a
home bound to it (its validators trusted), and `c4 serve --upstream` on that home,
on this machine: where a user runs the gateway, with the link (``--rtt``, ``--tls``:
tests/real_gnoland/wan.py) between it and the node, as between gnokey and the node
when gnokey asks directly. Each round, in turns, one sample each way: gnokey's
``query auth/accounts``, ``query bank/balances``, ``query vm/qeval`` of a game,
``maketx call`` of a move (its block waited for, both ways), and a burst: eight
balance queries at once. Prints the medians and the ratio (gateway / direct).
What the gateway adds is the proof: a header and a store proof a query, the block
and the next header's results a move; the proven head is kept half a second.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

import remote  # noqa: E402  (bench/remote.py: the node, the link, c4 installed)
import run as bench  # noqa: E402
from real_gnoland.gnonode import CHAIN_ID  # noqa: E402

BURST = 8


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="Rounds timed.")
    options = remote.parsed(parser)
    bin_dir, gnoroot = remote.prepared(options)
    gnokey = str(bin_dir / "gnokey")
    folder = Path(tempfile.mkdtemp(prefix="c4-gateway-bench-"))
    home, gk_home = folder / "c4", folder / "gnokey"
    keys = {name: remote._c4(home, "keys", "add", name) for name in ("alice", "bob")}
    funded = {str(key["address"]): 10**12 for key in keys.values()}
    funded[remote.TEST1] = 10**12
    node = remote.started(bin_dir, gnoroot, folder, funded)
    served = None
    try:
        for name, key in keys.items():
            remote._gnokey(bin_dir, gk_home, ["add", name, "--recover"], f"{key['mnemonic']}\n\n\n")
        url, _ = remote.reached(node, options, folder)
        remote._c4(home, "init", "--remote", url, "--realm-path", remote.REALM_PATH)
        served = subprocess.Popen(
            [bench.C4, "serve", "--upstream", url, "--listen", "127.0.0.1:0", "--json"],
            env=remote._env(home),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert served.stdout is not None
        gateway = json.loads(served.stdout.readline())["url"]
        samples = rounds(options, gnokey, gk_home, home, {"direct": url, "gateway": gateway})
    finally:
        if served is not None:
            served.send_signal(2)
            served.wait(timeout=30)
        node.stop()
    report(options, samples)


def rounds(
    options: argparse.Namespace, gnokey: str, gk_home: Path, home: Path, urls: dict[str, str]
) -> dict[str, list[float]]:
    alice = str(remote._c4(home, "keys", "show", "alice")["address"])
    game = str(remote._c4(home, "offer", "--stake", "1gnot", "alice")["result"][0])
    remote._c4(home, "accept", game, "bob")
    remote._c4(home, "reveal", game, "alice")
    first = remote._c4(home, "reveal", game, "bob")["game"]["turn"]
    players = ("alice", "bob") if first == 1 else ("bob", "alice")
    samples: dict[str, list[float]] = {}
    moves = 0

    def gk(url: str, *args: str, stdin: str | None = None) -> None:
        argv = [gnokey, *args, "-remote", url.removeprefix("http://"), "-home", str(gk_home)]
        proc = subprocess.run(argv, input=stdin, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"gnokey {' '.join(args[:2])} failed: {proc.stderr.strip()[:300]}")

    def timed(what: str, way: str, times: int, *args: str, stdin: str | None = None) -> None:
        """gnokey ``args`` through ``way``, ``times`` at once."""
        began = time.perf_counter()
        with ThreadPoolExecutor(times) as pool:
            for job in [pool.submit(gk, urls[way], *args, stdin=stdin) for _ in range(times)]:
                job.result()
        samples.setdefault(f"{what}|{way}", []).append(time.perf_counter() - began)

    expression = f"{remote.REALM_PATH}.GameJSON({game})"
    for _ in range(options.rounds):
        for way in urls:
            timed("query auth/accounts", way, 1, "query", f"auth/accounts/{alice}")
            timed("query bank/balances", way, 1, "query", f"bank/balances/{alice}")
            timed("query vm/qeval", way, 1, "query", "vm/qeval", "-data", expression)
            timed(f"{BURST} balances at once", way, BURST, "query", f"bank/balances/{alice}")
            if moves >= len(bench.DRAWN) - 1:
                continue  # the drawn game is over: queries only
            call = ["maketx", "call", "-pkgpath", remote.REALM_PATH, "-func", "Play"]
            for arg in (game, bench.DRAWN[moves], str(moves)):
                call += ["-args", arg]
            call += ["-gas-wanted", remote.GAS_WANTED, "-gas-fee", remote.GAS_FEE, "-broadcast"]
            call += ["-chainid", CHAIN_ID, "-insecure-password-stdin", players[moves % 2]]
            timed("maketx call Play", way, 1, *call, stdin="\n")
            moves += 1
    return samples


def report(options: argparse.Namespace, samples: dict[str, list[float]]) -> None:
    far = bool(options.rtt or options.tls)
    where = (
        f"a {options.rtt:g} ms link{' over TLS' if options.tls else ''} to the node"
        if far
        else "gnoland on 127.0.0.1"
    )
    print(f"c4 bench (gateway), {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, ", end="")
    print(f"medians of {options.rounds} interleaved rounds, {where}\n")
    print(f"  {'gnokey':<26}{'direct':>10}{'gateway':>10}{'ratio':>8}")
    for what in dict.fromkeys(key.split("|")[0] for key in samples):
        direct = statistics.median(samples[f"{what}|direct"])
        through = statistics.median(samples[f"{what}|gateway"])
        print(
            f"  {what:<26}{direct * 1000:>7.0f} ms{through * 1000:>7.0f} ms"
            f"{through / direct:>7.2f}x"
        )


if __name__ == "__main__":
    main()

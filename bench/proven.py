"""A proven balance beside the node's word: ``c4 query balance`` on a home that verifies
blocks, the same with ``--trust-node``, and gnokey's ``query bank/balances``, in turns,
near the node or across a wide-area link.

    python bench/proven.py [--rounds 20] [--rtt MS] [--tls]

Starts a gnoland on 127.0.0.1 (as bench/remote.py does), binds a c4 home to it, and
times, round after round: the proven read (the account's key and its proof, held to
the last header the light client proved: issue 63), the same read taking the node's
word, gnokey's, and a proven read right after the account's own transfer, sent from
this home (read-your-writes: the block that proves the new balance is awaited). With
``--rtt``/``--tls``, tests/real_gnoland/wan.py stands between the clients and the
node, and each command's HTTP requests through it are counted.

Target (issue 63): a proven balance costs at most one round trip more than the
node's word.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

import run as bench  # noqa: E402  (bench/run.py: the venv install)
from real_gnoland.wan import Link  # noqa: E402
from remote import REALM_PATH, TEST1, _c4, _env, parsed, prepared, reached, started  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    options = parsed(parser)
    bin_dir, gnoroot = prepared(options)
    folder = Path(tempfile.mkdtemp(prefix="c4-proven-bench-"))
    home = folder / "c4"
    alice = str(_c4(home, "keys", "add", "alice")["address"])
    node = started(bin_dir, gnoroot, folder, {alice: 10**12, TEST1: 10**12})
    try:
        url, link = reached(node, options, folder)
        _c4(home, "init", "--remote", url, "--realm-path", REALM_PATH)
        samples, requests = rounds(options, url, link, bin_dir, home, alice)
    finally:
        node.stop()
    print(f"c4 query balance on a node, medians of {options.rounds} rounds"
          f"{f', a {options.rtt:g} ms link' if options.rtt else ', near the node'}"
          f"{' over TLS' if options.tls else ''}\n")  # fmt: skip
    print(f"  {'read':<34}{'median':>10}{'requests':>10}")
    for name, taken in samples.items():
        asked = f"{statistics.median(requests[name]):g}" if requests[name] else "-"
        print(f"  {name:<34}{statistics.median(taken) * 1e3:>8.0f}ms{asked:>10}")


def rounds(
    options: argparse.Namespace, url: str, link: Link | None, bin_dir: Path, home: Path,
    alice: str,
) -> tuple[dict[str, list[float]], dict[str, list[int]]]:  # fmt: skip
    names = ["proven", "the node's word (--trust-node)", "gnokey query bank/balances",
             "proven, after this home's own send"]  # fmt: skip
    samples: dict[str, list[float]] = {name: [] for name in names}
    requests: dict[str, list[int]] = {name: [] for name in names}
    gnokey = [str(bin_dir / "gnokey"), "query", f"bank/balances/{alice}", "-remote",
              url.removeprefix("http://")]  # fmt: skip

    def timed(name: str, args: list[str], env: dict[str, str] | None) -> None:
        before = link.counts() if link else None
        started = time.perf_counter()
        proc = subprocess.run(args, env=env, capture_output=True, text=True)
        samples[name].append(time.perf_counter() - started)
        if proc.returncode != 0:
            sys.exit(f"{name}: {proc.stderr.strip()}")
        if link and before:
            requests[name].append(link.counts().requests - before.requests)

    c4 = [bench.C4, "query", "balance", "alice"]
    for _ in range(options.rounds):
        timed(names[0], c4, _env(home))
        timed(names[1], [bench.C4, "--trust-node", "query", "balance", "alice"], _env(home))
        if not options.tls:
            timed(names[2], gnokey, None)
        _c4(home, "send", "--to", TEST1, "--amount", "1ugnot", "alice")
        timed(names[3], c4, _env(home))
    if options.tls:
        del samples[names[2]], requests[names[2]]
    return samples, requests


if __name__ == "__main__":
    main()

"""What proving a landing costs: c4's light client on a network of 4 validators.

    python bench/light.py [--sends 20] [--repeat 200]

Starts `c4 node start --validators 4` in a temporary home (gno's binaries from
scripts/install-gno.sh, as the tests use them), lands ``--sends`` transactions with
`c4 send` (each verified, as every landing is), then measures:

- the CPU time of proving one block that holds a transaction, as a move's receipt
  proves it (``Verifier.block``: the data hash, the header hash, the four
  validators' ed25519 signatures), on the blocks the sends landed in, each proven
  ``--repeat`` times from answers already fetched (the median, and the slowest);
- the same for the header alone (``Verifier.latest``'s work, the head of a view);
- whole `c4 send` commands in turns, verified and with ``--trust-node``: their
  median wall time and the CPU (user + system) of the process, and the middle half
  of the runs' CPU (a process's CPU varies by tens of milliseconds from run to run,
  more than verification costs: both modes import the same modules);
- the requests each made (the broadcast's batch carries the block and its commit:
  verified or not, a send makes the same number), through tests/real_gnoland/wan.py.

Goal (issue 40): under 5 ms of CPU a move on 4 validators, and no extra round trip.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from real_gnoland.gnonode import install_gno  # noqa: E402
from real_gnoland.wan import Link  # noqa: E402

from c4cli.home.keys import Keyring  # noqa: E402
from c4cli.home.trust import TrustFile  # noqa: E402
from c4cli.node.light.verify import Verifier  # noqa: E402
from c4cli.node.net.rpc import Rpc  # noqa: E402
from c4cli.node.net.transport import Transport  # noqa: E402

PLAYER_KEY = bytes.fromhex("11" * 32)
TO = "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sends", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=200)
    options = parser.parse_args()
    bin_dir, gnoroot = install_gno()
    c4 = str(Path(sys.executable).with_name("c4"))
    with tempfile.TemporaryDirectory(prefix="c4-light-") as folder:
        home = Path(folder) / "home"
        Keyring(home).add("alice", PLAYER_KEY, "")
        env = dict(
            os.environ,
            C4_HOME=str(home),
            C4_PASSWORD="",
            GNO_BIN=str(bin_dir),
            GNOROOT=str(gnoroot),
        )
        started = run(c4, env, "node", "start", "--validators", "4", "--json")
        urls = json.loads(started)["url"].split(",")
        try:
            measure(c4, env, home, urls, options)
        finally:
            subprocess.run([c4, "node", "stop"], env=env, capture_output=True, check=False)


def run(c4: str, env: dict[str, str], *args: str) -> str:
    proc = subprocess.run([c4, *args], env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise SystemExit(f"c4 {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def timed_send(c4: str, env: dict[str, str], *extra: str) -> tuple[float, float, int]:
    """One `c4 send`: its wall time, its CPU (user + system) and the height it landed at."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = run(c4, env, *extra, "send", "--to", TO, "--amount", "1ugnot", "alice", "--json")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, int(json.loads(out)["height"])


def measure(
    c4: str, env: dict[str, str], home: Path, urls: list[str], options: argparse.Namespace
) -> None:
    verified: list[tuple[float, float]] = []
    trusting: list[tuple[float, float]] = []
    heights = []
    for _ in range(options.sends):  # in turns: the machine's phases fall on both alike
        wall, cpu, height = timed_send(c4, env)
        verified.append((wall, cpu))
        heights.append(height)
        wall, cpu, _ = timed_send(c4, env, "--trust-node")
        trusting.append((wall, cpu))
    transport = Transport(urls[0], chain_id="dev")
    check = Verifier(transport, TrustFile(home))
    rpc = Rpc(transport)
    fetched = [(rpc.block(h), rpc.commit(h)) for h in heights]
    check.block(*fetched[0])  # the trust loaded, the code warm
    blocks = cpu_each(
        lambda b=b, c=c: check.block(b, c) for b, c in fetched for _ in range(options.repeat)
    )
    headers = cpu_each(
        lambda c=c: check.header(c.header, c.commit)
        for _, c in fetched
        for _ in range(options.repeat)
    )
    requests = requests_a_send(c4, env, urls[0], home.parent)
    print(f"c4's light client, 4 validators, {len(heights)} blocks x {options.repeat}")
    print(f"  prove a block holding a move   median {ms(blocks)}, slowest {ms([max(blocks)])}")
    print(f"  prove a header (the head)      median {ms(headers)}")
    walls = [w for w, _ in verified], [w for w, _ in trusting]
    cpus = [c for _, c in verified], [c for _, c in trusting]
    print(f"`c4 send`, {options.sends} each, in turns (median; middle half of the runs)")
    print(f"  verified        wall {ms(walls[0])}, CPU {ms(cpus[0])} ({spread(cpus[0])})")
    print(f"  --trust-node    wall {ms(walls[1])}, CPU {ms(cpus[1])} ({spread(cpus[1])})")
    extra = statistics.median(cpus[0]) - statistics.median(cpus[1])
    print(
        f"  difference of the CPU medians: {extra * 1000:+.1f} ms, within the runs' own "
        "spread: the in-process figures above are the cost (goal: under 5 ms a move)"
    )
    print(f"requests a send makes: verified {requests[0]}, --trust-node {requests[1]}")


def cpu_each(calls: Any) -> list[float]:
    found = []
    for call in calls:
        start = time.process_time()
        call()
        found.append(time.process_time() - start)
    return found


def requests_a_send(c4: str, env: dict[str, str], url: str, folder: Path) -> tuple[int, int]:
    """The HTTP requests one `c4 send` makes through a link, verified and not."""
    link = Link(int(url.rsplit(":", 1)[1]), rtt_ms=0, tls=False, folder=folder)
    counted = []
    for extra in ([], ["--trust-node"]):
        before = link.counts().requests
        args = ["--remote", link.url, *extra, "send", "--to", TO, "--amount", "1ugnot", "alice"]
        run(c4, env, *args)
        counted.append(link.counts().requests - before)
    return counted[0], counted[1]


def spread(values: list[float]) -> str:
    low, _, high = statistics.quantiles(values, n=4)
    return f"{low * 1000:.0f}-{high * 1000:.0f} ms"


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.2f} ms"


if __name__ == "__main__":
    main()

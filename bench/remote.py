"""c4 against gnokey on one gnoland: the same move and the same query, in turns, medians
side by side, near the node or across a wide-area link.

    python bench/remote.py [--rounds 20] [--spacing 2.2] [--rtt MS] [--tls]

Starts a gnoland on 127.0.0.1 (gno's binaries from scripts/install-gno.sh, as the
tests use them), deploys the realm in gno/, and has two keys play drawn games
(42 moves, nobody wins): every even move is ``c4 play`` on the home bound to the
node and every odd one ``gnokey maketx call -func Play ... -broadcast``, each a
real move of a real game, each tool with its defaults (c4 simulates the move and
prices it from the node's gas price; gnokey simulates it, ``-simulate test``, with
the gas and fee it must be given), each waiting for its block. Moves are spaced
(``--spacing`` seconds apart, longer than the node's 1 s block interval) so that no
move waits behind the previous one's block. Between moves, each tool reads a game
(``c4 query game G``; ``gnokey query vm/qeval`` of the realm's ``GameJSON(G)``).

``--rtt MS`` and ``--tls`` put tests/real_gnoland/wan.py between both clients and the node: a
round trip of MS milliseconds (RTT/2 each way, a connection's first bytes one RTT
more), and an HTTPS endpoint whose certificate both trust through $SSL_CERT_FILE.
The endpoint counts each command's connections and HTTP requests, and the node's
own time answering its broadcast (the wait for the block), which a move's time is
given without: what the client's way of talking to the node costs.

Targets: near the node, c4 at most 1.2 times gnokey's median a move, 1.5 times a
query; across a link (``--rtt``), at most 0.95 times a move and 1.10 times a query.
Without a link, ``bench/bare_query.py`` (the same query as the least a Python command
can send) is timed too: the floor a Python client starts from. c4 is installed as a
user would have it (``pip install .``, into bench/run.py's venv).
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
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

import run as bench  # noqa: E402  (bench/run.py: the venv install and the drawn game)
from real_gnoland.gnonode import CHAIN_ID, GnoNode, install_gno  # noqa: E402
from real_gnoland.wan import Counts, Link  # noqa: E402

from c4cli.home.keys import DEV_MNEMONIC  # noqa: E402

REALM_PATH = "gno.land/r/c4cli/connect4"
PACKAGE_PATH = "gno.land/p/c4cli/gno4"
GAS_WANTED = "20000000"
GAS_FEE = "20000ugnot"
TEST1 = "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"  # the dev mnemonic's key: deploys the realm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="Rounds timed (at least 15).")
    parser.add_argument(
        "--spacing", type=float, default=2.2, help="Seconds between two moves (over 1 s)."
    )
    options = parsed(parser)
    bin_dir, gnoroot = prepared(options)
    folder = Path(tempfile.mkdtemp(prefix="c4-remote-bench-"))
    c4_home, gnokey_home = folder / "c4", folder / "gnokey"
    # The players' keys, made by c4 (it prints each new key's mnemonic) and given to gnokey.
    keys = {name: _c4(c4_home, "keys", "add", name) for name in ("alice", "bob")}
    funded = {str(key["address"]): 10**12 for key in keys.values()}
    funded[TEST1] = 10**12
    node = started(bin_dir, gnoroot, folder, funded)
    try:
        for name, key in keys.items():
            _gnokey(bin_dir, gnokey_home, ["add", name, "--recover"], f"{key['mnemonic']}\n\n\n")
        url, link = reached(node, options, folder)
        _c4(c4_home, "init", "--remote", url, "--realm-path", REALM_PATH)
        samples, counts = play(options, url, link, bin_dir, c4_home, gnokey_home)
    finally:
        node.stop()
    report(options, samples, counts)


def parsed(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """``parser``'s options, with the link's and the work folder's added."""
    parser.add_argument("--rtt", type=float, default=0, help="A link's round trip, in ms.")
    parser.add_argument("--tls", action="store_true", help="Reach the node over HTTPS.")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/c4-bench"))
    return parser.parse_args()


def prepared(options: argparse.Namespace) -> tuple[Path, Path]:
    """c4 installed as a user has it (bench/run.py's venv), and gno's binaries: their
    folder and the GNOROOT."""
    options.workdir.mkdir(parents=True, exist_ok=True)
    bench.install(options.workdir)
    return install_gno()


def started(bin_dir: Path, gnoroot: Path, folder: Path, funded: dict[str, int]) -> GnoNode:
    """A gnoland in ``folder``/node whose genesis funds ``funded``, the realm and its
    package deployed by the dev key."""
    (folder / "node").mkdir()
    node = GnoNode(bin_dir, gnoroot, folder / "node")
    node.start(funded)
    try:
        gno = HERE.parent / "gno"
        node.deploy(gno / "p" / "c4cli" / "gno4", PACKAGE_PATH, DEV_MNEMONIC)
        node.deploy(gno / "r" / "c4cli" / "connect4", REALM_PATH, DEV_MNEMONIC)
    except BaseException:
        node.stop()
        raise
    return node


def reached(node: GnoNode, options: argparse.Namespace, folder: Path) -> tuple[str, Link | None]:
    """The URL the clients reach ``node`` by: its own, or through a link of ``--rtt`` ms
    (over HTTPS with ``--tls``, its certificate trusted through $SSL_CERT_FILE)."""
    if not (options.rtt or options.tls):
        return node.url, None
    port = int(node.url.rsplit(":", 1)[1])
    link = Link(port, rtt_ms=options.rtt, tls=options.tls, folder=folder)
    os.environ["SSL_CERT_FILE"] = str(link.cert_file)
    return link.url, link


def report(
    options: argparse.Namespace, samples: dict[str, list[float]], counts: dict[str, list[Counts]]
) -> None:
    far = bool(options.rtt or options.tls)
    limits = (0.95, 1.10) if far else (1.2, 1.5)
    rows = [
        ("one move", "c4 play", "gnokey maketx call Play", "c4", "gnokey", limits[0]),
        ("one query", "c4 query game", "gnokey query vm/qeval", "c4 q", "gnokey q", limits[1]),
    ]
    where = (
        f"a {options.rtt:g} ms link{' over TLS' if options.tls else ''} (tests/real_gnoland/wan.py)"
        if far
        else "gnoland on 127.0.0.1"
    )
    print(f"c4 bench (remote), {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, ", end="")
    print(f"medians of {options.rounds} interleaved rounds, {where}, moves ", end="")
    print(f"{options.spacing:g} s apart, each tool with its defaults\n")
    if far:
        print(f"  {'':<36}{'time':>8}{'outside':>9}{'conns':>7}{'reqs':>6}")
        print(f"  {'':<36}{'':>8}{'block':>9}")
    for _, ours, theirs, mine, other, _ in rows:
        for label, name in ((theirs, other), (ours, mine)):
            line = f"  {label:<36}{statistics.median(samples[name]) * 1000:>6.0f} ms"
            if far:
                seen = counts[name]
                outside = samples.get(name + " out") or samples[name]  # a query: all of it
                line += f"{statistics.median(outside) * 1000:>6.0f} ms"
                line += f"{statistics.median(c.connections for c in seen):>7g}"
                line += f"{statistics.median(c.requests for c in seen):>6g}"
            print(line)
    print(f"\n  {'target':<34}{'measured':>10}{'limit':>10}  result")
    for what, _, _, mine, other, limit in rows:
        key = " out" if far and what == "one move" else ""
        ratio = statistics.median(samples[mine + key]) / statistics.median(samples[other + key])
        verdict = "pass" if ratio <= limit else "FAIL"
        label = f"c4 / gnokey, {what}" + (" (outside its block)" if key else "")
        print(f"  {label:<34}{ratio:>9.2f}x{limit:>9.2f}x  {verdict}")
    if not far:
        bare = statistics.median(samples["bare q"])
        gnokey_q = statistics.median(samples["gnokey q"])
        above = statistics.median(samples["c4 q"]) - bare
        print(f"\n  the floor, bench/bare_query.py (a bare JSON-RPC query): {bare * 1000:.0f} ms")
        print(
            f"  ({bare / gnokey_q:.2f}x gnokey's query); c4's query {above * 1000:.0f} ms above it"
        )


def play(
    options: argparse.Namespace,
    url: str,
    link: Link | None,
    bin_dir: Path,
    c4_home: Path,
    gnokey_home: Path,
) -> tuple[dict[str, list[float]], dict[str, list[Counts]]]:
    """Rounds of a c4 move, a gnokey move (each ``options.spacing`` s after the last), a
    c4 query, a gnokey query (and, near the node, the bare query), until each was timed
    ``options.rounds`` times; with a link, what each command sent through it."""
    names = ["c4", "gnokey", "c4 q", "gnokey q"] + ([] if link else ["bare q"])
    samples: dict[str, list[float]] = {name: [] for name in names}
    samples.update({"c4 out": [], "gnokey out": []})
    counts: dict[str, list[Counts]] = {name: [] for name in names}
    game, moves, players = "", len(bench.DRAWN), ("alice", "bob")
    remote = url.removeprefix("http://")

    def timed(name: str, args: list[str], env: dict[str, str] | None, stdin: str = "") -> None:
        before = link.counts() if link else None
        started = time.perf_counter()
        proc = subprocess.run(args, env=env, input=stdin, capture_output=True, text=True)
        took = time.perf_counter() - started
        if proc.returncode != 0:
            sys.exit(f"{name}: {' '.join(args[:3])} failed: {proc.stderr.strip()}")
        samples[name].append(took)
        if link and before:
            after = link.counts()
            delta = Counts(*(b - a for a, b in zip(before, after, strict=True)))
            counts[name].append(delta)
            if name in ("c4", "gnokey"):
                samples[name + " out"].append(took - delta.broadcast_seconds)

    while min(len(samples[name]) for name in names) < options.rounds:
        if moves >= len(bench.DRAWN) - 1:
            game = str(_c4(c4_home, "offer", "--stake", "1gnot", "alice")["result"][0])
            _c4(c4_home, "accept", game, "bob")
            _c4(c4_home, "reveal", game, "alice")
            first = _c4(c4_home, "reveal", game, "bob")["game"]["turn"]
            players = ("alice", "bob") if first == 1 else ("bob", "alice")
            moves = 0
        for tool in ("c4", "gnokey"):
            column, key = bench.DRAWN[moves], players[moves % 2]
            time.sleep(options.spacing)
            if tool == "c4":
                args = [bench.C4, "play", game, column, "--move", str(moves), key]
                timed("c4", args, _env(c4_home))
            else:
                call = ["maketx", "call", "-pkgpath", REALM_PATH, "-func", "Play"]
                for arg in (game, column, str(moves)):
                    call += ["-args", arg]
                call += ["-gas-wanted", GAS_WANTED, "-gas-fee", GAS_FEE, "-broadcast"]
                call += ["-chainid", CHAIN_ID, "-remote", remote, key]
                call += ["-home", str(gnokey_home), "-insecure-password-stdin"]
                timed("gnokey", [str(bin_dir / "gnokey"), *call], None, "\n")
            moves += 1
        timed("c4 q", [bench.C4, "query", "game", game], _env(c4_home))
        qeval = ["query", "vm/qeval", "-data", f"{REALM_PATH}.GameJSON({game})"]
        timed("gnokey q", [str(bin_dir / "gnokey"), *qeval, "-remote", remote], None)
        if not link:
            bare = [bench.PYTHON, str(HERE / "bare_query.py"), remote, "vm/qrender"]
            timed("bare q", [*bare, f"{REALM_PATH}:"], None)
    return samples, counts


def _env(home: Path) -> dict[str, str]:
    return dict(os.environ, C4_HOME=str(home), C4_PASSWORD="")


def _c4(home: Path, *args: str) -> dict[str, object]:
    import json

    proc = subprocess.run(
        [bench.C4, *args, "--json"], env=_env(home), capture_output=True, text=True
    )
    if proc.returncode != 0:
        sys.exit(f"c4 {' '.join(args)} failed: {proc.stderr or proc.stdout}")
    document: dict[str, object] = json.loads(proc.stdout)
    return document


def _gnokey(bin_dir: Path, home: Path, args: list[str], stdin: str) -> None:
    proc = subprocess.run(
        [str(bin_dir / "gnokey"), *args, "-home", str(home), "-insecure-password-stdin"],
        input=stdin,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        sys.exit(f"gnokey {' '.join(args[:2])} failed: {proc.stderr.strip()}")


if __name__ == "__main__":
    main()

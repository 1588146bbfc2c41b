"""c4 against gnokey on one gnoland: the same move and the same query, in turns, medians
side by side.

    python bench/remote.py [--rounds 20] [--spacing 2.2]

Starts a gnoland on 127.0.0.1 (gno's binaries from scripts/install-gno.sh, as the
tests use them), deploys the realm in gno/, and has two keys play drawn games
(42 moves, nobody wins): every even move is ``c4 play`` on the home bound to the
node and every odd one ``gnokey maketx call -func Play ... -broadcast``, each a
real move of a real game, each tool with its defaults (c4 simulates the move and
prices it from the node's gas price; gnokey simulates it, ``-simulate test``, with
the gas and fee it must be given), each waiting for its block. Moves are spaced
(``--spacing`` seconds apart, longer than the node's 1 s block interval) so that no
move waits behind the previous one's block: back to back, both tools would mostly
measure the block interval. Between moves, each tool reads the realm's page once
(``c4 query vm/qrender`` and ``gnokey query vm/qrender``), and so does
``bench/bare_query.py``: the same query as the least a Python command can send, with
the interpreter c4 runs under, to measure the floor a Python client starts from.
Targets: c4's median at most 1.2 times gnokey's per move, 1.5 times per query. c4 is
installed as a user would have it (``pip install .``, into bench/run.py's venv).
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
from node.gnonode import CHAIN_ID, GnoNode, install_gno  # noqa: E402

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
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/c4-bench"))
    options = parser.parse_args()
    options.workdir.mkdir(parents=True, exist_ok=True)
    bench.install(options.workdir)
    bin_dir, gnoroot = install_gno()
    folder = Path(tempfile.mkdtemp(prefix="c4-remote-bench-"))
    c4_home, gnokey_home = folder / "c4", folder / "gnokey"
    # The players' keys, made by c4 (it prints each new key's mnemonic) and given to gnokey.
    keys = {name: _c4(c4_home, "keys", "add", name) for name in ("alice", "bob")}
    funded = {str(key["address"]): 10**12 for key in keys.values()}
    funded[TEST1] = 10**12
    (folder / "node").mkdir()
    node = GnoNode(bin_dir, gnoroot, folder / "node")
    node.start(funded)
    try:
        gno = HERE.parent / "gno"
        node.deploy(gno / "p" / "c4cli" / "gno4", PACKAGE_PATH, DEV_MNEMONIC)
        node.deploy(gno / "r" / "c4cli" / "connect4", REALM_PATH, DEV_MNEMONIC)
        for name, key in keys.items():
            _gnokey(bin_dir, gnokey_home, ["add", name, "--recover"], f"{key['mnemonic']}\n\n\n")
        _c4(c4_home, "init", "--remote", node.url, "--realm-path", REALM_PATH)
        samples = play(options, node, bin_dir, c4_home, gnokey_home)
    finally:
        node.stop()
    rows = [
        ("one move", "c4 play", "gnokey maketx call Play", "c4", "gnokey", 1.2),
        ("one query", "c4 query vm/qrender", "gnokey query vm/qrender", "c4 q", "gnokey q", 1.5),
    ]
    print(f"c4 bench (remote), {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, ", end="")
    print(f"medians of {options.rounds} interleaved rounds, gnoland on 127.0.0.1, moves ", end="")
    print(f"{options.spacing:g} s apart, each tool with its defaults\n")
    for _, ours, theirs, mine, other, _ in rows:
        print(f"  {theirs:<40}{statistics.median(samples[other]) * 1000:>8.0f} ms")
        print(f"  {ours:<40}{statistics.median(samples[mine]) * 1000:>8.0f} ms")
    print(f"\n  {'target':<34}{'measured':>10}{'limit':>10}  result")
    for what, _, _, mine, other, limit in rows:
        ratio = statistics.median(samples[mine]) / statistics.median(samples[other])
        verdict = "pass" if ratio <= limit else "FAIL"
        print(f"  {'c4 / gnokey, ' + what:<34}{ratio:>9.2f}x{limit:>9.2f}x  {verdict}")
    bare, gnokey_q = statistics.median(samples["bare q"]), statistics.median(samples["gnokey q"])
    above = statistics.median(samples["c4 q"]) - bare
    print(f"\n  the floor, bench/bare_query.py (a bare JSON-RPC query): {bare * 1000:.0f} ms")
    print(f"  ({bare / gnokey_q:.2f}x gnokey's query); c4's query {above * 1000:.0f} ms above it")


def play(
    options: argparse.Namespace, node: GnoNode, bin_dir: Path, c4_home: Path, gnokey_home: Path
) -> dict[str, list[float]]:
    """Rounds of a c4 move, a gnokey move (each ``options.spacing`` s after the last), a
    c4 query, a gnokey query and the bare query, until each was timed ``options.rounds``
    times."""
    samples: dict[str, list[float]] = {
        "c4": [],
        "gnokey": [],
        "c4 q": [],
        "gnokey q": [],
        "bare q": [],
    }
    game, moves, players = "", len(bench.DRAWN), ("alice", "bob")
    remote = node.url.removeprefix("http://")
    render = ["-data", f"{REALM_PATH}:"]
    while min(len(v) for v in samples.values()) < options.rounds:
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
                started = time.perf_counter()
                subprocess.run(args, env=_env(c4_home), check=True, capture_output=True)
            else:
                call = ["maketx", "call", "-pkgpath", REALM_PATH, "-func", "Play"]
                for arg in (game, column, str(moves)):
                    call += ["-args", arg]
                call += ["-gas-wanted", GAS_WANTED, "-gas-fee", GAS_FEE, "-broadcast"]
                call += ["-chainid", CHAIN_ID, "-remote", remote, key]
                started = time.perf_counter()
                _gnokey(bin_dir, gnokey_home, call, "\n")
            samples[tool].append(time.perf_counter() - started)
            moves += 1
        started = time.perf_counter()
        subprocess.run(
            [bench.C4, "query", "vm/qrender", "--data", f"{REALM_PATH}:"],
            env=_env(c4_home),
            check=True,
            capture_output=True,
        )
        samples["c4 q"].append(time.perf_counter() - started)
        started = time.perf_counter()
        subprocess.run(
            [str(bin_dir / "gnokey"), "query", "vm/qrender", *render, "-remote", remote],
            check=True,
            capture_output=True,
        )
        samples["gnokey q"].append(time.perf_counter() - started)
        bare = [bench.PYTHON, str(HERE / "bare_query.py"), remote, "vm/qrender", render[1]]
        started = time.perf_counter()
        subprocess.run(bare, check=True, capture_output=True)
        samples["bare q"].append(time.perf_counter() - started)
    return samples


def _env(home: Path) -> dict[str, str]:
    return dict(os.environ, C4_HOME=str(home), C4_PASSWORD="")


def _c4(home: Path, *args: str) -> dict[str, object]:
    import json

    proc = subprocess.run(
        [bench.C4, *args, "--json"], env=_env(home), capture_output=True, text=True
    )
    if proc.returncode != 0:
        sys.exit(f"c4 {' '.join(args)} failed: {proc.stderr}")
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

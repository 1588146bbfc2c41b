"""c4 against gnokey on one gnoland: the same kind of move, in turns, medians side by side.

    python bench/remote.py [--rounds 20]

Starts a gnoland on 127.0.0.1 (gno's binaries from scripts/install-gno.sh, as the
tests use them), deploys the realm in gno/, and has two keys play drawn games
(42 moves, nobody wins): every even move is ``c4 play --remote`` and every odd
one ``gnokey maketx call -func Play ... -broadcast``, each a real move of a real
game, both with the same explicit gas and fee, and both waiting for the block.
Target: c4's median at most 1.2 times gnokey's. c4 is installed as a user would
have it (``pip install .``, into bench/run.py's venv).
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
    parser.add_argument("--rounds", type=int, default=20, help="Moves timed for each tool.")
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
        samples = play(options.rounds, node, bin_dir, c4_home, gnokey_home)
    finally:
        node.stop()
    c4_median = statistics.median(samples["c4"])
    gnokey_median = statistics.median(samples["gnokey"])
    ratio = c4_median / gnokey_median
    print(f"c4 bench (remote), {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, ", end="")
    print(f"medians of {options.rounds} moves each, gnoland on 127.0.0.1, 1 s blocks\n")
    print(f"  {'gnokey maketx call Play -broadcast':<40}{gnokey_median * 1000:>8.0f} ms")
    print(f"  {'c4 play --remote':<40}{c4_median * 1000:>8.0f} ms\n")
    verdict = "pass" if ratio <= 1.2 else "FAIL"
    print(f"  {'target':<34}{'measured':>10}{'limit':>10}  result")
    print(f"  {'c4 / gnokey, one move':<34}{ratio:>9.2f}x{1.2:>9.2f}x  {verdict}")


def play(
    rounds: int, node: GnoNode, bin_dir: Path, c4_home: Path, gnokey_home: Path
) -> dict[str, list[float]]:
    """Moves of drawn games in turns, c4 then gnokey, until each made ``rounds``."""
    samples: dict[str, list[float]] = {"c4": [], "gnokey": []}
    game, moves, players = "", len(bench.DRAWN), ("alice", "bob")
    while min(len(v) for v in samples.values()) < rounds:
        if moves == len(bench.DRAWN):
            game = str(_c4(c4_home, "offer", "--stake", "1gnot", "alice")["result"][0])
            _c4(c4_home, "accept", game, "bob")
            _c4(c4_home, "reveal", game, "alice")
            first = _c4(c4_home, "reveal", game, "bob")["game"]["turn"]
            players = ("alice", "bob") if first == 1 else ("bob", "alice")
            moves = 0
        column, key = bench.DRAWN[moves], players[moves % 2]
        if moves % 2 == 0:
            tool = "c4"
            args = [bench.C4, "play", game, column, "--move", str(moves), key]
            args += ["--gas-wanted", GAS_WANTED, "--gas-fee", GAS_FEE]
            started = time.perf_counter()
            subprocess.run(args, env=_env(c4_home), check=True, capture_output=True)
        else:
            tool = "gnokey"
            call = ["maketx", "call", "-pkgpath", REALM_PATH, "-func", "Play"]
            for arg in (game, column, str(moves)):
                call += ["-args", arg]
            call += ["-gas-wanted", GAS_WANTED, "-gas-fee", GAS_FEE, "-broadcast"]
            call += ["-chainid", CHAIN_ID, "-remote", node.url.removeprefix("http://"), key]
            started = time.perf_counter()
            _gnokey(bin_dir, gnokey_home, call, "\n")
        samples[tool].append(time.perf_counter() - started)
        moves += 1
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

"""Measure c4 against its performance targets and print a table with pass/fail.

    python bench/run.py                  # chains of 10, 10,000 and 100,000 transactions
    python bench/run.py --small          # 10 and 2,000: a quick smoke run

Installs c4 as a user would (``pip install .``, bytecode compiled) into a venv of
its own under the work folder, builds the chains once (bench/build_chain.py;
reused if present), then measures, running the compared commands in turns,
round after round, and reporting medians:

1. flat: ``c4 query game 1 --json`` and ``c4 play`` on the largest chain against
   the smallest (at most 1.25 times);
2. near the floor: the same two against ``python -c "import click"`` (at most
   1.5 and 2 times);
3. cold audit: ``c4 verify`` of the largest chain, no cache (10,000 tx/s or more),
   with the split between reading, checks and execution;
4. a whole scripted game, 11 transactions, one command each (at most 3 s);
5. memory: the peak memory of ``c4 verify`` and its worker processes together
   (their proportional set sizes summed, so shared pages count once; under 300 MiB).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DRAWN = "315117645176335765636674142222472457245331"  # 42 moves, nobody wins
PYTHON = sys.executable  # replaced by the bench venv's interpreter in main()
C4 = "c4"


def install(workdir: Path) -> None:
    """A venv with c4 installed from this checkout, as `pip install .` does it."""
    global PYTHON, C4
    venv = workdir / "venv"
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, str(HERE.parent)], check=True)
    subprocess.run([*pip, "--force-reinstall", "--no-deps", str(HERE.parent)], check=True)
    PYTHON = str(venv / "bin" / "python")
    C4 = str(venv / "bin" / "c4")


def run(*args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, C4_PASSWORD="")
    if home is not None:
        env["C4_HOME"] = str(home)
    proc = subprocess.run(args, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(args)} failed: {proc.stderr}")
    return proc


def c4(home: Path, *args: str) -> Any:
    return json.loads(run(C4, *args, "--json", home=home).stdout)


def timed(args: list[str], home: Path | None = None) -> float:
    started = time.perf_counter()
    run(*args, home=home)
    return time.perf_counter() - started


def build(size: int, home: Path) -> None:
    log = home / "chain" / "blocks.toml"
    if log.exists():
        if _log_format(log.read_bytes()[:4096]) == _log_format(LOG_SOURCE.read_bytes()):
            return
        shutil.rmtree(home)  # built by an older c4: its log would be refused
    # With the bench venv's interpreter, where c4 is installed (not necessarily ours).
    subprocess.run([PYTHON, str(HERE / "build_chain.py"), str(size), str(home)], check=True)


LOG_SOURCE = HERE.parent / "c4cli" / "local" / "log.py"


def _log_format(text: bytes) -> int | None:
    """The log format a genesis records, or the one c4's source writes (LOG_FORMAT)."""
    import re

    found = re.search(rb"^(?:LOG_)?(?:FORMAT|format) = (\d+)$", text, re.M)
    return int(found[1]) if found else None


class Mover:
    """Plays the next move of a drawn game on a chain, one fresh game per 42 moves."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.game = ""
        self.moves = 0
        self.players: tuple[str, str] = ("p0", "p1")

    def next_args(self) -> list[str]:
        if not self.game or self.moves == len(DRAWN):
            self._new_game()
        column = DRAWN[self.moves]
        player = self.players[self.moves % 2]
        self.moves += 1
        return [C4, "play", self.game, column, player]

    def _new_game(self) -> None:
        self.game = str(c4(self.home, "offer", "--stake", "1gnot", "p14")["result"][0])
        c4(self.home, "accept", self.game, "p15")
        c4(self.home, "reveal", self.game, "p14")
        first = c4(self.home, "reveal", self.game, "p15")["game"]["turn"]
        self.players = ("p14", "p15") if first == 1 else ("p15", "p14")
        self.moves = 0


def measure_commands(small: Path, large: Path, rounds: int) -> dict[str, float]:
    movers = {small: Mover(small), large: Mover(large)}
    for home in (small, large):  # warm: the cache is built, the files are in memory
        run(C4, "time", home=home)
        run(*movers[home].next_args(), home=home)
    samples: dict[str, list[float]] = {}
    for _ in range(rounds):
        for name, args, home in (
            ("click", [PYTHON, "-c", "import click"], None),
            ("query-small", [C4, "query", "game", "1", "--json"], small),
            ("query-large", [C4, "query", "game", "1", "--json"], large),
            ("play-small", movers[small].next_args(), small),
            ("play-large", movers[large].next_args(), large),
        ):
            samples.setdefault(name, []).append(timed(args, home))
    return {name: statistics.median(values) for name, values in samples.items()}


def tree_memory_mib(pid: int) -> float:
    """Memory of a process and all its descendants: the sum of their proportional set
    sizes (Pss, from /proc), so pages the forked workers share with the main process
    are counted once, as the machine holds them."""
    total_kib = 0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            with open(f"/proc/{current}/smaps_rollup") as rollup:
                for line in rollup:
                    if line.startswith("Pss:"):
                        total_kib += int(line.split()[1])
            with open(f"/proc/{current}/task/{current}/children") as children:
                pending.extend(int(child) for child in children.read().split())
        except (OSError, ValueError):
            continue
    return total_kib / 1024


def measure_verify(home: Path) -> tuple[float, dict[str, Any], float]:
    """Wall time and report of a cold ``c4 verify``; then, in a second run, the peak
    of its summed memory (sampling /proc costs CPU, so it does not share a run with
    the timing)."""
    env = dict(os.environ, C4_HOME=str(home))
    started = time.perf_counter()
    doc = c4(home, "verify")
    wall = time.perf_counter() - started
    proc = subprocess.Popen([C4, "verify"], env=env, stdout=subprocess.DEVNULL)
    peak = 0.0
    while proc.poll() is None:
        peak = max(peak, tree_memory_mib(proc.pid))
        time.sleep(0.2)
    if proc.returncode != 0:
        sys.exit("c4 verify failed")
    return wall, doc, peak


def libsecp_limit() -> float:
    """Transactions a second that two cores could verify if checking their signatures
    were all they did: libsecp256k1's rate on one core (measured here, in the bench's
    venv, on c4's own verify path), times two."""
    script = (
        "import time; from c4cli.wire import crypto\n"
        "key = crypto.derive_private_key(crypto.new_mnemonic())\n"
        "pub = crypto.public_key(key); sig = crypto.sign(key, b'x')\n"
        "crypto.verify(pub, b'x', sig); n = 20000; t = time.perf_counter()\n"
        "for _ in range(n): crypto.verify(pub, b'x', sig)\n"
        "print(n / (time.perf_counter() - t))\n"
    )
    rates = [float(run(PYTHON, "-c", script).stdout) for _ in range(3)]
    return 2 * max(rates)


def measure_game(home: Path) -> float:
    started = time.perf_counter()
    game = str(c4(home, "offer", "--stake", "1gnot", "p12")["result"][0])
    c4(home, "accept", game, "p13")
    c4(home, "reveal", game, "p12")
    first = c4(home, "reveal", game, "p13")["game"]["turn"]
    mover, other = ("p12", "p13") if first == 1 else ("p13", "p12")
    for move in range(7):
        c4(home, "play", game, "4" if move % 2 == 0 else "5", mover if move % 2 == 0 else other)
    wall = time.perf_counter() - started
    assert c4(home, "query", "game", game)["game"]["status"] == "won"
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/c4-bench"))
    parser.add_argument("--small", action="store_true", help="10 and 2,000 transactions")
    parser.add_argument(
        "--large",
        action="store_true",
        help="10, 10,000 and 1,000,000 transactions (the 1M chain takes a while to build)",
    )
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    sizes = [10, 2_000] if args.small else [10, 10_000, 1_000_000 if args.large else 100_000]
    args.workdir.mkdir(parents=True, exist_ok=True)
    install(args.workdir)
    homes = {size: args.workdir / f"chain-{size}" for size in sizes}
    for size, home in homes.items():
        begun = time.perf_counter()
        build(size, home)
        print(f"  built {size:,} transactions in {time.perf_counter() - begun:.0f} s", flush=True)
    small, large = homes[sizes[0]], homes[sizes[-1]]
    times = measure_commands(small, large, args.rounds)
    verify_wall, verify_doc, verify_mib = measure_verify(large)
    txs = verify_doc["transactions"]
    game_wall = measure_game(large)
    split = verify_doc.get("timings", {})
    rows = [
        ("python -c 'import click'", f"{times['click'] * 1e3:.0f} ms", "", ""),
        ("query game 1, 10 tx", f"{times['query-small'] * 1e3:.0f} ms", "", ""),
        (f"query game 1, {sizes[-1]:,} tx", f"{times['query-large'] * 1e3:.0f} ms", "", ""),
        ("play, 10 tx", f"{times['play-small'] * 1e3:.0f} ms", "", ""),
        (f"play, {sizes[-1]:,} tx", f"{times['play-large'] * 1e3:.0f} ms", "", ""),
    ]
    checks = [
        ("1 flat: query large/small", times["query-large"] / times["query-small"], 1.25),
        ("1 flat: play large/small", times["play-large"] / times["play-small"], 1.25),
        ("2 floor: query/click", times["query-large"] / times["click"], 1.5),
        ("2 floor: play/click", times["play-large"] / times["click"], 2.0),
    ]
    print(
        f"c4 bench, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, medians of "
        f"{args.rounds} rounds\n"
    )
    for name, value, _, _ in rows:
        print(f"  {name:<32}{value:>10}")
    print()
    print(f"  {'target':<34}{'measured':>10}{'limit':>10}  result")
    for name, ratio, limit in checks:
        print(f"  {name:<34}{ratio:>9.2f}x{limit:>9.2f}x  {'pass' if ratio <= limit else 'FAIL'}")
    rate = txs / verify_wall
    limit = libsecp_limit()
    print(
        f"  {'3 cold verify, tx/s':<34}{rate:>10,.0f}{10_000:>10,}  "
        f"{'pass' if rate >= 10_000 else 'FAIL'}"
    )
    print(
        f"  {'3b verify / 2-core libsecp256k1':<34}{rate / limit:>9.2f}x{0.5:>9.2f}x  "
        f"{'pass' if rate / limit >= 0.5 else 'FAIL'}"
    )
    print(
        f"  {'4 scripted game (11 tx), s':<34}{game_wall:>10.2f}{3:>10}  "
        f"{'pass' if game_wall <= 3 else 'FAIL'}"
    )
    print(
        f"  {'5 verify peak memory (Pss), MiB':<34}{verify_mib:>10.0f}{300:>10}  "
        f"{'pass' if verify_mib < 300 else 'FAIL'}"
    )
    print(
        f"\n  verify of {txs:,} transactions: {verify_wall:.1f} s wall; "
        + ", ".join(f"{k} {v:.1f} s" for k, v in split.items())
    )
    print(
        f"  libsecp256k1 alone: {limit / 2:,.0f} signatures/s on one core, so a 2-core "
        f"limit of {limit:,.0f} tx/s (one signature each)"
    )


if __name__ == "__main__":
    main()

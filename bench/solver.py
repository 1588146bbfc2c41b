"""The solver on Pascal Pons' six test sets: correctness and time per position.

    python3 bench/solver.py                      # all sets; Begin-Hard: a fixed sample of 100
    python3 bench/solver.py --hard 20 --python-limit 100 --no-book

For each set and each engine present (the C core, and the pure-Python search),
prints positions solved, how many were exact, and the mean and maximum time per
position, in process (one process per engine, its transposition table kept
from position to position, as Pons' own benchmark does), with the ratio to
Pons' published C++ mean. The pure-Python search runs on the first
``--python-limit`` positions of each set, and not at all on the two hardest.
The opening book is used where it is installed (every install of c4 has it);
``--no-book`` measures the search alone (C4_BOOK=off).

Then ``c4 hint``, as a user runs it: a local chain is built with one game per
position of a fixed sample of every set (``--hint`` positions per set), played
up to that position, and ``c4 hint GAME`` is timed as a process of its own for
each (wall time, start-up and the chain's cache included), its score checked
against Pons'. Prints p50, p99 and the maximum.

Run it with the interpreter of an environment where c4 is installed.
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
PONS = HERE.parent / "tests" / "data" / "pons"

# name, file, Pons' mean per position in seconds (his README's table)
SETS = [
    ("End-Easy", "Test_L3_R1", 4.6e-6),
    ("Middle-Easy", "Test_L2_R1", 37e-6),
    ("Middle-Medium", "Test_L2_R2", 3.2e-3),
    ("Begin-Easy", "Test_L1_R1", 255e-6),
    ("Begin-Medium", "Test_L1_R2", 97e-3),
    ("Begin-Hard", "Test_L1_R3", 5.5),
]
PYTHON_SKIPS = {"Begin-Medium", "Begin-Hard"}


def load(file: str, hard_sample: int | None) -> list[tuple[str, int]]:
    rows = [line.split() for line in (PONS / file).read_text().splitlines() if line.strip()]
    pairs = [(moves, int(score)) for moves, score in rows]
    if hard_sample is not None:
        step = max(1, len(pairs) // hard_sample)
        pairs = pairs[::step][:hard_sample]  # a fixed sample: every step-th line
    return pairs


def measure(engine: str, pairs: list[tuple[str, int]]) -> dict[str, float]:
    """Run in this process: solve each position, time it, count the exact ones."""
    os.environ["C4_SOLVER"] = engine
    from c4cli.engine import solver

    if engine == "native" and solver.ENGINE != "native":
        raise SystemExit("the C core is not built in this environment")
    run = solver.solve if engine == "native" else solver.solve_python
    run("5554224333234511764415115")  # first, untimed: the table is set up once
    times, correct = [], 0
    for moves, score in pairs:
        started = time.perf_counter()
        got = run(moves)
        times.append(time.perf_counter() - started)
        correct += got == score
    return {
        "positions": len(pairs),
        "correct": correct,
        "mean": statistics.fmean(times),
        "max": max(times),
    }


def child(engine: str, file: str, sample: int | None, limit: int | None) -> dict[str, float]:
    """Each engine and set in a process of its own, so one table never helps another."""
    code = (
        f"import json, sys; sys.path.insert(0, {str(HERE)!r}); import solver as b; "
        f"pairs = b.load({file!r}, {sample!r})[: {limit!r}]; "
        f"print(json.dumps(b.measure({engine!r}, pairs)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    result: dict[str, float] = json.loads(out)
    return result


def seconds(value: float) -> str:
    if value < 1e-3:
        return f"{value * 1e6:.1f} µs"
    if value < 1:
        return f"{value * 1e3:.2f} ms"
    return f"{value:.2f} s"


def hint_times(per_set: int, work: Path) -> tuple[list[float], int]:
    """Wall times of ``c4 hint`` over games set up at sampled positions; and how many were exact."""
    sys.path.insert(0, str(HERE))
    import build_chain

    pairs = [pair for _, file, _ in SETS for pair in load(file, per_set)]
    home = work / "hint"
    addresses = build_chain.keys(home)
    planned = [
        tx
        for game, (moves, _) in enumerate(pairs, start=1)
        for tx in build_chain.game_txs(game, addresses, moves)
    ]
    build_chain.build(home, planned, os.cpu_count() or 1)
    c4 = Path(sys.executable).with_name("c4")
    subprocess.run([c4, "lobby", "--home", home], check=True, capture_output=True)  # cache warm
    times, correct = [], 0
    for game, (_, score) in enumerate(pairs, start=1):
        started = time.perf_counter()
        out = subprocess.run(
            [c4, "hint", str(game), "--json", "--home", home],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        times.append(time.perf_counter() - started)
        correct += json.loads(out)["score"] == score
    return times, correct


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hard", type=int, default=100, help="Begin-Hard sample size")
    parser.add_argument("--python-limit", type=int, default=1000)
    parser.add_argument("--sets", nargs="*", default=[name for name, _, _ in SETS])
    parser.add_argument("--no-book", action="store_true", help="search without the opening book")
    parser.add_argument("--hint", type=int, default=50, help="c4 hint: positions per set (0: none)")
    args = parser.parse_args()
    if args.no_book:
        os.environ["C4_BOOK"] = "off"
    from c4cli.engine import solver

    shelf = solver.opening_book()
    print(f"c4 solver bench, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores")
    print(f"opening book: {shelf.path if shelf else 'none'}\n")
    print(
        f"  {'set':<14} {'engine':<7} {'positions':>9} {'correct':>8} "
        f"{'mean':>10} {'max':>10} {'vs Pons':>8}"
    )
    for name, file, pons in SETS:
        if name not in args.sets:
            continue
        sample = args.hard if name == "Begin-Hard" else None
        for engine in ("native", "python"):
            if engine == "python" and name in PYTHON_SKIPS:
                continue
            limit = args.python_limit if engine == "python" else None
            r = child(engine, file, sample, limit)
            print(
                f"  {name:<14} {engine:<7} {int(r['positions']):>9} {int(r['correct']):>8} "
                f"{seconds(r['mean']):>10} {seconds(r['max']):>10} {r['mean'] / pons:>7.2f}x",
                flush=True,
            )
    if args.hint:
        with tempfile.TemporaryDirectory(prefix="c4-hint-bench-") as work:
            times, correct = hint_times(args.hint, Path(work))
        print(
            f"\n  c4 hint, {len(times)} games ({args.hint} of each set), {correct} exact: "
            f"p50 {seconds(percentile(times, 0.5))}, p99 {seconds(percentile(times, 0.99))}, "
            f"max {seconds(max(times))}"
        )


if __name__ == "__main__":
    main()

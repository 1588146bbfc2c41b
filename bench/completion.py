"""Time shell completion on a long chain: key names, game ids, columns.

    python bench/completion.py                     # a chain of 10,000 transactions
    python bench/completion.py --size 2000 --rounds 5

Builds the chain once with bench/build_chain.py (reused if present, under
/tmp/c4-bench), leaves a few games open so there are ids to offer, then runs
the installed `c4` as bash does on <TAB> (click's protocol: `_C4_COMPLETE`,
`COMP_WORDS`, `COMP_CWORD`), round after round, and prints the median of each
against the target of issue 37: under 0.3 s. Nothing is asserted; the figures
are the result.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET = 0.3  # seconds

LINES = {
    "key name": "c4 offer --stake 1gnot ",
    "game to accept": "c4 accept ",
    "game to play": "c4 play ",
    "live game": "c4 show ",
    "column": "c4 play 1 ",
}


def c4_bin() -> str:
    found = shutil.which("c4", path=os.path.dirname(sys.executable)) or shutil.which("c4")
    if found is None:
        raise SystemExit("c4 is not installed beside this python: pip install -e .")
    return found


def completed(home: Path, line: str) -> tuple[float, int]:
    env = {
        **os.environ,
        "C4_HOME": str(home),
        "COMP_WORDS": line,
        "COMP_CWORD": str(len(line.split(" ")) - 1),
        "_C4_COMPLETE": "bash_complete",
    }
    start = time.perf_counter()
    proc = subprocess.run([c4_bin()], env=env, capture_output=True, text=True, check=True)
    return time.perf_counter() - start, len([x for x in proc.stdout.splitlines() if x])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/c4-bench"))
    args = parser.parse_args()
    home = args.workdir / f"complete-{args.size}"
    if not (home / "chain" / "blocks.toml").exists():
        subprocess.run(
            [sys.executable, str(HERE / "build_chain.py"), str(args.size), str(home)], check=True
        )
        env = {**os.environ, "C4_HOME": str(home), "C4_PASSWORD": "", "C4_QUIET": "1"}
        for _ in range(3):  # open offers, so a GAME has ids to offer
            subprocess.run(
                [c4_bin(), "offer", "--stake", "1gnot", "p0"],
                env=env,
                check=True,
                capture_output=True,
            )
    subprocess.run(
        [c4_bin(), "lobby"],
        env={**os.environ, "C4_HOME": str(home)},
        check=True,
        capture_output=True,
    )  # the cache stands as the log does
    print(f"completion on a chain of {args.size:,} transactions, median of {args.rounds}")
    for what, line in LINES.items():
        times, offered = [], 0
        for _ in range(args.rounds):
            seconds, offered = completed(home, line)
            times.append(seconds)
        median = statistics.median(times)
        verdict = "ok" if median < TARGET else "over"
        print(f"  {what:15} {line!r:30} {median * 1000:6.0f} ms  {offered:3} offered  {verdict}")


if __name__ == "__main__":
    main()

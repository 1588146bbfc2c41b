"""`c4 verify` never hangs: its pool of checkers starts and stops cleanly on any log."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from c4cli import interrupts
from c4cli.local import replay
from c4cli.local.log import BlockLog
from support import Home


@pytest.mark.slow
def test_a_pool_on_a_short_log_starts_and_stops_300_times(
    chain: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pool forced onto a two-block log (its workers torn down before most of them
    ran a line), with c4's own signal handlers in this process as in the console
    script: every round ends, none leaves a worker behind."""
    chain.ok("send", "--to", "bob", "--amount", "1ugnot", "alice")
    chain.ok("send", "--to", "bob", "--amount", "2ugnot", "alice")
    monkeypatch.setattr(replay, "PARALLEL_MIN_BYTES", 0)
    log = BlockLog(chain.path)
    before = set(_children())  # what this process ran before (a node, an oracle)
    previous = {signum: signal.getsignal(signum) for signum in interrupts.SIGNALS}
    interrupts.install()
    try:
        started = time.monotonic()
        for _ in range(300):
            state = replay.replay(log, parallel=True)
            assert state.height == 2
        assert time.monotonic() - started < 120
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    assert set(_children()) - before <= {"ps"}  # ps itself, at most


def _children() -> list[str]:
    """This process's children, each as ``pid command``; ``ps`` for the one asking."""
    listed = subprocess.run(
        ["ps", "-o", "pid=,comm=", "--ppid", str(os.getpid())], capture_output=True, text=True
    )
    return [
        "ps" if line.split()[-1] == "ps" else line.strip() for line in listed.stdout.splitlines()
    ]


def test_verify_of_a_genesis_only_log_runs_in_this_process(chain: Home) -> None:
    """A log with nothing past its genesis starts no pool at all."""
    report = chain.json("verify")
    assert report["height"] == 0 and "check" not in report["timings"]  # no workers

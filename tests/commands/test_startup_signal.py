"""A signal while c4 is still loading ends it in one line, never a traceback of c4's."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

import c4cli

PACKAGE = os.path.dirname(c4cli.__file__) + os.sep


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_start_up_is_one_line(c4_bin: str, tmp_path: object, signum: int) -> None:
    """Signals at 60 moments of the first 60 ms: each run ends with 128+signum and one
    line, or (before any c4 code runs: the interpreter's own start-up) by the signal
    itself; never with a traceback through c4's code."""
    env = dict(os.environ, C4_HOME=str(tmp_path), C4_PASSWORD="")
    for step in range(60):
        proc = subprocess.Popen(
            [c4_bin, "--json", "time"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(step * 0.001)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=30)
        assert PACKAGE not in err, err  # no traceback through c4's own modules
        if proc.returncode == 128 + signum:
            assert out.count("\n") == 1 and '"ok": false' in out, (out, err)
        else:
            # Python's own start-up (site, the package finder), or c4 already done
            # (no chain here: exit 3).
            assert proc.returncode in (-signum, 1, 3, 120), (proc.returncode, err)

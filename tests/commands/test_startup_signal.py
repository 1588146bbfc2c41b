"""A signal while c4 is still loading ends it in one line, never a traceback of c4's."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import c4cli

PACKAGE = os.path.dirname(c4cli.__file__) + os.sep


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize(
    "command", [["--json", "time"], ["query", "game", "1", "--json"]], ids=["click", "lane"]
)
def test_a_signal_during_start_up_is_one_line(
    c4_bin: str, tmp_path: object, signum: int, command: list[str]
) -> None:
    """Signals at 60 moments of the first 60 ms, of a command click reads and of one a
    fast lane takes: each run ends with 128+signum and one line, or (before c4's handler
    is in: the interpreter's own start-up, or Python's own Ctrl-C as it enters the
    package or the console module) by the signal itself; never with a traceback through
    c4's code once it could handle the signal."""
    env = dict(os.environ, C4_HOME=str(tmp_path), C4_PASSWORD="")
    for step in range(60):
        proc = subprocess.Popen(
            [c4_bin, *command],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        time.sleep(step * 0.001)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=30)
        assert PACKAGE not in err or before_the_handlers(err, signum), err
        if proc.returncode == 128 + signum:
            assert out.count("\n") == 1 and '"ok": false' in out, (out, err)
        else:
            # Python's own start-up (site, the package finder), or c4 already done
            # (no chain here: exit 3).
            assert proc.returncode in (-signum, 1, 3, 120), (proc.returncode, err)


# The line of console.py that puts in the handler for SIGINT, the first of c4's own.
HANDLER_LINE = next(
    number
    for number, text in enumerate(Path(PACKAGE, "cli", "console.py").read_text().splitlines(), 1)
    if text.startswith("_signal.signal(_signal.SIGINT")
)


def before_the_handlers(err: str, signum: int) -> bool:
    """Whether a traceback is Python's default Ctrl-C before c4 could handle one: a
    KeyboardInterrupt raised in the package's __init__ or in console.py before its
    handler is in (the console script pip writes imports them, and the interpreter
    checks for a signal on entering each), through no other module of c4's."""
    frames = re.findall(r'File "' + re.escape(PACKAGE) + r'([^"]+)", line (\d+)', err)
    return (
        signum == signal.SIGINT
        and err.rstrip().endswith("KeyboardInterrupt")
        and all(
            name in ("__init__.py", "cli/__init__.py")
            or (name == "cli/console.py" and int(line) <= HANDLER_LINE)
            for name, line in frames
        )
    )


LOST = """
import signal
{setup}
class Finalized:
    def __del__(self):  # where the collector runs it, an exception cannot rise
        raise {exception}(signal.SIGTERM)
Finalized()
print("went on as if no signal had come")
"""


@pytest.mark.parametrize(
    ("setup", "exception", "line"),
    [
        # While c4 loads: the console script's own handler.
        (
            "import c4cli.cli.console\nfrom c4cli.cli.console import _Stopped",
            "_Stopped",
            "Error: terminated: nothing was recorded\n",
        ),
        # Once a command runs: the same line as a signal that rises.
        (
            "from c4cli.commands.ending import report_interrupted\n"
            "from c4cli.interrupts import Interrupted, install\n"
            "install(report_interrupted)",
            "Interrupted",
            "Error: terminated\n",
        ),
    ],
    ids=["loading", "running"],
)
def test_a_signal_python_would_drop_still_ends_the_command(
    setup: str, exception: str, line: str
) -> None:
    """A signal's exception raised inside a finalizer (as one was, inside an import
    lock's weakref callback) is one Python prints and drops: c4 ends there anyway."""
    source = LOST.format(setup=setup, exception=exception)
    proc = subprocess.run(
        [sys.executable, "-c", source], capture_output=True, text=True, timeout=60
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (128 + signal.SIGTERM, "", line)

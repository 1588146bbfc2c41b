"""The console examples of the README and of docs/, run as written.

Each ```console block is a transcript: ``$ `` lines are commands (a trailing
backslash continues one), the lines after one are what it printed, and a line
``...`` stands for any number of lines. A block runs in bash, in a scratch
folder whose ``./state`` is the default home, one command after the other in
the same shell (so ``export`` and variables carry on); every command must exit
0, and its output must read as the README shows it once the parts that change
from run to run are written the same way on both sides: addresses, TX
hashes, hex digests, timings, ports and pids, runs of spaces.

A section's blocks share the folder, in the page's order; what a section
assumes that the text tells in words (a game at a given position, the README's
walkthrough already played) is set up by the test before its blocks run.

A test may also run a block only for its exit codes (``compare=False``): a
run whose random draw differs from the page's reads differently by design.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"


@dataclass
class Command:
    line: str
    shown: list[str] = field(default_factory=list)


@dataclass
class Block:
    section: str
    commands: list[Command]


def pages() -> list[Path]:
    """The README and every page of docs/."""
    return [README, *sorted(DOCS.glob("*.md"))]


def blocks(page: Path = README) -> list[Block]:
    """Every console block of a page, with the section (## heading) it is in."""
    found: list[Block] = []
    section = ""
    lines = page.read_text().splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("## "):
            section = line[3:].strip()
        if line.strip() == "```console":
            commands: list[Command] = []
            index += 1
            while lines[index].strip() != "```":
                text = lines[index]
                if text.startswith("$ "):
                    command = text[2:]
                    while command.endswith("\\"):
                        index += 1
                        command = command + "\n" + lines[index]
                    commands.append(Command(command))
                elif commands:
                    commands[-1].shown.append(text)
                index += 1
            found.append(Block(section, commands))
        index += 1
    return found


def section(title: str, page: Path = README) -> list[Block]:
    chosen = [block for block in blocks(page) if block.section == title]
    assert chosen, f"no console block under ## {title} in {page.name}"
    return chosen


_VARYING = [
    (re.compile(r"g1[02-9ac-hj-np-z]{38}"), "ADDR"),
    (re.compile(r"[A-Za-z0-9+/]{43}="), "HASH"),
    (re.compile(r"\b[0-9a-f]{8}…"), "HEX…"),  # a commitment's prefix, digits only or not
    (re.compile(r"\b(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b"), "HEX"),
    (re.compile(r"\b[0-9A-F]{16}…"), "HEX…"),  # a block hash's prefix, as a receipt shows it
    (re.compile(r"\b[0-9A-F]{64}\b"), "HEX64"),  # a whole block or validators hash
    (re.compile(r"VERIFIED:   block \d+"), "VERIFIED: block N"),
    (re.compile(r"\d+\.\d+ ?s\b"), "N s"),
    (re.compile(r"127\.0\.0\.1:\d+"), "127.0.0.1:PORT"),
    (re.compile(r"pid \d+"), "pid N"),
    (re.compile(r"/\S*/c4-demo-\w+"), "DEMO"),
    (re.compile(r" +"), " "),
]


def normal(text: str) -> str:
    for pattern, replacement in _VARYING:
        text = pattern.sub(replacement, text)
    return text.rstrip()


def matches(shown: list[str], printed: list[str]) -> bool:
    """Whether ``printed`` reads as ``shown``, where a ``...`` line stands for any lines."""
    want = [normal(line) for line in shown]
    have = [normal(line) for line in printed]

    def match(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(have)
        if want[i].strip() == "...":
            return any(match(i + 1, k) for k in range(j, len(have) + 1))
        return j < len(have) and want[i] == have[j] and match(i + 1, j + 1)

    return match(0, 0)


class Failed(Exception):
    def __init__(self, command: str, code: int, out: str, err: str) -> None:
        super().__init__(f"`{command}` exited {code}\nstdout:\n{out}\nstderr:\n{err}")
        self.command, self.code, self.out, self.err = command, code, out, err


def run(
    block: Block,
    folder: Path,
    env: dict[str, str],
    *,
    stdin: str = "",
    compare: bool = True,
) -> list[str]:
    """Run a block's commands in ``folder``; each one's output, checked against the
    page (an AssertionError says where it differs; Failed, which command failed)."""
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        return _run(block, folder, Path(scratch), env, stdin, compare)


def _run(
    block: Block,
    folder: Path,
    scratch: Path,
    env: dict[str, str],
    stdin: str,
    compare: bool,
) -> list[str]:
    script = ["cd " + _quote(str(folder))]
    given = scratch / ".stdin"
    given.write_text(stdin)  # each command reads it from the start, as if typed for it
    for number, command in enumerate(block.commands):
        out, err = scratch / f".out{number}", scratch / f".err{number}"
        script.append(
            f"{{ {command.line}\n}} <{_quote(str(given))} >{_quote(str(out))} "
            f"2>{_quote(str(err))} "
            f"|| {{ echo $? {number} >{_quote(str(scratch / '.failed'))}; exit 1; }}"
        )
    failed = scratch / ".failed"
    failed.unlink(missing_ok=True)
    proc = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        code, number = (int(v) for v in failed.read_text().split())
        raise Failed(
            block.commands[number].line,
            code,
            (scratch / f".out{number}").read_text(),
            (scratch / f".err{number}").read_text(),
        )
    printed = [(scratch / f".out{number}").read_text() for number in range(len(block.commands))]
    if os.environ.get("README_DUMP"):  # for whoever updates the pages: what ran
        with open(os.environ["README_DUMP"], "a") as dump:
            for command, text in zip(block.commands, printed, strict=True):
                dump.write(f"$ {command.line}\n{text}")
    elif compare:
        check(block, printed)
    return printed


def check(block: Block, printed: list[str]) -> None:
    """Each command's output reads as the page shows it (an AssertionError says where not)."""
    for command, text in zip(block.commands, printed, strict=True):
        if command.shown:
            shown = "\n".join(command.shown)
            assert matches(command.shown, text.splitlines()), (
                f"`{command.line}` printed:\n{text}\nthe page shows:\n{shown}"
            )


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"

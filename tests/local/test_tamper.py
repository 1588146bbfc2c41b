"""A log edited by hand is never believed: any field of any past block, cache or no cache."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from support import Home, start_game

READERS = [
    ["verify"],
    ["time"],
    ["log"],
    ["query", "balance", "alice"],
    ["query", "game", "1"],
    ["show", "1"],
    ["lobby"],
    ["send", "--to", "bob", "--amount", "1ugnot", "carol"],
]


def flip(char: str) -> str:
    """Another character of the same alphabet: the edit always changes something."""
    return "1" if char == "0" else "0"


# (block height, pattern to find inside that block, replacement)
EDITS: dict[str, tuple[int, str, Any]] = {
    "amount": (2, r'amount = "1000000ugnot"', 'amount = "9000000ugnot"'),
    "send": (3, r'send = "10000000ugnot"', 'send = "1000000ugnot"'),
    "args": (3, r'"15",', '"16",'),
    "caller": (4, r'caller = "g1[0-9a-z]+"', 'caller = "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"'),
    "signature": (5, r'signature = "[A-Za-z0-9+/]', lambda m: m[0][:-1] + flip(m[0][-1])),
    "pub_key": (5, r'value = "A', 'value = "B'),
    "time": (4, r'time = "2026-01-01T00:00:20Z"', 'time = "2026-01-01T00:00:21Z"'),
    "height": (3, r"height = 3", "height = 4"),
    "prev_hash": (4, r'prev_hash = "[0-9a-f]', lambda m: m[0][:-1] + flip(m[0][-1])),
    "sequence": (5, r"sequence = \d+", "sequence = 7"),
    "memo": (2, r'memo = ""', 'memo = "x"'),
    "func": (7, r'func = "Play"', 'func = "Resign"'),
}


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Home:
    """A chain with a send (block 1-2), an offer (3), accept (4), reveals (5-6) and a move."""
    home = Home(tmp_path_factory.mktemp("played") / "home")
    for name in ("alice", "bob", "carol"):
        home.ok("keys", "add", name)
    home.ok("init", "--clock", "manual", "--genesis-time", "2026-01-01T00:00:00Z")
    home.ok("time", "advance", "5s")
    home.ok("send", "--to", "bob", "--amount", "1gnot", "alice")
    start_game(home, "4", stake="10gnot")
    return home


def edit_block(log: Path, height: int, pattern: str, replacement: Any) -> None:
    data = log.read_text()
    start = data.index(f"\n[[block]]\nheight = {height}\n")
    end = data.index(f"# end of block {height}\n", start)
    chunk = data[start:end]
    changed, count = re.subn(pattern, replacement, chunk, count=1)
    assert count == 1 and changed != chunk, (height, pattern)
    log.write_text(data[:start] + changed + data[end:])


@pytest.mark.parametrize("field", sorted(EDITS))
@pytest.mark.parametrize("cache", ["warm", "deleted"])
def test_edit_is_caught_by_every_reader(
    played: Home, tmp_path: Path, field: str, cache: str
) -> None:
    home = Home(tmp_path / "home")
    shutil.copytree(played.path, home.path)
    home.ok("time")  # leaves the checkpoint at the last block
    if cache == "deleted":
        shutil.rmtree(home.path / "chain" / "cache")
    height, pattern, replacement = EDITS[field]
    log = home.path / "chain" / "blocks.toml"
    edit_block(log, height, pattern, replacement)
    tampered = log.read_bytes()
    for args in READERS:
        result = home.run(*args)
        assert result.exit_code == 3, (field, args, result.output)
        assert f"block {height}" in result.stderr, (field, args, result.stderr)
        assert result.stderr.startswith(f"Error: {log}: "), (field, args, result.stderr)
        assert result.stderr.count("\n") == 1
    assert log.read_bytes() == tampered  # nothing was appended to a damaged log


def test_blocks_cut_off_at_a_boundary_are_caught_by_the_cache(chain: Home) -> None:
    """The last blocks cut off the log at a block boundary: what is left replays, but
    the checkpoint knew the longer log, so reads and `c4 verify` stop in one line
    (exit 3) naming what is gone; deleting the cache accepts the shorter log."""
    chain.ok("send", "--to", "bob", "--amount", "1ugnot", "alice")
    chain.ok("send", "--to", "bob", "--amount", "2ugnot", "alice")
    log = chain.path / "chain" / "blocks.toml"
    text = log.read_text()
    ends = [m.end() for m in re.finditer(r"# end of block \d+\n", text)]
    log.write_text(text[: ends[-2]])  # the last block, gone whole
    for args in (("query", "balance", "bob"), ("verify",), ("send", "--to", "bob", "--amount",
                                                              "1ugnot", "alice")):  # fmt: skip
        result = chain.run(*args)
        assert result.exit_code == 3, (args, result.output)
        assert result.stderr.startswith(f"Error: {log} is shorter than this home last saw it")
        assert "blocks this home acknowledged are gone; `c4 verify` checks" in result.stderr
    shutil.rmtree(chain.path / "chain" / "cache")
    chain.ok("verify")
    chain.ok("query", "balance", "bob")

"""The walk of one move in docs/contributing.md names code that exists: every dotted
name there that begins with a room of the package resolves to a module and its
attribute, so a renovation that moves a function cannot leave the page behind."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "contributing.md"
ROOMS = "cli|commands|client|home|chain|wire|local|node|realm|engine|serve|gnoland"
NAME = re.compile(rf"(?<![\w./])(?:{ROOMS})\.[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+")


# The console script puts in its signal handlers when imported: read, never imported.
CONSOLE = Path(__file__).resolve().parents[1] / "c4cli" / "cli" / "console.py"


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    if parts[:2] == ["cli", "console"]:
        return len(parts) == 3 and f"\ndef {parts[2]}(" in CONSOLE.read_text()
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module("c4cli." + ".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def test_every_name_the_walk_gives_is_in_the_code() -> None:
    blocks = re.findall(r"```\n(.*?)```", PAGE.read_text(), flags=re.S)
    names = sorted({name for block in blocks for name in NAME.findall(block)})
    assert len(names) > 25, names  # the walk is there
    assert [name for name in names if not _resolves(name)] == []

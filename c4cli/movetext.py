"""A game's record as text: the move string players and solvers use (Pascal Pons'
notation: columns 1-7 from the empty board, ``4453…``) and a text record of tags, as a
chess game's PGN, then its moves with their heights and times.

    [Realm "gno.land/r/samcrew/connect4"]
    [ChainId "dev"]
    [Game "1"]
    …
    [Moves "4545454"]

    1. 4  height 12  2026-01-01T00:01:00Z
    2. 5  height 13  2026-01-01T00:01:05Z

A tag's value is a JSON string (quotes and backslashes escaped as JSON escapes
them). A record reads back to the same tags and moves (:func:`parsed`); anything
that takes a move string (`c4 board --moves`, `c4 solve`, `c4 review --moves`)
takes a record, or a file or stdin holding one (:func:`moves_from`). What makes a
record of a game on a chain is the client's (:mod:`c4cli.client.gamerecord`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import NamedTuple

from c4cli.errors import BadInput
from c4cli.files import read_bounded

_TAG = re.compile(r'^\[([A-Za-z]+) ("(?:[^"\\]|\\.)*")\]$')
_MOVE = re.compile(r"^(\d{1,2})\. ([1-7])(?:  height (\d{1,18}))?(?:  (\S+))?$")
RECORD_BYTES = 64 * 1024  # a record of 42 moves and its tags is a few KiB
SHOWN = 48  # characters of a bad move string an error line quotes


class Move(NamedTuple):
    """One move of a record: its number (from 1), its column, and where the chain's
    record says it landed (0 and "" where it does not)."""

    number: int
    column: int
    height: int
    time: str


class GameRecord(NamedTuple):
    tags: dict[str, str]
    moves: list[Move]

    @property
    def move_string(self) -> str:
        if not self.moves:  # bare digits, or a record of none
            return self.tags.get("Moves", "")
        return "".join(str(move.column) for move in self.moves)

    def text(self) -> str:
        lines = [
            f"[{name} {json.dumps(value, ensure_ascii=False)}]" for name, value in self.tags.items()
        ]
        lines.append("")
        for move in self.moves:
            where = f"  height {move.height}" if move.height else ""
            lines.append(
                f"{move.number}. {move.column}{where}{'  ' + move.time if move.time else ''}"
            )
        return "\n".join(lines) + "\n"


def parsed(text: str, source: str = "the record") -> GameRecord:
    """A text record read back: its tags and moves (BadInput, one line, for one that
    is not)."""
    tags: dict[str, str] = {}
    moves: list[Move] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        tag, move = _TAG.match(line), _MOVE.match(line)
        if tag is not None:
            tags[tag[1]] = json.loads(tag[2])
        elif move is not None:
            height = int(move[3]) if move[3] else 0
            moves.append(Move(int(move[1]), int(move[2]), height, move[4] or ""))
        else:
            raise BadInput(f'{source}, line {number}: neither a [Tag "value"] nor a move')
    if not moves and tags.get("Moves"):
        moves = [Move(n + 1, int(c), 0, "") for n, c in enumerate(tags["Moves"])]
    if tags.get("Moves", "") not in ("", "".join(str(m.column) for m in moves)):
        raise BadInput(f"{source}: its Moves tag is not its moves")
    return GameRecord(tags, moves)


def moves_from(given: str, what: str) -> str:
    """A move string from what a command was given: the digits themselves, or "-"
    (stdin) or a file, holding digits or a text record."""
    return record_from(given, what).move_string


def record_from(given: str, what: str) -> GameRecord:
    """What a command was given as a game (see :func:`moves_from`), with the record's
    tags where it was one (bare digits: their Moves alone)."""
    if re.fullmatch(r"[0-9]*", given):
        return _bare(given)
    source = "stdin" if given == "-" else given
    if given != "-" and not Path(given).exists():
        raise BadInput(f"{what} {cut(given)!r}: neither digits 1-7 nor a record file")
    try:
        text = read_bounded(given, RECORD_BYTES, what).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(
            f"{what} {cut(given)!r}: neither digits 1-7 nor a record file ({exc})"
        ) from None
    stripped = text.strip()
    if re.fullmatch(r"[0-9]*", stripped):
        return _bare(stripped)
    return parsed(text, source)


def _bare(digits: str) -> GameRecord:
    """Digits alone, as a record without tags (a digit that is no column stays one, for
    the engine to name)."""
    return GameRecord({"Moves": digits}, [])


def cut(text: str) -> str:
    """``text`` as an error line quotes it: its first :data:`SHOWN` characters, and how
    many there were when it is longer."""
    if len(text) <= SHOWN:
        return text
    return f"{text[:SHOWN]}… ({len(text)} characters)"

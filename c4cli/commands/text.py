"""How c4 shows and reads values for a person: key names, calls, durations."""

from __future__ import annotations

from pathlib import Path

from c4cli.commands.run import current
from c4cli.errors import BadInput
from c4cli.jsonvalue import Document


def names(home: Path) -> dict[str, str]:
    """Local key names by address, so a person sees "alice", not only g1…."""
    return {info.address: info.name for info in current().keyring(home).list(strict=False)}


def who(address: str, known: dict[str, str]) -> str:
    if not address:
        return "-"
    return f"{known[address]} ({address})" if address in known else address


def key_names(addresses: list[str], game: Document | None, known: dict[str, str]) -> dict[str, str]:
    """The home's key names for the addresses a document mentions (a game's players,
    whose turn it is, the winner…), so a script need not map addresses back to keys."""
    if game is not None:
        fields = ("creator", "opponent", "acceptor", "turnPlayer", "winner")
        addresses = [*addresses, *(str(game.get(field, "")) for field in fields)]
    return {address: known[address] for address in addresses if address in known}


def call_text(func: str, args: list[str], *, short: bool = False) -> str:
    """A call as c4 shows it everywhere: ``Play(1, 4, 0)``, ``Offer('', 15, 3769d2e2…, 0)``.

    An empty argument is shown as ``''``; ``short`` cuts long ones (secrets,
    commitments) to 8 characters.

    >>> call_text("Offer", ["", "15", "3769d2e2" * 8, "100000"], short=True)
    "Offer('', 15, 3769d2e2…, 100000)"
    """

    def one(arg: str) -> str:
        if arg == "":
            return "''"
        return f"{arg[:8]}…" if short and len(arg) > 16 else arg

    return f"{func}({', '.join(one(a) for a in args)})"


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str, *, what: str = "duration") -> int:
    """``90s``, ``15m``, ``1h``, ``1h30m``, or a bare number of seconds; in seconds.

    >>> parse_duration("1h30m"), parse_duration("90"), parse_duration("15m")
    (5400, 90, 900)
    """
    raw = text.strip().lower()
    if raw.isascii() and raw.isdigit():
        raw += "s"
    total, number = 0, ""
    for char in raw:
        if char.isascii() and char.isdigit():
            number += char
        elif char in _UNITS and number:
            total += int(number) * _UNITS[char]
            number = ""
        else:
            number = "x"
            break
    if number or not raw:
        raise BadInput(f"invalid {what} {text!r}: use e.g. 90s, 15m, 1h (a bare number is seconds)")
    return total


def game_id_arg(text: str) -> int:
    """A GAME argument: a positive decimal id (the realm answers for ids it never made)."""
    if not text.isascii() or not text.isdigit() or len(text) > 18 or int(text) == 0:
        raise BadInput(f"invalid game id {text!r}: a game is a positive number")
    return int(text)

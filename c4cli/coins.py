"""Coins as gno.land writes them: ``<amount><denom>`` joined by commas.

People also type GNOT (``5gnot``, ``0.5gnot``); it is turned into ugnot here, once,
before anything is signed. A transaction only ever carries ugnot.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from c4cli.errors import BadInput

UGNOT = "ugnot"
UGNOT_PER_GNOT = 1_000_000
_COIN = re.compile(r"^([0-9]+)([a-z][a-z0-9/:._-]{1,127})$")
_GNOT = re.compile(r"^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)gnot$")
# Bounded so a typo cannot produce a number no account could ever hold.
MAX_AMOUNT = 2**63 - 1
_DIGITS = len(str(MAX_AMOUNT))  # more digits than this is too large, unread


def _cut(text: str) -> str:
    """Typed text as an error line quotes it: its first 40 characters."""
    return text if len(text) <= 40 else f"{text[:40]}…"


Coins = dict[str, int]


def parse_coins(text: str) -> Coins:
    """Strict tm2 coin text, as found in a transaction: ``1000000ugnot,5foo``; '' is none.

    >>> parse_coins("1000000ugnot")
    {'ugnot': 1000000}
    """
    return dict(_parsed_coins(text))


@lru_cache(maxsize=1024)
def _parsed_coins(text: str) -> tuple[tuple[str, int], ...]:
    # Memoised: a replay meets the same few coin strings over and over.
    coins: Coins = {}
    if text == "":
        return ()
    for part in text.split(","):
        match = _COIN.match(part)
        if match is None:
            raise BadInput(
                f"invalid coins {_cut(text)!r}: expected <amount><denom>, e.g. 1000000ugnot"
            )
        digits, denom = match.group(1), match.group(2)
        if len(digits.lstrip("0")) > _DIGITS or int(digits) > MAX_AMOUNT:
            raise BadInput(f"invalid coins {_cut(text)!r}: amount too large")
        amount = int(digits)
        if denom in coins:
            raise BadInput(f"invalid coins {text!r}: {denom} appears twice")
        coins[denom] = amount
    return tuple(coins.items())


# Scientific notation typed as an amount (``1e3gnot``), which tm2 would read as one coin
# of a denomination ``e3gnot``.
_EXPONENT = re.compile(r"[0-9.]+[eE][+-]?[0-9]+")


def _written_out(number: str, denom: str) -> str:
    """``1e3`` and a denomination as a person writes them (1000ugnot), in that very
    denomination; a number too long to write out, as any example."""
    try:
        value = Decimal(number)
    except InvalidOperation:
        value = Decimal(-1)
    if not 0 <= value < Decimal(10) ** 30:
        return f"1000{denom or 'gnot'}"
    written = f"{value:f}"
    if "." in written:
        written = written.rstrip("0").rstrip(".")
    return written + denom


def parse_amount(text: str) -> Coins:
    """Coins as a person types them: tm2 coins, where ``gnot`` (up to 6 decimals) means ugnot.

    >>> parse_amount("0.5gnot")
    {'ugnot': 500000}
    >>> parse_amount("1gnot,5foo")
    {'ugnot': 1000000, 'foo': 5}
    >>> parse_amount("1,5gnot")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    c4cli.errors.BadInput: invalid amount '1,5gnot': '1' has no denomination (e.g. ...)
    >>> parse_amount("1e3gnot")  # one coin of a denomination "e3gnot"? No: a typo.
    Traceback (most recent call last):
    c4cli.errors.BadInput: invalid amount '1e3gnot': write the number out (e.g. 1000gnot), not 1e3
    >>> parse_amount("1.5e3ugnot")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    c4cli.errors.BadInput: invalid amount '1.5e3ugnot': ... (e.g. 1500ugnot), not 1.5e3
    """
    coins: Coins = {}
    for part in text.strip().split(","):
        part = part.strip()
        match = _GNOT.match(part.lower())
        if not part:
            raise BadInput(f"invalid amount {_cut(text)!r}: expected e.g. 10gnot or 1000000ugnot")
        exponent = _EXPONENT.match(part)
        if exponent is not None:
            raise BadInput(
                f"invalid amount {_cut(text)!r}: write the number out "
                f"(e.g. {_written_out(exponent.group(0), part[exponent.end() :])}), "
                f"not {exponent.group(0)}"
            )
        if match is None:
            try:
                parsed = parse_coins(part)
            except BadInput:
                raise BadInput(
                    f"invalid amount {_cut(text)!r}: {_cut(part)!r} "
                    + ("has no denomination" if part.isdigit() else "is not <amount><denom>")
                    + " (e.g. 10gnot, 1000000ugnot)"
                ) from None
        else:
            # Exact, in whole ugnot (the pattern allows digits and one point only).
            whole, _, fraction = match.group(1).partition(".")
            fraction = fraction.rstrip("0")
            if len(whole.lstrip("0")) > _DIGITS:
                raise BadInput(f"invalid amount {_cut(text)!r}: amount too large")
            if len(fraction) > 6:
                raise BadInput(f"invalid amount {_cut(text)!r}: GNOT has at most 6 decimals")
            ugnot = int(whole or "0") * UGNOT_PER_GNOT + int(fraction.ljust(6, "0"))
            parsed = {UGNOT: ugnot}
        for denom, amount in parsed.items():
            if denom in coins:
                raise BadInput(f"invalid amount {_cut(text)!r}: {denom} appears twice")
            if amount > MAX_AMOUNT:
                raise BadInput(f"invalid amount {_cut(text)!r}: amount too large")
            coins[denom] = amount
    return coins


def parse_ugnot(text: str) -> int:
    """An amount that must be ugnot only (a stake, a fee): returns the ugnot count."""
    coins = parse_amount(text)
    if set(coins) - {UGNOT}:
        raise BadInput(f"invalid amount {_cut(text)!r}: only ugnot (or gnot) is accepted here")
    return coins.get(UGNOT, 0)


def ugnot_in(coins: str) -> int:
    """The ugnot of a coins text read from a chain's answer (``5ugnot,3foo``, an event's
    ``fee_delta``), 0 when it holds none or is not coins: for showing, never for paying.

    >>> ugnot_in("3foo,5ugnot"), ugnot_in(""), ugnot_in("xugnot")
    (5, 0, 0)
    """
    for coin in coins.strip().split(","):
        if coin.endswith(UGNOT) and coin[: -len(UGNOT)].isdigit():
            return int(coin[: -len(UGNOT)])
    return 0


def format_coins(coins: Coins) -> str:
    """Canonical coin text: denominations sorted, zero amounts left out.

    >>> format_coins({"ugnot": 5, "abc": 0})
    '5ugnot'
    """
    return ",".join(f"{amount}{denom}" for denom, amount in sorted(coins.items()) if amount)


def gnot(ugnot: int) -> str:
    """ugnot as GNOT, for a person and in the realm's own messages: the whole part
    and up to 6 decimals, trailing zeros dropped.

    >>> gnot(2_500_000), gnot(100_000), gnot(0), gnot(-1)
    ('2.5 GNOT', '0.1 GNOT', '0 GNOT', '-0.000001 GNOT')
    """
    sign = "-" if ugnot < 0 else ""
    whole, frac = divmod(abs(ugnot), UGNOT_PER_GNOT)
    text = f"{whole}.{frac:06d}".rstrip("0") if frac else str(whole)
    return f"{sign}{text} GNOT"

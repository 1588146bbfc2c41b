"""Option values as a person types them: a count, or seconds with their unit.

click's own ranges answer ``--wait 3s`` with "'3s' is not a valid integer range", a
sentence about click, not about the option. These say what the option takes, in one
line, and take the units every other duration of c4 takes (``90s``, ``15m``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import click

from c4cli.commands.text import parse_duration
from c4cli.errors import BadInput

if TYPE_CHECKING:  # click's ParamType is generic from 8.4 on; 8.2 takes no argument
    IntType = click.ParamType[int]
    FloatType = click.ParamType[float]
else:
    IntType = click.ParamType
    FloatType = click.ParamType


class _Bounded(IntType):
    """A whole number read from text (``parse``: -1 for text that is not one) from
    ``low`` to ``high`` (None: no bound); anything else is refused as ``wanted`` says."""

    def __init__(self, low: int, high: int | None = None) -> None:
        self.low, self.high = low, high

    def parse(self, text: str) -> int:
        raise NotImplementedError

    def wanted(self) -> str:
        raise NotImplementedError

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> int:
        number = value if isinstance(value, int) else self.parse(str(value)[:40])
        if number < self.low or (self.high is not None and number > self.high):
            self.fail(f"{str(value)[:40]!r}: {self.wanted()}", param, ctx)
        return number


class Count(_Bounded):
    """A whole number from ``low`` to ``high`` (None: no bound)."""

    name = "integer"

    def parse(self, text: str) -> int:
        return int(text.strip()) if re.fullmatch(r"[0-9]{1,9}", text.strip()) else -1

    def wanted(self) -> str:
        return f"a whole number from {self.low}" + ("" if self.high is None else f" to {self.high}")


class Seconds(_Bounded):
    """A duration in whole seconds (``90``, ``90s``, ``15m``, ``1h``) within bounds."""

    name = "seconds"

    def __init__(self, low: int, high: int) -> None:
        super().__init__(low, high)

    def parse(self, text: str) -> int:
        try:
            return parse_duration(text, what="duration")
        except BadInput:
            return -1

    def wanted(self) -> str:
        return f"a duration from {self.low}s to {self.high}s (e.g. 30, 30s, 2m)"


class FloatSeconds(FloatType):
    """Seconds, fractions allowed (``2``, ``2.5``, ``2s``, ``500ms``), at least ``low``."""

    name = "seconds"

    def __init__(self, low: float) -> None:
        self.low = low

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, int | float):
            seconds = float(value)
        else:
            found = re.fullmatch(r"([0-9]{1,6}(?:\.[0-9]{1,6})?)(ms|s|m)?", str(value).strip())
            seconds = -1.0
            if found is not None:
                scale = {"ms": 0.001, "s": 1.0, "m": 60.0}[found[2] or "s"]
                seconds = float(found[1]) * scale
        if seconds < self.low:
            self.fail(
                f"{str(value)[:40]!r}: seconds, at least {self.low} (e.g. 2, 2.5s, 500ms)",
                param,
                ctx,
            )
        return seconds

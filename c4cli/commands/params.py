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


class Count(IntType):
    """A whole number from ``low`` to ``high`` (None: no bound)."""

    name = "integer"

    def __init__(self, low: int, high: int | None = None) -> None:
        self.low, self.high = low, high

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> int:
        if isinstance(value, int):
            number = value
        else:
            text = str(value).strip()
            number = int(text) if re.fullmatch(r"[0-9]{1,9}", text) else -1
        if number < self.low or (self.high is not None and number > self.high):
            above = "" if self.high is None else f" to {self.high}"
            self.fail(f"{str(value)[:40]!r}: a whole number from {self.low}{above}", param, ctx)
        return number


class Seconds(IntType):
    """A duration in whole seconds (``90``, ``90s``, ``15m``, ``1h``) within bounds."""

    name = "seconds"

    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> int:
        if isinstance(value, int):
            seconds = value
        else:
            try:
                seconds = parse_duration(str(value)[:40], what="duration")
            except BadInput:
                seconds = -1
        if not self.low <= seconds <= self.high:
            self.fail(
                f"{str(value)[:40]!r}: a duration from {self.low}s to {self.high}s "
                "(e.g. 30, 30s, 2m)",
                param,
                ctx,
            )
        return seconds


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

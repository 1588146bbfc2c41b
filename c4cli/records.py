"""Value semantics for the state's plain classes.

The chain's and the realm's mutable records are plain classes with ``__slots__``
rather than dataclasses: they are loaded by every command, and building a
dataclass at import costs about a millisecond each. This base gives them
equality and a readable repr from their slots.
"""

from __future__ import annotations

from typing import Any, ClassVar


class Record:
    __slots__: ClassVar[tuple[str, ...]] = ()

    def _values(self) -> tuple[Any, ...]:
        # A slot named with a leading underscore holds something derived (a
        # memo), not part of the value.
        return tuple(getattr(self, name) for name in self.__slots__ if name[0] != "_")

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Record)
            and type(self) is type(other)
            and (self._values() == other._values())
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{name}={getattr(self, name)!r}" for name in self.__slots__ if name[0] != "_"
        )
        return f"{type(self).__name__}({fields})"

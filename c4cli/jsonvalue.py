"""The JSON c4 writes, as a type.

Every document c4 prints (``--json``), stores (the state cache, the journal, the
checkpoints, a fork's origin) or sends as amino JSON is a :data:`Document`: an
object whose values are JSON's own (null, booleans, numbers, strings, arrays and
objects of them), so the type checker holds each writer to what ``json.dumps``
takes. The readers of a stored document take it back at their edge and name a
field that is not what they expect.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

JSON: TypeAlias = bool | int | float | str | Sequence["JSON"] | Mapping[str, "JSON"] | None
Document: TypeAlias = dict[str, JSON]

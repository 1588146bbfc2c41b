"""tm2's canonical JSON: the bytes a signature covers, and the log's record hashes.

Its own module so that what hashes a record (the local log's genesis, read by every
query) needs no transaction type.
"""

from __future__ import annotations

import json
from typing import Any

from c4cli.gotext import go_escaped


def canonical_json(value: Any) -> bytes:
    """tm2's sign-bytes JSON: keys sorted at every depth, no spaces, UTF-8.

    As Go's encoding/json writes it: ``<``, ``>``, ``&`` and the line and
    paragraph separators U+2028 and U+2029 are escaped; since Go 1.22 it writes
    U+0008 and U+000C as ``\b`` and ``\f``, as Python does.
    """
    return go_escaped(_encode(value)).encode()


def _json_encode(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


_encode = _json_encode


def use_fast_json() -> None:
    """Encode with orjson from now on: about ten times faster, the same bytes.

    For the bulk paths (`c4 verify`, replays) only: importing orjson costs more
    than a single command's three encodings. tests/wire/test_signing.py checks
    that both encoders give identical output.
    """
    import orjson

    def encode(value: Any) -> str:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()

    global _encode
    _encode = encode

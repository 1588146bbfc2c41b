"""Commitments: the sha256 of a secret, as 64 lower-case hex characters.

The realm checks a revealed passphrase or seed against one; the home keeps each
secret under its commitment. One definition serves both.

>>> commitment_of("correct horse")[:16], is_commitment(commitment_of("x"))
('4104d36f8da2c254', True)
"""

from __future__ import annotations

import hashlib
import re

_HEX64 = re.compile(r"[0-9a-f]{64}")


def commitment_of(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def is_commitment(text: str) -> bool:
    """64 lower-case hex characters: the only spelling the realm accepts."""
    return _HEX64.fullmatch(text) is not None

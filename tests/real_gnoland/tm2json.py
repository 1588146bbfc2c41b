"""The wire's hashes and sign bytes of tm2 values given as a node's JSON: what a test
that forges an answer (a proxy, a synthetic chain) signs and hashes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from c4cli.node.light import headers as light
from c4cli.wire.blocks import Commit, Header, Validator, Vote
from c4cli.wire.blocks import validators_hash as set_hash


def header_hash(header: dict[str, Any]) -> bytes | None:
    return Header.from_json(header).hash()


def validators_hash(rows: Iterable[Any]) -> bytes | None:
    """The hash of a set given as rows (dicts) or as values already."""
    return set_hash([r if isinstance(r, Validator) else Validator.from_json(r) for r in rows])


def vote_sign_bytes(chain_id: str, vote: dict[str, Any]) -> bytes:
    return Vote.from_json(vote).sign_bytes(chain_id)


def verify_commit(chain_id: str, header: Any, commit: Any, rows: Iterable[Any]) -> int:
    """c4's light-client check of a header, commit and set as a node's JSON gives them."""
    return light.verify_commit(
        chain_id,
        Header.from_json(header),
        Commit.from_json(commit),
        [Validator.from_json(row) for row in rows],
    )

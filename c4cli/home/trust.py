"""The validator set a home trusts for its node's chain: ``<home>/trust.toml``.

Written when trust is first placed (`c4 init --remote`, on first use or from
``--trust HEIGHT:HASH``; `c4 node start`, from its own genesis), when the node
client follows a change of the set through headers the trusted set signed, and
when it proves a later head (``height`` is the highest block proven, which a node
showing an older one as its last cannot lower); writers take ``.trust.lock``.
Every landed transaction, height and block time c4 reports of the node is held to
it (:mod:`c4cli.node.light.verify`)::

    chain_id = "dev"
    height = 12                   # the highest block proven
    block_hash = "3F1A…"          # the header read at that height (hex)
    next_hash = "9C0B…"           # its next_validators_hash (hex)
    source = "first use"

    [[validators]]
    address = "g1…"
    pub_key_type = "/tm.PubKeyEd25519"
    pub_key = "base64…"
    power = 1
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import rtoml
import tomli_w

from c4cli.chain.trust import TrustedSet
from c4cli.errors import HomeDamaged
from c4cli.files import write_private
from c4cli.wire.blocks import PubKey, Validator, fingerprint
from c4cli.wire.fields import b64, raw

TRUST = "trust.toml"
LOCK = ".trust.lock"


class TrustFile:
    """A home's ``trust.toml``: the TrustStore a node client is handed."""

    def __init__(self, home: Path) -> None:
        self.path = home / TRUST

    def fingerprinted(self) -> tuple[TrustedSet, str] | None:
        """The set this home trusts and its fingerprint; None when it trusts none."""
        trusted = self.load()
        return None if trusted is None else (trusted, fingerprint(trusted.validators))

    def load(self) -> TrustedSet | None:
        """The set trusted, or None for a home that trusts none yet."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise HomeDamaged(f"cannot read {self.path}: {exc}") from None
        try:
            document = rtoml.loads(text)
            validators = tuple(_validator(row) for row in document["validators"])
            trusted = TrustedSet(
                chain_id=_text(document["chain_id"]),
                height=int(document["height"]),
                block_hash=_text(document["block_hash"]),
                next_hash=_text(document["next_hash"]),
                validators=validators,
                source=_text(document["source"]),
            )
        except (rtoml.TomlParsingError, KeyError, TypeError, ValueError):
            raise HomeDamaged(
                f"{self.path} is not a trusted validator set: `c4 init --remote URL --force` "
                "places trust again"
            ) from None
        if trusted.height < 1 or not validators:
            raise HomeDamaged(f"{self.path} trusts no validator at no height")
        return trusted

    def save(self, trusted: TrustedSet) -> None:
        with self._locked():
            self._write(trusted)

    def advance(self, trusted: TrustedSet) -> None:
        with self._locked():
            kept = self.load()
            if (
                kept is not None
                and kept.chain_id == trusted.chain_id
                and kept.validators == trusted.validators
                and kept.height < trusted.height
            ):
                self._write(trusted._replace(source=kept.source))

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """One writer at a time (the file itself is replaced whole by each write)."""
        try:
            fd = os.open(self.path.with_name(LOCK), os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise HomeDamaged(f"cannot lock {self.path}: {exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _write(self, trusted: TrustedSet) -> None:
        document = {
            "chain_id": trusted.chain_id,
            "height": trusted.height,
            "block_hash": trusted.block_hash,
            "next_hash": trusted.next_hash,
            "source": trusted.source,
            "validators": [
                {
                    "address": v.address,
                    "pub_key_type": v.pub_key.type_url,
                    "pub_key": b64(v.pub_key.value) or "",
                    "power": v.voting_power,
                }
                for v in trusted.validators
            ],
        }
        header = (
            f"# The validator set this home trusts for chain {trusted.chain_id!r}: every block\n"
            "# c4 reports of its nodes must carry their signatures (see SECURITY.md).\n"
        )
        write_private(
            self.path,
            (header + tomli_w.dumps(document)).encode(),
            fault="trust-write",
            consequence="nothing was trusted",
        )

    def forget(self) -> None:
        """No set trusted any more (a home bound anew)."""
        self.path.unlink(missing_ok=True)


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("not text")
    return value


def _validator(row: Any) -> Validator:
    """A validator of the file."""
    power = row["power"]
    if not isinstance(power, int) or isinstance(power, bool) or power <= 0:
        raise ValueError("a validator's power is a positive integer")
    key = PubKey(_text(row["pub_key_type"]), raw(_text(row["pub_key"])))
    return Validator(_text(row["address"]), key, power)

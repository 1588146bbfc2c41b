"""tm2's ``std`` transaction as a typed value: ``Fee``, ``Signature`` and ``Tx``, with
their amino JSON and amino binary both ways, and the TX HASH.

One value is what gets signed (its JSON, :mod:`c4cli.wire.tx`), logged and journaled
(its JSON), sent and hashed (its bytes): ``decode_tx(encode_tx(tx)) == tx`` for every
transaction, and ``encode_tx(decode_tx(b)) == b`` for every one c4 makes. Amino's
binary form is protobuf 3's wire format (:mod:`c4cli.wire.protowire`): a field whose
value is empty or zero is not written, int64 values are zigzag varints, coins travel
as their text, a message or a key is an ``Any``.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from typing import Any, NamedTuple

from c4cli.errors import Refused
from c4cli.jsonvalue import Document
from c4cli.wire import fields, pubkeys
from c4cli.wire.msgs import (
    MSG_CALL,
    MSG_CREATE_SESSION,
    MSG_REVOKE_ALL_SESSIONS,
    MSG_REVOKE_SESSION,
    MSG_SEND,
    Msg,
    decode_msg,
    encode_msg,
    msg_from_json,
)
from c4cli.wire.protowire import DecodeError, EncodeError, bytes_field

__all__ = ["DecodeError", "EncodeError", "Fee", "Signature", "Tx", "decode_tx", "encode_tx"]

ZERO_ADDRESS = "g1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqluuxe"  # twenty zero bytes


class Fee(NamedTuple):
    """``std.Fee``: the gas wanted and the fee paid for it (a coin's text, ``""`` for none)."""

    gas_wanted: int
    gas_fee: str = ""

    def to_json(self) -> Document:
        return {"gas_wanted": str(self.gas_wanted), "gas_fee": self.gas_fee}

    @classmethod
    def from_json(cls, doc: Any) -> Fee:
        if not isinstance(doc, Mapping):
            raise EncodeError("fee: expected an object")
        try:
            return cls(fields.int64_of(doc, "gas_wanted"), fields.text_of(doc, "gas_fee", ""))
        except EncodeError as exc:
            raise EncodeError(f"fee: {exc}") from None

    def amino(self) -> bytes:
        return fields.int64_field(1, self.gas_wanted) + fields.string_field(2, self.gas_fee)


class Signature(NamedTuple):
    """``std.Signature``: the public key (None until a chain knows it, or for a tx sent
    without a key), the signature's bytes, and the session that signed (None: the
    account's own key)."""

    pub_key: pubkeys.PubKey | None
    signature: bytes
    session_addr: str | None = None

    def to_json(self) -> Document:
        doc: Document = {}
        if self.pub_key is not None:
            doc["pub_key"] = pubkeys.to_json(self.pub_key)
        doc["signature"] = base64.b64encode(self.signature).decode()
        if self.session_addr is not None:
            doc["session_addr"] = self.session_addr
        return doc

    @classmethod
    def from_json(cls, doc: Any) -> Signature:
        if not isinstance(doc, Mapping):
            raise EncodeError("a signature must be an object")
        try:
            key = None if doc.get("pub_key") is None else fields.key_of(doc, "pub_key")
            session = doc.get("session_addr")
            return cls(
                key,
                fields.bytes_of(doc, "signature"),
                None if session is None else fields.text_of(doc, "session_addr"),
            )
        except EncodeError as exc:
            raise EncodeError(f"signature: {exc}") from None

    def amino(self) -> bytes:
        key = b"" if self.pub_key is None else bytes_field(1, pubkeys.any_bytes(self.pub_key))
        session = self.session_addr or ""
        # amino:"skip_zero": the zero address is a master key's signature, not written.
        return (
            key
            + (bytes_field(2, self.signature) if self.signature else b"")
            + (b"" if session == ZERO_ADDRESS else fields.string_field(3, session))
        )

    @classmethod
    def from_amino(cls, data: bytes) -> Signature:
        found = fields.fields_of(data)
        key = fields.read_key(found, 1) if 1 in found else None
        session = fields.read_text(found, 3) if 3 in found else None
        return cls(key, fields.read_bytes(found, 2), session)


class Tx(NamedTuple):
    """``std.Tx``: its messages, fee, signatures (none: not signed yet) and memo."""

    msgs: tuple[Msg, ...]
    fee: Fee
    signatures: tuple[Signature, ...] = ()
    memo: str = ""

    def to_json(self, *, unsigned_as_null: bool = False) -> Document:
        """Amino JSON, as gnokey writes a signed tx and c4's log and journal keep it;
        ``unsigned_as_null``: a tx without signatures as gnokey writes its file, with
        ``"signatures": null``."""
        signatures = [signature.to_json() for signature in self.signatures]
        return {
            "msg": [msg.to_json() for msg in self.msgs],
            "fee": self.fee.to_json(),
            "signatures": signatures or (None if unsigned_as_null else []),
            "memo": self.memo,
        }

    @classmethod
    def from_json(cls, doc: Any) -> Tx:
        """A tx from its amino JSON; EncodeError (a ValueError) naming what is wrong."""
        if not isinstance(doc, Mapping):
            raise EncodeError("a tx must be an object")
        msgs, signatures = doc.get("msg"), doc.get("signatures")
        if not isinstance(msgs, list) or not isinstance(signatures, list | None):
            raise EncodeError("a tx needs msg, fee and signatures")
        if "fee" not in doc:
            raise EncodeError("a tx needs msg, fee and signatures")
        return cls(
            tuple(msg_from_json(msg) for msg in msgs),
            Fee.from_json(doc["fee"]),
            tuple(Signature.from_json(signature) for signature in signatures or ()),
            fields.text_of(doc, "memo", ""),
        )

    @property
    def signer(self) -> str:
        """The account the first message names as its signer (IndexError: none;
        ValueError: a kind that names none)."""
        return self.msgs[0].signer

    @property
    def signature(self) -> Signature:
        """The (first) signature; IndexError for a tx not signed."""
        return self.signatures[0]

    def names(self) -> list[str]:
        """What each message does, as receipts and the journal name it: a call's
        function, ``send``, ``create_session``…"""
        return [msg.name for msg in self.msgs]


def encode_tx(tx: Tx) -> bytes:
    """The amino binary of a ``std.Tx``."""
    out = b"".join(bytes_field(1, encode_msg(msg)) for msg in tx.msgs)
    fee = tx.fee.amino()
    # An empty fee (no gas, no coin) is left out like any empty struct: gno's Go
    # codec does so (gno's JS client writes "12 00"; the node's codec decides).
    out += bytes_field(2, fee) if fee else b""
    out += b"".join(bytes_field(3, signature.amino()) for signature in tx.signatures)
    return out + fields.string_field(4, tx.memo)


def decode_tx(data: bytes) -> Tx:
    """A ``std.Tx`` from its amino binary (DecodeError, or UnicodeDecodeError for text
    that is not UTF-8, for bytes that are not one)."""
    found = fields.fields_of(data)
    msgs = tuple(decode_msg(m) for m in found.get(1, []) if isinstance(m, bytes))
    fee = fields.fields_of(fields.read_bytes(found, 2))
    signatures = []
    for raw in found.get(3, []):
        if not isinstance(raw, bytes):
            raise DecodeError("a signature must be bytes")
        signatures.append(Signature.from_amino(raw))
    return Tx(
        msgs,
        Fee(fields.read_int64(fee, 1), fields.read_text(fee, 2)),
        tuple(signatures),
        fields.read_text(found, 4),
    )


def tx_hash(tx: Tx) -> str:
    """TX HASH as gno.land computes it: base64 of sha256 of the amino binary.

    >>> tx_hash(Tx((), Fee(0)))
    '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='
    """
    return base64.b64encode(hashlib.sha256(encode_tx(tx)).digest()).decode()


def tx_signer(tx: Tx) -> str:
    """The account a transaction's first message names as its signer; "" for one that
    names none (a transaction the chain then refuses in its own words)."""
    try:
        return tx.signer
    except (IndexError, ValueError):
        return ""


LOCAL_KINDS = (MSG_CALL, MSG_SEND, MSG_CREATE_SESSION, MSG_REVOKE_SESSION, MSG_REVOKE_ALL_SESSIONS)
UNKNOWN_REQUEST = "/std.UnknownRequestError"


def runs_locally(tx: Tx, realm_path: str) -> None:
    """Refuse (tm2's unknown request) a transaction holding a message the local chain
    does not run: it runs the realm's calls, bank sends and session keys, not any Gno
    (a ``maketx run``, a package added), which a gnoland node runs."""
    for msg in tx.msgs:
        if msg.type_url not in LOCAL_KINDS:
            raise Refused(
                f"unknown request: the local chain runs {realm_path}'s calls, bank sends and "
                f"session keys, not {msg.type_url} (`c4 node start` runs a gnoland, which "
                "runs any Gno)",
                kind=UNKNOWN_REQUEST,
            )

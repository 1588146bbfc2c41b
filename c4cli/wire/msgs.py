"""tm2's messages as typed values: one frozen class per kind, with its amino JSON and
its amino binary both ways.

The kinds c4 sends (a realm call, a bank send, the session messages) are whole
values; the kinds it only reads (a package added, code run once, any other) keep
their bytes, and name their signer and package. :mod:`c4cli.wire.std` holds the
transaction around them; reading one loads no cryptography.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, NamedTuple

from c4cli.jsonvalue import Document
from c4cli.wire import pubkeys
from c4cli.wire.fields import (
    Fields,
    bytes_of,
    fields_of,
    int64_field,
    int64_of,
    key_of,
    read_bytes,
    read_int64,
    read_key,
    read_text,
    read_texts,
    string_field,
    text_of,
    texts_of,
)
from c4cli.wire.protowire import EncodeError, any_value, bytes_field

MSG_CALL = "/vm.m_call"
MSG_SEND = "/bank.MsgSend"
MSG_CREATE_SESSION = "/auth.m_create_session"
MSG_REVOKE_SESSION = "/auth.m_revoke_session"
MSG_REVOKE_ALL_SESSIONS = "/auth.m_revoke_all_sessions"
MSG_ADD_PACKAGE = "/vm.m_addpkg"  # read, never sent: a package deployed
MSG_RUN = "/vm.m_run"  # read, never sent: code run once
AUTH_MSGS = (MSG_CREATE_SESSION, MSG_REVOKE_SESSION, MSG_REVOKE_ALL_SESSIONS)


# -- the kinds c4 sends -------------------------------------------------------------------


class MsgCall(NamedTuple):
    """``/vm.m_call``: a realm function called, with coins sent along."""

    @property
    def type_url(self) -> str:
        return MSG_CALL

    caller: str
    pkg_path: str
    func: str
    args: tuple[str, ...] = ()
    send: str = ""
    max_deposit: str = ""

    @property
    def signer(self) -> str:
        return self.caller

    @property
    def name(self) -> str:
        return self.func

    def to_json(self) -> Document:
        """Amino JSON; ``args`` left out when there are none, as c4 and gnokey sign it."""
        doc: Document = {
            "@type": MSG_CALL,
            "caller": self.caller,
            "send": self.send,
            "max_deposit": self.max_deposit,
            "pkg_path": self.pkg_path,
            "func": self.func,
        }
        if self.args:
            doc["args"] = list(self.args)
        return doc

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> MsgCall:
        return cls(
            caller=text_of(doc, "caller"),
            pkg_path=text_of(doc, "pkg_path"),
            func=text_of(doc, "func"),
            args=texts_of(doc, "args"),
            send=text_of(doc, "send", ""),
            max_deposit=text_of(doc, "max_deposit", ""),
        )

    def amino(self) -> bytes:
        out = string_field(1, self.caller) + string_field(2, self.send)
        out += string_field(3, self.max_deposit) + string_field(4, self.pkg_path)
        out += string_field(5, self.func)
        return out + b"".join(bytes_field(6, arg.encode()) for arg in self.args)

    @classmethod
    def from_amino(cls, found: Fields) -> MsgCall:
        caller, send, max_deposit, pkg_path, func = (read_text(found, n) for n in range(1, 6))
        return cls(caller, pkg_path, func, read_texts(found, 6), send, max_deposit)


class MsgSend(NamedTuple):
    """``/bank.MsgSend``: coins from one account to another."""

    @property
    def type_url(self) -> str:
        return MSG_SEND

    from_address: str
    to_address: str
    amount: str

    @property
    def signer(self) -> str:
        return self.from_address

    @property
    def name(self) -> str:
        return "send"

    def to_json(self) -> Document:
        return {
            "@type": MSG_SEND,
            "from_address": self.from_address,
            "to_address": self.to_address,
            "amount": self.amount,
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> MsgSend:
        names = ("from_address", "to_address", "amount")
        return cls(*(text_of(doc, name) for name in names))

    def amino(self) -> bytes:
        return (
            string_field(1, self.from_address)
            + string_field(2, self.to_address)
            + string_field(3, self.amount)
        )

    @classmethod
    def from_amino(cls, found: Fields) -> MsgSend:
        return cls(*(read_text(found, n) for n in (1, 2, 3)))


class MsgCreateSession(NamedTuple):
    """``/auth.m_create_session``: a session key authorised (``expires_at`` 0: never
    expires). ``allow_paths``, ``spend_limit`` and ``spend_period`` are ``omitempty`` in
    tm2, so an empty one is left out of the signed JSON."""

    @property
    def type_url(self) -> str:
        return MSG_CREATE_SESSION

    @property
    def name(self) -> str:
        return "create_session"

    creator: str
    session_key: pubkeys.PubKey
    expires_at: int = 0
    allow_paths: tuple[str, ...] = ()
    spend_limit: str = ""
    spend_period: int = 0

    @property
    def signer(self) -> str:
        return self.creator

    def to_json(self) -> Document:
        doc: Document = {
            "@type": MSG_CREATE_SESSION,
            "creator": self.creator,
            "session_key": pubkeys.to_json(self.session_key),
            "expires_at": str(self.expires_at),
        }
        if self.allow_paths:
            doc["allow_paths"] = list(self.allow_paths)
        if self.spend_limit:
            doc["spend_limit"] = self.spend_limit
        if self.spend_period:
            doc["spend_period"] = str(self.spend_period)
        return doc

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> MsgCreateSession:
        return cls(
            creator=text_of(doc, "creator"),
            session_key=key_of(doc, "session_key"),
            expires_at=int64_of(doc, "expires_at"),
            allow_paths=texts_of(doc, "allow_paths"),
            spend_limit=text_of(doc, "spend_limit", ""),
            spend_period=int64_of(doc, "spend_period", 0),
        )

    def amino(self) -> bytes:
        out = string_field(1, self.creator)
        out += bytes_field(2, pubkeys.any_bytes(self.session_key))
        out += int64_field(3, self.expires_at)
        out += b"".join(bytes_field(4, path.encode()) for path in self.allow_paths)
        return out + string_field(5, self.spend_limit) + int64_field(6, self.spend_period)

    @classmethod
    def from_amino(cls, found: Fields) -> MsgCreateSession:
        return cls(
            read_text(found, 1),
            read_key(found, 2),
            read_int64(found, 3),
            read_texts(found, 4),
            read_text(found, 5),
            read_int64(found, 6),
        )


class MsgRevokeSession(NamedTuple):
    """``/auth.m_revoke_session``: one session revoked, named by its public key."""

    @property
    def type_url(self) -> str:
        return MSG_REVOKE_SESSION

    @property
    def name(self) -> str:
        return "revoke_session"

    creator: str
    session_key: pubkeys.PubKey

    @property
    def signer(self) -> str:
        return self.creator

    def to_json(self) -> Document:
        key = pubkeys.to_json(self.session_key)
        return {"@type": MSG_REVOKE_SESSION, "creator": self.creator, "session_key": key}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> MsgRevokeSession:
        return cls(text_of(doc, "creator"), key_of(doc, "session_key"))

    def amino(self) -> bytes:
        return string_field(1, self.creator) + bytes_field(2, pubkeys.any_bytes(self.session_key))

    @classmethod
    def from_amino(cls, found: Fields) -> MsgRevokeSession:
        return cls(read_text(found, 1), read_key(found, 2))


class MsgRevokeAllSessions(NamedTuple):
    """``/auth.m_revoke_all_sessions``: every session of the account revoked."""

    @property
    def type_url(self) -> str:
        return MSG_REVOKE_ALL_SESSIONS

    @property
    def name(self) -> str:
        return "revoke_all_sessions"

    creator: str

    @property
    def signer(self) -> str:
        return self.creator

    def to_json(self) -> Document:
        return {"@type": MSG_REVOKE_ALL_SESSIONS, "creator": self.creator}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> MsgRevokeAllSessions:
        return cls(text_of(doc, "creator"))

    def amino(self) -> bytes:
        return string_field(1, self.creator)

    @classmethod
    def from_amino(cls, found: Fields) -> MsgRevokeAllSessions:
        return cls(read_text(found, 1))


# -- the kinds c4 reads: their bytes kept -----------------------------------------------


class MsgPackage(NamedTuple):
    """``/vm.m_addpkg`` (a package deployed) or ``/vm.m_run`` (code run once): who signed,
    the package's name and path, and the message's bytes (its files stay in them)."""

    type_url: str
    signer: str
    package_name: str
    package_path: str
    value: bytes

    @property
    def name(self) -> str:
        return self.type_url.rsplit(".", 1)[-1].removeprefix("m_")

    def to_json(self) -> Document:
        signer_field, _ = _PACKAGE_MSGS[self.type_url]
        return {
            "@type": self.type_url,
            signer_field: self.signer,
            "package": {"name": self.package_name, "path": self.package_path},
            "amino": base64.b64encode(self.value).decode(),
        }

    def amino(self) -> bytes:
        return self.value

    @classmethod
    def from_amino_of(cls, type_url: str, value: bytes) -> MsgPackage:
        _, package_field = _PACKAGE_MSGS[type_url]
        found = fields_of(value)
        named = fields_of(read_bytes(found, package_field))
        return cls(type_url, read_text(found, 1), read_text(named, 1), read_text(named, 2), value)

    def files(self) -> dict[str, str]:
        """The package's files (name: body): a MemPackage's third field, each MemFile a
        name and a body."""
        _, package_field = _PACKAGE_MSGS[self.type_url]
        package = fields_of(read_bytes(fields_of(self.value), package_field))
        files = [fields_of(f) for f in package.get(3, []) if isinstance(f, bytes)]
        return {read_text(file, 1): read_text(file, 2) for file in files}


# gno's messages that carry a package: their signer's field, and the package's number.
_PACKAGE_MSGS = {MSG_ADD_PACKAGE: ("creator", 2), MSG_RUN: ("caller", 4)}


class MsgOther(NamedTuple):
    """A kind c4 neither sends nor reads: its type and its bytes."""

    type_url: str
    value: bytes

    @property
    def signer(self) -> str:
        raise ValueError(f"unknown message type {self.type_url!r}")

    @property
    def name(self) -> str:
        return self.type_url.rsplit(".", 1)[-1].removeprefix("m_")

    def to_json(self) -> Document:
        return {"@type": self.type_url, "amino": base64.b64encode(self.value).decode()}

    def amino(self) -> bytes:
        return self.value


Msg = (
    MsgCall
    | MsgSend
    | MsgCreateSession
    | MsgRevokeSession
    | MsgRevokeAllSessions
    | MsgPackage
    | MsgOther
)
SentMsg = MsgCall | MsgSend | MsgCreateSession | MsgRevokeSession | MsgRevokeAllSessions
SENT: dict[str, type[SentMsg]] = {
    MSG_CALL: MsgCall,
    MSG_SEND: MsgSend,
    MSG_CREATE_SESSION: MsgCreateSession,
    MSG_REVOKE_SESSION: MsgRevokeSession,
    MSG_REVOKE_ALL_SESSIONS: MsgRevokeAllSessions,
}


def msg_from_json(doc: Any) -> Msg:
    """A message from its amino JSON (EncodeError naming what is wrong); a kind c4 only
    reads is taken from the bytes its ``amino`` field keeps."""
    if not isinstance(doc, Mapping):
        raise EncodeError("a message must be an object")
    kind = doc.get("@type")
    if not isinstance(kind, str):
        raise EncodeError(f"unknown message type {kind!r}")
    if kind in SENT:
        try:
            return SENT[kind].from_json(doc)
        except EncodeError as exc:
            raise EncodeError(f"{kind}: {exc}") from None
    if "amino" not in doc:
        raise EncodeError(f"unknown message type {kind!r}")
    return read_only(kind, bytes_of(doc, "amino"))


def read_only(kind: str, value: bytes) -> MsgPackage | MsgOther:
    if kind in _PACKAGE_MSGS:
        return MsgPackage.from_amino_of(kind, value)
    return MsgOther(kind, value)


def encode_msg(msg: Msg) -> bytes:
    """One message as the ``Any`` that ``Tx.msgs`` holds."""
    return any_value(msg.type_url, msg.amino())


def decode_msg(data: bytes) -> Msg:
    """One message of ``Tx.msgs`` (an ``Any``) from its bytes."""
    found = fields_of(data)
    kind, value = read_text(found, 1), read_bytes(found, 2)
    if kind in SENT:
        return SENT[kind].from_amino(fields_of(value))
    return read_only(kind, value)

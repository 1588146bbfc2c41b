"""tm2 messages as every part of c4 reads them: their types, names and signers.

Apart from the signing (:mod:`c4cli.wire.tx`), so that what only reads
transactions (a listing, the journal, a query of a node) loads no cryptography.
"""

from __future__ import annotations

from typing import Any, TypedDict

from c4cli.errors import Refused

# A message as amino JSON writes it, whichever its type (``@type``): a realm call's
# fields, a bank send's, a session's; each message has the ones of its type.
Msg = TypedDict(
    "Msg",
    {
        "@type": str,
        "caller": str,
        "send": str,
        "max_deposit": str,
        "pkg_path": str,
        "func": str,
        "args": list[str] | None,
        "from_address": str,
        "to_address": str,
        "amount": str,
        "creator": str,
        "session_key": Any,  # a public key's amino JSON
        "expires_at": str,
        "allow_paths": list[str] | None,
        "spend_limit": str,
        "spend_period": str,
        "session_addr": str,
        "amino": str,  # a kind c4 does not send, kept as its bytes (base64)
    },
    total=False,
)


class Fee(TypedDict):
    """``std.Fee``: the gas wanted and the fee paid for it, as amino JSON writes them."""

    gas_wanted: str
    gas_fee: str


class Signature(TypedDict, total=False):
    """``std.Signature``: the public key (amino JSON; None until a chain knows it), the
    signature in base64, and the session that signed, for a session key."""

    pub_key: Any
    signature: str | None
    session_addr: str


class Tx(TypedDict):
    """``std.Tx`` as amino JSON writes it (gnokey's, and c4's journal's)."""

    msg: list[Msg]
    fee: Fee
    signatures: list[Signature] | None
    memo: str


MSG_CALL = "/vm.m_call"
MSG_SEND = "/bank.MsgSend"
MSG_CREATE_SESSION = "/auth.m_create_session"
MSG_REVOKE_SESSION = "/auth.m_revoke_session"
MSG_REVOKE_ALL_SESSIONS = "/auth.m_revoke_all_sessions"
MSG_ADD_PACKAGE = "/vm.m_addpkg"  # read, never sent: a package deployed
MSG_RUN = "/vm.m_run"  # read, never sent: code run once
AUTH_MSGS = (MSG_CREATE_SESSION, MSG_REVOKE_SESSION, MSG_REVOKE_ALL_SESSIONS)


def first_signature(tx: Tx) -> Signature:
    """A signed transaction's (first) signature: TypeError for one not signed, as
    reading ``None`` would raise, and IndexError for one with none."""
    signatures = tx["signatures"]
    if signatures is None:
        raise TypeError("the transaction is not signed")
    return signatures[0]


def tx_signer(tx: Tx) -> str:
    """The account a transaction's first message names as its signer; "" for bytes
    that name none (a transaction the chain then refuses in its own words)."""
    try:
        return msg_signer(tx["msg"][0])
    except (KeyError, IndexError, TypeError, ValueError):
        return ""


def msg_names(tx: Tx) -> list[str]:
    """What each message of a transaction does, as receipts and the journal name it:
    a call's function, ``send``, ``create_session``….

    >>> msg_names({"msg": [{"@type": MSG_CALL, "func": "Play"}, {"@type": MSG_SEND}]})
    ['Play', 'send']
    """
    names = []
    for msg in tx.get("msg", []):
        kind = str(msg.get("@type", ""))
        if kind == MSG_CALL:
            names.append(str(msg.get("func")))
        elif kind == MSG_SEND:
            names.append("send")
        else:
            names.append(kind.rsplit(".", 1)[-1].removeprefix("m_"))
    return names


LOCAL_KINDS = (
    MSG_CALL,
    MSG_SEND,
    MSG_CREATE_SESSION,
    MSG_REVOKE_SESSION,
    MSG_REVOKE_ALL_SESSIONS,
)
UNKNOWN_REQUEST = "/std.UnknownRequestError"


def runs_locally(tx: Tx, realm_path: str) -> None:
    """Refuse (tm2's unknown request) a transaction holding a message the local chain
    does not run: it runs the realm's calls, bank sends and session keys, not any Gno
    (a ``maketx run``, a package added), which a gnoland node runs."""
    for msg in tx["msg"]:
        kind = str(msg.get("@type", ""))
        if kind not in LOCAL_KINDS:
            raise Refused(
                f"unknown request: the local chain runs {realm_path}'s calls, bank sends and "
                f"session keys, not {kind} (`c4 node start` runs a gnoland, which runs any Gno)",
                kind=UNKNOWN_REQUEST,
            )


def msg_signer(msg: Msg) -> str:
    """The account a message acts for: the one that must sign it."""
    for field in ("caller", "from_address", "creator"):
        if field in msg:
            return str(msg[field])
    raise ValueError(f"unknown message type {msg.get('@type')!r}")

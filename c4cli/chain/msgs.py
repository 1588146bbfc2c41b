"""tm2 messages as every part of c4 reads them: their types, names and signers.

Apart from the signing (:mod:`c4cli.chain.tx`), so that what only reads
transactions (a listing, the journal, a query of a node) loads no cryptography.
"""

from __future__ import annotations

from typing import Any

Msg = dict[str, Any]
Tx = dict[str, Any]

MSG_CALL = "/vm.m_call"
MSG_SEND = "/bank.MsgSend"
MSG_CREATE_SESSION = "/auth.m_create_session"
MSG_REVOKE_SESSION = "/auth.m_revoke_session"
MSG_REVOKE_ALL_SESSIONS = "/auth.m_revoke_all_sessions"
AUTH_MSGS = (MSG_CREATE_SESSION, MSG_REVOKE_SESSION, MSG_REVOKE_ALL_SESSIONS)


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


def msg_signer(msg: Msg) -> str:
    """The account a message acts for: the one that must sign it."""
    for field in ("caller", "from_address", "creator"):
        if field in msg:
            return str(msg[field])
    raise ValueError(f"unknown message type {msg.get('@type')!r}")

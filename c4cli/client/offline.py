"""Signing away from the chain, as gnokey's ``sign`` and ``multisign`` do it.

A transaction travels as a file of amino JSON (what ``--generate-only`` and gnokey's
``maketx -broadcast=false`` print). Each signer adds a signature over the sign
document for the signer account's number and sequence; a multisig's members each
write a *signature document* (``{"pub_key": …, "signature": …}``) instead, which
``multisign`` combines into the multisig's one signature. The files c4 writes are
byte for byte the ones gnokey writes for the same transaction and signatures, so
the two tools hand files to each other at any step.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any, NamedTuple

from c4cli.chain.clock import format_time
from c4cli.chain.interface import Reader
from c4cli.coins import UGNOT, Coins, format_coins, parse_coins
from c4cli.errors import BadInput, NoAccountNumbers, Refused
from c4cli.escape import printable
from c4cli.files import MIB, read_bounded, write_private
from c4cli.gotext import go_json
from c4cli.wire import crypto, pubkeys, results
from c4cli.wire.msgs import MsgCall, MsgCreateSession, MsgOther, MsgPackage, MsgSend
from c4cli.wire.pubkeys import Multisig, PubKey
from c4cli.wire.std import DecodeError, EncodeError, Signature, decode_tx, encode_tx
from c4cli.wire.tx import Tx, sign_bytes

TX_BYTES = 16 * MIB  # a transaction file: gnoland takes far smaller ones


def read_json(path: Path, what: str) -> Any:
    text = read_bounded(str(path), TX_BYTES, what)
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise BadInput(f"{path} is not JSON: expected {what} (amino JSON)") from None


def read_tx(path: Path) -> Tx:
    """A transaction file in the form amino writes it (checked by encoding it: a field
    of the wrong type or a message kind c4 does not know is refused here)."""
    document = read_json(path, "a transaction")
    if not isinstance(document, dict):
        raise BadInput(f"{path} is not a transaction: expected msg, fee, signatures, memo")
    try:  # the bytes decide: what encodes and decodes back is a transaction
        tx = decode_tx(encode_tx(Tx.from_json(document)))
    except (EncodeError, DecodeError, UnicodeDecodeError) as exc:
        raise BadInput(f"{path} is not a transaction c4 can sign or send: {exc}") from None
    if not tx.msgs:
        raise BadInput(f"{path} holds a transaction without messages")
    if any(isinstance(msg, MsgPackage | MsgOther) for msg in tx.msgs):
        raise BadInput(f"{path} holds a message kind c4 does not send: sign it with gnokey")
    return tx


def signer_of(tx: Tx) -> str:
    """The account the transaction acts for (its first message's signer)."""
    return tx.signer


def write_tx(path: Path, tx: Tx) -> None:
    """The file as gnokey writes it: amino JSON, no space, no newline at the end; an
    unsigned transaction's signatures are ``null``."""
    document = tx.to_json(unsigned_as_null=True)
    write_private(path, go_json(document).encode(), consequence=f"{path} was not written")


def write_signature(path: Path, entry: Signature) -> None:
    """A signature document, as gnokey's ``sign -output-document`` writes it."""
    document = entry.to_json()
    write_private(path, go_json(document).encode(), consequence=f"{path} was not written")


def account_numbers(reader: Reader, address: str, session: str | None = None) -> tuple[int, int]:
    """(account number, sequence) of an account on the chain, as ``auth/accounts`` says; a
    session key's own, under its master, with ``session``."""
    try:
        found = results.account_numbers(
            json.loads(reader.query(results.account_path(address, session)).data or "null")
        )
    except Refused:
        what = f"session {session} of {address}" if session else f"account {address}"
        raise BadInput(f"unknown address: {what} does not exist") from None
    except ValueError:
        found = None
    if found is None:
        raise NoAccountNumbers(f"account {address} does not exist yet: send it coins first")
    return found


def signature(
    tx: Tx,
    private_key: bytes,
    *,
    chain_id: str,
    account_number: int,
    sequence: int,
    session_addr: str | None = None,
) -> Signature:
    """One key's signature document over the transaction, as gnokey's ``sign`` makes it
    (a session key's names its session, as ``sign -session`` does)."""
    doc = sign_bytes(chain_id, account_number, sequence, tx.fee, tx.msgs, tx.memo)
    key, signed = crypto.public_key(private_key), crypto.sign(private_key, doc)
    return Signature(key, signed, session_addr or None)


def with_signature(tx: Tx, entry: Signature) -> Tx:
    """The transaction with ``entry`` added, or put in place of the signature by the
    same public key (as gnokey does: signing twice replaces)."""
    signatures = list(tx.signatures)
    for index, existing in enumerate(signatures):
        if existing.pub_key == entry.pub_key:
            signatures[index] = entry
            break
    else:
        signatures.append(entry)
    return tx._replace(signatures=tuple(signatures))


def read_signature(path: Path) -> tuple[PubKey, bytes]:
    """A signature document: the key that signed and its signature."""
    document = read_json(path, "a signature document")
    try:
        key = pubkeys.from_json(document["pub_key"])
        raw = base64.b64decode(str(document["signature"]), validate=True)
    except (KeyError, TypeError, ValueError):
        raise BadInput(
            f"{path} is not a signature document: expected pub_key and signature"
        ) from None
    return key, raw


def combine(multisig: Multisig, documents: list[Path], docs: tuple[bytes, ...]) -> Signature:
    """The multisig's signature from its members' documents (at least its threshold of
    them, each by a member, each over one of ``docs``: this transaction for the
    multisig's numbers), as gnokey's ``multisign`` builds it."""
    signed: dict[int, bytes] = {}
    for path in documents:
        key, raw = read_signature(path)
        if key not in multisig.keys:
            raise BadInput(
                f"{path} is signed by {pubkeys.address(key)}, which is not a member of "
                "this multisig"
            )
        if not any(pubkeys.verify(key, doc, raw) for doc in docs):
            raise BadInput(
                f"{path} is not a signature of this transaction by {pubkeys.address(key)} "
                "(another transaction, or other numbers or chain); nothing was combined"
            )
        signed[multisig.keys.index(key)] = raw
    if len(signed) < multisig.threshold:
        raise BadInput(
            f"{len(signed)} member(s) signed; this multisig needs {multisig.threshold} of "
            f"{len(multisig.keys)}"
        )
    return Signature(multisig, pubkeys.multisignature(len(multisig.keys), signed))


# tm2's MaxSessionDuration: a session's expiry is at most this long after its block.
MAX_SESSION_LIFE = 4 * 365 * 24 * 60 * 60


class Outflow(NamedTuple):
    """The most a transaction's messages may take out of the signer's account over their
    life: ugnot, coins of other denominations (their text, "" when none), and why no
    amount bounds it ("" when one does: a session key whose limit renews forever)."""

    ugnot: int
    others: str
    unbounded: str


def outflow(tx: Tx, now: int | None) -> Outflow:
    """What each call sends and may deposit for storage, what each send sends, and what a
    new session key may spend until it expires: its limit once, or once a period when
    it renews (``now``: the chain's time, before which no block can create it; None
    when unknown, and the key is counted from the earliest block that may create it,
    tm2's longest session before its expiry)."""
    taken: Coins = {}
    unbounded = ""
    for msg in tx.msgs:
        if isinstance(msg, MsgCall):
            _add(taken, _coins(msg.send))
            _add(taken, _coins(msg.max_deposit))
        elif isinstance(msg, MsgSend):
            _add(taken, _coins(msg.amount))
        elif isinstance(msg, MsgCreateSession):
            limit = _coins(msg.spend_limit)
            windows = _windows(msg, now)
            if windows is None and limit:
                unbounded = f"a session key whose {format_coins(limit)} limit renews forever"
            _add(taken, {denom: amount * (windows or 1) for denom, amount in limit.items()})
    others = format_coins({d: a for d, a in taken.items() if d != UGNOT})
    return Outflow(taken.get(UGNOT, 0), others, unbounded)


def renews(tx: Tx) -> bool:
    """Whether the transaction creates a session key whose spend limit renews until an
    expiry (what it may spend then depends on the chain's time)."""
    return any(
        isinstance(msg, MsgCreateSession) and msg.spend_period > 0 and msg.expires_at > 0
        for msg in tx.msgs
    )


def _windows(msg: MsgCreateSession, now: int | None) -> int | None:
    """How many spend periods a new session key lives through (None: without end)."""
    period, expires = msg.spend_period, msg.expires_at
    if period <= 0:
        return 1  # a lifetime cap
    if expires <= 0:
        return None
    life = MAX_SESSION_LIFE if now is None else min(expires - now, MAX_SESSION_LIFE)
    return max(1, -(-life // period))


def _coins(text: str) -> Coins:
    try:
        return parse_coins(text)
    except BadInput:
        raise BadInput(f"the transaction's amount {printable(text)!r} is not coins") from None


def _add(total: Coins, more: Coins) -> None:
    for denom, amount in more.items():
        total[denom] = total.get(denom, 0) + amount


def described(tx: Tx) -> list[str]:
    """One line per message, as a person checks it before signing (the file's text
    escaped: it may come from anyone)."""
    lines = []
    for msg in tx.msgs:
        if isinstance(msg, MsgCall):
            args = ", ".join(json.dumps(arg, ensure_ascii=False) for arg in msg.args)
            line = f"call {msg.pkg_path}.{msg.func}({args})"
            for amount, what in (
                (msg.send, "sending"),
                (msg.max_deposit, "storage deposit up to"),
            ):
                if amount:
                    line += f" {what} {amount}"
        elif isinstance(msg, MsgSend):
            line = f"send {msg.amount} to {msg.to_address}"
        elif isinstance(msg, MsgCreateSession):
            line = _session(msg)
        else:
            line = msg.type_url.removeprefix("/")
        lines.append(printable(line))
    return lines


def _session(msg: MsgCreateSession) -> str:
    """A new session key as a person weighs it: the key, how long it lives, where it may
    call, and what it may spend (once, or again each period)."""
    key = pubkeys.address(msg.session_key)
    expires = msg.expires_at
    until = format_time(expires) if 0 < expires < 2**40 else "never (until revoked)"
    paths = ", ".join(msg.allow_paths) or "none"
    limit, period = msg.spend_limit, msg.spend_period
    if not limit:
        spends = "spending nothing"
    elif period <= 0:
        spends = f"spending up to {limit} over its life"
    else:
        spends = f"spending up to {limit} every {period}s, renewed until it expires"
    return f"create session key {key}, expiring {until}, allowed paths {paths}, {spends}"

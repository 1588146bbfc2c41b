"""Making tm2 transactions: their messages, the sign document, signing and checking a
signature.

The values are :mod:`c4cli.wire.msgs`' and :mod:`c4cli.wire.std`'s; what is signed is
their amino JSON with sorted keys, as tm2 renders the sign document.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterator, Sequence

from c4cli.coins import format_coins, parse_coins
from c4cli.jsonvalue import Document
from c4cli.wire import crypto, pubkeys
from c4cli.wire.canonical import canonical_json

# The vocabulary of this module's callers too.
from c4cli.wire.msgs import Msg as Msg
from c4cli.wire.msgs import (
    MsgCall,
    MsgCreateSession,
    MsgRevokeAllSessions,
    MsgRevokeSession,
    MsgSend,
)
from c4cli.wire.std import Fee as Fee
from c4cli.wire.std import Signature
from c4cli.wire.std import Tx as Tx
from c4cli.wire.std import tx_hash as tx_hash

DEFAULT_GAS_WANTED = 2_000_000


def call_msg(caller: str, pkg_path: str, func: str, args: list[str], send: str = "") -> MsgCall:
    return MsgCall(caller, pkg_path, func, tuple(args), send)


def send_msg(from_address: str, to_address: str, amount: str) -> MsgSend:
    return MsgSend(from_address, to_address, amount)


def create_session_msg(
    creator: str,
    session_pub_key: bytes,
    expires_at: int,
    allow_paths: list[str],
    spend_limit: str,
    spend_period: int,
) -> MsgCreateSession:
    """Authorise a session key; ``expires_at`` 0 means it never expires."""
    return MsgCreateSession(
        creator, session_pub_key, expires_at, tuple(allow_paths), spend_limit, spend_period
    )


def revoke_session_msg(creator: str, session_pub_key: bytes) -> MsgRevokeSession:
    """Revoke one session, named by its public key as tm2's message names it."""
    return MsgRevokeSession(creator, session_pub_key)


def revoke_all_sessions_msg(creator: str) -> MsgRevokeAllSessions:
    return MsgRevokeAllSessions(creator)


def fee(gas_wanted: int, gas_fee: str) -> Fee:
    """A ``std.Fee`` of one coin, in canonical form; a zero coin is ``""``, as amino writes it.

    >>> fee(2000000, "0ugnot")
    Fee(gas_wanted=2000000, gas_fee='')
    """
    return Fee(gas_wanted, format_coins(parse_coins(gas_fee)))


SIG_FAILED = "signature verification failed; verify correct account, sequence, and chain-id"


def sign_bytes(
    chain_id: str,
    account_number: int,
    sequence: int,
    tx_fee: Fee,
    msgs: Sequence[Msg],
    memo: str,
    *,
    legacy: bool = False,
) -> bytes:
    """What gnokey v1.7.1 signs (tm2's ``GetSignaturePayload``): the sign document with
    its fee restated as the Ledger Cosmos app reads a fee (see :func:`payload_fee`).
    ``legacy``: the fee as the transaction carries it (``gas_wanted``, ``gas_fee``),
    what gno.land signed before v1.7.1, which a v1.7.1 node still verifies."""
    return canonical_json(
        {
            "chain_id": chain_id,
            "account_number": str(account_number),
            "sequence": str(sequence),
            "fee": tx_fee.to_json() if legacy else payload_fee(tx_fee),
            "msgs": [msg.to_json() for msg in msgs],
            "memo": memo,
        }
    )


_FEE_COIN = re.compile(r"^([0-9]+)([a-z][a-z0-9/:._-]*)$")


def payload_fee(tx_fee: Fee) -> Document:
    """The fee as the current sign payload states it: ``{"amount": [coin], "gas": "N"}``,
    the coin as ``{"amount": "1000", "denom": "ugnot"}`` and a zero fee as no coin at all.

    >>> payload_fee(fee(2_000_000, "1000ugnot"))
    {'amount': [{'amount': '1000', 'denom': 'ugnot'}], 'gas': '2000000'}
    >>> payload_fee(fee(1, "0ugnot"))
    {'amount': [], 'gas': '1'}
    """
    text = tx_fee.gas_fee
    amount: list[dict[str, str]] = []
    if text:
        coin = _FEE_COIN.match(text)
        if coin is None:
            raise ValueError(f"invalid gas fee {text!r}")
        if int(coin.group(1)):
            amount = [{"amount": str(int(coin.group(1))), "denom": coin.group(2)}]
    return {"amount": amount, "gas": str(tx_fee.gas_wanted)}


def signed_tx(
    msgs: Sequence[Msg],
    tx_fee: Fee,
    memo: str,
    *,
    private_key: bytes,
    chain_id: str,
    account_number: int,
    sequence: int,
    session_addr: str | None = None,
    legacy: bool = False,
) -> Tx:
    """A ``std.Tx`` with one signature over its sign document: the current payload, as
    gnokey v1.7.1 signs it, or with ``legacy`` the one older nodes know."""
    doc = sign_bytes(chain_id, account_number, sequence, tx_fee, msgs, memo, legacy=legacy)
    signature = Signature(
        crypto.public_key(private_key), crypto.sign(private_key, doc), session_addr
    )
    return Tx(tuple(msgs), tx_fee, (signature,), memo)


def placeholder_tx(
    msgs: Sequence[Msg],
    tx_fee: Fee,
    memo: str,
    *,
    pub_key: pubkeys.PubKey,
    session_addr: str | None = None,
) -> Tx:
    """A ``std.Tx`` to simulate, signed by no one: a signature of the right shape under
    the signer's public key (:func:`~c4cli.wire.pubkeys.placeholder_signature`), which
    costs the gas a real one does. A node checks none in a simulation of these
    messages (:func:`simulated_unsigned`)."""
    placeholder = Signature(pub_key, pubkeys.placeholder_signature(pub_key), session_addr)
    return Tx(tuple(msgs), tx_fee, (placeholder,), memo)


def simulated_unsigned(msgs: Sequence[Msg]) -> bool:
    """Whether a node simulates these messages without checking a signature: gno.land
    v1.7.1 checks one only for messages that carry code (``txCarriesCode``)."""
    unsigned = (MsgCall, MsgSend, MsgCreateSession, MsgRevokeSession, MsgRevokeAllSessions)
    return all(isinstance(msg, unsigned) for msg in msgs)


def impersonated_tx(
    msgs: Sequence[Msg],
    tx_fee: Fee,
    memo: str,
    *,
    chain_id: str,
    account_number: int,
    sequence: int,
    pub_key: pubkeys.PubKey | None,
) -> Tx:
    """A ``std.Tx`` an address sends without its key, on a chain that lets it (``c4
    --impersonate``): its signature is no key's, 64 bytes of the sha256 of its sign
    document (so its TX HASH is its own, as its chain, account and sequence make it),
    under the account's public key as the chain knows it (none if it never signed)."""
    doc = sign_bytes(chain_id, account_number, sequence, tx_fee, msgs, memo)
    digest = hashlib.sha256(IMPERSONATED + doc).digest()
    return Tx(tuple(msgs), tx_fee, (Signature(pub_key, digest + digest),), memo)


IMPERSONATED = b"c4 impersonated\x00"  # what an impersonated tx's signature hashes first


def signature_error(
    tx: Tx, *, chain_id: str, account_number: int, sequence: int, key_address: str
) -> str | None:
    """Why the tx's signature does not verify for these numbers, or None if it does.

    ``key_address`` is the address of the key that must have signed: the signer's
    own, or the session's when a session key signs. The numbers are the signing
    account's. A tx without a signature, or without its key, raises ValueError.
    """
    if not tx.signatures:
        raise ValueError("the transaction is not signed")
    pub_key, signature = tx.signature.pub_key, tx.signature.signature
    if pub_key is None:
        raise ValueError("the signature names no public key")
    if pubkeys.address(pub_key) != key_address:
        return f"invalid pubkey: pubKey does not match signer address {key_address}"
    if pubkeys.leaves(pub_key) > pubkeys.TX_SIG_LIMIT:
        return f"signatures: {pubkeys.leaves(pub_key)}, limit: {pubkeys.TX_SIG_LIMIT}"
    documents = accepted_sign_bytes(
        tx, chain_id=chain_id, account_number=account_number, sequence=sequence
    )
    if any(pubkeys.verify(pub_key, document, signature) for document in documents):
        return None
    return SIG_FAILED


def accepted_sign_bytes(
    tx: Tx, *, chain_id: str, account_number: int, sequence: int
) -> Iterator[bytes]:
    """Either rendering of the sign document, as a v1.7.1 node accepts (tm2's
    VerifySignaturePayload): their fee objects share no key, so a signature over
    either still authorises exactly one transaction. The legacy one is rendered only
    if asked for (a replay verifies the current one, nearly always)."""
    numbers = (chain_id, account_number, sequence, tx.fee, tx.msgs, tx.memo)
    yield sign_bytes(*numbers)
    yield sign_bytes(*numbers, legacy=True)


def resigned_genesis_tx(tx: Document, private_key: bytes, chain_id: str) -> Document | None:
    """A genesis transaction (amino JSON, as a genesis file holds one) signed again by
    ``private_key``, as genesis transactions are signed (account number and sequence
    0), when each of its messages is created by that key's address; else None."""
    public = crypto.public_key(private_key)
    address = crypto.address_of(public)
    msgs = tx.get("msg")
    if not isinstance(msgs, list) or not msgs:
        return None
    if any(not isinstance(msg, dict) or msg.get("creator") != address for msg in msgs):
        return None
    memo = tx.get("memo", "")
    payload = canonical_json(
        {
            "chain_id": chain_id,
            "account_number": "0",
            "sequence": "0",
            "fee": payload_fee(Fee.from_json(tx.get("fee"))),
            "msgs": msgs,
            "memo": memo if isinstance(memo, str) else "",
        }
    )
    key = {"@type": "/tm.PubKeySecp256k1", "value": base64.b64encode(public).decode()}
    signature = base64.b64encode(crypto.sign(private_key, payload)).decode()
    return {**tx, "signatures": [{"pub_key": key, "signature": signature}]}

"""A value in gno.land's main store, proven against the app hash the validators signed.

gno.land v1.7.1 answers ``abci_query`` at the path :data:`STORE_KEY` (the data: a
store key's raw bytes) with the value at that key after block H, and, when asked to
prove it, two operations: the key's ICS-23 proof in the main store's B+ tree
(``ics23:bptree``), then the main store's root in the multistore's simple map
(``ics23:simple``, under the name ``main``). The last root is the app hash after
block H, which header H+1 carries: :func:`app_hash_of` holds the two steps to it,
and the caller holds it to a header its light client proved.

What lives where in the main store (gno's ``tm2/pkg/sdk/auth/consts.go``,
``bank/balance.go``, ``params/keeper.go``, ``gnovm/pkg/gnolang/store.go``): an
account at ``/a/`` + its 20 address bytes; a session key at
``/a/<master>/s/<session>``; a balance outside the gas denominations at
``/b/<address><denom>``; a package's code at ``pkg:<path>``; a parameter at
``/pv/<key>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from c4cli.address import decode_address
from c4cli.wire import ics23
from c4cli.wire.ics23 import ProofError

if TYPE_CHECKING:  # an answer's operations, read by name: the ABCI types stay unloaded
    from c4cli.wire.abci import ProofOp

STORE_KEY = ".store/main/key"
MAIN = b"main"  # the main store's name in the multistore
IN_STORE, IN_MULTISTORE = "ics23:bptree", "ics23:simple"


def _raw(address: str) -> bytes:
    decoded = decode_address(address)
    if decoded is None:
        raise ValueError(f"{address!r} is not an address")
    return decoded[0]


def account_key(address: str) -> bytes:
    return b"/a/" + _raw(address)


def session_key(master: str, session: str) -> bytes:
    return account_key(master) + b"/s/" + _raw(session)


GAS_PRICE_KEY = b"gasPrice"  # the gas price the next block asks (tm2's auth keeper)


def package_key(path: str) -> bytes:
    return b"pkg:" + path.encode()


def app_hash_of(ops: Sequence[ProofOp], key: bytes, value: bytes | None) -> bytes:
    """The app hash under which the main store holds ``value`` at ``key`` (None: holds
    nothing there), as ``ops`` prove it; ProofError naming the step that fails.

    Only the two operations a v1.7.1 node answers, in their order, are taken: tm2's
    proof runtime would run other operations too, which no answer of a store key holds.
    """
    if [op.type for op in ops] != [IN_STORE, IN_MULTISTORE]:
        kinds = ", ".join(op.type for op in ops) or "none"
        raise ProofError(f"the proof's operations are {kinds}, not {IN_STORE} then {IN_MULTISTORE}")
    in_store, in_multistore = ops
    if in_store.key != key:
        raise ProofError("the store proof is of another key")
    if in_multistore.key != MAIN:
        raise ProofError("the multistore proof is of another store than main")
    try:
        root = ics23.verify(ics23.decode(in_store.data), ics23.BPTREE, key, value)
    except ProofError as exc:
        raise ProofError(f"the main store's proof: {exc}") from None
    try:
        return ics23.verify(ics23.decode(in_multistore.data), ics23.SIMPLE, MAIN, root)
    except ProofError as exc:
        raise ProofError(f"the multistore's proof: {exc}") from None

"""A fork copies the accounts its realm names as the node answers them: an answer c4
cannot read is one line naming the account (exit 4), never a traceback (issue 60)."""

from __future__ import annotations

import base64

import pytest

from c4cli.client import fork
from c4cli.errors import Unreachable
from c4cli.wire.results import Tm2Account

ADDRESS = "g1jg8mtutu9khhfwc4nxmuhcpftf0pajdhfvsqf5"


def account(key: bytes) -> Tm2Account:
    public = {"@type": "/tm.PubKeySecp256k1", "value": base64.b64encode(key).decode()}
    return Tm2Account(ADDRESS, 3, 7, public, "5ugnot")


def test_an_account_with_a_key_of_32_bytes_is_the_nodes_garbage() -> None:
    with pytest.raises(Unreachable) as caught:
        fork._record(ADDRESS, account(b"\x02" * 32))
    assert ADDRESS in str(caught.value) and "\n" not in str(caught.value)


def test_an_account_with_a_key_is_copied_as_a_checkpoint_keeps_it() -> None:
    key = bytes.fromhex("03" + "11" * 32)
    record = fork._record(ADDRESS, account(key))
    assert (record["number"], record["sequence"], record["pub_key"]) == (3, 7, key.hex())
    assert record["coins"] == {"ugnot": 5}

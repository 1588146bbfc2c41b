"""A chain's genesis as the log records it (its height 0), and the hash that chains
every record of the log.

A record's hash is the sha256 of its canonical JSON without the ``hash`` field;
each block names the previous block's hash, so an edit anywhere breaks a link. A
read of the checkpoint names the chain by its genesis: this module imports no
transaction type.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, NamedTuple, cast

from c4cli.chain.clock import format_time, parse_time
from c4cli.errors import BadInput, HomeDamaged
from c4cli.local.log import LOG_FORMAT, GenesisRecord
from c4cli.realm.rules import DEFAULT_PATH
from c4cli.wire.canonical import canonical_json

DEFAULT_CHAIN_ID = "dev"
DEFAULT_REALM_PATH = DEFAULT_PATH  # where a new chain deploys the realm
DEFAULT_BLOCK_INTERVAL = 5


def block_hash(record: Mapping[str, Any]) -> str:
    """The hash of a genesis or block record: sha256 of its canonical JSON without ``hash``."""
    body = {key: value for key, value in record.items() if key != "hash"}
    return hashlib.sha256(canonical_json(body)).hexdigest()


class Genesis(NamedTuple):
    chain_id: str
    time: int
    clock: str
    block_interval: int
    realm_path: str
    deployer: str
    balances: tuple[tuple[str, str], ...]
    state: str = ""  # the sha256 (hex) of the state it begins from (genesis_state.py)
    impersonation: bool = False  # whether an address may act without its key

    def to_record(self) -> GenesisRecord:
        fields: dict[str, Any] = {  # in the order the log writes them, the hash last
            "format": LOG_FORMAT,
            "chain_id": self.chain_id,
            "time": format_time(self.time),
            "clock": self.clock,
            "block_interval": self.block_interval,
            "realm_path": self.realm_path,
            "deployer": self.deployer,
            "balances": [{"address": a, "amount": c} for a, c in self.balances],
        }
        if self.state:  # a chain that begins from nothing keeps the hash it always had
            fields["state"] = self.state
        if self.impersonation:
            fields["impersonation"] = True
        fields["hash"] = block_hash(fields)
        return cast(GenesisRecord, fields)

    @classmethod
    def from_record(cls, record: GenesisRecord) -> Genesis:
        try:
            genesis = cls(
                chain_id=str(record["chain_id"]),
                time=parse_time(str(record["time"])),
                clock=str(record["clock"]),
                block_interval=int(record["block_interval"]),
                realm_path=str(record["realm_path"]),
                deployer=str(record["deployer"]),
                balances=tuple((str(b["address"]), str(b["amount"])) for b in record["balances"]),
                state=str(record.get("state", "")),
                impersonation=record.get("impersonation") is True,
            )
        except (KeyError, TypeError, ValueError, BadInput) as exc:
            raise HomeDamaged(f"genesis (height 0) is malformed: {exc}") from None
        if record.get("hash") != block_hash(record):
            raise HomeDamaged("genesis (height 0) does not match its hash: the log was altered")
        return genesis

"""c4 trust: the node a home is bound to and the validator set it trusts, to compare.

The fingerprint is the set's validators hash, as a block header names it: a friend's
home, a network's announcement or an explorer's header shows the same 64 hex digits
for the same set. It reads the home only, never a node.
"""

from __future__ import annotations

from pathlib import Path

import click

from c4cli.client.connect import shown_url, trusted_set
from c4cli.commands.ending import echo, emit_json
from c4cli.commands.options import local_options
from c4cli.errors import BadInput, HomeDamaged
from c4cli.home.config import read_remote
from c4cli.home.trust import TRUST
from c4cli.jsonvalue import Document


@click.command()
@local_options
def trust(home: Path, as_json: bool) -> None:
    """The node this home is bound to and the validator set it trusts: its fingerprint.

    The fingerprint is the set's validators hash (hex), as every block header the set
    signs names it: compare it with a friend's `c4 trust` or the network's own word.
    `c4 init` with a node's URL and --force binds the home anew (docs/nodes.md,
    "Binding anew"). Reads the home only.

    \b
    Example:
      c4 trust
      c4 trust --json | jq -r .fingerprint
    """
    remote = read_remote(home)
    if remote is None and not (home / "chain" / "blocks.toml").exists():
        raise HomeDamaged(f"no chain in {home}: run `c4 init --remote URL` to bind it to a node")
    if remote is None:
        raise BadInput(
            f"{home} runs its own chain, bound to no node: there is no validator set to "
            "trust (c4 init --remote URL binds it to one)"
        )
    found = trusted_set(home)
    document: Document = {
        "url": shown_url(remote.url),
        "chain_id": remote.chain_id,
        "realm_path": remote.realm_path,
        "trust_node": remote.trust_node,
        "fingerprint": None,
        "height": None,
        "block_hash": None,
        "source": None,
        "validators": [],
    }
    if found is not None:
        trusted, fingerprint = found
        document.update(
            fingerprint=fingerprint,
            height=trusted.height,
            block_hash=trusted.block_hash,
            source=trusted.source,
            validators=[
                {
                    "address": v.address,
                    "pub_key": v.pub_key.to_json()["value"],
                    "power": v.voting_power,
                }
                for v in trusted.validators
            ],
        )
    if as_json:
        emit_json(document)
        return
    echo(f"home {home} is bound to {shown_url(remote.url)}: chain {remote.chain_id}")
    if found is None:
        echo(
            "trusts no validator set: every command takes the node's word (bound with --trust-node)"
            if remote.trust_node
            else f"trusts no validator set: {TRUST} is missing "
            "(c4 init --remote URL --force places trust again)"
        )
        return
    count = len(trusted.validators)
    echo(f"fingerprint {fingerprint}")
    echo(
        f"{count} validator{'' if count == 1 else 's'} (trusted from {trusted.source}); "
        f"the highest head proven with them: block {trusted.height} ({trusted.block_hash})"
    )
    for validator in trusted.validators:
        echo(f"  {validator.address}  power {validator.voting_power}")

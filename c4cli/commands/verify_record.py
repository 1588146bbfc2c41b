"""c4 verify-record: a game's record and its proof (`c4 export --proof`), checked with
no node."""

from __future__ import annotations

import re
from pathlib import Path

import click

from c4cli.client.connect import trust_point, trusted_set
from c4cli.client.gamerecord import recorded
from c4cli.client.proofcheck import Anchor, check, summary, verdict
from c4cli.client.proofdoc import LIMIT, read_proof
from c4cli.client.realm_client import history
from c4cli.commands.ending import echo, emit_json
from c4cli.commands.options import local_options
from c4cli.errors import BadInput
from c4cli.escape import printable
from c4cli.files import read_bounded


@click.command("verify-record")
@click.argument("path", metavar="FILE", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "--fingerprint",
    metavar="HEX",
    help="Trust the validator set with this fingerprint (64 hex digits, as c4 trust shows it).",
)
@click.option(
    "--trust",
    metavar="HEIGHT:HASH",
    help="Trust the validators that signed this block of the file (its hash, in hex or "
    "base64, from a source you trust).",
)
@local_options
def verify_record(
    path: str, fingerprint: str | None, trust: str | None, home: Path, as_json: bool
) -> None:
    """Check a game's record and its proof (from c4 export --proof) with no node.

    The validators the file carries must be the set trusted: the one --fingerprint
    names, the one that signed the block --trust names, or else the set this home
    trusts (c4 trust). Then every block in the file must be signed by more than two
    thirds of their voting power; the realm's code (c4's) and the game's digest
    proven by the app hash of the block after the state; the record's sha256 that
    digest; each transaction in its block with its result, each move it played the
    record's. The record is then printed as c4 export prints one. A file that fails
    any of it is exit 4, one line naming what.

    \b
    Example:
      c4 verify-record game1.proof.json
      c4 verify-record game1.proof.json --fingerprint 5F1C…(64 hex digits)
    """
    anchor = _anchor(home, fingerprint, trust)
    name = "stdin" if path == "-" else path
    data = read_bounded(path, LIMIT, "the game proof")
    checked = check(read_proof(data, printable(name)), anchor)
    proof, view = checked.proof, checked.view
    order = history(checked.calls, proof.game).order(view.moves)
    record = recorded(
        view, order, checked.calls, realm_path=proof.realm_path, chain_id=proof.chain_id, known={}
    )
    if as_json:
        emit_json(
            {
                **summary(checked),
                "tags": record.tags,
                "move_list": [move._asdict() for move in record.moves],
                "text": record.text(),
            }
        )
        return
    for line in verdict(checked, "verified"):
        echo(line)
    echo("")
    for line in record.text().splitlines():  # what the file holds, escaped
        echo(printable(line))


def _anchor(home: Path, fingerprint: str | None, trust: str | None) -> Anchor:
    """What the check trusts: the options given, else the home's trusted set."""
    if fingerprint is not None and trust is not None:
        raise BadInput("--fingerprint and --trust each name what to trust: give one")
    if fingerprint is not None:
        if not re.fullmatch(r"[0-9A-Fa-f]{64}", fingerprint):
            raise BadInput(
                f"--fingerprint {printable(fingerprint[:80])!r} is not a fingerprint: 64 hex "
                "digits, as c4 trust shows one"
            )
        return Anchor(fingerprint=fingerprint.upper())
    if trust is not None:
        height, block_hash = trust_point(trust)
        return Anchor(height=height, block_hash=block_hash)
    found = trusted_set(home) if home.is_dir() else None
    if found is None:
        raise BadInput(
            f"{home} trusts no validator set: give --fingerprint HEX or --trust HEIGHT:HASH "
            "(from a source you trust)"
        )
    return Anchor(fingerprint=found[1])

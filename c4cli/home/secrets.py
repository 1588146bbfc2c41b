"""Commit-reveal secrets that c4 generated, kept until they are revealed.

One 0600 file per (address, commitment): the commitment is public, the secret
is not, and a secret is only ever looked up by the commitment it opens.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from c4cli import outbox
from c4cli.commitment import commitment_of, is_commitment
from c4cli.errors import COMMITMENT_USED, BadInput, Refused, SecretDamaged
from c4cli.files import read_private, write_private

# The realm's refusal of a commitment its caller used before: one carrying it is on chain.


def new_secret() -> str:
    """32 random bytes as hex: the advice of the realm's pages (openssl rand -hex 32)."""
    return secrets.token_hex(32)


# A secret's hash is public once its commitment lands: the other player may hash
# guesses at it, and choose their own secret to draw the first move once one matches.
MIN_SECRET_BITS = 80
_ESTIMATED = 100  # characters zxcvbn reads (its cost grows with length; a prefix is no stronger)


def refuse_weak(secret: str, option: str) -> None:
    """Refuse a secret the user chose (``--passphrase``, ``--seed``) that guessing could find.

    The rule: zxcvbn's estimate of the guesses an attacker needs, who knows common
    passwords, words, names, dates, keyboard walks and repeats, must reach 2**80.
    Six random words of a list such as BIP39's, or 32 random hex digits, reach it;
    `1234`, `password1` or a sentence of common words do not.
    """
    from zxcvbn import zxcvbn

    bits = float(zxcvbn(secret[:_ESTIMATED])["guesses_log10"]) * math.log2(10)
    if bits < MIN_SECRET_BITS:
        raise BadInput(
            f"{option} is too easy to guess (about {bits:.0f} bits by zxcvbn's estimate, "
            f"{MIN_SECRET_BITS} needed): the other player could try guesses against its hash "
            f"and pick the first mover; leave {option} out for 32 random bytes, or use six "
            "random words or 32 random hex digits"
        )


class SecretStore:
    def __init__(self, home: Path) -> None:
        self.folder = home / "secrets"

    def _path(self, address: str, commitment: str) -> Path | None:
        if not is_commitment(commitment) or not address.isalnum():
            return None
        return self.folder / address / commitment

    @contextmanager
    def kept(self, address: str, secret: str) -> Iterator[None]:
        """Keep ``secret`` while a transaction that commits to it is sent.

        The secret is on disk before the transaction is, so an acknowledged
        commitment can always be revealed. The file is created exclusively: only
        the command that created it may delete it again, and only when the command
        fails and it is *known* that no transaction carrying the commitment was
        recorded (refused before signing, by the local chain or a node's
        simulation, or a local append that was cut back: see
        :mod:`c4cli.outbox`), and never when the realm says the commitment is
        used (then a transaction carrying it is on chain: another command's, sent
        at the same moment). Whatever fails after the bytes may have left (the
        read-back, the printing, a closed pipe, a signal, the journal) keeps it.
        """
        commitment = commitment_of(secret)
        path = self._path(address, commitment)
        assert path is not None
        try:
            write_private(path, secret.encode(), fault="secret-write", exclusive=True)
        except FileExistsError:
            self.find(address, commitment)  # kept already: one that does not open it is damage
            created = False
        else:
            created = True
        start = outbox.mark()
        try:
            yield
        except BaseException as failure:
            if (
                created
                and not outbox.may_be_recorded_since(start)
                and not (isinstance(failure, Refused) and failure.code == COMMITMENT_USED)
            ):
                path.unlink(missing_ok=True)
            raise

    def find(self, address: str, commitment: str) -> str | None:
        """The secret kept for ``commitment``, or None if none is; a file that does not
        open its commitment (damaged, or not c4's) is exit 3 naming it, never sent."""
        path = self._path(address, commitment)
        if path is None or not path.exists():
            return None
        try:
            secret = read_private(path).decode()
        except UnicodeDecodeError:
            secret = None
        if secret is None or commitment_of(secret) != commitment:
            raise SecretDamaged(
                f"{path} does not hold the secret of commitment {commitment} (damaged?)"
            )
        return secret

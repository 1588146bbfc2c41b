"""The three ways a command fails, each with the exit code the CLI promises.

Every layer raises these (or subclasses), so the command layer maps a failure to
its exit code in one place and never guesses from a message.
"""

from __future__ import annotations


class C4Error(Exception):
    """A failure with a one-line message meant for the user."""

    exit_code = 1


class Refused(C4Error):
    """The chain or the realm refused a transaction or query (exit 1)."""

    exit_code = 1


class BadInput(C4Error):
    """Input that cannot become a transaction or query: caught before signing (exit 2)."""

    exit_code = 2


class HomeDamaged(C4Error):
    """The home is missing, damaged or tampered with (exit 3)."""

    exit_code = 3

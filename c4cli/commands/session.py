"""c4 session: authorise, revoke and list session keys of a master account."""

from __future__ import annotations

import base64
import json
import time as wallclock
from pathlib import Path

import click

from c4cli.chain.clock import MAX_TIME, format_time, parse_time
from c4cli.chain.interface import Reader
from c4cli.client import accounts
from c4cli.coins import format_coins, parse_amount
from c4cli.commands import complete
from c4cli.commands.options import TxCommand, common_options, emit_json, group_options, tx_options
from c4cli.commands.run import Invocation, takes_run
from c4cli.commands.text import names, parse_duration, who
from c4cli.commands.transact import passphrase, print_receipt, resolve, submit
from c4cli.commands.txopts import TxOptions
from c4cli.errors import BadInput, SessionNotFound, notice
from c4cli.escape import printable
from c4cli.home.keys import UNENCRYPTED_WARNING
from c4cli.jsonvalue import Document
from c4cli.wire import crypto, results
from c4cli.wire.tx import (
    Msg,
    create_session_msg,
    revoke_all_sessions_msg,
    revoke_session_msg,
)


@click.group()
@group_options
def session() -> None:
    """Session keys: may move and reveal for their master, never touch stakes.

    \b
    Example:
      c4 session create --session-key alice-s --expires 1h \\
          --allow-paths vm/exec:gno.land/r/samcrew/connect4 alice
      c4 play 1 4 --master alice alice-s
    """


def _own_key_only(tx: TxOptions) -> None:
    if tx.master:
        raise BadInput("sessions are created and revoked with the master's own key, not --master")


def _landing(reader: Reader) -> int:
    """When the transaction being built will land: on the local chain, the next block
    of the state inside the lock; on a node, about now."""
    return reader.next_block_time(wallclock.time())


def _session_key(reader: Reader, master: str, session_addr: str) -> bytes:
    """The public key of one of ``master``'s sessions, as the chain knows it."""
    for found in _sessions(reader, master):
        if found.address == session_addr:
            return base64.b64decode(_key_text(found))
    raise SessionNotFound(session_addr, master)


def _sessions(reader: Reader, master: str) -> list[results.Tm2Account]:
    """``master``'s sessions, read as gno.land answers them (``auth/accounts/<addr>/
    sessions``, on a node and on the local chain alike)."""
    answer = reader.query(f"auth/accounts/{master}/sessions")
    out = []
    for item in json.loads(answer.data or "[]") or []:
        try:
            found = results.tm2_account(item if isinstance(item, dict) else {})
        except ValueError:
            found = None
        out.append(found or results.Tm2Account("", 0, 0, None, ""))
    return out


def _key_text(found: results.Tm2Account) -> str:
    """A session's public key as its amino JSON carries it (base64; "" for none)."""
    key = found.public_key
    value = key.get("value", "") if isinstance(key, dict) else ""
    return value if isinstance(value, str) else ""


def _listed(found: results.Tm2Account) -> Document:
    """A session in the fields `c4 session list --json` shows."""
    return {
        "address": found.address,
        "account_number": found.number,
        "pub_key": _key_text(found),
        "expires_at": found.expires_at,
        "allow_paths": list(found.allow_paths),
        "spend_limit": found.spend_limit,
        "spend_period": found.spend_period,
        "spent": found.spent,
        "sequence": found.sequence,
    }


def _expiry(text: str, landing: int) -> int:
    """``none``, a duration from the next block, or an RFC 3339 time."""
    if text == "none":
        return 0
    if "T" in text:
        return parse_time(text)
    expiry = landing + parse_duration(text, what="--expires")
    if expiry > MAX_TIME:
        raise BadInput(f"invalid --expires {text!r}: it ends after {format_time(MAX_TIME)}")
    return expiry


@session.command("create", cls=TxCommand)
@click.option(
    "--session-key",
    "session_key",
    required=True,
    metavar="NAME",
    help="Local key for the session (created if missing).",
)
@click.option("--expires", default="1h", show_default=True, help="none, a duration or a time.")
@click.option(
    "--allow-paths",
    "allow_paths",
    multiple=True,
    metavar="PATH",
    help="* or vm/exec, vm/exec:<realm>, vm/run, bank/send, bank/multisend (repeatable).",
)
@click.option("--spend-limit", default="", metavar="COINS", help="Empty: may not spend.")
@click.option("--spend-period", default="0", metavar="SECONDS", help="0: a lifetime cap.")
@click.argument("master_key", metavar="MASTER", shell_complete=complete.keys)
@tx_options
@common_options
@takes_run
def create(
    run: Invocation,
    session_key: str,
    expires: str,
    allow_paths: tuple[str, ...],
    spend_limit: str,
    spend_period: str,
    master_key: str,
    home: Path,
    tx: TxOptions,
) -> None:
    """Authorise session key NAME for MASTER (signed by MASTER's own key).

    \b
    Example:
      c4 session create --session-key bob-s --expires 30m \\
          --allow-paths vm/exec:gno.land/r/samcrew/connect4 --spend-limit 1gnot bob
    """
    _own_key_only(tx)
    if not allow_paths:
        raise BadInput("give at least one --allow-paths (e.g. vm/exec:gno.land/r/samcrew/connect4)")
    limit = format_coins(parse_amount(spend_limit)) if spend_limit else ""
    period = parse_duration(spend_period, what="--spend-period")
    keyring = run.keyring(home)
    created = not keyring.exists(session_key)
    if created:
        secret = passphrase(
            password_stdin=tx.password_stdin, prompt="Passphrase for the session key"
        )
        keyring.add(session_key, crypto.derive_private_key(crypto.new_mnemonic()), secret)
        tx = tx._replace(password_stdin=False)  # stdin's line was the session key's
    info = keyring.info(session_key)
    session_pub = info.single_key
    creator = keyring.info(master_key).address

    def msgs(reader: Reader) -> list[Msg]:
        expiry = _expiry(expires, _landing(reader))
        return [create_session_msg(creator, session_pub, expiry, list(allow_paths), limit, period)]

    try:
        receipt = submit(home, master_key, msgs, tx)
    except Exception:
        if created:  # a refused session leaves no key behind
            keyring.delete(session_key)
        raise
    if created and receipt.simulated:  # nothing sent: no session, so no key for one
        keyring.delete(session_key)
    elif created and not info.encrypted:
        notice(UNENCRYPTED_WARNING)
    print_receipt(
        receipt,
        as_json=tx.as_json,
        human=f"session {session_key} ({info.address}) may now sign for {master_key}",
    )


@session.command("revoke", cls=TxCommand)
@click.option("--session-key", "session_key", metavar="NAME_OR_ADDR", help="The session to revoke.")
@click.option("--all", "revoke_all", is_flag=True, help="Revoke every session of MASTER.")
@click.argument("master_key", metavar="MASTER", shell_complete=complete.keys)
@tx_options
@common_options
@takes_run
def revoke(
    run: Invocation,
    session_key: str | None,
    revoke_all: bool,
    master_key: str,
    home: Path,
    tx: TxOptions,
) -> None:
    """Revoke a session of MASTER, or all of them (signed by MASTER's own key).

    \b
    Example:
      c4 session revoke --session-key bob-s bob
      c4 session revoke --all bob
    """
    _own_key_only(tx)
    if (session_key is None) == (not revoke_all):
        raise BadInput("give either --session-key NAME_OR_ADDR or --all")
    creator = run.keyring(home).info(master_key).address
    if session_key is None:
        receipt = submit(home, master_key, lambda reader: [revoke_all_sessions_msg(creator)], tx)
        human = f"every session of {master_key} revoked"
    else:
        keyring = run.keyring(home)
        known = keyring.info(session_key).single_key if keyring.exists(session_key) else None
        session_addr = resolve(home, session_key)

        def msgs(reader: Reader) -> list[Msg]:
            # tm2 names the session by its public key; the chain knows it by address.
            pub_key = known if known is not None else _session_key(reader, creator, session_addr)
            return [revoke_session_msg(creator, pub_key)]

        receipt = submit(home, master_key, msgs, tx)
        human = f"session {who(session_addr, names(home))} revoked"
    print_receipt(receipt, as_json=tx.as_json, human=human)


@session.command("list")
@click.argument("master", shell_complete=complete.keys)
@common_options
@takes_run
def list_sessions(run: Invocation, master: str, home: Path, as_json: bool) -> None:
    """List MASTER's sessions.

    \b
    Example:
      c4 session list bob --json
    """
    address = resolve(home, master)
    sessions, proven_at = accounts.sessions(run.open_chain(home), address)
    if proven_at is not None:
        click.echo(f"{accounts.PROVEN.format(height=proven_at)} (each session; that the "
                   "list is whole is the node's word)", err=True)  # fmt: skip
    if as_json:
        proven = {} if proven_at is None else {"proven_at": proven_at}
        emit_json([{**_listed(found), **proven} for found in sessions])
        return
    if not sessions:
        click.echo("no sessions")
    known = names(home)
    for found in sessions:
        expiry = "never" if not found.expires_at else format_time(found.expires_at)
        line = (
            f"{who(found.address, known)}  expires {expiry}  "
            f"paths {','.join(found.allow_paths)}  "
            f"limit {found.spend_limit or 'none'} (spent {found.spent or '0'})"
        )
        click.echo(printable(line))  # the node's text: escaped for the terminal

"""c4 sign, multisign, broadcast: a transaction passed from hand to hand, as with gnokey.

``--generate-only`` (or gnokey's ``maketx -broadcast=false``) writes the unsigned
transaction; ``sign`` adds a key's signature, or writes a multisig member's signature
document; ``multisign`` combines the members' documents; ``broadcast`` sends the
result with the usual checks, journal and receipt. Each step reads and writes the
files gnokey reads and writes.
"""

from __future__ import annotations

import sys
import time as wallclock
from pathlib import Path

import click

from c4cli import outbox, settings
from c4cli.chain.interface import SIMULATE_MODES, Chain, SendPolicy
from c4cli.client import offline
from c4cli.coins import gnot, parse_ugnot, ugnot_in
from c4cli.commands import complete
from c4cli.commands.ending import echo
from c4cli.commands.options import INT64, common_options, emit_json
from c4cli.commands.run import Invocation, current, takes_run
from c4cli.commands.transact import fee_cap, print_receipt, signer_for
from c4cli.errors import BadInput, C4Error, Refused
from c4cli.escape import printable
from c4cli.home.keys import MULTI
from c4cli.wire.results import UNAUTHORIZED
from c4cli.wire.std import tx_hash
from c4cli.wire.tx import Tx, accepted_sign_bytes, signature_error

_FILE = click.Path(dir_okay=False, path_type=Path)


@click.command("sign")
@click.argument("tx_file", metavar="FILE", type=_FILE)
@click.argument("key", metavar="KEY", shell_complete=complete.keys)
@click.option(
    "--output-document",
    type=_FILE,
    help="Write the signature document here (a multisig member's, for c4 multisign) "
    "instead of adding the signature to FILE.",
)
@click.option("--account-number", type=INT64, help="Default: the signer account's, on the chain.")
@click.option("--account-sequence", type=INT64, help="Default: the signer account's, on the chain.")
@click.option(
    "--chain-id",
    metavar="ID",
    help="Default: the chain's. With both numbers too, c4 signs without reaching any chain.",
)
@click.option(
    "--session",
    is_flag=True,
    help="KEY is a session key of the signer's (as gnokey sign -session): its own numbers.",
)
@click.option("--password-stdin", is_flag=True, help="Read the key's passphrase from stdin.")
@click.option(
    "--fee-cap",
    "fee_cap_text",
    metavar="COINS",
    help="The most gas fee c4 signs for. Default: $C4_FEE_CAP, else config.toml's fee_cap, "
    "else 1gnot.",
)
@click.option(
    "--send-cap",
    "send_cap_text",
    metavar="COINS",
    help="The most the messages may take out of the signer's account (sends, stakes, "
    "storage deposits, what a new session key may spend until it expires). Default: "
    "$C4_SEND_CAP, else a question on a terminal, else 0.",
)
@common_options
@takes_run
def sign(
    run: Invocation,
    tx_file: Path,
    key: str,
    output_document: Path | None,
    account_number: int | None,
    account_sequence: int | None,
    chain_id: str | None,
    session: bool,
    password_stdin: bool,
    fee_cap_text: str | None,
    send_cap_text: str | None,
    home: Path,
    as_json: bool,
) -> None:
    """Sign the transaction in FILE with KEY (as gnokey sign).

    The signature covers the signer account's number and sequence (the account
    of the first message: a multisig's, when KEY is one of its members). Without
    --output-document, it is added to FILE, replacing KEY's own if there is one.

    What is signed is shown on stderr first (chain, signer, numbers, each message,
    the fee). A fee above the fee cap is refused; so is a transaction that takes
    more out of the signer's account than --send-cap, unless you confirm it on a
    terminal. A signed file can be broadcast by anyone, with any tool.

    \b
    Example:
      c4 set-fee 0.2gnot owners --generate-only > fee.json
      c4 sign fee.json alice --output-document alice.sig
      c4 sign send.json alice --send-cap 5gnot
    """
    tx = offline.read_tx(tx_file)
    info = run.keyring(home).find(key)
    signer = offline.signer_of(tx)
    if output_document is None and info.address != signer and not session:
        raise BadInput(
            f"{info.name} ({info.address}) is not this transaction's signer ({signer}): "
            "a multisig member's signature goes to --output-document, for c4 multisign"
        )
    chain_id, account_number, account_sequence = _numbers(
        home,
        (chain_id, account_number, account_sequence),
        signer,
        info.address if session else None,
    )
    out = offline.outflow(tx, _chain_now(home, chain_id) if offline.renews(tx) else None)
    ask = _within_caps(tx, out, home, (fee_cap_text, send_cap_text), password_stdin=password_stdin)
    messages = offline.described(tx)
    echo(_summary(tx, messages, signer, chain_id, (account_number, account_sequence)), err=True)
    if ask and not click.confirm(ask, err=True):
        raise BadInput("not confirmed; nothing was signed")
    private_key = signer_for(home, info.name, password_stdin=password_stdin).private_key
    entry = offline.signature(
        tx,
        private_key,
        chain_id=chain_id,
        account_number=account_number,
        sequence=account_sequence,
        session_addr=info.address if session else None,
    )
    if output_document is not None:
        offline.write_signature(output_document, entry)
        where, what = output_document, "Signature generated and successfully saved to"
    else:
        tx = offline.with_signature(tx, entry)
        offline.write_tx(tx_file, tx)
        where, what = tx_file, "Tx successfully signed and saved to"
    if as_json:
        emit_json(
            {
                "file": str(where),
                "key": info.name,
                "signer": signer,
                "chain_id": chain_id,
                "account_number": account_number,
                "sequence": account_sequence,
                "messages": messages,
                "gas_wanted": tx.fee.gas_wanted,
                "gas_fee": tx.fee.gas_fee or "0ugnot",  # "" is how 0 is signed
                "sends_out": f"{out.ugnot}ugnot",
                "sends_out_other": out.others,
                "sends_out_unbounded": out.unbounded,
                "hash": None if output_document is not None else tx_hash(tx),
            }
        )
    else:
        click.echo(f"{what} {printable(str(where))}")


def _summary(
    tx: Tx, messages: list[str], signer: str, chain_id: str, numbers: tuple[int, int]
) -> str:
    """What is about to be signed (its ``messages`` described), for a person (stderr)."""
    number, sequence = numbers
    fee = tx.fee
    lines = [
        f"signing on chain {printable(chain_id)} for {signer} "
        f"(account number {number}, sequence {sequence}):",
        *(f"  {line}" for line in messages),
        f"  fee: {printable(fee.gas_fee or '0ugnot')} for {fee.gas_wanted} gas",
    ]
    if tx.memo:
        lines.append(f"  memo: {printable(tx.memo)}")
    return "\n".join(lines)


def _numbers(
    home: Path,
    given: tuple[str | None, int | None, int | None],
    signer: str,
    session: str | None,
) -> tuple[str, int, int]:
    """(chain id, account number, sequence) a signature covers: as given, else the
    chain's and the signer account's (a session's own, with ``session``)."""
    chain_id, number, sequence = given
    if (number is None) != (sequence is None):
        raise BadInput("give both --account-number and --account-sequence, or neither")
    if chain_id is None or number is None or sequence is None:
        chain = current().open_chain(home, chain_id=chain_id)
        chain_id = chain_id or chain.chain_id
        if number is None or sequence is None:
            number, sequence = offline.account_numbers(chain, signer, session)
    return chain_id, number, sequence


def _chain_now(home: Path, chain_id: str) -> int | None:
    """The chain's time now, which a session key's spend periods are counted from; None
    when the home's chain cannot tell (signing offline: counted from the earliest)."""
    try:
        return current().open_chain(home, chain_id=chain_id).chain_time(wallclock.time())
    except C4Error:
        return None


def _fee_capped(tx: Tx, home: Path, given: str | None, words: tuple[str, str, str]) -> int:
    """The fee cap, once the file's gas fee is seen to be within it (else exit 2, nothing
    done); ``words``: what c4 does with the file, as "sends", "sent", "send"."""
    does, done, do = words
    cap = fee_cap(home, given)
    asked = ugnot_in(tx.fee.gas_fee or "0ugnot")
    if asked > cap:
        raise BadInput(
            f"the transaction pays a gas fee of {gnot(asked)}, above the {gnot(cap)} c4 {does} "
            f"without being told; nothing was {done}: pass --fee-cap to {do} it"
        )
    return cap


def _within_caps(
    tx: Tx,
    out: offline.Outflow,
    home: Path,
    caps: tuple[str | None, str | None],
    *,
    password_stdin: bool,
) -> str:
    """Refuse (exit 2, nothing signed) a fee above the fee cap (``caps``: the fee cap's
    and the send cap's text, as given), and what takes more out of the signer's account
    (``out``) than the send cap, or what no cap bounds; on a terminal with no cap
    given, the question to confirm it with ("" when none is needed)."""
    fee_cap_text, send_cap_text = caps
    _fee_capped(tx, home, fee_cap_text, ("signs for", "signed", "sign"))
    text = send_cap_text if send_cap_text is not None else settings.current().send_cap
    # What no cap in ugnot bounds: only a person at a terminal may take it on.
    if out.unbounded:
        takes, unbound = f"without bound ({out.unbounded})", "no send cap bounds that"
    else:
        takes = f"up to {gnot(out.ugnot)}" + (f" and {out.others}" if out.others else "")
        unbound = f"a send cap in ugnot does not bound {out.others}" if out.others else ""
    if text is not None:
        try:
            limit = parse_ugnot(text)
        except BadInput:
            where = "--send-cap" if send_cap_text is not None else "$C4_SEND_CAP"
            raise BadInput(f"invalid {where} {text!r}: give an amount, e.g. 5gnot") from None
        if out.ugnot > limit and not unbound:
            raise BadInput(
                f"the transaction takes {takes} out of the signer's account, above the send "
                f"cap of {gnot(limit)}; nothing was signed: raise --send-cap to sign it"
            )
    elif out.ugnot == 0 and not unbound:
        return ""
    elif not password_stdin and sys.stdin.isatty() and sys.stderr.isatty():
        return f"sign it, taking {takes} out of the signer's account?"
    else:
        raise BadInput(
            f"the transaction takes {takes} out of the signer's account; nothing was signed: "
            + (
                f"{unbound}, sign it on a terminal"
                if unbound
                else "pass --send-cap (or $C4_SEND_CAP) with at least that, or sign on a terminal"
            )
        )
    if unbound:
        raise BadInput(
            f"the transaction takes {takes} out of the signer's account; nothing was signed: "
            f"{unbound}, sign it on a terminal to take that on"
        )
    return ""


@click.command("multisign")
@click.argument("tx_file", metavar="FILE", type=_FILE)
@click.argument("multisig", metavar="MULTISIG")
@click.option(
    "--signature",
    "documents",
    type=_FILE,
    multiple=True,
    required=True,
    help="A member's signature document (from c4 sign or gnokey sign); repeat.",
)
@click.option("--account-number", type=INT64, help="Default: the multisig account's, on the chain.")
@click.option(
    "--account-sequence", type=INT64, help="Default: the multisig account's, on the chain."
)
@click.option("--chain-id", metavar="ID", help="Default: the chain's.")
@common_options
@takes_run
def multisign(
    run: Invocation,
    tx_file: Path,
    multisig: str,
    documents: tuple[Path, ...],
    account_number: int | None,
    account_sequence: int | None,
    chain_id: str | None,
    home: Path,
    as_json: bool,
) -> None:
    """Combine members' signatures into MULTISIG's, added to FILE (as gnokey multisign).

    At least the multisig's threshold of members must have signed, each over this
    very transaction for the multisig account's number and sequence: a signature of
    anything else is refused before it is combined.

    \b
    Example:
      c4 multisign fee.json owners --signature alice.sig --signature bob.sig
    """
    info = run.keyring(home).find(multisig)
    if info.kind != MULTI or isinstance(info.pub_key, bytes):
        raise BadInput(f"key {info.name!r} is not a multisig (c4 keys add --multisig makes one)")
    tx = offline.read_tx(tx_file)
    if offline.signer_of(tx) != info.address:
        raise BadInput(
            f"{info.name} ({info.address}) is not this transaction's signer "
            f"({offline.signer_of(tx)})"
        )
    chain_id, account_number, account_sequence = _numbers(
        home, (chain_id, account_number, account_sequence), info.address, None
    )
    docs = tuple(
        accepted_sign_bytes(
            tx, chain_id=chain_id, account_number=account_number, sequence=account_sequence
        )
    )
    tx = offline.with_signature(tx, offline.combine(info.pub_key, list(documents), docs))
    offline.write_tx(tx_file, tx)
    if as_json:
        emit_json({"file": str(tx_file), "multisig": info.name, "hash": tx_hash(tx)})
    else:
        click.echo(f"Tx successfully signed and saved to {printable(str(tx_file))}")


@click.command("broadcast")
@click.argument("tx_file", metavar="FILE", type=_FILE)
@click.option(
    "--simulate",
    type=click.Choice(SIMULATE_MODES),
    default="test",
    show_default=True,
    help="test runs it first and sends it only if it passes; skip sends it untested; "
    "only runs it and sends nothing.",
)
@click.option(
    "--fee-cap",
    "fee_cap_text",
    metavar="COINS",
    help="The most gas fee c4 sends without being told (the file's fee is the signers', "
    "not yours). Default: $C4_FEE_CAP, else config.toml's fee_cap, else 1gnot.",
)
@click.option("--chain-id", metavar="ID", help="For --remote naming a node of another chain.")
@common_options
@takes_run
def broadcast(
    run: Invocation,
    tx_file: Path,
    simulate: str,
    fee_cap_text: str | None,
    chain_id: str | None,
    home: Path,
    as_json: bool,
) -> None:
    """Send a signed transaction from FILE (c4's or gnokey's) and print its receipt.

    Its signature is checked against the signer's account before anything is
    sent; on a node it is journaled like any transaction c4 sends.

    \b
    Example:
      c4 broadcast fee.json
    """
    tx = offline.read_tx(tx_file)
    if not tx.signatures:
        raise BadInput(f"{tx_file} is not signed: c4 sign (or c4 multisign) it first")
    chain = run.open_chain(home, chain_id=chain_id)
    cap = _fee_capped(tx, home, fee_cap_text, ("sends", "sent", "send"))
    outbox.transacting()
    try:
        receipt = chain.broadcast(tx, policy=SendPolicy(simulate=simulate, fee_cap=cap))
    except Refused as refused:
        if refused.kind != UNAUTHORIZED:  # tm2's type for a signature that does not verify
            raise
        used = _used_sequence(chain, tx)
        if used is None:
            raise
        raise Refused(
            f"{refused}: the file was signed for sequence {used}, which the account has "
            "used already (broadcast before?); sign it again for its current sequence"
        ) from None
    print_receipt(receipt, as_json=as_json)


def _used_sequence(chain: Chain, tx: Tx) -> int | None:
    """The sequence below the account's own that the file's signature was made for, if
    it was made for one of the last hundred (the file, broadcast before)."""
    try:
        session = tx.signature.session_addr or None
        signer = offline.signer_of(tx)
        number, sequence = offline.account_numbers(chain, signer, session)
        for earlier in range(sequence - 1, max(sequence - 100, 0) - 1, -1):
            problem = signature_error(
                tx,
                chain_id=chain.chain_id,
                account_number=number,
                sequence=earlier,
                key_address=session or signer,
            )
            if problem is None:
                return earlier
    except (C4Error, KeyError, IndexError, TypeError, ValueError):
        return None
    return None

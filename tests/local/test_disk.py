"""When the disk says no: full, read-only, failing, interrupted.

Real faults where the machine allows them (a 400 KiB tmpfs filled up, the same
remounted read-only: both need root and mount), and everywhere through the
fault seam (``C4_FAULT=<point>:<ERRNO>``, see c4cli/faults.py) at each write and
fsync of an append, of the cache save, of a kept secret and of a new key. After
every fault: the failed command said one line, the log holds exactly the
acknowledged transactions, ``c4 verify`` passes and the next command works
without a repair.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import Home, start_game


def c4(
    c4_bin: str, home: Path, *args: str, fault: str = "", stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, C4_HOME=str(home), C4_PASSWORD="")
    env.pop("C4_FAULT", None)
    if fault:
        env["C4_FAULT"] = fault
    return subprocess.run(
        [c4_bin, *args], env=env, capture_output=True, text=True, input=stdin, timeout=60
    )


def logged_hashes(chain: Home, c4_bin: str) -> list[str]:
    """The log's transactions, read by the installed c4 (so this process holds no file
    of the home open, and a tmpfs under it can be unmounted)."""
    proc = c4(c4_bin, chain.path, "log", "--json")
    assert proc.returncode == 0, proc.stderr
    return [tx["hash"] for block in json.loads(proc.stdout) for tx in block["txs"]]


def still_whole(chain: Home, c4_bin: str, acknowledged: list[str]) -> None:
    """The log holds exactly the acknowledged transactions, verifies, and takes the next one."""
    assert logged_hashes(chain, c4_bin) == acknowledged
    check = c4(c4_bin, chain.path, "verify")
    assert check.returncode == 0, check.stderr
    after = c4(c4_bin, chain.path, "send", "--to", "bob", "--amount", "1ugnot", "--json", "alice")
    assert after.returncode == 0, after.stderr
    acknowledged.append(json.loads(after.stdout)["hash"])
    assert logged_hashes(chain, c4_bin) == acknowledged


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), proc.stderr
    return lines[0]


@pytest.mark.parametrize(
    "fault",
    [
        "append-write:ENOSPC",
        "append-write:EDQUOT",
        "append-write:EIO",
        "append-fsync:EIO",
        "append-fsync:ENOSPC",
    ],
)
def test_a_failed_append_is_cut_back_and_not_recorded(chain: Home, c4_bin: str, fault: str) -> None:
    first = c4(c4_bin, chain.path, "send", "--to", "bob", "--amount", "1gnot", "--json", "alice")
    acknowledged = [json.loads(first.stdout)["hash"]]
    before = chain.log_bytes()
    proc = c4(c4_bin, chain.path, "send", "--to", "bob", "--amount", "2gnot", "alice", fault=fault)
    assert proc.returncode == 3, proc.stderr
    line = one_error_line(proc)
    reason = os.strerror(getattr(__import__("errno"), fault.split(":")[1]))
    assert line == (
        f"Error: cannot write {chain.path / 'chain' / 'blocks.toml'}: {reason}; "
        "the transaction was not recorded"
    )
    assert proc.stdout == ""
    assert chain.log_bytes() == before  # the half-written block was cut off again
    still_whole(chain, c4_bin, acknowledged)


@pytest.mark.parametrize("fault", ["cache-save:ENOSPC", "cache-save:EIO", "cache-save:EROFS"])
def test_a_cache_that_cannot_be_saved_fails_nothing(chain: Home, c4_bin: str, fault: str) -> None:
    proc = c4(
        c4_bin,
        chain.path,
        "send",
        "--to",
        "bob",
        "--amount",
        "3gnot",
        "--json",
        "alice",
        fault=fault,
    )
    assert proc.returncode == 0, proc.stderr
    acknowledged = [json.loads(proc.stdout)["hash"]]
    warning = proc.stderr.splitlines()
    assert len(warning) == 1 and warning[0].startswith("warning: the cache in "), proc.stderr
    assert "the transaction is recorded" in warning[0]
    # Later commands (with the cache still failing, then without) give the same answers.
    for again in (fault, ""):
        balance = c4(c4_bin, chain.path, "query", "balance", "bob", "--json", fault=again)
        assert balance.returncode == 0 and balance.stderr == "", balance.stderr
        assert json.loads(balance.stdout)["ugnot"] == 10_000_000 * 1_000_000 + 3_000_000
    still_whole(chain, c4_bin, acknowledged)


def test_a_secret_that_cannot_be_kept_stops_the_offer_before_signing(
    chain: Home, c4_bin: str
) -> None:
    before = chain.log_bytes()
    proc = c4(c4_bin, chain.path, "offer", "--stake", "1gnot", "alice", fault="secret-write:ENOSPC")
    assert proc.returncode == 3
    line = one_error_line(proc)
    assert line.startswith(f"Error: cannot write {chain.path / 'secrets'}")
    assert line.endswith("No space left on device; nothing was signed or sent")
    assert chain.log_bytes() == before
    assert not [p for p in (chain.path / "secrets").rglob("*") if p.is_file()]
    still_whole(chain, c4_bin, [])


def test_a_key_that_cannot_be_written_is_not_added(chain: Home, c4_bin: str) -> None:
    proc = c4(c4_bin, chain.path, "keys", "add", "dave", fault="key-write:EIO")
    assert proc.returncode == 3
    assert "Traceback" not in proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        f"Error: cannot write {chain.path / 'keys' / 'dave.json'}: Input/output error; "
        "the key 'dave' was not added"
    )
    assert sorted(p.name for p in (chain.path / "keys").iterdir()) == [
        "alice.json",
        "bob.json",
        "carol.json",
        "test1.json",
    ]
    assert c4(c4_bin, chain.path, "keys", "add", "dave").returncode == 0


@pytest.mark.parametrize("fault", ["log-read:EACCES", "log-read:EIO"])
def test_a_log_that_cannot_be_read_is_one_line_and_exit_3(
    chain: Home, c4_bin: str, fault: str
) -> None:
    reason = os.strerror(getattr(__import__("errno"), fault.split(":")[1]))
    cache = chain.path / "chain" / "cache" / "state.sqlite"
    for args in (("time",), ("log",), ("send", "--to", "bob", "--amount", "1ugnot", "alice")):
        cache.unlink(missing_ok=True)  # so that the answer needs the log itself
        proc = c4(c4_bin, chain.path, *args, fault=fault)
        assert proc.returncode == 3, (args, proc.stderr)
        assert one_error_line(proc) == (
            f"Error: cannot read {chain.path / 'chain' / 'blocks.toml'}: {reason}"
        )
    still_whole(chain, c4_bin, [])


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_a_log_without_read_permission(chain: Home, c4_bin: str) -> None:
    log = chain.path / "chain" / "blocks.toml"
    (chain.path / "chain" / "cache" / "state.sqlite").unlink(missing_ok=True)
    log.chmod(0)
    try:
        proc = c4(c4_bin, chain.path, "time")
        assert proc.returncode == 3
        assert one_error_line(proc) == f"Error: cannot read {log}: Permission denied"
    finally:
        log.chmod(0o600)


# -- real faults: a small tmpfs -------------------------------------------------------


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 400 KiB tmpfs, when this machine lets the tests mount one (root, mount)."""
    mount = tmp_path / "fs"
    mount.mkdir()
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({made.stderr.strip()}); the seam tests cover it")
    try:
        yield mount
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(mount)], capture_output=True)
        if subprocess.run(["umount", str(mount)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def tmpfs_chain(c4_bin: str, mount: Path) -> Home:
    home = Home(mount / "home")
    for name in ("alice", "bob"):
        assert c4(c4_bin, home.path, "keys", "add", name).returncode == 0
    assert c4(c4_bin, home.path, "init", "--clock", "manual").returncode == 0
    return home


def fill(mount: Path) -> Path:
    """Fill the filesystem to the last byte with another file."""
    filler = mount / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 4096, 1):
            try:
                while True:
                    os.write(fd, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(fd)
    return filler


@pytest.mark.slow
def test_a_full_disk_for_real(tmpfs: Path, c4_bin: str) -> None:
    chain = tmpfs_chain(c4_bin, tmpfs)
    acknowledged = []
    for n in range(3):
        sent = c4(
            c4_bin,
            chain.path,
            "send",
            "--to",
            "bob",
            "--amount",
            f"{n + 1}ugnot",
            "--json",
            "alice",
        )
        acknowledged.append(json.loads(sent.stdout)["hash"])
    filler = fill(tmpfs)
    # The log's last page may still have room for a block or two: send until the
    # disk says no, keeping what it acknowledged.
    failures = 0
    for _ in range(60):
        before = chain.log_bytes()
        proc = c4(
            c4_bin, chain.path, "send", "--to", "bob", "--amount", "9ugnot", "--json", "alice"
        )
        if proc.returncode == 0:
            assert failures == 0, "a send succeeded after the disk was full"
            acknowledged.append(json.loads(proc.stdout)["hash"])
            continue
        assert proc.returncode == 3
        error = json.loads(proc.stdout)["error"]
        assert "No space left on device" in error and "not recorded" in error
        assert chain.log_bytes() == before
        failures += 1
        if failures == 3:
            break
    assert failures == 3
    # Reading needs no space.
    assert c4(c4_bin, chain.path, "time").returncode == 0
    assert c4(c4_bin, chain.path, "query", "balance", "bob").returncode == 0
    filler.unlink()
    still_whole(chain, c4_bin, acknowledged)


@pytest.mark.slow
def test_a_read_only_home_for_real(tmpfs: Path, c4_bin: str) -> None:
    chain = tmpfs_chain(c4_bin, tmpfs)
    sent = c4(c4_bin, chain.path, "send", "--to", "bob", "--amount", "1gnot", "--json", "alice")
    tx_hash = json.loads(sent.stdout)["hash"]
    (chain.path / "chain" / "cache" / "state.sqlite").unlink()  # no cache to lean on
    remount = subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], capture_output=True)
    assert remount.returncode == 0
    for args in (
        ("time",),
        ("log",),
        ("tx", tx_hash),
        ("query", "balance", "bob"),
        ("verify",),
        ("keys", "list"),
    ):
        proc = c4(c4_bin, chain.path, *args)
        assert proc.returncode == 0, (args, proc.stderr)
        assert proc.stderr == "", (args, proc.stderr)
    for args, path in (
        (("send", "--to", "bob", "--amount", "1gnot", "alice"), "chain/lock"),
        (("offer", "--stake", "1gnot", "alice"), "secrets/"),
        (("keys", "add", "carol"), "keys/carol.json"),
        (("time", "advance", "1m"), "chain/lock"),
    ):
        proc = c4(c4_bin, chain.path, *args)
        assert proc.returncode == 3, (args, proc.stderr)
        line = proc.stderr.splitlines()[-1]
        assert line.startswith(f"Error: cannot write {chain.path}/{path}"), line
        assert "Read-only file system" in line and "Traceback" not in proc.stderr
    subprocess.run(["mount", "-o", "remount,rw", str(tmpfs)], check=True)
    still_whole(chain, c4_bin, [tx_hash])


# -- signals ---------------------------------------------------------------------------

ROUNDS = int(os.environ.get("C4_SIGNAL_ROUNDS", "40"))


@pytest.mark.slow
def test_sigint_and_sigterm_never_tear_a_block(chain: Home, c4_bin: str) -> None:
    """SIGINT and SIGTERM at random moments: half the rounds slowed down inside the
    append, a quarter just before it, a quarter at full speed."""
    env = dict(os.environ, C4_HOME=str(chain.path), C4_PASSWORD="")
    rng = random.Random(20261130)
    acknowledged: list[str] = []
    outcomes = {0: 0, 130: 0, 143: 0}
    recorded_anyway = nothing = 0
    for n in range(ROUNDS):
        signum = signal.SIGINT if n % 2 == 0 else signal.SIGTERM
        fault = ["pause-mid-append", "pause-mid-append", "pause-before-append", ""][n % 4]
        run_env = dict(env, C4_FAULT=fault) if fault else env
        proc = subprocess.Popen(
            [c4_bin, "send", "--to", "bob", "--amount", f"{n + 1}ugnot", "--json", "alice"],
            env=run_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        # A random moment of the command's run, after the interpreter has started
        # (what Python does before any c4 code runs is not c4's to handle).
        time.sleep(rng.uniform(0.12, 0.8))
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
        # -signum: the signal came while Python was still starting, before c4
        # installed its handlers (and long before anything could be written); on a
        # loaded machine that can be as the console script imports, where Python's
        # own Ctrl-C prints its KeyboardInterrupt (console.py says so). Any other
        # ending has no traceback.
        assert proc.returncode in (0, 128 + signum, -signum), (proc.returncode, err)
        if proc.returncode == -signum and "Traceback" in err:
            assert err.rstrip().endswith("KeyboardInterrupt"), err
        else:
            assert "Traceback" not in err, err
        outcomes[proc.returncode] = outcomes.get(proc.returncode, 0) + 1
        if proc.returncode == 0:
            acknowledged.append(json.loads(out)["hash"])
        elif proc.returncode < 0:  # nothing of c4's ran: no output, or Python's own line
            assert out == "" and (err == "" or err.rstrip().endswith("KeyboardInterrupt"))
        else:
            assert out, (proc.returncode, err)  # --json: the failure is a JSON line
            document = json.loads(out.splitlines()[-1])
            assert document["ok"] is False
            name = "interrupted" if signum == signal.SIGINT else "terminated"
            assert document["error"].startswith(f"{name}: ")
            if "the transaction was recorded" in document["error"]:
                # Appended whole before the signal was acted on: it is acknowledged.
                recorded_anyway += 1
                acknowledged.append(document["error"].split("TX HASH ")[1].rstrip(")"))
            else:
                assert document["error"] == f"{name}: nothing was recorded"
                nothing += 1
        # Never a torn block: the next command needs no repair.
        check = subprocess.run([c4_bin, "time"], env=env, capture_output=True, text=True)
        assert check.returncode == 0, check.stderr
    assert logged_hashes(chain, c4_bin) == acknowledged
    assert c4(c4_bin, chain.path, "verify").returncode == 0
    assert outcomes[130] and outcomes[143] and recorded_anyway and nothing
    print(
        f"signal rounds {ROUNDS}: exits {outcomes}; interrupted after the append "
        f"{recorded_anyway}, before it {nothing}; acknowledged {len(acknowledged)}"
    )


def test_verify_ends_its_workers_quietly(chain: Home, c4_bin: str) -> None:
    """The pool stops its workers with SIGTERM: they must die the default way, not
    raise c4's Interrupted (which printed a worker's traceback, or hung the pool,
    in about one `c4 verify` in ten before workers reset their signals)."""
    for n in range(5):
        chain.ok("send", "--to", "bob", "--amount", f"{n + 1}ugnot", "alice")
    for _ in range(20):
        proc = c4(c4_bin, chain.path, "verify")
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr


READS = (
    ("lobby",),
    ("show", "1"),
    ("board", "1"),
    ("leaders",),
    ("query", "balance", "alice"),
    ("log", "--tail", "1"),
    ("time",),
)


@pytest.mark.parametrize("fault", ["cache-save:ENOSPC", "cache-save:EIO", "cache-save:EROFS"])
@pytest.mark.parametrize("stale", ["copied", "touched", "damaged"])
@pytest.mark.slow
def test_a_stale_cache_on_a_home_that_cannot_take_a_new_one_answers_reads(
    chain: Home, c4_bin: str, tmp_path: Path, fault: str, stale: str
) -> None:
    """A home copied (new inodes), its log touched, or its cache damaged, on a medium
    that takes no new cache (read-only, full, failing): every read answers from the
    state in memory, as the home's own cache would, never an internal error."""
    start_game(chain, "4455")
    expected = {args: c4(c4_bin, chain.path, *args, "--json").stdout for args in READS}
    home = chain.path
    if stale == "copied":
        home = tmp_path / "copy"
        shutil.copytree(chain.path, home)  # new inodes: the cache's identity is stale
    elif stale == "touched":
        (home / "chain" / "blocks.toml").touch()
    else:
        (home / "chain" / "cache" / "state.sqlite").write_bytes(b"not a database")
    for args in READS:
        proc = c4(c4_bin, home, *args, "--json", fault=fault)
        assert proc.returncode == 0, (args, proc.stderr)
        assert proc.stderr.count("\n") <= 1, proc.stderr
        assert json.loads(proc.stdout) == json.loads(expected[args]) or args == ("time",)

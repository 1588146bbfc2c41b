"""gno's binaries for `c4 node start`: where they are, and which version of gno they are.

``$GNO_BIN`` and ``$GNOROOT`` first; else the install script's cache
(``scripts/install-gno.sh``) and Go's module cache; else ``$PATH``. A user without
a checkout (a wheel, pipx) is told the ``go install`` that script runs.
"""

from __future__ import annotations

import mmap
import re
import shutil
from pathlib import Path

from c4cli import settings
from c4cli.errors import BadInput, warn_once

GNO_VERSION = "v1.7.1"  # as scripts/install-gno.sh builds it
# What a user does without a checkout (a wheel, pipx): what the install script does.
INSTALL_HINT = (
    f"build them with Go >= 1.25.9: GOBIN=~/.cache/c4cli/gno-{GNO_VERSION}/bin go install "
    f"github.com/gnolang/gno/gno.land/cmd/gnoland@{GNO_VERSION} "
    f"github.com/gnolang/gno/gno.land/cmd/gnokey@{GNO_VERSION} "
    "(from a checkout of c4: scripts/install-gno.sh)"
)
GNO_MODULE = "github.com/gnolang/gno"


def gno_version(binary: Path) -> str:
    """The version of gno a binary was built from, as Go records it in the binary (what
    `go version -m` shows: the gno module's version; "(devel)" for a build from a
    checkout); "unknown" where the binary holds no such record. `gnoland version` says
    "develop" for every `go install`, so it is not asked."""
    marker = f"\nmod\t{GNO_MODULE}\t".encode()
    try:
        with (
            binary.open("rb") as handle,
            mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data,
        ):
            at = data.find(marker)
            found = b"" if at < 0 else data[at + len(marker) : at + len(marker) + 64]
    except (OSError, ValueError):
        return "unknown"
    version = re.split(rb"[\t\n]", found, maxsplit=1)[0].decode("ascii", "replace")
    return version if re.fullmatch(r"[\w.()+-]{1,40}", version) else "unknown"


def checked_version(bin_dir: Path) -> str:
    """The version of the gnoland in ``bin_dir``, said once when it is not the one c4
    pins (its wire, receipts and realm are tested against that one)."""
    version = gno_version(bin_dir / "gnoland")
    if version != GNO_VERSION:
        warn_once(
            f"note: {bin_dir / 'gnoland'} is gnoland {version}, not the {GNO_VERSION} c4 "
            f"is tested with ({INSTALL_HINT.removeprefix('build them with Go >= 1.25.9: ')})"
        )
    return version


def find_gno() -> tuple[Path, Path]:
    """The folder of gnoland and gnokey, and the GNOROOT (gno's standard library).

    ``$GNO_BIN`` and ``$GNOROOT`` first; else the install script's cache and Go's
    module cache; else ``$PATH``.
    """
    env = settings.current()
    cache = env.cache_home
    candidates = [
        env.gno_bin,
        str(cache / "c4cli" / f"gno-{GNO_VERSION}" / "bin"),
    ]
    found = shutil.which("gnoland")
    if found is not None:
        candidates.append(str(Path(found).parent))
    bin_dir = next(
        (
            Path(c)
            for c in candidates
            if c and (Path(c) / "gnoland").is_file() and (Path(c) / "gnokey").is_file()
        ),
        None,
    )
    if bin_dir is None:
        raise BadInput(
            f"gnoland and gnokey not found: {INSTALL_HINT}, or set GNO_BIN to their folder"
        )
    roots = [env.gnoroot, str(Path(env.gomodcache) / f"{GNO_MODULE}@{GNO_VERSION}")]
    gnoroot = next((Path(r) for r in roots if r and (Path(r) / "gnovm" / "stdlibs").is_dir()), None)
    if gnoroot is None:
        raise BadInput(
            f"gno's standard library not found: {INSTALL_HINT} (Go keeps gno's source in its "
            f"module cache), or set GNOROOT to gno {GNO_VERSION}'s source folder"
        )
    return bin_dir, gnoroot

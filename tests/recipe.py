"""The README's CI recipe, run as written with bash and the installed c4.

It reads its JSON with jq. Where jq is missing, gojq (a jq in Go, MIT) is built
with the Go toolchain into the test cache and put on PATH as ``jq``; with
neither, the tests that run the recipe skip (and fail in CI).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from oracles import cache_dir, missing

README = Path(__file__).resolve().parent.parent / "README.md"
GOJQ = "github.com/itchyny/gojq/cmd/gojq@v0.12.20"
INIT_LINE = "c4 init --clock manual --genesis-time 2026-01-01T00:00:00Z --deployer owner >/dev/null"


def ci_recipe() -> str:
    """The sh block of the README's "Scripting a game in CI"."""
    text = README.read_text()
    section = text[text.index("## Scripting a game in CI") :]
    start = section.index("```sh\n") + len("```sh\n")
    return section[start : section.index("```\n", start)]


def jq_folder() -> str:
    """A folder with a ``jq`` in it, for PATH."""
    found = shutil.which("jq")
    if found is not None:
        return os.path.dirname(found)
    folder = cache_dir() / "jq"
    if not (folder / "jq").exists():
        if shutil.which("go") is None:
            missing("jq", "the README's CI recipe reads JSON with jq (or gojq, built with Go)")
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["go", "install", GOJQ],
            env=dict(os.environ, GOBIN=str(folder)),
            check=True,
            capture_output=True,
            timeout=600,
        )
        (folder / "jq").symlink_to(folder / "gojq")
    return str(folder)


def run_recipe(
    script: str, c4_bin: str, env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join([os.path.dirname(c4_bin), jq_folder(), os.environ.get("PATH", "")])
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        env=dict(os.environ, PATH=path, **env),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )

"""The realm's Gno sources travel with the package, for `c4 node start` from any install."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import c4cli
from c4cli.gnoland.devnode import EXAMPLES_IMPORTED, DevNode, NodeFailed, gno_sources

ROOT = Path(__file__).resolve().parents[2]


def test_the_gno_sources_are_found_inside_the_package() -> None:
    folder = gno_sources()
    assert folder == Path(c4cli.__file__).resolve().parent / "gno"
    for source in ("p/c4cli/gno4/gno4.gno", "r/c4cli/connect4/connect4.gno"):
        assert (folder / source).read_bytes() == (ROOT / "gno" / source).read_bytes()


def test_a_wheel_carries_them() -> None:
    """What setuptools puts in a wheel beside the Python files (checked by building one:
    every .gno file and gnomod.toml under c4cli/gno)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-data"]["c4cli"] == ["gno/**/*.gno", "gno/**/gnomod.toml"]
    assert (ROOT / "c4cli" / "gno").resolve() == ROOT / "gno"


def test_a_gnoroot_without_the_packages_the_realm_imports_is_one_line(tmp_path: Path) -> None:
    """A node is started from gno's sources (GNOROOT): one that lacks the example
    packages the realm imports is said, naming what is missing, before anything runs."""
    node = DevNode(tmp_path / "node", tmp_path / "bin", tmp_path / "gnoroot")
    with pytest.raises(NodeFailed, match=re.escape(EXAMPLES_IMPORTED[0])) as caught:
        node.create({})
    assert "\n" not in str(caught.value)
    realm = (ROOT / "gno" / "r" / "c4cli" / "connect4" / "connect4.gno").read_text()
    assert all(f'"{path}"' in realm for path in EXAMPLES_IMPORTED)

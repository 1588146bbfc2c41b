"""Every command has help with an example, and the README or a page of docs/ tours it."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from c4cli.commands.main import cli
from support import all_commands

ROOT = Path(__file__).resolve().parents[2]
TOUR = "\n".join(page.read_text() for page in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")])


@pytest.mark.parametrize(("name", "command"), all_commands(), ids=lambda v: str(v))
def test_help_has_an_example(name: str, command: click.Command) -> None:
    result = CliRunner().invoke(cli, [*name.split(), "--help"])
    assert result.exit_code == 0, result.output
    assert "Example:" in result.output, name
    assert f"c4 {name}" in TOUR, f"`c4 {name}` is in neither the README nor docs/"


# Commands that never reach a chain do not offer --remote; solve uses no home either.
NO_REMOTE = {
    "demo",
    "verify-record",
    "keys add",
    "keys delete",
    "keys export",
    "keys import",
    "keys list",
    "keys rotate",
    "keys show",
    "node logs",
    "node start",
    "node status",
    "node stop",
    "trust",
}


def test_each_command_offers_the_options_that_apply_to_it() -> None:
    for name, command in all_commands():
        if isinstance(command, click.Group):
            continue
        options = {opt for param in command.params for opt in getattr(param, "opts", [])}
        if name == "completion":  # prints a shell's script: no home, no chain, no JSON
            assert not options & {"--home", "--remote", "--json"}
            continue
        assert "--json" in options, name
        if name == "solve":
            assert not options & {"--home", "--remote"}, name
        elif name in NO_REMOTE:
            assert "--home" in options and "--remote" not in options, name
        else:
            assert {"--home", "--remote"} <= options, name
        help_text = CliRunner().invoke(cli, [*name.split(), "--help"]).output
        assert ("--remote" in help_text) == ({"--remote"} <= options), name


def test_c4_help_lists_the_exit_codes_of_the_readme_table() -> None:
    """The codes a script branches on, in `c4 --help` as in the README's table."""
    import re

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    table = re.findall(r"^\| ([0-9, ]+) \| ", readme, flags=re.MULTILINE)
    shown = CliRunner().invoke(cli, ["--help"]).output
    assert "Exit codes:" in shown and '{"ok": false, "error": "..."}' in shown
    for codes in table:
        assert f"\n    {codes.strip()} " in shown, codes


def test_c4_help_groups_every_command_once_with_its_whole_summary() -> None:
    """Issue 48: `c4 --help` in sections (play, views, keys, owner, chain, nodes), as
    gh and cargo list theirs, each command once, its first sentence not cut."""
    from c4cli.commands.main import _COMMANDS, SECTIONS

    listed = [name for names in SECTIONS.values() for name in names]
    assert sorted(listed) == sorted(_COMMANDS) and len(listed) == len(set(listed))
    shown = CliRunner().invoke(cli, ["--help"]).output
    for title in SECTIONS:
        assert f"\n{title}:\n" in shown
    commands = shown.split("Play a game:")[1].split("Exit codes:")[0]
    assert "..." not in commands


def test_a_transactions_help_shows_its_own_options_first() -> None:
    """Issue 48: `c4 offer --help` lists --stake and its own first; the options every
    transaction takes, and those every command takes, come after, once each."""
    shown = CliRunner().invoke(cli, ["offer", "--help"]).output
    own, _, rest = shown.partition("\nTransaction options (every transaction takes them):\n")
    shared, _, common = rest.partition("\nCommon options:\n")
    assert "--stake" in own and "--gas-fee" not in own and "--home" not in own
    assert "--gas-fee" in shared and "--stake" not in shared and shared.count("--gas-fee") == 1
    assert "--home" in common and "--remote" in common
    assert "\n  KEY\n" not in shown  # arguments are not options

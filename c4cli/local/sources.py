"""The realm's Gno source for gno.land's source queries: ``vm/qfile``, ``vm/qdoc`` and
``vm/qpaths``, as gnoweb asks them for its source view and its ``$help`` pages, and
as `c4 query` asks them of the local chain.

The local chain runs the realm's Python mirror, and the Gno it mirrors ships with c4
(``c4cli/gno``, the code `c4 node start` deploys and `gno test` checks): that is the
source these queries answer with, under the chain's realm path. ``vm/qdoc`` is read
off the files as gno's doc reader reads them for what gnoweb uses (the package's
doc, its imports, and each function with its doc comment, parameters, results,
file and line); constants, variables and types are left out (empty lists).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from c4cli.jsonvalue import Document
from c4cli.wire.paths import QFILE, QPATHS

SOURCE = Path(__file__).resolve().parent.parent / "gno" / "r" / "c4cli" / "connect4"
GNOMOD = "gnomod.toml"
_FUNC = re.compile(
    r"^func (?:\((?P<recv>[^)]*)\) )?(?P<name>\w+)\((?P<rest>.*?)\s*\{?\s*(?:\}.*)?$"
)
_IMPORT = re.compile(r'^\s*(?:import\s+)?"(?P<path>[^"]+)"\s*$')


def source_files() -> list[str]:
    """The package's files as the chain keeps them: its Gno files less the tests."""
    names = [
        p.name
        for p in SOURCE.iterdir()
        if p.suffix == ".gno" and not p.name.endswith(("_test.gno", "_filetest.gno"))
    ]
    return sorted([*names, GNOMOD])


def file_text(name: str, realm_path: str) -> str | None:
    """A file's text; the module file names the chain's realm path."""
    if name not in source_files():
        return None
    if name == GNOMOD:
        return f'module = "{realm_path}"\ngno = "0.9"\n'
    return (SOURCE / name).read_text()


def qfile(data: str, realm_path: str) -> str | None:
    """``vm/qfile``: the file names (one a line) of the package, or one file's text."""
    if data == realm_path:
        return "\n".join(source_files())
    if data.startswith(realm_path + "/"):
        return file_text(data[len(realm_path) + 1 :], realm_path)
    return None


def qpaths(data: str, realm_path: str) -> str:
    """``vm/qpaths``: the packages under a prefix (this chain has one)."""
    return realm_path if data and realm_path.startswith(data) else ""


def qdoc(realm_path: str) -> str:
    return json.dumps(_doc(realm_path), indent=2)


@cache
def _doc(realm_path: str) -> Document:
    package_doc, imports = "", set()
    funcs: list[Document] = []
    for name in source_files():
        if name == GNOMOD:
            continue
        comment: list[str] = []
        in_imports = False
        for number, line in enumerate((SOURCE / name).read_text().splitlines(), 1):
            if line.startswith("//"):
                comment.append(line[2:].strip())
                continue
            if line.startswith("package ") and comment and not package_doc:
                package_doc = " ".join(comment) + "\n"
            if line.startswith("import ("):
                in_imports = True
            elif in_imports and line.startswith(")"):
                in_imports = False
            found = _IMPORT.match(line) if in_imports or line.startswith("import ") else None
            if found is not None:
                imports.add(found["path"])
            func = _FUNC.match(line)
            if func is not None:
                funcs.append(_func(func, comment, name, number))
            comment = []
    # As go/doc lists them: the package's functions by name, then the methods by type.
    funcs.sort(key=lambda f: (f["type"] != "", str(f["type"]), str(f["name"])))
    return {
        "package_path": realm_path,
        "package_line": f'package {realm_path.rsplit("/", 1)[-1]} // import "{realm_path}"',
        "package_doc": package_doc,
        "imports": sorted(imports),
        "bugs": None,
        "values": [],
        "funcs": funcs,
        "types": [],
    }


def _func(found: re.Match[str], comment: list[str], file: str, line: int) -> Document:
    params_text, results_text = _split_params(found["rest"])
    params = _fields(params_text)
    receiver = (found["recv"] or "").split()[-1:] or [""]
    signature = found.group(0).rstrip()
    signature = signature[: signature.rfind("{")].rstrip() if "{" in signature else signature
    return {
        "type": receiver[0].lstrip("*"),
        "name": found["name"],
        "crossing": bool(params) and params[0]["type"] == "realm",
        "signature": signature,
        "doc": " ".join(comment) + "\n" if comment else "",
        "params": params,
        "results": _fields(results_text.strip().removeprefix("(").removesuffix(")")),
        "file": file,
        "line": str(line),
    }


def _split_params(rest: str) -> tuple[str, str]:
    """The parameter list (after the opening parenthesis) and what follows it."""
    depth = 0
    for index, char in enumerate(rest):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if depth == 0:
                return rest[:index], rest[index + 1 :].split("{")[0]
            depth -= 1
    return rest, ""


def _fields(text: str) -> list[dict[str, str]]:
    """Go's parameter list: ``a, b int, c string`` or unnamed types ``int, error``."""
    parts = [p.strip() for p in _top_level(text) if p.strip()]
    if not parts:
        return []
    named = all(" " in p for p in parts[-1:]) and any(" " in p for p in parts)
    if not named:
        return [{"name": "", "type": p, "doc": ""} for p in parts]
    out: list[dict[str, str]] = []
    pending: list[str] = []
    for part in parts:
        if " " not in part:
            pending.append(part)
            continue
        name, kind = part.split(" ", 1)
        for waiting in [*pending, name]:
            out.append({"name": waiting, "type": kind.strip(), "doc": ""})
        pending = []
    return out


def _top_level(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def answer(kind: str, data: str, realm_path: str) -> str | None:
    """The answer to ``vm/qfile``, ``vm/qdoc`` or ``vm/qpaths`` (``kind``) of ``data``;
    None for a package the chain does not hold (gno.land's "package not found")."""
    if kind == QPATHS:
        return qpaths(data, realm_path)
    if kind == QFILE:
        return qfile(data, realm_path)
    return qdoc(realm_path) if data == realm_path else None

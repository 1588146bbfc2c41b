"""``vm/qfuncs`` lists the realm's exported functions in the order gno.land's VM does:
its Gno files by name, each file's functions in their order (abi.LISTED), each with
its parameters, and a function with none gives Go's null, as the VM's JSON does."""

from __future__ import annotations

import json
import re

from c4cli.local import sources
from c4cli.local.state_reader import functions
from c4cli.realm import abi

EXPORTED = re.compile(r"^func ([A-Z]\w*)\(", re.MULTILINE)


def test_listed_is_the_gno_files_order() -> None:
    names = [
        name
        for file in sorted(sources.source_files())
        if file.endswith(".gno") and not file.endswith("_test.gno")
        for name in EXPORTED.findall(sources.file_text(file, "gno.land/r/x/connect4"))
    ]
    assert tuple(names) == abi.LISTED


def test_qfuncs_writes_no_parameters_as_null() -> None:
    listed = {func["FuncName"]: func for func in json.loads(functions())}
    assert listed["BooksRecord"]["Params"] is None
    assert listed["Cancel"]["Results"] is None
    assert listed["Offer"]["Results"] == [{"Name": ".res.0", "Type": "int", "Value": ""}]

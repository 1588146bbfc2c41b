"""gno.land's ABCI query paths, as gnokey names them: the words both backends answer.

On their own, apart from how the local chain answers them (:mod:`c4cli.local.queries`),
so that a client that only asks a node loads nothing else.
"""

QEVAL = "vm/qeval"
QRENDER = "vm/qrender"
QFUNCS = "vm/qfuncs"
QFILE = "vm/qfile"
QDOC = "vm/qdoc"
QPATHS = "vm/qpaths"  # with ?limit=N
GASPRICE = "auth/gasprice"
SIMULATE = ".app/simulate"  # a node only: a transaction run, its gas used
# Paths only a node that prices gas answers. The realm's sources (qfile, qdoc, qpaths)
# the local chain answers from the Gno that ships with c4 (local/sources.py).
NODE_ONLY = (GASPRICE,)
# Paths that read the GnoVM's stored objects (gnoweb's State tab asks the first three):
# the local chain keeps the realm's state in its Python mirror, not as GnoVM objects
# with their ids and hashes, so it answers none of them rather than invent those.
GNOVM_OBJECTS = (
    "vm/qpkg_json",
    "vm/qobject_json",
    "vm/qtype_json",
    "vm/qobject_binary",
    "vm/qstorage",
)
SOURCES = (QFILE, QDOC, QPATHS)
BALANCES = "bank/balances/"
ACCOUNTS = "auth/accounts/"

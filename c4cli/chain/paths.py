"""gno.land's ABCI query paths, as gnokey names them: the words both backends answer.

On their own, apart from how the local chain answers them (:mod:`c4cli.chain.queries`),
so that a client that only asks a node loads nothing else.
"""

QEVAL = "vm/qeval"
QRENDER = "vm/qrender"
QFUNCS = "vm/qfuncs"
QFILE = "vm/qfile"
QDOC = "vm/qdoc"
GASPRICE = "auth/gasprice"
SIMULATE = ".app/simulate"  # a node only: a transaction run, its gas used
# Paths only a GnoVM answers (its sources, their docs) or a node that prices gas.
NODE_ONLY = (QFILE, QDOC, GASPRICE)
BALANCES = "bank/balances/"
ACCOUNTS = "auth/accounts/"

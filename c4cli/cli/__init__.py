"""The front of c4: one run of it (:class:`~c4cli.cli.invocation.Invocation`), and
how it starts (the console script's signal handling, the node dialled ahead, the fast
lanes that answer a plain query or move without click). The rest of the house reads
as ordinary Python: a command's body takes the invocation, a backend is handed what
it needs."""

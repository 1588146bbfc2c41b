"""The front of c4: how a run starts (the console script's signal handling, the node
dialled ahead, the fast lanes that answer a plain query or move without click). It
stands above the commands: nothing below imports it. A run itself is
:class:`~c4cli.commands.run.Invocation`, which either front end builds."""

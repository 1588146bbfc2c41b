"""Click commands: parse, call the chain, format. No rules and no file formats here."""

from c4cli.cli.console import main

main()

from c4cli.console import main

main()

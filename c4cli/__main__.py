from c4cli.commands.main import main

main()

"""One module per ``scir`` subcommand, each with ``add_parser(subparsers)`` and ``run(args)``."""

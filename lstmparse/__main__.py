"""``python -m lstmparse``: the command line."""

from lstmparse.cli import main

main()

"""The ``lstmparse`` command line, run from a checkout: ``python cli.py parse ...``.

The installed ``lstmparse`` command and ``python -m lstmparse`` run the same
:func:`lstmparse.cli.main`; the commands live in :mod:`lstmparse.cli`, one module
per model family.
"""

from lstmparse.cli import main

if __name__ == "__main__":
    main()

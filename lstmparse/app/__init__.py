"""The services the command line and the Python API offer over the model families.

Holds models found by name and listed (``catalog``), corpora parsed in shards on local
processes or a Dask cluster (``corpus``) and the web service speaking UDPipe 2's REST
API (``serve``).

May import: every room below it (``io``, ``core``, ``scoring``, ``layers`` and the
family packages); never :mod:`lstmparse.cli`, and no room below imports this one.
"""

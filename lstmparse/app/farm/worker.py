"""Set-up run by every worker of the farm's local cluster as it starts (a Dask preload module).

Ctrl-C reaches every process of the terminal's group; the farm itself answers it
by closing its cluster, which stops the workers and, with them, their jobs.  A
worker that also took the signal would die on its own with a traceback, so it
ignores it.
"""

from __future__ import annotations

import signal


def dask_setup(worker) -> None:
    """Leave Ctrl-C to the farm's process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

"""A worker process stops when the run's parent process is gone.

``die_with_parent`` asks the kernel (Linux ``PR_SET_PDEATHSIG``) to kill this process when
its parent dies and, everywhere, starts a daemon thread that checks every 0.2 s whether the
parent is still alive, exiting at once when it is not: no worker plays on (and pays for
model calls) for a run nobody will record.
"""

from __future__ import annotations

import os
import signal
import threading
import time

POLL_S = 0.2


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def die_with_parent(parent_pid: str | int | None) -> None:
    """Exit (status 3) within ``POLL_S`` of the death of ``parent_pid`` (default: the current parent)."""
    pid = int(parent_pid) if parent_pid else os.getppid()
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != pid or not _alive(pid):  # the parent died before we got here
        os._exit(3)

    def watch() -> None:
        while True:
            time.sleep(POLL_S)
            if os.getppid() != pid or not _alive(pid):
                os._exit(3)

    threading.Thread(target=watch, name="sitgym-parent-watch", daemon=True).start()

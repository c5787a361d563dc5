"""A time limit for the calling thread: raise an exception in it once its time is up.

One mechanism with a policy per user. The learners' checks (:mod:`tutorial_lib.course.checks`)
stop a learner's function that never returns: re-firing, and reaching into other threads
too. (search_files used it to interrupt a backtracking ``re`` search, which only SIGALRM
can do, so only in the main thread: it now runs the regex module, whose own timeout works
in every thread; see :mod:`tutorial_lib.workspace.search`.) ``when`` and
``other_threads="none"`` remain for a caller that checks its own deadline elsewhere.

How the exception gets there (:attr:`TimeLimit.mechanism`):

- ``"signal"``: in the main thread of a POSIX process, when no one else uses the
  real-time interval timer, ``ITIMER_REAL`` fires SIGALRM and the handler raises. A signal
  handler runs between bytecodes of the main thread, so it also interrupts ``time.sleep``
  and a regex search (``re`` checks for signals while it backtracks);
- ``"inject"``: elsewhere (another thread, Windows, a timer already in use), if the policy
  allows it, a watchdog thread injects the exception with ``PyThreadState_SetAsyncExc``.
  It arrives at the target's next bytecode, so a long C call (one regex search, a sleep)
  is not cut short;
- ``"none"``: the policy declined the injection; the caller checks its own deadline.

An ``ITIMER_REAL`` already running belongs to someone else and is left alone; the SIGALRM
handler in place before is restored on exit.
"""

from __future__ import annotations

import ctypes
import signal
import threading
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any, Literal

__all__ = ["Mechanism", "TimeLimit"]

#: How a :class:`TimeLimit` reaches the thread it limits.
Mechanism = Literal["signal", "inject", "none"]


def _always() -> bool:
    return True


class TimeLimit:
    """Raise ``exception`` in the thread that enters this context after ``seconds``.

    Policy:

    - ``refire_s``: with the signal, fire again every ``refire_s`` seconds after the first
      (None: once). Then a learner's ``except:`` around the loop body only delays the stop;
    - ``when``: asked just before raising (by the signal handler, or by the watchdog); the
      exception is raised only if it returns True (e.g. "a regex is running now"). When it
      says no, the caller's own deadline check must end the work;
    - ``other_threads``: ``"inject"`` uses the watchdog where no signal can be used,
      ``"none"`` does nothing there.

    Pass a ``BaseException`` subclass as ``exception`` if ordinary ``except Exception``
    blocks in the limited code must not swallow it. The limit stops at ``__exit__``:
    after it, nothing is raised. Not reentrant: use one instance for one ``with`` block.
    """

    def __init__(
        self,
        seconds: float,
        exception: type[BaseException],
        *,
        refire_s: float | None = None,
        when: Callable[[], bool] = _always,
        other_threads: Literal["inject", "none"] = "inject",
    ) -> None:
        if not seconds > 0:
            raise ValueError(f"seconds must be > 0, got {seconds!r}")
        self.seconds = seconds
        self.exception = exception
        self.refire_s = refire_s
        self.when = when
        self.other_threads = other_threads
        #: How this limit reaches its thread; decided on entering.
        self.mechanism: Mechanism = "none"
        self._armed = False
        # Held while disarming and while injecting: a watchdog that found the limit armed
        # has finished injecting before __exit__ returns, so its exception is raised inside
        # the `with` statement, never in the code after it.
        self._lock = threading.Lock()
        self._previous: Any = None
        self._watchdog: threading.Timer | None = None

    def __enter__(self) -> TimeLimit:
        self.mechanism = self._choose()
        self._armed = True
        if self.mechanism == "signal":
            self._previous = signal.signal(signal.SIGALRM, self._on_alarm)
            signal.setitimer(signal.ITIMER_REAL, self.seconds, self.refire_s or 0.0)
        elif self.mechanism == "inject":
            target = threading.get_ident()
            self._watchdog = threading.Timer(self.seconds, self._inject, args=(target,))
            self._watchdog.daemon = True
            self._watchdog.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        try:
            if self.mechanism == "signal":
                signal.setitimer(signal.ITIMER_REAL, 0, 0)
            with self._lock:
                self._armed = False
        finally:  # a signal already on its way may still raise above: restore regardless
            if self.mechanism == "signal":
                # None means the old handler was not set from Python: restore the default.
                previous = self._previous if self._previous is not None else signal.SIG_DFL
                signal.signal(signal.SIGALRM, previous)
            elif self._watchdog is not None:
                self._watchdog.cancel()

    def _choose(self) -> Mechanism:
        if (
            hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
            and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        ):
            return "signal"
        return "inject" if self.other_threads == "inject" else "none"

    def _on_alarm(self, _signum: int, _frame: FrameType | None) -> None:
        if self._armed and self.when():
            raise self.exception

    def _inject(self, thread_id: int) -> None:
        with self._lock:
            if self._armed and self.when():
                ctypes.pythonapi.PyThreadState_SetAsyncExc(
                    ctypes.c_ulong(thread_id), ctypes.py_object(self.exception)
                )

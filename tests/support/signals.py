"""An exception raised from a timer signal in the middle of whatever the code is doing then, as Celery's
soft time limit raises SoftTimeLimitExceeded (the database backend's tests, the processing task's)."""
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def raised_after(seconds: float, exception: Callable[[], BaseException]) -> Iterator[None]:
    """`exception()` raised by a SIGALRM handler `seconds` into the block; the timer and the previous
    handler are restored on the way out. The main thread only (where Python runs signal handlers)."""
    def handler(signum, frame):
        raise exception()

    previous = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)

"""Progress lines, so a long load or query never looks hung.

Every line carries the time since the start of the run.  `step()` prints when
a step starts and ends and, while it runs, a heartbeat line every HEARTBEAT
seconds; a step can also report its own progress (rows loaded, bytes copied)
through `Step.update`, which is rate-limited to one line per UPDATE_EVERY
seconds unless forced.
"""
import contextlib
import sys
import threading
import time

HEARTBEAT = 20.0
UPDATE_EVERY = 5.0
_T0 = time.monotonic()
_lock = threading.Lock()


def log(msg: str) -> None:
    """Print one progress line, stamped with the run's elapsed time."""
    with _lock:
        print(f"[{time.monotonic() - _T0:8.1f}s] {msg}", file=sys.stdout, flush=True)


def fmt_seconds(s: float) -> str:
    return f"{s:.1f}s" if s < 120 else f"{int(s // 60)}m{int(s % 60):02d}s"


class Step:
    """A running step: its title, start time, and rate-limited updates."""

    def __init__(self, title: str):
        self.title = title
        self.t0 = time.monotonic()
        self._last_update = 0.0

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def update(self, msg: str, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self._last_update >= UPDATE_EVERY:
            self._last_update = now
            log(f"  {self.title}: {msg} ({fmt_seconds(self.elapsed)})")


@contextlib.contextmanager
def step(title: str, quiet_end: bool = False):
    """Run a step: announce it, heartbeat while it runs, report its duration."""
    s = Step(title)
    log(f"{title} ...")
    stop = threading.Event()

    def beat():
        while not stop.wait(HEARTBEAT):
            log(f"  {title}: still running ({fmt_seconds(s.elapsed)})")

    t = threading.Thread(target=beat, daemon=True)
    t.start()
    try:
        yield s
    except BaseException:
        stop.set()
        log(f"{title}: failed after {fmt_seconds(s.elapsed)}")
        raise
    stop.set()
    if not quiet_end:
        log(f"{title}: done in {fmt_seconds(s.elapsed)}")

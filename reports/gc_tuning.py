"""Python's cyclic garbage collector around a report render.

Laying out a large report builds about a million tracked objects (boxes, styles, text runs)
that live until the PDF is written. With the default thresholds the collector traverses that
growing document again and again in its older generations, and every full collection also
traverses everything Django and the worker loaded before: a quarter to over a third of the
render's CPU for the large report, depending on the machine, and more in a worker that has
rendered before.

`gc_tuned()` therefore, for the duration of the render:

- collects once, then freezes what is there (`gc.freeze()`: the permanent generation, never
  traversed). Collecting first matters: garbage frozen with the rest (an earlier render's fonts)
  would be held through the render and raise its peak memory;
- keeps collecting the youngest generation, so short-lived cycles are still freed as they go,
  but stops the older generations, so the document is not traversed while it grows;
- on the way out, even on an error: collects once, which frees the finished document (only
  what the render made is traversed: the rest is still frozen), then restores the thresholds
  and whether the collector was enabled, and unfreezes.

`REPORT_GC_TUNING = False` (environment variable) renders under the interpreter's defaults.

The collector's settings belong to the whole process. Renders that overlap in one process
(threads of a web process running tasks eagerly) share one tuning: the first to start sets it
and the last to finish restores it.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings

# Youngest generation: collected every 10,000 net allocations (700 by default). Older ones:
# never during the render (these counts are not reached).
RENDER_THRESHOLDS = (10_000, 1_000_000, 1_000_000)

_lock = threading.Lock()
_depth = 0
_saved: tuple[bool, tuple[int, ...], bool] | None = None


@contextmanager
def gc_tuned() -> Iterator[None]:
    """Run the block (a report render) with the collector tuned as the module says."""
    if not settings.REPORT_GC_TUNING:
        yield
        return
    _enter()
    try:
        yield
    finally:
        _leave()


def _enter() -> None:
    global _depth, _saved
    with _lock:
        _depth += 1
        if _depth > 1:
            return
        # A process that froze objects of its own (a server after preloading) keeps its freeze:
        # the render neither adds to it nor undoes it.
        freeze = gc.get_freeze_count() == 0
        _saved = (gc.isenabled(), gc.get_threshold(), freeze)
        try:
            if freeze:
                gc.collect()
                gc.freeze()
            gc.set_threshold(*RENDER_THRESHOLDS)
        except BaseException:  # e.g. a task's time limit arriving here: leave nothing behind
            _depth -= 1
            _restore()
            raise


def _leave() -> None:
    global _depth
    with _lock:
        _depth -= 1
        if _depth > 0:
            return
        try:
            # The render's garbage, the finished document with it, in one collection (most of
            # a second for the large report) while what was there before is still frozen, so
            # that only what the render made is traversed.
            gc.collect()
        finally:
            _restore()


def _restore() -> None:
    global _saved
    if _saved is None:
        return
    enabled, thresholds, froze = _saved
    _saved = None
    gc.set_threshold(*thresholds)
    if froze:
        gc.unfreeze()
    if enabled:
        gc.enable()
    else:
        gc.disable()

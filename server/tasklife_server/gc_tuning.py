"""The cyclic garbage collector's settings for a long-running process, set once it started."""

from __future__ import annotations

import gc


def tune_garbage_collection() -> None:
    """Keeps the cyclic garbage collector's pauses out of the stream's latency (the server)
    and out of the sinks' commit-to-target latency (the sink delivery process).

    A full collection walks every object the process holds: with 1,000 watches open, about
    120,000, a pause of 40-100 ms here, which every watcher sees as a late event. Objects
    alive now (modules, descriptors, the pool) live as long as the process: freezing them
    takes them out of every later walk. Collecting the young generation every 10,000
    allocations instead of 700, and the older ones ten times less often each, leaves the
    rare full collection to a few tens of thousands of objects. Most garbage here is
    acyclic and freed at once by reference counting; the collector only finds cycles.
    """
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)

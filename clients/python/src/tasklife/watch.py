"""A watch that outlives its streams: WatchTaskEvents, resumed from the last cursor.

Every WatchTaskEventsResponse, progress messages included, carries the stream position after
it, and every TaskEvent carries its own. Resuming with `after_cursor` = the position after the
last delivered event continues with no gap and no duplicate, on the same server or on any
replica. TaskWatch does that by itself whenever a stream breaks.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from tasklife.errors import TasklifeError
from tasklife.v1 import task_pb2, task_service_pb2

# Opens one WatchTaskEvents call: an iterator of responses that also has cancel().
OpenStream = Callable[[task_service_pb2.WatchTaskEventsRequest], Any]

# Why a stream broke decides whether to resume it. UNAVAILABLE: the server is stopping
# (SERVER_SHUTTING_DOWN), the connection dropped, or the database is briefly away.
# CANCELLED: the call was cancelled underneath the watch, by reconnect() or by a proxy.
# Anything else (a malformed cursor, CURSOR_NOT_RETAINED...) would fail again: raise it.
_RESUMABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED})


class TaskWatch(Iterator[task_pb2.TaskEvent]):
    """Yields the events of a watch, one at a time, each exactly once, reconnecting as needed.

    Iterate it (it never ends on its own); stop it with close(), from any thread, or use it
    as a context manager. A stream that breaks is reopened after the last cursor received,
    with exponential backoff while reconnecting keeps failing. After
    `max_reconnect_attempts` failed reconnections in a row (None: no limit) the last error
    is raised as a TasklifeError, as is at once any error that resuming cannot cure.
    """

    def __init__(
        self,
        open_stream: OpenStream,
        request: task_service_pb2.WatchTaskEventsRequest,
        *,
        max_reconnect_attempts: int | None = 10,
        reconnect_delay: float = 0.1,
        max_reconnect_delay: float = 5.0,
    ) -> None:
        self._open_stream = open_stream
        self._request = task_service_pb2.WatchTaskEventsRequest()
        self._request.CopyFrom(request)
        self._max_reconnect_attempts = max_reconnect_attempts
        self._reconnect_delay = reconnect_delay
        self._max_reconnect_delay = max_reconnect_delay
        self._cursor = request.after_cursor if request.WhichOneof("start") == "after_cursor" else None
        self._lock = threading.Lock()  # guards _call and _generation against other threads
        self._closed = threading.Event()
        self._call: Any = None
        # Bumped by reconnect(); a stream opened under an older generation is abandoned.
        self._generation = 0
        self.reconnects = 0
        """How many times the watch has reopened its stream."""
        self._items = self._run()
        # Wait for the first message, the server's confirmation of where the stream starts:
        # from here on, every change committed after watch() returns is delivered, and a
        # request the server refuses (a malformed or expired cursor) fails here, at once.
        first = next(self._items)
        self._pending = [first] if first is not None else []

    @property
    def cursor(self) -> str | None:
        """The position after every event delivered so far (None before the first message).

        Keep it to continue later exactly here: `client.watch(after_cursor=watch.cursor)`.
        """
        return self._cursor

    def __next__(self) -> task_pb2.TaskEvent:
        if self._pending:
            return self._pending.pop()
        while True:
            item = next(self._items)
            if item is not None:
                return item

    def __enter__(self) -> TaskWatch:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def reconnect(self) -> None:
        """Drops the current stream; the watch resumes after the last delivered event by itself.

        Events already received but not yet delivered are dropped and fetched again, so
        nothing is lost or repeated. Safe to call from any thread.
        """
        with self._lock:
            self._generation += 1
            if self._call is not None:
                self._call.cancel()

    def close(self) -> None:
        """Ends the watch: iteration stops (at once, also when blocked in another thread)."""
        self._closed.set()
        with self._lock:
            if self._call is not None:
                self._call.cancel()

    def _resume_request(self) -> task_service_pb2.WatchTaskEventsRequest:
        request = task_service_pb2.WatchTaskEventsRequest()
        request.CopyFrom(self._request)
        if self._cursor is not None:
            request.after_cursor = self._cursor  # a oneof: this also clears from_beginning
        return request

    def _run(self) -> Iterator[task_pb2.TaskEvent | None]:
        """Yields each event, and None at the end of each message (so progress is seen too)."""
        failures = 0  # failed (re)connections since the last message received
        while True:
            with self._lock:
                if self._closed.is_set():
                    return
                generation = self._generation
                call = self._call = self._open_stream(self._resume_request())
            error: grpc.RpcError | None = None
            try:
                for message in call:
                    failures = 0
                    for event in message.events:
                        if generation != self._generation:
                            break  # reconnect() was asked for: drop the rest of this message
                        self._cursor = event.cursor
                        yield event
                    else:
                        self._cursor = message.cursor
                        yield None
                        continue
                    break
            except grpc.RpcError as broken:
                if self._closed.is_set():
                    return
                if broken.code() not in _RESUMABLE:
                    raise TasklifeError.from_rpc_error(broken) from broken
                error = broken
            finally:
                call.cancel()
                with self._lock:
                    self._call = None
            if self._closed.is_set():
                return
            if generation == self._generation:
                # The stream broke (or ended, which a watch never should): back off first.
                failures += 1
                if self._max_reconnect_attempts is not None and failures > self._max_reconnect_attempts:
                    raise self._gave_up(error, failures - 1) from error
                if self._closed.wait(self._backoff(failures)):
                    return
            self.reconnects += 1

    def _backoff(self, failures: int) -> float:
        delay = min(self._reconnect_delay * 2 ** (failures - 1), self._max_reconnect_delay)
        # Jitter, so that the watchers of a restarted server do not all return at once.
        return delay * random.uniform(0.5, 1.0)

    @staticmethod
    def _gave_up(error: grpc.RpcError | None, attempts: int) -> TasklifeError:
        if error is not None:
            return TasklifeError.from_rpc_error(error)
        return TasklifeError(
            grpc.StatusCode.UNAVAILABLE,
            f"the watch stream kept ending; gave up after {attempts} reconnection attempts",
        )

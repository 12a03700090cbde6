"""Per RPC: a request id (in the logs and sent back), the duration by status code, an access log line.

It must be placed before (outside) the error translation interceptor, so that it sees the
status the caller receives: after `context.abort(...)` the handler raises
`grpc.aio.AbortError` and `context.code()` holds the code (checked on grpcio 1.85).

What the access log needs from the call (its peer, its request id) is read when the call
starts: once a client has cancelled a stream, gRPC may already have freed the call, and
`context.peer()` in the stream's `finally` then crashed the process with a segmentation
fault (grpcio 1.85). Only `context.code()`, a plain attribute of the servicer context, is
read at the end.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc

from tasklife_server.observability import request_ids
from tasklife_server.observability.metrics import Metrics
from tasklife_server.service.convert import SERVICE_NAME
from tasklife_server.service.handlers import WrappedHandlers, rewrapped

access_log = logging.getLogger("tasklife.access")
WATCH_METHOD = f"/{SERVICE_NAME}/WatchTaskEvents"

# OK calls are logged at DEBUG (there are many), faults of the server at WARNING, and every
# other code, which is the caller's to act on, at INFO.
_SERVER_FAULTS = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNKNOWN, grpc.StatusCode.DATA_LOSS}


def access_level(code: grpc.StatusCode) -> int:
    if code is grpc.StatusCode.OK:
        return logging.DEBUG
    return logging.WARNING if code in _SERVER_FAULTS else logging.INFO


def final_code(context: grpc.aio.ServicerContext, error: BaseException | None) -> grpc.StatusCode:
    """The status the caller receives, from how the handler ended."""
    if error is None:
        return context.code() or grpc.StatusCode.OK  # None unless the handler set one
    if isinstance(error, grpc.aio.AbortError):
        return context.code() or grpc.StatusCode.UNKNOWN
    if isinstance(error, (asyncio.CancelledError, GeneratorExit)):
        return grpc.StatusCode.CANCELLED  # the caller went away
    return grpc.StatusCode.UNKNOWN  # what grpc sends for an exception nobody translated


@dataclass(frozen=True, slots=True)
class _Call:
    """What the access log says about a call, read from its context when it starts."""

    request_id: str
    peer: str


@dataclass(frozen=True, slots=True)
class _Method:
    path: str  # /tasklife.v1.TaskService/GetTask
    name: str  # GetTask, the `method` label
    watch: bool


class ObservabilityInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, metrics: Metrics | None):
        self._metrics = metrics
        self._handlers = WrappedHandlers(self._observed)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler  # UNIMPLEMENTED: unknown paths get no series of their own
        return self._handlers.of(handler_call_details.method, handler)

    def _observed(self, path: str, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        method = _Method(path, path.rsplit("/", 1)[-1], path == WATCH_METHOD)
        return rewrapped(
            handler,
            unary=lambda behavior: self._unary(behavior, method),
            stream=lambda behavior: self._stream(behavior, method),
        )

    def _unary(self, behavior: Callable[..., Awaitable[Any]], method: _Method) -> Callable[..., Awaitable[Any]]:
        async def observed(request: Any, context: grpc.aio.ServicerContext) -> Any:
            started = time.perf_counter()
            call = _begin(context)
            error: BaseException | None = None
            try:
                # In the trailers, which go out with the status anyway: headers would be a batch
                # of their own, about 0.1 ms of server CPU per unary call. An error's trailers
                # are set by the error interceptor, which adds the id back (service/errors.py).
                context.set_trailing_metadata(((request_ids.METADATA_KEY, call.request_id),))
                return await behavior(request, context)
            except BaseException as exc:
                error = exc
                raise
            finally:
                self._finish(method, call, final_code(context, error), started)

        return observed

    def _stream(self, behavior: Callable[..., AsyncIterator[Any]], method: _Method) -> Callable[..., AsyncIterator[Any]]:
        gauge = self._metrics.watch_streams_open if self._metrics is not None and method.watch else None

        async def observed(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            started = time.perf_counter()
            call = _begin(context)
            error: BaseException | None = None
            if gauge is not None:
                gauge.inc()
            try:
                await context.send_initial_metadata(((request_ids.METADATA_KEY, call.request_id),))
                async for response in behavior(request, context):
                    yield response
            except BaseException as exc:
                error = exc
                raise
            finally:
                try:
                    self._finish(method, call, final_code(context, error), started)
                finally:
                    if gauge is not None:  # after the duration: a closed watch is timed once uncounted
                        gauge.dec()

        return observed

    def _finish(self, method: _Method, call: _Call, code: grpc.StatusCode, started: float) -> None:
        seconds = time.perf_counter() - started
        if self._metrics is not None:
            self._metrics.rpc_finished(method.name, code, seconds)
        level = access_level(code)
        if access_log.isEnabledFor(level):
            milliseconds = round(seconds * 1000, 3)
            access_log.log(
                level,
                "%s %s in %.1f ms",
                method.path,
                code.name,
                milliseconds,
                extra={
                    "request_id": call.request_id,
                    "method": method.path,
                    "code": code.name,
                    "duration_ms": milliseconds,
                    "peer": call.peer,
                },
            )


def _begin(context: grpc.aio.ServicerContext) -> _Call:
    request_id = request_ids.from_metadata(context.invocation_metadata())
    request_ids.current.set(request_id)
    return _Call(request_id, context.peer())

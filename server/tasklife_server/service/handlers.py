"""Wrapping a gRPC method handler's behaviour: what every server interceptor here does."""

from __future__ import annotations

from typing import Any, Callable

import grpc

Behavior = Callable[..., Any]


_KEEP = object()


def rewrapped(
    handler: grpc.RpcMethodHandler,
    unary: Callable[[Behavior], Behavior],
    stream: Callable[[Behavior], Behavior],
    request_deserializer: Any = _KEEP,
) -> grpc.RpcMethodHandler:
    """`handler` with its behaviour wrapped by `unary` (one response) or `stream` (a stream of them).

    `request_deserializer` replaces the handler's (None: the behaviour receives the raw bytes).
    """
    for kind, wrap in (
        ("unary_unary", unary),
        ("stream_unary", unary),
        ("unary_stream", stream),
        ("stream_stream", stream),
    ):
        behavior = getattr(handler, kind)
        if behavior is not None:
            make = getattr(grpc, f"{kind}_rpc_method_handler")
            return make(
                wrap(behavior),
                request_deserializer=(
                    handler.request_deserializer if request_deserializer is _KEEP else request_deserializer
                ),
                response_serializer=handler.response_serializer,
            )
    return handler


class WrappedHandlers:
    """An interceptor's wrapped handler of each method, built once per method: the server hands
    an interceptor the same handler for a method on every call, and wrapping it anew would
    cost every call its closures."""

    def __init__(self, wrap: Callable[[str, grpc.RpcMethodHandler], grpc.RpcMethodHandler]):
        self._wrap = wrap
        self._wrapped: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    def of(self, method: str, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        known = self._wrapped.get(method)
        if known is not None and known[0] is handler:
            return known[1]
        wrapped = self._wrap(method, handler)
        self._wrapped[method] = (handler, wrapped)
        return wrapped

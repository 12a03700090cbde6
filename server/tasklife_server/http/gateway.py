"""The ASGI app of the HTTP listener: Connect and gRPC-Web calls become gRPC calls on the
private channel to this same server; every other GET is a file of the console.

Binary requests travel as they are (protobuf bytes in, bytes out: the channel has no
serializers); Connect JSON is converted with the generated messages. The gRPC status, with
the `grpc-status-details-bin` trailer, becomes Connect's error body or gRPC-Web's trailers.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from tasklife_server.http import connect, grpc_web
from tasklife_server.http.console_files import ConsoleFiles
from tasklife_server.http.cors import CorsPolicy
from tasklife_server.http.metadata import call_metadata, connect_timeout, grpc_timeout
from tasklife_server.http.methods import METHODS, Method
from tasklife_server.domain.errors import TasklifeError
from tasklife_server.http.status import Metadata, Outcome, from_rpc_error, outcome_of_refusal, plain_trailers, refusal

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
Headers = list[tuple[bytes, bytes]]

_IDENTITY = ("", "identity")


class ClientGone(Exception):
    """The HTTP client disconnected before its request was read."""


class Gateway:
    def __init__(
        self,
        channel: grpc.aio.Channel,
        console: ConsoleFiles,
        cors: CorsPolicy,
        max_message_bytes: int,
        allowed_host: Callable[[str], bool],
    ):
        self._channel = channel
        self._console = console
        self._cors = cors
        self._max_body = max_message_bytes + 5  # one envelope or frame header
        self._allowed_host = allowed_host
        self._unary = {m.path: channel.unary_unary(m.path) for m in METHODS.values() if not m.server_streaming}
        self._streams = {m.path: channel.unary_stream(m.path) for m in METHODS.values() if m.server_streaming}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if not self._allowed_host(headers.get("host", "")):
            # DNS rebinding: a page of another site, its name now resolving to 127.0.0.1.
            await _plain(send, 421, "this server answers only to a loopback host name such as 127.0.0.1 or localhost\n")
            return
        origin = headers.get("origin")
        cors = self._cors.response_headers(origin)
        method = METHODS.get(scope["path"])
        if scope["method"] == "OPTIONS":
            preflight = self._cors.preflight_headers(origin)
            await _plain(send, 204 if preflight is not None else 403, "", preflight or [])
        elif method is not None and scope["method"] == "POST":
            try:
                await self._rpc(method, scope, headers, cors, receive, send)
            except ClientGone:
                return
        elif method is not None:
            await _plain(send, 405, "RPCs are called with POST\n", [(b"allow", b"POST"), *cors])
        elif scope["method"] in ("GET", "HEAD"):
            await self._console.serve(scope["path"], scope["method"] == "HEAD", send)
        else:
            await _plain(send, 404, "not found\n", cors)

    async def _rpc(self, method: Method, scope: Scope, headers: dict[str, str], cors: Headers, receive: Receive, send: Send) -> None:
        content_type = headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if content_type in grpc_web.CONTENT_TYPES:
            respond: Callable[..., Awaitable[None]] = self._grpc_web
            timeout = grpc_timeout(headers)
            encoding = headers.get("grpc-encoding", "")
        elif content_type in connect.UNARY_TYPES and not method.server_streaming:
            respond, timeout = self._connect_unary, connect_timeout(headers)
            encoding = headers.get("content-encoding", "")
        elif content_type in connect.STREAM_TYPES and method.server_streaming:
            respond, timeout = self._connect_stream, connect_timeout(headers)
            encoding = headers.get("connect-content-encoding", "")
        else:
            await _plain(send, 415, f"{method.path} takes {_accepted_types(method)}\n", cors)
            return
        body = await _read_body(receive, self._max_body)
        call = _Call(method, content_type, call_metadata(scope["headers"]), timeout, body, cors, receive, send)
        if encoding.lower() not in _IDENTITY:
            await respond(call, refusal(grpc.StatusCode.UNIMPLEMENTED, f"compression {encoding!r} is not supported",
                                        "COMPRESSION_NOT_SUPPORTED"))
        elif body is None:
            too_big = f"the request is larger than the limit of {self._max_body - 5} bytes (--max-message-bytes)"
            await respond(call, refusal(grpc.StatusCode.RESOURCE_EXHAUSTED, too_big, "MESSAGE_TOO_LARGE"))
        else:
            await respond(call)

    async def _connect_unary(self, call: "_Call", refused: Outcome | None = None) -> None:
        codec = connect.UNARY_TYPES[call.content_type]
        headers: Headers = [*call.cors]
        outcome, payload = refused, b""
        if outcome is None:
            try:
                request = call.body if codec == "proto" else connect.message_from_json(call.body, call.method.request_type)
            except TasklifeError as exc:
                outcome = outcome_of_refusal(exc)
            else:
                outcome, leading, payload = await self._call_unary(call, request)
                headers += _headers(leading)
        headers += [(b"trailer-" + k, v) for k, v in _headers(outcome.trailers)]
        if outcome.ok:
            body = payload if codec == "proto" else connect.message_to_json(payload, call.method.response_type)
            await _respond(call.send, 200, call.content_type, headers, body)
        else:
            body = json.dumps(connect.error_body(outcome), separators=(",", ":")).encode()
            await _respond(call.send, connect.HTTP_STATUS[outcome.code], "application/json", headers, body)

    async def _connect_stream(self, call: "_Call", refused: Outcome | None = None) -> None:
        json_codec = connect.STREAM_TYPES[call.content_type] == "json"
        request = connect.single_envelope(call.body) if refused is None else None
        if refused is None and request is None:
            refused = refusal(grpc.StatusCode.INVALID_ARGUMENT, "a server-streaming request is one uncompressed envelope",
                              "MALFORMED_REQUEST")
        if refused is None and json_codec:
            try:
                request = connect.message_from_json(request or b"", call.method.request_type)
            except TasklifeError as exc:
                refused = outcome_of_refusal(exc)

        def encode(payload: bytes) -> bytes:
            if json_codec:
                payload = connect.message_to_json(payload, call.method.response_type)
            return connect.envelope(payload)

        await self._stream_response(call, request or b"", refused, encode, connect.end_of_stream)

    async def _grpc_web(self, call: "_Call", refused: Outcome | None = None) -> None:
        request = grpc_web.single_message(call.body) if refused is None else None
        if refused is None and request is None:
            refused = refusal(grpc.StatusCode.INVALID_ARGUMENT, "a gRPC-Web request is one uncompressed data frame",
                              "MALFORMED_REQUEST")
        await self._stream_response(call, request or b"", refused, grpc_web.frame, grpc_web.trailer_frame)

    async def _stream_response(
        self,
        call: "_Call",
        request: bytes,
        refused: Outcome | None,
        encode: Callable[[bytes], bytes],
        end: Callable[[Outcome], bytes],
    ) -> None:
        """Status 200, the messages as they come, then how the call ended (Connect streaming and
        gRPC-Web alike; a gRPC-Web unary call is a stream of one message)."""
        content_type = "application/grpc-web+proto" if call.content_type in grpc_web.CONTENT_TYPES else call.content_type
        if refused is not None:
            await _respond(call.send, 200, content_type, call.cors, end(refused))
            return
        if call.method.server_streaming:
            grpc_call = self._streams[call.method.path](request, metadata=call.metadata, timeout=call.timeout)
            messages: AsyncIterator[bytes] = grpc_call.__aiter__()
        else:
            grpc_call = self._unary[call.method.path](request, metadata=call.metadata, timeout=call.timeout)
            messages = _one(grpc_call)
        # The client may go away at any time, a watch's client above all: cancel the call then.
        watcher = asyncio.ensure_future(_cancel_on_disconnect(call.receive, grpc_call))
        try:
            try:
                leading = list(await grpc_call.initial_metadata() or ())
            except grpc.aio.AioRpcError:
                leading = []
            await call.send({"type": "http.response.start", "status": 200,
                             "headers": [(b"content-type", content_type.encode()), *_headers(leading), *call.cors]})
            try:
                async for payload in messages:
                    await call.send({"type": "http.response.body", "body": encode(payload), "more_body": True})
                outcome = Outcome(grpc.StatusCode.OK, trailers=plain_trailers(list(await grpc_call.trailing_metadata() or ())))
            except grpc.aio.AioRpcError as error:
                outcome = from_rpc_error(error)
            except asyncio.CancelledError:
                if not watcher.done():
                    raise  # the server is stopping, not the client leaving
                return
            await call.send({"type": "http.response.body", "body": end(outcome), "more_body": False})
        finally:
            watcher.cancel()

    async def _call_unary(self, call: "_Call", request: bytes) -> tuple[Outcome, Metadata, bytes]:
        grpc_call = self._unary[call.method.path](request, metadata=call.metadata, timeout=call.timeout)
        try:
            payload = await grpc_call
        except grpc.aio.AioRpcError as error:
            return from_rpc_error(error), list(error.initial_metadata() or ()), b""
        trailers = plain_trailers(list(await grpc_call.trailing_metadata() or ()))
        return Outcome(grpc.StatusCode.OK, trailers=trailers), list(await grpc_call.initial_metadata() or ()), payload


class _Call:
    """One HTTP request for an RPC, as read so far."""

    def __init__(self, method: Method, content_type: str, metadata: Metadata, timeout: float | None,
                 body: bytes | None, cors: Headers, receive: Receive, send: Send):
        self.method, self.content_type, self.metadata, self.timeout = method, content_type, metadata, timeout
        self.body = body or b""
        self.cors, self.receive, self.send = cors, receive, send


async def _one(grpc_call: Any) -> AsyncIterator[bytes]:
    yield await grpc_call


async def _cancel_on_disconnect(receive: Receive, grpc_call: Any) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    grpc_call.cancel()


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole request body; None when it is longer than `limit` bytes."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _headers(metadata: Metadata) -> Headers:
    return [(key.encode(), connect.header_value(value).encode()) for key, value in metadata]


def _accepted_types(method: Method) -> str:
    connect_types = connect.STREAM_TYPES if method.server_streaming else connect.UNARY_TYPES
    return ", ".join([*connect_types, *grpc_web.CONTENT_TYPES])


async def _respond(send: Send, status: int, content_type: str, headers: Headers, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode()), *headers]})
    await send({"type": "http.response.body", "body": body})


async def _plain(send: Send, status: int, text: str, headers: Headers = ()) -> None:  # type: ignore[assignment]
    await _respond(send, status, "text/plain; charset=utf-8", list(headers), text.encode())


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return

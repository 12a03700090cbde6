"""EventSinkService handlers: validate, call storage/sinks.py, convert. Delivery is sinks/."""

from __future__ import annotations

import base64
import binascii
import re
import secrets
import ssl
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import urlsplit

import grpc
from google.rpc import status_pb2
from tasklife.v1 import event_sink_service_pb2 as sink_pb2
from tasklife.v1 import event_sink_service_pb2_grpc as sink_grpc

from tasklife_server.domain import cursor
from tasklife_server.domain.access import Principal
from tasklife_server.domain.errors import SinkHostNotAllowed
from tasklife_server.domain.watch import ORIGIN, Position, WatchFilter
from tasklife_server.security.authenticator import Gate
from tasklife_server.service import pagination, validation
from tasklife_server.service.servicer import token_position
from tasklife_server.sinks.hosts import HostPolicy, HostRefused
from tasklife_server.sinks.kafka import SASL_MECHANISMS, split_server, ssl_context
from tasklife_server.sinks.webhook import header_problem
from tasklife_server.storage.sinks import NewSink, SinkChange, SinkRow, SinkStore
from tasklife_server.stream.hub import check_resumable

SERVICE_NAME = sink_pb2.DESCRIPTOR.services_by_name["EventSinkService"].full_name
DEFAULT_PAGE = 50
# from_beginning: the start of the stream, on no particular timeline.
ORIGIN_CURSOR = cursor.Cursor(*ORIGIN, 0)
SINK_ID_RULE = "must be 1 to 63 characters of lowercase letters, digits and '-', starting and ending with a letter or digit"
_SINK_ID = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")
_TOPIC = re.compile(r"[A-Za-z0-9._-]{1,249}")
SECRET_PREFIX = "whsec_"
MIN_SECRET_BYTES, MAX_SECRET_BYTES = 24, 64
MAX_BOOTSTRAP_SERVERS = 20
MAX_HEADERS = 20
MIN_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS = 0.1, 60.0
# Pending events and lag are counted among this many events after the cursor.
PENDING_SCAN = 10_000


def watch_filter(message: sink_pb2.EventSinkFilter) -> WatchFilter:
    """A stored (already validated) filter as the stream's filter."""
    problems = validation.Violations()
    parts = validation.event_filter_parts(message, problems)
    return parts.within(list(message.namespaces) or None)


def _check_sink_id(value: str, problems: validation.Violations) -> None:
    if not value:
        problems.add("sink_id", "is required")
    elif not _SINK_ID.fullmatch(value):
        problems.add("sink_id", SINK_ID_RULE)


def _filter(message: sink_pb2.EventSinkFilter, caller: Principal, problems: validation.Violations) -> sink_pb2.EventSinkFilter:
    """The filter as stored: checked, and with the caller's reach written in when it names no
    namespace and the caller does not reach every namespace. Raises every problem so far."""
    validation.event_filter_parts(message, problems, "filter.")
    reach = validation.namespace_filter(message.namespaces, caller, problems.under("filter."))
    stored = sink_pb2.EventSinkFilter()
    stored.CopyFrom(message)
    if reach is not None and not message.namespaces:
        stored.namespaces.extend(reach)
    return stored


def _webhook(target: sink_pb2.WebhookTarget, problems: validation.Violations) -> None:
    parts = urlsplit(target.url)
    if not target.url:
        problems.add("webhook.url", "is required")
    elif parts.scheme not in ("http", "https") or not parts.hostname:
        problems.add("webhook.url", "must be an http or https URL with a host")
    secret = target.secret.removeprefix(SECRET_PREFIX)
    if not target.secret:
        problems.add("webhook.secret", "is required")
    else:
        try:
            size = len(base64.b64decode(secret, validate=True))
        except (binascii.Error, ValueError):
            size = -1
        if not MIN_SECRET_BYTES <= size <= MAX_SECRET_BYTES:
            problems.add("webhook.secret",
                         f"must be {SECRET_PREFIX!r} and base64 of {MIN_SECRET_BYTES} to {MAX_SECRET_BYTES} random bytes")
    if len(target.headers) > MAX_HEADERS:
        problems.add("webhook.headers", f"must hold at most {MAX_HEADERS} headers")
    for name, value in target.headers.items():
        why = header_problem(name) or ("must not hold line breaks" if "\r" in value or "\n" in value else None)
        if why:
            problems.add(f"webhook.headers[{name[:64]}]", why)
    if target.HasField("timeout") and not validation.ill_formed(target.timeout, "webhook.timeout", problems):
        seconds = target.timeout.ToNanoseconds() / 1e9
        if not MIN_TIMEOUT_SECONDS <= seconds <= MAX_TIMEOUT_SECONDS:
            problems.add("webhook.timeout", "must be between 0.1 and 60 seconds")


def _kafka(target: sink_pb2.KafkaTarget, problems: validation.Violations) -> None:
    if not target.bootstrap_servers:
        problems.add("kafka.bootstrap_servers", "must name at least one broker")
    if len(target.bootstrap_servers) > MAX_BOOTSTRAP_SERVERS:
        problems.add("kafka.bootstrap_servers", f"must name at most {MAX_BOOTSTRAP_SERVERS} brokers")
    for index, server in enumerate(target.bootstrap_servers[:MAX_BOOTSTRAP_SERVERS]):
        if split_server(server) is None:
            problems.add(f"kafka.bootstrap_servers[{index}]", "must be host:port")
    if not _TOPIC.fullmatch(target.topic):
        problems.add("kafka.topic", "must be 1 to 249 characters of letters, digits, '.', '_' and '-'")
    sasl = target.sasl
    if sasl.mechanism != sink_pb2.KAFKA_SASL_MECHANISM_UNSPECIFIED:
        if sasl.mechanism not in SASL_MECHANISMS:
            problems.add("kafka.sasl.mechanism", "is not a KafkaSaslMechanism")
        if not sasl.username:
            problems.add("kafka.sasl.username", "is required with a mechanism")
    elif sasl.username or sasl.password:
        problems.add("kafka.sasl.mechanism", "is required with a username or password")
    tls = target.tls
    if (tls.ca_pem or tls.client_cert_pem or tls.client_key_pem) and not tls.enabled:
        problems.add("kafka.tls.enabled", "must be true when certificates are given")
    if bool(tls.client_cert_pem) != bool(tls.client_key_pem):
        problems.add("kafka.tls.client_key_pem", "goes with client_cert_pem: both or neither")
    elif tls.enabled:
        try:
            ssl_context(tls)
        except (ssl.SSLError, ValueError, OSError):
            problems.add("kafka.tls", "the certificates or the key cannot be loaded (PEM expected)")


def _target(request: Any, problems: validation.Violations, *, required: bool) -> tuple[str, bytes] | None:
    which = request.WhichOneof("target")
    if which is None:
        if required:
            problems.add("target", "is required: a webhook or a kafka target")
        return None
    if which == "webhook":
        _webhook(request.webhook, problems)
    else:
        _kafka(request.kafka, problems)
    return which, getattr(request, which).SerializeToString(deterministic=True)


async def _check_hosts(request: Any, policy: HostPolicy) -> None:
    """Raises SinkHostNotAllowed for a target host the policy refuses (checked again at every
    connection: a name may resolve elsewhere later)."""
    which = request.WhichOneof("target")
    if which == "webhook":
        hosts = [("webhook.url", urlsplit(request.webhook.url).hostname or "", 0)]
    elif which == "kafka":
        hosts = [(f"kafka.bootstrap_servers[{i}]", *(split_server(s) or (s, 0)))
                 for i, s in enumerate(request.kafka.bootstrap_servers)]
    else:
        return
    for field, host, port in hosts:
        try:
            await policy.check_host(host, port)
        except HostRefused as refused:
            raise SinkHostNotAllowed(field, host, refused.why) from refused


def _start(request: Any, problems: validation.Violations, *, required: bool) -> cursor.Cursor | None:
    """The requested start: a cursor, ORIGIN_CURSOR from the beginning, None for "now"."""
    which = request.WhichOneof("start")
    if which == "after_cursor":
        try:
            return cursor.decode(request.after_cursor)
        except ValueError:
            problems.add("after_cursor", "is not a cursor issued by this service")
    elif which == "from_beginning" and request.from_beginning:
        return ORIGIN_CURSOR
    elif required:
        problems.add("start", "is required: after_cursor, or from_beginning = true")
    return None


# What a caller who may not change sinks sees in place of each webhook header's value: a
# header often carries the receiver's credential (Authorization), which a viewer must not read.
HIDDEN_HEADER_VALUE = "(hidden)"


def _without_secrets(kind: str, target: bytes, header_values: bool) -> Any:
    if kind == "webhook":
        webhook = sink_pb2.WebhookTarget.FromString(target)
        webhook.ClearField("secret")
        if not header_values:
            for name in webhook.headers:
                webhook.headers[name] = HIDDEN_HEADER_VALUE
        return webhook
    kafka = sink_pb2.KafkaTarget.FromString(target)
    kafka.tls.ClearField("client_key_pem")
    kafka.sasl.ClearField("password")
    return kafka


class EventSinkServicer(sink_grpc.EventSinkServiceServicer):
    def __init__(self, sinks: SinkStore, gate: Gate, policy: HostPolicy):
        self._sinks = sinks
        self._gate = gate
        self._policy = policy

    @property
    def _store(self) -> Any:
        return self._sinks.store

    async def CreateEventSink(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "CreateEventSink")
        problems = validation.Violations()
        if request.sink_id:
            _check_sink_id(request.sink_id, problems)
        target = _target(request, problems, required=True)
        start = _start(request, problems, required=False)
        stored_filter = _filter(request.filter, caller, problems)
        problems.raise_if_any()
        assert target is not None
        await _check_hosts(request, self._policy)
        position, accepted = await self._position(start, request.after_cursor)
        row = await self._sinks.create(NewSink(
            sink_id=request.sink_id or f"sink-{secrets.token_hex(6)}",
            filter=stored_filter.SerializeToString(deterministic=True),
            namespaces=list(stored_filter.namespaces) or None,
            target_kind=target[0], target=target[1], paused=request.paused, cursor=position, accepted=accepted,
        ))
        return sink_pb2.CreateEventSinkResponse(sink=await self._sink_pb(row, caller))

    async def _position(self, start: cursor.Cursor | None, cursor_text: str) -> tuple[Position, Position]:
        """The position to start after, and what retention had dropped before it was checked.
        A cursor from history a failover lost, or past retention, is refused as a watch's is."""
        accepted = await self._store.dropped_position()
        if start is None:
            head, _timeline = await self._store.stream_head()
            return head, accepted
        if start.position != ORIGIN:
            await check_resumable(self._store, start.position, start.timeline, cursor_text)
        return start.position, accepted

    async def GetEventSink(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "GetEventSink")
        self._require_id(request.sink_id)
        return sink_pb2.GetEventSinkResponse(sink=await self._sink_pb(await self._sinks.get(request.sink_id, caller.reach), caller))

    async def ListEventSinks(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "ListEventSinks")
        problems = validation.Violations()
        limit = validation.page_size(request.page_size, DEFAULT_PAGE, problems)
        problems.raise_if_any()
        filters = pagination.fingerprint("event_sinks", caller.reach)
        after = token_position(request.page_token, filters, _sink_position)
        rows = await self._sinks.list(after, limit + 1, caller.reach)
        next_token = ""
        if len(rows) > limit:
            last = rows[limit - 1]
            next_token = pagination.encode(filters, [last.created_at.isoformat(), last.sink_id])
        return sink_pb2.ListEventSinksResponse(
            sinks=[await self._sink_pb(row, caller) for row in rows[:limit]], next_page_token=next_token
        )

    async def UpdateEventSink(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "UpdateEventSink")
        problems = validation.Violations()
        _check_sink_id(request.sink_id, problems)
        target = _target(request, problems, required=False)
        stored_filter = _filter(request.filter, caller, problems) if request.HasField("filter") else None
        problems.raise_if_any()
        await _check_hosts(request, self._policy)
        row = await self._sinks.update(request.sink_id, caller.reach, SinkChange(
            filter=stored_filter.SerializeToString(deterministic=True) if stored_filter is not None else None,
            namespaces=(list(stored_filter.namespaces) or None) if stored_filter is not None else None,
            target_kind=target[0] if target else None, target=target[1] if target else None,
            paused=request.paused if request.HasField("paused") else None,
        ))
        return sink_pb2.UpdateEventSinkResponse(sink=await self._sink_pb(row, caller))

    async def DeleteEventSink(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "DeleteEventSink")
        self._require_id(request.sink_id)
        await self._sinks.delete(request.sink_id, caller.reach)
        return sink_pb2.DeleteEventSinkResponse()

    async def RewindEventSink(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "RewindEventSink")
        problems = validation.Violations()
        _check_sink_id(request.sink_id, problems)
        start = _start(request, problems, required=True)
        problems.raise_if_any()
        await self._sinks.get(request.sink_id, caller.reach)  # NOT_FOUND before OUT_OF_RANGE
        position, accepted = await self._position(start, request.after_cursor)
        row = await self._sinks.rewind(request.sink_id, caller.reach, position, accepted)
        return sink_pb2.RewindEventSinkResponse(sink=await self._sink_pb(row, caller))

    @staticmethod
    def _require_id(sink_id: str) -> None:
        problems = validation.Violations()
        _check_sink_id(sink_id, problems)
        problems.raise_if_any()

    async def _sink_pb(self, row: SinkRow, caller: Principal) -> sink_pb2.EventSink:
        sink = sink_pb2.EventSink(
            sink_id=row.sink_id,
            filter=sink_pb2.EventSinkFilter.FromString(row.filter),
            delivered_cursor=cursor.encode(*row.cursor) if row.cursor != ORIGIN else "",
            delivered_events=row.delivered_events,
        )
        header_values = caller.may_call("UpdateEventSink")  # who may change the sink may read it whole
        getattr(sink, row.target_kind).CopyFrom(_without_secrets(row.target_kind, row.target, header_values))
        if row.paused:
            sink.state = sink_pb2.EVENT_SINK_STATE_PAUSED
        elif row.last_error is not None:
            sink.state = sink_pb2.EVENT_SINK_STATE_FAILING
        else:
            sink.state = sink_pb2.EVENT_SINK_STATE_ACTIVE
        if row.last_error is not None:
            sink.last_error.CopyFrom(status_pb2.Status.FromString(row.last_error))
        if row.last_delivery_at is not None:
            sink.last_delivery_time.FromDatetime(row.last_delivery_at)
        sink.create_time.FromDatetime(row.created_at)
        pending, oldest = await self._pending(row)
        sink.pending_events = pending
        if oldest is not None:
            sink.lag.FromTimedelta(max(timedelta(0), datetime.now(timezone.utc) - oldest))
        else:
            sink.lag.FromTimedelta(timedelta(0))
        return sink

    async def _pending(self, row: SinkRow) -> tuple[int, datetime | None]:
        """Matching events after the cursor among the next PENDING_SCAN, and the oldest one's time."""
        rows, _blocked = await self._store.stream_batch(row.cursor, PENDING_SCAN)
        matcher = watch_filter(sink_pb2.EventSinkFilter.FromString(row.filter))
        matching = [event for event, labels in rows if matcher.matches(event, labels)]
        return len(matching), (matching[0].created_at if matching else None)


def _sink_position(position: list[Any]) -> tuple[datetime, str]:
    created_at, sink_id = position
    if not isinstance(created_at, str) or not isinstance(sink_id, str):
        raise ValueError("is malformed")
    return datetime.fromisoformat(created_at), sink_id

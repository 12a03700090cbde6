"""Webhook target: one signed HTTP POST per event, a structured-mode CloudEvent.

Signed as Standard Webhooks specifies, with its reference library: `webhook-id` (the
CloudEvent id, the same on every retry), `webhook-timestamp`, `webhook-signature`
(`v1,<base64 HMAC-SHA256 of id.timestamp.body>`). A 2xx answer acknowledges the event.
Each task's events go one after the other, in version order; different tasks' events go
concurrently (up to CONCURRENCY requests at once). Every address the client connects to is
checked against --sink-allowed-hosts (sinks/hosts.py), so a name that resolves to an
internal address later is refused too.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from datetime import datetime, timezone
from typing import Mapping
from urllib.parse import urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver
from standardwebhooks.webhooks import Webhook

from tasklife_server.sinks import cloudevents
from tasklife_server.sinks.delivery import DeliveryFailed, Outgoing
from tasklife_server.sinks.hosts import HostPolicy, HostRefused

CONCURRENCY = 32
# Headers the sink sets itself; a target's own headers may not replace them.
RESERVED_HEADERS = frozenset({"webhook-id", "webhook-timestamp", "webhook-signature", "content-type",
                              "content-length", "host"})


class CheckingResolver(AbstractResolver):
    """Resolves as usual, then refuses any address the host policy does not allow."""

    def __init__(self, policy: HostPolicy):
        self._policy = policy
        self._resolver = DefaultResolver()

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
        results = await self._resolver.resolve(host, port, family)
        try:
            for result in results:
                self._policy.check_address(host, result["host"])
        except HostRefused as refused:
            raise OSError(str(refused)) from refused
        return results

    async def close(self) -> None:
        await self._resolver.close()


class WebhookTarget:
    def __init__(self, url: str, secret: str, headers: Mapping[str, str], timeout_seconds: float, policy: HostPolicy):
        self._url = url
        self._host = urlsplit(url).hostname or ""
        self._signer = Webhook(secret)
        self._headers = dict(headers)
        self._timeout = aiohttp.ClientTimeout(total=timeout_seconds)
        self._policy = policy
        self._session: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = aiohttp.TCPConnector(resolver=CheckingResolver(self._policy), limit=CONCURRENCY)
            self._session = aiohttp.ClientSession(connector=connector, timeout=self._timeout)
        return self._session

    async def deliver(self, batch: list[Outgoing]) -> None:
        await self._check_literal_host()
        by_task: dict[str, list[Outgoing]] = {}
        for item in batch:
            by_task.setdefault(item.event.task_id, []).append(item)
        slots = asyncio.Semaphore(CONCURRENCY)
        acknowledged: set[str] = set()
        outcomes = await asyncio.gather(
            *(self._post_in_order(events, slots, acknowledged) for events in by_task.values()), return_exceptions=True
        )
        failures = [o for o in outcomes if isinstance(o, BaseException)]
        if failures:
            first = failures[0]
            if not isinstance(first, DeliveryFailed):
                raise first
            first.acknowledged = acknowledged
            raise first

    async def _check_literal_host(self) -> None:
        """aiohttp connects to an address given in the URL without the resolver: checked here."""
        try:
            ipaddress.ip_address(self._host)
        except ValueError:
            return
        try:
            self._policy.check_address(self._host, self._host)
        except HostRefused as refused:
            raise DeliveryFailed("SINK_HOST_NOT_ALLOWED", str(refused), host=self._host) from refused

    async def _post_in_order(self, events: list[Outgoing], slots: asyncio.Semaphore, acknowledged: set[str]) -> None:
        """One task's events, one after the other: a failure stops the rest of them."""
        for item in events:
            async with slots:
                await self._post(item)
            acknowledged.add(cloudevents.event_id(item.event))

    async def _post(self, item: Outgoing) -> None:
        body = cloudevents.structured(item.event, item.rendered)
        message_id = cloudevents.event_id(item.event)
        now = datetime.now(timezone.utc)
        headers = {
            **self._headers,
            "content-type": cloudevents.STRUCTURED_CONTENT_TYPE,
            "webhook-id": message_id,
            "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": self._signer.sign(message_id, now, body),
        }
        try:
            async with self._client().post(self._url, data=body, headers=headers, allow_redirects=False) as response:
                await response.read()
                if not 200 <= response.status < 300:
                    raise DeliveryFailed("SINK_TARGET_REFUSED", f"the webhook answered HTTP {response.status}",
                                         http_status=str(response.status))
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError) as exc:
            raise DeliveryFailed("SINK_TARGET_UNREACHABLE", f"the webhook could not be reached: {_describe(exc)}") from exc

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def _describe(exc: BaseException) -> str:
    if isinstance(exc, asyncio.TimeoutError):
        return "no answer within the timeout"
    return str(exc) or type(exc).__name__


def header_problem(name: str) -> str | None:
    """Why a target's extra header is refused, or None."""
    if name.lower() in RESERVED_HEADERS:
        return "is set by the sink itself"
    if not name or any(c in name for c in " :\r\n\t"):
        return "is not a valid header name"
    return None

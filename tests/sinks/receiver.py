"""A real HTTP receiver for webhook sinks: an aiohttp server on a loopback port, in a thread of
its own, that verifies every request's Standard Webhooks signature with the reference
library and records what it got. Tests make it answer with an error, hold requests
unanswered, or stop listening."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

SECRET = "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"  # base64 of 24 bytes


@dataclass
class Received:
    body: bytes
    headers: dict[str, str]
    cloudevent: dict[str, Any]
    at: float  # time.monotonic() on arrival
    wall: float = field(default_factory=time.time)  # the wall clock on arrival (for latency)


@dataclass
class WebhookReceiver:
    secret: str = SECRET
    received: list[Received] = field(default_factory=list)
    bad_signatures: int = 0
    answer_status: int = 204
    held: bool = False  # requests wait unanswered while set
    waiting: int = 0  # requests held unanswered now
    port: int = 0

    def __post_init__(self) -> None:
        self._verifier = Webhook(self.secret)
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None
        self._release = asyncio.Event()
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._call(self._start())

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    def _call(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=30)

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_post("/hooks", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.1)
        await self._runner.setup()
        await self._listen()

    async def _listen(self) -> None:
        assert self._runner is not None
        self._site = web.TCPSite(self._runner, "127.0.0.1", self.port, reuse_address=True)
        await self._site.start()

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        headers = {k.lower(): v for k, v in request.headers.items()}
        try:
            self._verifier.verify(body, headers)
        except WebhookVerificationError:
            with self._lock:
                self.bad_signatures += 1
            return web.Response(status=401)
        if self.held:
            self.waiting += 1
            while self.held:
                await asyncio.sleep(0.05)
            self.waiting -= 1
        if not 200 <= self.answer_status < 300:
            return web.Response(status=self.answer_status)
        with self._lock:
            self.received.append(Received(body, headers, json.loads(body), time.monotonic()))
        return web.Response(status=self.answer_status)

    def down(self) -> None:
        """Stops listening and closes every open connection: new ones are refused."""
        self._call(self._stop())

    async def _stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = self._site = None

    def up(self) -> None:
        self._call(self._start())

    def events(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r.cloudevent for r in self.received]

    def ids(self) -> list[str]:
        return [e["id"] for e in self.events()]

    def close(self) -> None:
        self.held = False
        if self._runner is not None:
            self._call(self._runner.cleanup())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()

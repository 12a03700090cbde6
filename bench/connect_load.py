"""The same calls as bench/load.py's `read` and `transition` modes, over Connect JSON: each
worker keeps one HTTP/1.1 keep-alive connection to the server's HTTP listener, as a browser
or curl user would. A hand-written client (asyncio streams, Content-Length bodies), so that
what is measured is the server's HTTP path, not an HTTP library's overhead."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any
from urllib.parse import urlsplit

from bench.load import Call, Window, _cpu, closed_loop

PATH = "/tasklife.v1.TaskService/"


class ConnectError(Exception):
    pass


class Connection:
    """One keep-alive HTTP/1.1 connection making Connect JSON unary calls, one at a time."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str):
        self._reader, self._writer, self._host = reader, writer, host

    @classmethod
    async def open(cls, url: str) -> "Connection":
        parts = urlsplit(url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        return cls(reader, writer, parts.netloc)

    async def call(self, method: str, request: dict[str, Any]) -> dict[str, Any]:
        body = json.dumps(request).encode()
        self._writer.write(
            f"POST {PATH}{method} HTTP/1.1\r\nHost: {self._host}\r\nContent-Type: application/json\r\n"
            f"Connect-Protocol-Version: 1\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        status_line = await self._reader.readline()
        length = 0
        while (line := await self._reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        reply = json.loads(await self._reader.readexactly(length)) if length else {}
        if b" 200" not in status_line:
            raise ConnectError(f"{reply.get('code')}: {reply.get('message')}")
        return reply

    async def close(self) -> None:
        self._writer.close()
        try:
            await self._writer.wait_closed()
        except ConnectionError:
            pass  # the server may close its side first; the run is over either way


class ConnectBouncer:
    """bench.load.Bouncer over Connect JSON: PauseTask/ResumeTask with expected_version."""

    def __init__(self, connection: Connection, task_ids: list[str], version: int):
        self.connection = connection
        self.tasks = [[task_id, version, False] for task_id in task_ids]
        self.next = 0

    async def __call__(self) -> None:
        task = self.tasks[self.next]
        self.next = (self.next + 1) % len(self.tasks)
        task_id, version, paused = task
        method = "ResumeTask" if paused else "PauseTask"
        reply = await self.connection.call(method, {"taskId": task_id, "expectedVersion": str(version), "operator": "bench"})
        task[1], task[2] = int(reply["task"]["version"]), not paused


async def run(spec: dict[str, Any]) -> dict[str, Any]:
    workers = spec["concurrency"]
    connections = [await Connection.open(spec["target"]) for _ in range(workers)]
    calls: list[Call] = []
    if spec["mode"] == "connect_transition":
        ids: list[str] = spec["task_ids"]
        calls = [ConnectBouncer(connections[w], ids[w::workers], spec["version"]) for w in range(workers)]
    else:
        id_format, n = spec["id_format"], spec["n"]
        rng = random.Random(spec.get("seed", 1))
        for connection in connections:

            async def call(connection: Connection = connection) -> None:
                await connection.call("GetTask", {"taskId": id_format % rng.randrange(n)})

            calls.append(call)
    window = Window(spec["warmup"], spec["duration"])
    await closed_loop(calls, window)
    result = window.result(_cpu())
    result["concurrency"] = workers
    for connection in connections:
        await connection.close()
    return result

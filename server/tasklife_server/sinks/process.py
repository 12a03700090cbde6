"""Sink delivery in a child process of the server, so that its Python work (reading the
stream, rendering, encoding, producing) does not take the server's GIL from request handling.

Measured under an unpaced 64-caller transition load on 2 cores (bench/sinks.py), the
server's event loop is the writers' bottleneck while the machine still has about a sixth of
its CPU idle: every millisecond a sink spends on that loop is a millisecond of writers lost.
In a process of its own the sink uses the idle CPU instead.

The server starts the child (SinkProcess) with its own arguments; the child runs a
SinkRunner on a small pool of its own, under the server's pid in its lease owner (the pid
still tells an operator which replica delivers). The child's stdin is a pipe from the
server, which nothing writes to: its end (the server stopped, or died, even by SIGKILL)
makes the child stop as the server's graceful stop would (leases released at once). The
child's stdout carries its metric updates, one JSON array a line, which the server applies
to its own metrics. A child that exits by itself is started again after RESTART_SECONDS;
meanwhile its leases expire (LEASE_SECONDS) and any replica takes its sinks over.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
from typing import Any, Sequence

from tasklife_server.cancellation import cancel_and_wait

log = logging.getLogger(__name__)

# The child's pool: lease rounds, catch-up reads and cursor updates (the head reads have a
# connection of their own).
POOL_SIZE = 3
POOL_NAME = "tasklife sink process"
RESTART_SECONDS = 1.0
# The child's CPU priority below the server's (os.nice): on cores the writers keep busy,
# delivery takes what request handling leaves and catches up as soon as they ease off (a
# lower priority costs nothing on a free core: at half the capacity, with cores to spare,
# commit-to-Kafka p99 stayed within the range measured without it).
NICENESS = 10
STOP_WAIT_SECONDS = 10.0
DATABASE_URL_ENV = "TASKLIFE_SINK_PROCESS_DATABASE_URL"
SERVER_PID_ENV = "TASKLIFE_SINK_PROCESS_SERVER_PID"


class SinkProcess:
    """The server's side: starts the child, applies its metric lines, stops it."""

    def __init__(self, argv: Sequence[str], database_url: str, metrics: Any = None):
        self._argv = list(argv)
        self._database_url = database_url
        self._metrics = metrics
        self._process: asyncio.subprocess.Process | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._keep_running(), name="tasklife-sink-process")

    async def _keep_running(self) -> None:
        while not self._stopping:
            try:
                self._process = await self._spawn()
                await self._follow(self._process)
                code = await self._process.wait()
            except OSError as exc:
                log.error("the sink delivery process could not start: %s", exc)
                code = None
            if not self._stopping:
                log.warning("the sink delivery process ended (exit code %s); starting it again", code)
                await asyncio.sleep(RESTART_SECONDS)

    async def _spawn(self) -> asyncio.subprocess.Process:
        env = {**os.environ, DATABASE_URL_ENV: self._database_url, SERVER_PID_ENV: str(os.getpid())}
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tasklife_server.sinks.process", *self._argv,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env,
        )

    async def _follow(self, process: asyncio.subprocess.Process) -> None:
        """Applies the child's metric lines until its stdout ends."""
        assert process.stdout is not None
        async for line in process.stdout:
            if self._metrics is not None:
                apply_metric(self._metrics, line)

    async def stop(self) -> None:
        """Closes the child's stdin (it releases its leases and exits); kills it if it does not
        exit in time."""
        self._stopping = True
        process, self._process = self._process, None
        if process is not None and process.returncode is None:
            if process.stdin is not None:
                process.stdin.close()
            try:
                await asyncio.wait_for(process.wait(), STOP_WAIT_SECONDS)
            except asyncio.TimeoutError:
                log.warning("the sink delivery process did not stop within %ss: killed", STOP_WAIT_SECONDS)
                process.kill()
                await process.wait()
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None


# The SinkRunner's metric calls, by name: what the child may ask the server's metrics to do.
METRIC_CALLS = frozenset({"sink_delivered", "sink_failed", "sink_lag"})


def apply_metric(metrics: Any, line: bytes) -> None:
    try:
        name, *args = json.loads(line)
    except ValueError:
        log.warning("the sink delivery process wrote a line that is not a metric: %r", line[:200])
        return
    if name in METRIC_CALLS:
        getattr(metrics, name)(*args)


class MetricLines:
    """The child's side of the metrics: each call a JSON line on stdout."""

    def __init__(self, out: Any):
        self._out = out

    def __getattr__(self, name: str) -> Any:
        if name not in METRIC_CALLS:
            raise AttributeError(name)
        return lambda *args: self._write([name, *args])

    def _write(self, call: list[Any]) -> None:
        try:
            self._out.write(json.dumps(call).encode() + b"\n")
            self._out.flush()
        except BrokenPipeError:
            pass  # the server is gone: stdin ends too, and the child stops


async def _deliver_until_stdin_ends(argv: Sequence[str]) -> None:
    from tasklife_server import config
    from tasklife_server.gc_tuning import tune_garbage_collection
    from tasklife_server.sinks.hosts import HostPolicy
    from tasklife_server.sinks.runner import SinkRunner, owner_name
    from tasklife_server.storage.sinks import SinkStore
    from tasklife_server.storage.store import TaskStore

    settings = config.parse(argv)
    store = await TaskStore.open(os.environ[DATABASE_URL_ENV], settings.policies, min_size=1, max_size=POOL_SIZE,
                                 application_name=POOL_NAME)
    runner = SinkRunner(SinkStore(store), HostPolicy.parse(settings.sink_allowed_hosts),
                        MetricLines(sys.stdout.buffer), owner=owner_name(int(os.environ[SERVER_PID_ENV])))
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    # SIGTERM/SIGINT reach the child too (a Ctrl-C goes to the whole process group): the
    # server closes stdin when it stops, which is the one signal the child acts on.
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: None)
    tune_garbage_collection()  # what lives as long as the process exists by now
    try:
        runner.start()
        while await reader.read(4096):
            pass
    finally:
        await runner.stop()
        await store.close()


def main(argv: Sequence[str] | None = None) -> int:
    from tasklife_server import config
    from tasklife_server.observability import logs

    os.nice(NICENESS)
    args = list(sys.argv[1:] if argv is None else argv)
    settings = config.parse(args)
    logs.configure(settings.observability.log_format, settings.log_level)
    asyncio.run(_deliver_until_stdin_ends(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The load generator and the stream subscribers: a separate process talking gRPC (grpc.aio)
to a Tasklife server, started as `python -m bench.load '<json spec>'`.

It prints one JSON line with its result (and, for subscribers, one line when every stream
is open). Modes:
  empty       an RPC the server answers from memory (GetStateMachine, or grpc.health Check)
  transition  each worker bounces its own tasks READY <-> PAUSED with PauseTask/ResumeTask,
              passing expected_version (a real compare-and-swap that always succeeds);
              closed loop, or paced to `rate` transitions/s in total
  lifecycle   each worker runs CreateTask, EnqueueTask, StartTask, CompleteTask in a loop
  batch_transition
              each worker bounces its own `batch` tasks READY <-> PAUSED with one
              BatchTransitionTasks call of `batch` PauseTask/ResumeTask items (expected_version)
  worker_lifecycle
              each worker, in a namespace of its own, runs `batch` lifecycles the way a worker
              runtime does: BatchCreateTasks, BatchTransitionTasks (EnqueueTask), ClaimTasks,
              BatchTransitionTasks (CompleteTask); one operation = `batch` lifecycles. With
              `payload_bytes`, each task gets an input of that size (checked in the claim's
              answer) and a result of that size
  read        GetTask or ListTaskEvents on random tasks named by `id_format` % n
  connect_read, connect_transition
              GetTask and the transition bounce over Connect JSON (bench/connect_load.py)
  subscribe   opens `subscribers` WatchTaskEvents streams (subscriber k filters label
              tenant=t<k % tenants>), waits for "stop" on stdin, and reports the latency from
              each event's create_time (the database clock at the transition) to its arrival

A closed-loop run lasts warmup + duration seconds; only calls that end inside the final
`duration` seconds count, and latencies are per call (per lifecycle for `lifecycle`).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import resource
import sys
import time
from typing import Any, Awaitable, Callable, Iterator

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tasklife.v1 import task_pb2
from tasklife.v1 import task_service_pb2 as pb
from tasklife.v1 import task_service_pb2_grpc

from bench.stats import percentiles

Call = Callable[[], Awaitable[None]]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def open_channels(target: str, count: int) -> list[grpc.aio.Channel]:
    # A local subchannel pool gives each channel its own TCP connection.
    options = [("grpc.use_local_subchannel_pool", 1), ("grpc.max_receive_message_length", 64 << 20)]
    return [grpc.aio.insecure_channel(target, options=options) for _ in range(count)]


class Window:
    """Collects the latencies of calls that end inside [start, end)."""

    def __init__(self, warmup: float, duration: float):
        now = time.perf_counter()
        self.start = now + warmup
        self.end = self.start + duration
        self.latencies: list[float] = []
        self.total = 0
        self.errors = 0
        self.error_sample = ""
        self.cpu_start: float | None = None
        self.wall_start: float | None = None

    def running(self) -> bool:
        return time.perf_counter() < self.end

    def record(self, began: float, ended: float) -> None:
        self.total += 1
        if self.start <= ended < self.end:
            self.latencies.append(ended - began)

    def result(self, cpu_end: float) -> dict[str, Any]:
        ops = len(self.latencies)
        duration = self.end - self.start
        return {
            "rate": ops / duration,
            "count": ops,
            "seconds": duration,
            "total_ops": self.total,
            "errors": self.errors,
            "error_sample": self.error_sample,
            **percentiles(self.latencies),
            "loadgen_cpu_us_per_op": (1e6 * (cpu_end - self.cpu_start) / ops) if ops and self.cpu_start else None,
            "wall_start": self.wall_start,
            "wall_end": (self.wall_start or 0) + duration,
        }


async def _arm_cpu(window: Window) -> None:
    await asyncio.sleep(max(0.0, window.start - time.perf_counter()))
    window.cpu_start = _cpu()
    window.wall_start = time.time()


async def closed_loop(make_calls: list[Call], window: Window, interval: float | None = None) -> None:
    """One worker per call factory, each calling back to back (or every `interval` s)."""

    async def worker(call: Call, index: int) -> None:
        next_at = time.perf_counter() + (interval or 0) * index / max(1, len(make_calls))
        while window.running():
            if interval:
                delay = next_at - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                next_at += interval
            began = time.perf_counter()
            try:
                await call()
            except grpc.aio.AioRpcError as exc:
                window.errors += 1
                window.error_sample = window.error_sample or f"{exc.code().name}: {exc.details()}"
                await asyncio.sleep(0.01)
                continue
            except Exception as exc:  # noqa: BLE001 - a Connect call's or a batch item's refusal
                window.errors += 1
                window.error_sample = window.error_sample or str(exc)
                await asyncio.sleep(0.01)
                continue
            window.record(began, time.perf_counter())

    await asyncio.gather(_arm_cpu(window), *(worker(c, i) for i, c in enumerate(make_calls)))


# ---- modes -------------------------------------------------------------------------------------


async def run_empty(spec: dict[str, Any]) -> dict[str, Any]:
    channels = open_channels(spec["target"], spec["channels"])
    calls: list[Call] = []
    for i in range(spec["concurrency"]):
        channel = channels[i % len(channels)]
        if spec.get("method", "GetStateMachine") == "HealthCheck":
            health = health_pb2_grpc.HealthStub(channel)
            request = health_pb2.HealthCheckRequest(service="")

            async def call(health=health, request=request) -> None:
                await health.Check(request)
        else:
            stub = task_service_pb2_grpc.TaskServiceStub(channel)
            request = pb.GetStateMachineRequest()

            async def call(stub=stub, request=request) -> None:
                await stub.GetStateMachine(request)

        calls.append(call)
    return await _run(calls, spec, channels)


class Bouncer:
    """One worker's tasks, moved READY -> PAUSED -> READY in turn, one CAS at a time."""

    def __init__(self, stub: task_service_pb2_grpc.TaskServiceStub, task_ids: list[str], version: int):
        self.stub = stub
        self.tasks = [[task_id, version, False] for task_id in task_ids]  # id, version, paused
        self.next = 0

    async def __call__(self) -> None:
        task = self.tasks[self.next]
        self.next = (self.next + 1) % len(self.tasks)
        task_id, version, paused = task
        if paused:
            response = await self.stub.ResumeTask(pb.ResumeTaskRequest(task_id=task_id, expected_version=version,
                                                                       operator="bench"))
        else:
            response = await self.stub.PauseTask(pb.PauseTaskRequest(task_id=task_id, expected_version=version,
                                                                     operator="bench"))
        task[1], task[2] = response.task.version, not paused


async def run_transition(spec: dict[str, Any]) -> dict[str, Any]:
    channels = open_channels(spec["target"], spec["channels"])
    workers = spec["concurrency"]
    ids: list[str] = spec["task_ids"]
    calls: list[Call] = [
        Bouncer(task_service_pb2_grpc.TaskServiceStub(channels[w % len(channels)]), ids[w::workers], spec["version"])
        for w in range(workers)
    ]
    rate = spec.get("rate")
    return await _run(calls, spec, channels, interval=(workers / rate) if rate else None)


async def run_lifecycle(spec: dict[str, Any]) -> dict[str, Any]:
    channels = open_channels(spec["target"], spec["channels"])
    calls: list[Call] = []
    for w in range(spec["concurrency"]):
        stub = task_service_pb2_grpc.TaskServiceStub(channels[w % len(channels)])
        worker = f"bench-worker-{w}"

        async def lifecycle(stub=stub, worker=worker) -> None:
            created = await stub.CreateTask(pb.CreateTaskRequest(operator="bench", labels={"bench": "lifecycle"}))
            task_id = created.task.task_id
            await stub.EnqueueTask(pb.EnqueueTaskRequest(task_id=task_id, expected_version=1, operator="bench"))
            await stub.StartTask(pb.StartTaskRequest(task_id=task_id, expected_version=2, operator="bench",
                                                     worker=worker))
            await stub.CompleteTask(pb.CompleteTaskRequest(task_id=task_id, expected_version=3, operator="bench",
                                                           worker=worker))

        calls.append(lifecycle)
    return await _run(calls, spec, channels)


class BatchBouncer:
    """One worker's tasks, all moved READY -> PAUSED -> READY by one BatchTransitionTasks call."""

    def __init__(self, stub: task_service_pb2_grpc.TaskServiceStub, task_ids: list[str], version: int):
        self.stub = stub
        self.task_ids = task_ids
        self.version = version
        self.paused = False

    async def __call__(self) -> None:
        kind = "resume" if self.paused else "pause"
        request_type = pb.ResumeTaskRequest if self.paused else pb.PauseTaskRequest
        items = [pb.BatchTransitionTasksItem(**{kind: request_type(task_id=t, expected_version=self.version,
                                                                   operator="bench")})
                 for t in self.task_ids]
        response = await self.stub.BatchTransitionTasks(pb.BatchTransitionTasksRequest(items=items))
        refused = [r.error.message for r in response.results if r.HasField("error")]
        if refused:
            raise RuntimeError(f"{len(refused)} items refused: {refused[0]}")
        self.version += 1
        self.paused = not self.paused


async def run_batch_transition(spec: dict[str, Any]) -> dict[str, Any]:
    channels = open_channels(spec["target"], spec["channels"])
    batch, ids = spec["batch"], spec["task_ids"]
    calls: list[Call] = [
        BatchBouncer(task_service_pb2_grpc.TaskServiceStub(channels[w % len(channels)]), ids[w * batch:(w + 1) * batch],
                     spec["version"])
        for w in range(spec["concurrency"])
    ]
    return await _run(calls, spec, channels)


async def run_worker_lifecycle(spec: dict[str, Any]) -> dict[str, Any]:
    channels = open_channels(spec["target"], spec["channels"])
    batch = spec["batch"]
    size = spec.get("payload_bytes", 0)
    # Random bytes: nothing for PostgreSQL's TOAST compression to shrink, the costliest case.
    payload = task_pb2.TaskPayload(data=random.randbytes(size), content_type="application/octet-stream") if size else None
    calls: list[Call] = []
    for w in range(spec["concurrency"]):
        stub = task_service_pb2_grpc.TaskServiceStub(channels[w % len(channels)])
        namespace, worker = f"{spec['namespace_prefix']}-{w}", f"bench-worker-{w}"
        round_keys = await _limited_keys(stub, namespace, spec.get("keys", 0), spec.get("max_running", 0), batch)

        async def lifecycles(stub=stub, namespace=namespace, worker=worker, round_keys=round_keys) -> None:
            keys = next(round_keys)
            created = await stub.BatchCreateTasks(pb.BatchCreateTasksRequest(requests=[
                pb.CreateTaskRequest(namespace=namespace, operator="bench", input=payload, concurrency_key=key)
                for key in keys]))
            ids = [r.task.task_id for r in created.results]
            await stub.BatchTransitionTasks(pb.BatchTransitionTasksRequest(items=[
                pb.BatchTransitionTasksItem(enqueue=pb.EnqueueTaskRequest(task_id=t, operator="bench")) for t in ids]))
            claimed = await stub.ClaimTasks(pb.ClaimTasksRequest(worker=worker, max_tasks=batch, namespace=namespace,
                                                                 operator="bench"))
            if payload is not None and any(c.task.input.data != payload.data for c in claimed.claims):
                raise RuntimeError("a claim did not return the task's input")
            done = await stub.BatchTransitionTasks(pb.BatchTransitionTasksRequest(items=[
                pb.BatchTransitionTasksItem(complete=pb.CompleteTaskRequest(task_id=c.task.task_id, worker=worker,
                                                                            operator="bench", result=payload))
                for c in claimed.claims]))
            completed = sum(not r.HasField("error") for r in done.results)
            if completed != batch:
                raise RuntimeError(f"{completed} of {batch} lifecycles completed")

        calls.append(lifecycles)
    return await _run(calls, spec, channels)


async def _limited_keys(stub: Any, namespace: str, keys: int, max_running: int, batch: int) -> Iterator[list[str]]:
    """Each round's concurrency keys, one per task (all empty without `keys`). With `keys`, each
    is limited to `max_running` in the namespace, and a round's `batch` tasks take max_running
    tasks of each of batch / max_running keys, the next keys each round (all of them in turn):
    every key of a round is full once its tasks are claimed, so every claim and completion goes
    through the limit's guard at its limit, and none is refused (P11)."""
    if not keys:
        return itertools.repeat([""] * batch)
    names = [f"key-{k}" for k in range(keys)]
    for name in names:
        await stub.SetConcurrencyLimit(pb.SetConcurrencyLimitRequest(
            namespace=namespace, concurrency_key=name, max_running=max_running))
    per_round = batch // max_running
    rounds = [[names[(r * per_round + i // max_running) % keys] for i in range(batch)]
              for r in range(keys // per_round or 1)]
    return itertools.cycle(rounds)


async def run_read(spec: dict[str, Any]) -> dict[str, Any]:
    channels = open_channels(spec["target"], spec["channels"])
    id_format, n = spec["id_format"], spec["n"]
    rng = random.Random(spec.get("seed", 1))
    calls: list[Call] = []
    for w in range(spec["concurrency"]):
        stub = task_service_pb2_grpc.TaskServiceStub(channels[w % len(channels)])
        if spec["method"] == "GetTask":

            async def call(stub=stub) -> None:
                await stub.GetTask(pb.GetTaskRequest(task_id=id_format % rng.randrange(n)))
        else:

            async def call(stub=stub) -> None:
                await stub.ListTaskEvents(pb.ListTaskEventsRequest(task_id=id_format % rng.randrange(n)))

        calls.append(call)
    return await _run(calls, spec, channels)


async def _run(calls: list[Call], spec: dict[str, Any], channels: list[grpc.aio.Channel],
               interval: float | None = None) -> dict[str, Any]:
    await asyncio.gather(*(asyncio.wait_for(c.channel_ready(), 15) for c in channels))
    window = Window(spec["warmup"], spec["duration"])
    await closed_loop(calls, window, interval)
    result = window.result(_cpu())
    result["concurrency"] = spec["concurrency"]
    for channel in channels:
        await channel.close()
    return result


async def run_subscribe(spec: dict[str, Any]) -> dict[str, Any]:
    """Opens the streams, says so, then records arrivals until "stop <t0> <t1>" on stdin."""
    subscribers, tenants = spec["subscribers"], spec["tenants"]
    channels = open_channels(spec["target"], max(1, (subscribers + 99) // 100))
    await asyncio.gather(*(asyncio.wait_for(c.channel_ready(), 15) for c in channels))
    arrivals: list[tuple[float, float]] = []  # (arrival wall time, latency)
    ready = asyncio.Semaphore(0)
    received = [0]

    async def subscriber(k: int) -> None:
        stub = task_service_pb2_grpc.TaskServiceStub(channels[k % len(channels)])
        request = pb.WatchTaskEventsRequest(labels={"tenant": f"t{k % tenants}"})
        call = stub.WatchTaskEvents(request)
        first = True
        try:
            async for message in call:
                now = time.time()
                if first:
                    ready.release()
                    first = False
                for event in message.events:
                    created = event.create_time.seconds + event.create_time.nanos / 1e9
                    arrivals.append((now, now - created))
                received[0] += len(message.events)
        except asyncio.CancelledError:
            call.cancel()
            raise

    tasks = [asyncio.create_task(subscriber(k)) for k in range(subscribers)]
    opened = time.perf_counter()
    for _ in range(subscribers):
        await asyncio.wait_for(ready.acquire(), 120)
    print(json.dumps({"ready": True, "open_seconds": time.perf_counter() - opened}), flush=True)
    cpu0 = _cpu()
    loop = asyncio.get_running_loop()
    line = await loop.run_in_executor(None, sys.stdin.readline)
    cpu1 = _cpu()
    _, t0, t1 = line.split()
    start, end = float(t0), float(t1)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    inside = [lat for at, lat in arrivals if start <= at < end]
    # Per-third p99s show how steady the stream was.
    thirds = []
    for i in range(3):
        a, b = start + (end - start) * i / 3, start + (end - start) * (i + 1) / 3
        thirds.append(percentiles(lat for at, lat in arrivals if a <= at < b)["p99_ms"])
    for channel in channels:
        await channel.close()
    return {
        "subscribers": subscribers,
        "events": len(inside),
        "events_total": received[0],
        "delivered_per_s": len(inside) / (end - start) if end > start else 0.0,
        **percentiles(inside),
        "p99_ms_thirds": thirds,
        "max_ms": max(inside) * 1e3 if inside else None,
        "subscriber_cpu_s": cpu1 - cpu0,
    }


MODES = {
    "empty": run_empty,
    "transition": run_transition,
    "lifecycle": run_lifecycle,
    "batch_transition": run_batch_transition,
    "worker_lifecycle": run_worker_lifecycle,
    "read": run_read,
    "subscribe": run_subscribe,
}


def main() -> None:
    spec = json.loads(sys.argv[1])
    if spec["mode"].startswith("connect_"):
        from bench import connect_load  # imports this module: loaded only when needed

        result = asyncio.run(connect_load.run(spec))
    else:
        result = asyncio.run(MODES[spec["mode"]](spec))
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()

"""Event sinks under faults: two replicas, writers on both, a webhook sink and a Kafka sink of
every event the writers make. In turn:

1. the replica delivering the webhook sink is SIGKILLed while the receiver holds its
   requests unanswered (mid-batch); the other replica takes the sink over;
2. the webhook receiver is down for 30 s, then back;
3. the Kafka broker is restarted.

At the end every event reached each target, each task's events arriving in version order
(a redelivery may repeat events already seen, never skip ahead). The figures (events,
duplicates, take-over time) are printed as `SINK FAULTS ...` lines and kept in
test-output/sink-faults.txt.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import psycopg
import pytest
from aiokafka import AIOKafkaConsumer
from tasklife.v1 import event_sink_service_pb2 as sink_pb2
from tasklife.v1 import event_sink_service_pb2_grpc as sink_grpc
from tasklife.v1 import task_service_pb2

from tests.conftest import ROOT
from tests.faults.cluster import Replica
from tests.sinks.kafka_broker import KafkaBroker, broker_or_skip
from tests.sinks.receiver import SECRET, WebhookReceiver
from tests.support import unique_id

DOWN_SECONDS = 30
TAKE_OVER_LIMIT = 5.0
DRAIN_TIMEOUT = 90


@pytest.fixture(scope="module")
def broker() -> Iterator[KafkaBroker]:
    kafka = broker_or_skip()
    yield kafka
    kafka.remove()


class Writers(threading.Thread):
    """Creates tasks with the test's label and takes each through ENQUEUE, START, COMPLETE,
    alternating between the replicas; records every event a call acknowledged."""

    def __init__(self, replicas: list[Replica], label: str):
        super().__init__(daemon=True)
        self.replicas = replicas
        self.label = label
        self.stop = threading.Event()
        self.events: set[tuple[str, int]] = set()
        self.lock = threading.Lock()
        self.turn = 0

    def _stub(self) -> Any:
        self.turn += 1
        live = [r for r in self.replicas if r.alive()]
        return live[self.turn % len(live)].stub

    def run(self) -> None:
        while not self.stop.is_set():
            task_id = unique_id("sf")
            steps = [
                ("CreateTask", task_service_pb2.CreateTaskRequest(task_id=task_id, labels={"sinkfault": self.label})),
                ("EnqueueTask", task_service_pb2.EnqueueTaskRequest(task_id=task_id)),
                ("StartTask", task_service_pb2.StartTaskRequest(task_id=task_id, worker="w")),
                ("CompleteTask", task_service_pb2.CompleteTaskRequest(task_id=task_id, worker="w")),
            ]
            for index, (method, request) in enumerate(steps):
                if not self._call(method, request, index + 1):
                    break
            time.sleep(0.02)

    def _call(self, method: str, request: Any, version: int) -> bool:
        if version > 1:  # CreateTask with the same id and spec is retry-safe by itself
            request.request_id = f"{request.task_id}:{version}"
        for _ in range(20):  # a replica just killed: the same request on another (idempotent)
            try:
                response = getattr(self._stub(), method)(request, timeout=5)
            except Exception:  # noqa: BLE001 - retried on another replica
                time.sleep(0.1)
                continue
            with self.lock:
                self.events.add((response.event.task_id, response.event.version))
            return True
        return False


def first_arrivals_in_order(arrivals: list[tuple[str, int]]) -> bool:
    """Whether each task's versions first arrive in increasing order, without a gap."""
    seen: dict[str, int] = {}
    for task_id, version in arrivals:
        top = seen.get(task_id, 0)
        if version > top + 1:
            return False
        seen[task_id] = max(top, version)
    return True


def read_kafka(bootstrap: str, topic: str, until: float) -> list[tuple[str, int]]:
    async def read() -> list[tuple[str, int]]:
        consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                                    enable_auto_commit=False, group_id=None)
        await consumer.start()
        arrivals: list[tuple[str, int]] = []
        try:
            while time.monotonic() < until:
                batches = await consumer.getmany(timeout_ms=1000)
                if not batches and arrivals:
                    break
                for records in batches.values():
                    for record in records:
                        task_id, _, version = dict(record.headers)["ce_id"].decode().rpartition(":")
                        arrivals.append((task_id, int(version)))
        finally:
            await consumer.stop()
        return arrivals

    return asyncio.run(read())


def lease_owner(db: psycopg.Connection, sink_id: str) -> str | None:
    row = db.execute("SELECT lease_owner FROM event_sinks WHERE id = %s", (sink_id,)).fetchone()
    return row[0] if row else None


def pid_of(owner: str | None) -> int | None:
    return int(owner.split(":")[1]) if owner else None


def test_sinks_deliver_every_event_through_a_crash_an_outage_and_a_broker_restart(
    own_database_url: str, broker: KafkaBroker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database_url = own_database_url  # no other server may take these sinks' leases
    monkeypatch.setenv("TASKLIFE_SINK_ALLOWED_HOSTS", "127.0.0.1")
    replicas = [Replica(slot, 0, database_url, tmp_path, "WARNING") for slot in (0, 1)]
    receiver = WebhookReceiver()
    label, topic = unique_id("l"), unique_id("faults")
    db = psycopg.connect(database_url, autocommit=True)
    figures: list[str] = []
    try:
        admin = sink_grpc.EventSinkServiceStub(replicas[0].channel)
        sink_filter = sink_pb2.EventSinkFilter(labels={"sinkfault": label})
        webhook = admin.CreateEventSink(sink_pb2.CreateEventSinkRequest(
            sink_id=unique_id("fw"), filter=sink_filter,
            webhook=sink_pb2.WebhookTarget(url=receiver.url, secret=SECRET))).sink
        kafka = admin.CreateEventSink(sink_pb2.CreateEventSinkRequest(
            sink_id=unique_id("fk"), filter=sink_filter,
            kafka=sink_pb2.KafkaTarget(bootstrap_servers=[broker.bootstrap], topic=topic))).sink
        writers = Writers(replicas, label)
        writers.start()

        # 1. SIGKILL the webhook sink's delivering replica while its requests are held.
        owner = None
        deadline = time.monotonic() + 20
        while (owner := lease_owner(db, webhook.sink_id)) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert owner is not None, "no replica took the webhook sink"
        time.sleep(1)
        receiver.held = True
        deadline = time.monotonic() + 10
        while receiver.waiting == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert receiver.waiting > 0, "no request reached the held receiver"
        victim = next(r for r in replicas if r.process.pid == pid_of(lease_owner(db, webhook.sink_id)))
        killed_at = time.monotonic()
        victim.kill()
        receiver.held = False  # the held requests are answered now, to nobody: redelivered later
        survivor = next(r for r in replicas if r is not victim)
        while pid_of(lease_owner(db, webhook.sink_id)) != survivor.process.pid:
            assert time.monotonic() - killed_at < 15, "the webhook sink was not taken over"
            time.sleep(0.02)
        take_over = time.monotonic() - killed_at
        figures.append(f"take-over after SIGKILL: {take_over:.2f} s (limit {TAKE_OVER_LIMIT} s)")
        victim.close()
        replicas[replicas.index(victim)] = Replica(victim.slot, 1, database_url, tmp_path, "WARNING")
        writers.replicas = replicas

        # 2. The webhook receiver down for 30 s, then back.
        receiver.down()
        failing_seen = False
        down_until = time.monotonic() + DOWN_SECONDS
        while time.monotonic() < down_until:
            state = admin_state(replicas, webhook.sink_id)
            failing_seen = failing_seen or state == sink_pb2.EVENT_SINK_STATE_FAILING
            time.sleep(1)
        receiver.up()

        # 3. Restart the Kafka broker.
        broker.stop()
        time.sleep(3)
        broker.start()
        time.sleep(3)
        writers.stop.set()
        writers.join(30)
        written = set(writers.events)

        # Everything reaches both targets.
        deadline = time.monotonic() + DRAIN_TIMEOUT
        while time.monotonic() < deadline and not written <= {_pair(i) for i in receiver.ids()}:
            time.sleep(0.5)
        webhook_arrivals = [_pair(i) for i in receiver.ids()]
        kafka_arrivals = read_kafka(broker.bootstrap, topic, time.monotonic() + DRAIN_TIMEOUT)
        while not written <= set(kafka_arrivals) and time.monotonic() < deadline:
            time.sleep(1)
            kafka_arrivals = read_kafka(broker.bootstrap, topic, time.monotonic() + 30)
        for name, arrivals in (("webhook", webhook_arrivals), ("kafka", kafka_arrivals)):
            matching = [a for a in arrivals if a in written]
            figures.append(f"{name}: {len(written)} events written, {len(set(matching))} delivered, "
                           f"{len(matching) - len(set(matching))} duplicates")
        figures.append(f"webhook FAILING seen while the receiver was down: {failing_seen}; "
                       f"bad signatures: {receiver.bad_signatures}")
        assert receiver.bad_signatures == 0
        assert written <= set(webhook_arrivals), "events missing at the webhook"
        assert written <= set(kafka_arrivals), "events missing in Kafka"
        assert first_arrivals_in_order(webhook_arrivals)
        assert first_arrivals_in_order(kafka_arrivals)
        assert failing_seen
        assert take_over < TAKE_OVER_LIMIT
    finally:
        _report(figures)
        for replica in replicas:
            replica.close()
        receiver.close()
        db.execute("DELETE FROM event_sinks WHERE position(%s::bytea in filter) > 0", (label.encode(),))
        db.close()


def admin_state(replicas: list[Replica], sink_id: str) -> int:
    for replica in replicas:
        if replica.alive():
            try:
                stub = sink_grpc.EventSinkServiceStub(replica.channel)
                return stub.GetEventSink(sink_pb2.GetEventSinkRequest(sink_id=sink_id), timeout=5).sink.state
            except Exception:  # noqa: BLE001 - try the other replica
                continue
    return 0


def _pair(cloudevent_id: str) -> tuple[str, int]:
    task_id, _, version = cloudevent_id.rpartition(":")
    return task_id, int(version)


def _report(figures: list[str]) -> None:
    if not figures:
        return
    out = ROOT / "test-output"
    out.mkdir(exist_ok=True)
    (out / "sink-faults.txt").write_text("".join(f"{line}\n" for line in figures))
    for line in figures:
        print(f"SINK FAULTS {line}")
    sys.stdout.flush()

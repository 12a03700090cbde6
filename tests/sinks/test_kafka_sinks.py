"""Event sinks into a real Kafka broker (KRaft, single node), read back with a real Kafka
consumer (aiokafka): binary-mode CloudEvents, the task id as key, each task's events in
version order; and a SASL PLAIN listener."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiokafka import AIOKafkaConsumer
from tasklife.v1 import event_sink_service_pb2 as sink_pb2

from tests.sinks.kafka_broker import SASL_PASSWORD, SASL_USER, KafkaBroker
from tests.sinks.test_webhook_sinks import run_tasks
from tests.support import unique_id

READ_TIMEOUT = 60


def read_topic(bootstrap: str, topic: str, count: int, timeout: float = READ_TIMEOUT) -> list[Any]:
    """Reads `count` records of `topic` from the beginning (fewer if the timeout passes)."""

    async def read() -> list[Any]:
        consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                                    enable_auto_commit=False, group_id=None)
        await consumer.start()
        records: list[Any] = []
        try:
            async with asyncio.timeout(timeout):
                while len(records) < count:
                    batches = await consumer.getmany(timeout_ms=500)
                    for batch in batches.values():
                        records.extend(batch)
        except TimeoutError:
            pass
        finally:
            await consumer.stop()
        return records

    return asyncio.run(read())


def kafka_sink(sinks: Any, created: list[str], label: str, target: sink_pb2.KafkaTarget) -> sink_pb2.EventSink:
    sink = sinks.CreateEventSink(sink_pb2.CreateEventSinkRequest(
        sink_id=unique_id("k"), filter=sink_pb2.EventSinkFilter(labels={"sinktest": label}), kafka=target)).sink
    created.append(sink.sink_id)
    return sink


def test_every_matching_event_reaches_kafka_as_a_binary_cloudevent_keyed_by_task(
    kafka: KafkaBroker, sinks: Any, tasks: Any, created_sinks: list[str]
) -> None:
    label, topic = unique_id("l"), unique_id("topic")
    kafka_sink(sinks, created_sinks, label, sink_pb2.KafkaTarget(bootstrap_servers=[kafka.bootstrap], topic=topic))
    task_ids = run_tasks(tasks, label, 6)
    records = read_topic(kafka.bootstrap, topic, 18)
    assert len(records) == 18
    ids = []
    by_task: dict[str, list[int]] = {}
    for record in records:
        headers = {k: v.decode() for k, v in record.headers}
        data = json.loads(record.value)
        assert record.key.decode() == headers["ce_subject"] == data["taskId"]
        assert headers["ce_specversion"] == "1.0"
        assert headers["ce_id"] == f"{data['taskId']}:{data['version']}"
        assert headers["ce_source"] == "/tasklife/namespaces/default"
        assert headers["ce_type"] == f"dev.tasklife.task.v1.{data['action'].removeprefix('TASK_ACTION_').lower()}"
        assert headers["ce_tasklifecursor"] == data["cursor"]
        assert headers["content-type"] == "application/json"
        ids.append(headers["ce_id"])
        by_task.setdefault(data["taskId"], []).append(int(data["version"]))
    assert sorted(ids) == sorted(f"{t}:{v}" for t in task_ids for v in (1, 2, 3))
    assert by_task == {t: [1, 2, 3] for t in task_ids}


def test_a_kafka_sink_authenticates_with_sasl_plain(
    kafka: KafkaBroker, sinks: Any, tasks: Any, created_sinks: list[str]
) -> None:
    label, topic = unique_id("l"), unique_id("topic")
    sink = kafka_sink(sinks, created_sinks, label, sink_pb2.KafkaTarget(
        bootstrap_servers=[kafka.sasl_bootstrap], topic=topic,
        sasl=sink_pb2.KafkaSasl(mechanism=sink_pb2.KAFKA_SASL_MECHANISM_PLAIN, username=SASL_USER,
                                password=SASL_PASSWORD)))
    assert sink.kafka.sasl.password == ""
    assert sink.kafka.sasl.username == SASL_USER
    task_ids = run_tasks(tasks, label, 1)
    records = read_topic(kafka.bootstrap, topic, 3)
    assert [int(json.loads(r.value)["version"]) for r in records] == [1, 2, 3]
    assert {r.key.decode() for r in records} == set(task_ids)

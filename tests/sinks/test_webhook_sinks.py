"""Event sinks over webhooks, against a real server process and a real HTTP receiver that
verifies every Standard Webhooks signature: CRUD, validation, delivery, order, pause,
resume, rewind, and FAILING then recovery."""

from __future__ import annotations

import re
from typing import Any

import grpc
import psycopg
from google.protobuf import json_format
from google.protobuf.duration_pb2 import Duration
from tasklife.v1 import event_sink_service_pb2 as sink_pb2
from tasklife.v1 import task_pb2, task_service_pb2

from tests.sinks.receiver import SECRET, WebhookReceiver
from tests.support import act, create, failure_of, unique_id, wait_for
from tasklife_server.domain.states import Action
from tasklife_server.sinks.runner import HEAD_READER_NAME

DELIVERY_TIMEOUT = 20


def webhook_sink(sinks: Any, created: list[str], receiver: WebhookReceiver, label: str, **fields: Any) -> sink_pb2.EventSink:
    request = sink_pb2.CreateEventSinkRequest(
        sink_id=unique_id("s").lower().replace("_", "-")[:40],
        filter=sink_pb2.EventSinkFilter(labels={"sinktest": label}),
        webhook=sink_pb2.WebhookTarget(url=receiver.url, secret=SECRET, headers={"x-team": "data"},
                                       timeout=Duration(seconds=2)),
        **fields,
    )
    sink = sinks.CreateEventSink(request).sink
    created.append(sink.sink_id)
    return sink


def run_tasks(tasks: Any, label: str, count: int) -> list[str]:
    """Creates `count` tasks with the label and takes each to RUNNING: 3 events per task."""
    ids = []
    for _ in range(count):
        task = create(tasks, labels={"sinktest": label})
        act(tasks, Action.ENQUEUE, task.task_id)
        act(tasks, Action.START, task.task_id, worker="w1")
        ids.append(task.task_id)
    return ids


def versions_by_task(events: list[dict[str, Any]]) -> dict[str, list[int]]:
    order: dict[str, list[int]] = {}
    for event in events:
        order.setdefault(event["subject"], []).append(int(event["data"]["version"]))
    return order


def test_a_created_sink_is_returned_active_without_its_secret(sinks: Any, created_sinks: list[str],
                                                             receiver: WebhookReceiver) -> None:
    sink = webhook_sink(sinks, created_sinks, receiver, unique_id("l"))
    assert sink.state == sink_pb2.EVENT_SINK_STATE_ACTIVE
    assert sink.webhook.url == receiver.url
    assert sink.webhook.secret == ""
    assert dict(sink.webhook.headers) == {"x-team": "data"}
    got = sinks.GetEventSink(sink_pb2.GetEventSinkRequest(sink_id=sink.sink_id)).sink
    assert got.webhook.secret == "" and got.sink_id == sink.sink_id
    assert sink.sink_id in [s.sink_id for s in sinks.ListEventSinks(sink_pb2.ListEventSinksRequest(page_size=1000)).sinks]


def test_a_sink_with_a_taken_id_is_already_exists(sinks: Any, created_sinks: list[str], receiver: WebhookReceiver) -> None:
    sink = webhook_sink(sinks, created_sinks, receiver, unique_id("l"))
    failure = failure_of(lambda: sinks.CreateEventSink(sink_pb2.CreateEventSinkRequest(
        sink_id=sink.sink_id, webhook=sink_pb2.WebhookTarget(url=receiver.url, secret=SECRET))))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.ALREADY_EXISTS, "SINK_ALREADY_EXISTS")


def test_a_malformed_sink_is_refused_naming_every_bad_field(sinks: Any) -> None:
    failure = failure_of(lambda: sinks.CreateEventSink(sink_pb2.CreateEventSinkRequest(
        sink_id="Bad_Id",
        filter=sink_pb2.EventSinkFilter(states=[task_pb2.TASK_STATE_UNSPECIFIED]),
        webhook=sink_pb2.WebhookTarget(url="ftp://example.com/x", secret="whsec_short",
                                       headers={"webhook-id": "x"}, timeout=Duration(seconds=120)),
    )))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")
    assert sorted(failure.violated_fields) == sorted([
        "sink_id", "webhook.url", "webhook.secret", "webhook.headers[webhook-id]", "webhook.timeout", "filter.states[0]",
    ])


def test_a_sink_without_a_target_is_refused(sinks: Any) -> None:
    failure = failure_of(lambda: sinks.CreateEventSink(sink_pb2.CreateEventSinkRequest()))
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["target"]


def test_a_malformed_kafka_target_is_refused(sinks: Any) -> None:
    failure = failure_of(lambda: sinks.CreateEventSink(sink_pb2.CreateEventSinkRequest(
        kafka=sink_pb2.KafkaTarget(bootstrap_servers=["nohostport"], topic="bad topic",
                                   sasl=sink_pb2.KafkaSasl(mechanism=sink_pb2.KAFKA_SASL_MECHANISM_PLAIN)))))
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert sorted(failure.violated_fields) == ["kafka.bootstrap_servers[0]", "kafka.sasl.username", "kafka.topic"]


def test_an_unknown_sink_is_not_found(sinks: Any) -> None:
    failure = failure_of(lambda: sinks.GetEventSink(sink_pb2.GetEventSinkRequest(sink_id="no-such-sink")))
    assert (failure.code, failure.error_info.reason) == (grpc.StatusCode.NOT_FOUND, "SINK_NOT_FOUND")
    assert dict(failure.error_info.metadata) == {"sink_id": "no-such-sink"}


def test_a_deleted_sink_is_gone(sinks: Any, created_sinks: list[str], receiver: WebhookReceiver) -> None:
    sink = webhook_sink(sinks, created_sinks, receiver, unique_id("l"))
    sinks.DeleteEventSink(sink_pb2.DeleteEventSinkRequest(sink_id=sink.sink_id))
    failure = failure_of(lambda: sinks.GetEventSink(sink_pb2.GetEventSinkRequest(sink_id=sink.sink_id)))
    assert failure.code is grpc.StatusCode.NOT_FOUND


def test_a_rewind_to_a_forged_cursor_is_invalid(sinks: Any, created_sinks: list[str], receiver: WebhookReceiver) -> None:
    sink = webhook_sink(sinks, created_sinks, receiver, unique_id("l"))
    failure = failure_of(lambda: sinks.RewindEventSink(
        sink_pb2.RewindEventSinkRequest(sink_id=sink.sink_id, after_cursor="c1_nonsense")))
    assert failure.code is grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violated_fields == ["after_cursor"]


def test_every_matching_event_reaches_the_webhook_signed_and_in_version_order(
    sinks: Any, tasks: Any, created_sinks: list[str], receiver: WebhookReceiver
) -> None:
    label = unique_id("l")
    webhook_sink(sinks, created_sinks, receiver, label)
    other = create(tasks, labels={"sinktest": unique_id("other")})  # not matching: never sent
    task_ids = run_tasks(tasks, label, 5)
    wait_for(lambda: len(receiver.received) >= 15, DELIVERY_TIMEOUT, "15 deliveries")
    events = receiver.events()
    assert receiver.bad_signatures == 0
    assert sorted(receiver.ids()) == sorted(f"{t}:{v}" for t in task_ids for v in (1, 2, 3))
    assert other.task_id not in {e["subject"] for e in events}
    assert versions_by_task(events) == {t: [1, 2, 3] for t in task_ids}
    first = receiver.received[0]
    assert first.headers["content-type"] == "application/cloudevents+json"
    assert first.headers["x-team"] == "data"
    assert first.headers["webhook-id"] == first.cloudevent["id"]
    assert first.headers["webhook-signature"].startswith("v1,")


def test_a_sink_delivers_on_after_the_connection_of_its_reads_at_the_head_was_cut(
    sinks: Any, tasks: Any, created_sinks: list[str], receiver: WebhookReceiver, own_database_url: str
) -> None:
    label = unique_id("l")
    webhook_sink(sinks, created_sinks, receiver, label)
    before = run_tasks(tasks, label, 2)
    wait_for(lambda: len(receiver.received) >= 6, DELIVERY_TIMEOUT, "6 deliveries")
    with psycopg.connect(own_database_url, autocommit=True) as conn:
        readers = "FROM pg_stat_activity WHERE datname = current_database() AND application_name = %s"
        wait_for(lambda: conn.execute(f"SELECT count(*) {readers}", (HEAD_READER_NAME,)).fetchone()[0] == 1,
                 DELIVERY_TIMEOUT, "the sinks' head reader connected")
        cut = conn.execute(f"SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) {readers}",
                           (HEAD_READER_NAME,)).fetchone()[0]
    assert cut == 1
    after = run_tasks(tasks, label, 2)
    wait_for(lambda: len(receiver.received) >= 12, DELIVERY_TIMEOUT, "12 deliveries")
    assert versions_by_task(receiver.events()) == {t: [1, 2, 3] for t in before + after}


def test_a_webhook_cloudevent_carries_the_mapped_attributes_and_the_event_as_proto3_json(
    sinks: Any, tasks: Any, created_sinks: list[str], receiver: WebhookReceiver
) -> None:
    label = unique_id("l")
    webhook_sink(sinks, created_sinks, receiver, label)
    task = create(tasks, labels={"sinktest": label}, namespace="default")
    wait_for(lambda: len(receiver.received) == 1, DELIVERY_TIMEOUT, "the CREATE event")
    history = tasks.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(task_id=task.task_id)).events
    expected = json_format.MessageToDict(history[0])
    assert receiver.events()[0] == {
        "specversion": "1.0",
        "id": f"{task.task_id}:1",
        "source": "/tasklife/namespaces/default",
        "type": "dev.tasklife.task.v1.create",
        "subject": task.task_id,
        "time": history[0].create_time.ToJsonString(),
        "datacontenttype": "application/json",
        "tasklifecursor": history[0].cursor,
        "data": expected,
    }


def test_a_paused_sink_delivers_nothing_until_resumed(
    sinks: Any, tasks: Any, created_sinks: list[str], receiver: WebhookReceiver
) -> None:
    label = unique_id("l")
    sink = webhook_sink(sinks, created_sinks, receiver, label, paused=True)
    assert sink.state == sink_pb2.EVENT_SINK_STATE_PAUSED
    task_ids = run_tasks(tasks, label, 2)
    wait_for(lambda: sinks.GetEventSink(sink_pb2.GetEventSinkRequest(sink_id=sink.sink_id)).sink.pending_events == 6,
             DELIVERY_TIMEOUT, "6 pending events")
    assert receiver.received == []
    resumed = sinks.UpdateEventSink(sink_pb2.UpdateEventSinkRequest(sink_id=sink.sink_id, paused=False)).sink
    assert resumed.state == sink_pb2.EVENT_SINK_STATE_ACTIVE
    wait_for(lambda: len(receiver.received) >= 6, DELIVERY_TIMEOUT, "6 deliveries")
    assert versions_by_task(receiver.events()) == {t: [1, 2, 3] for t in task_ids}
    status = wait_for(lambda: (s := sinks.GetEventSink(sink_pb2.GetEventSinkRequest(sink_id=sink.sink_id)).sink)
                      .delivered_events == 6 and s, DELIVERY_TIMEOUT, "the cursor to move")
    assert status.pending_events == 0
    assert status.lag.ToTimedelta().total_seconds() == 0


def test_a_rewound_sink_delivers_again_from_the_beginning_of_its_cursor(
    sinks: Any, tasks: Any, created_sinks: list[str], receiver: WebhookReceiver
) -> None:
    label = unique_id("l")
    sink = webhook_sink(sinks, created_sinks, receiver, label)
    task_ids = run_tasks(tasks, label, 2)
    wait_for(lambda: len(receiver.received) >= 6, DELIVERY_TIMEOUT, "6 deliveries")
    first_cursor = receiver.events()[0]["tasklifecursor"]
    sinks.RewindEventSink(sink_pb2.RewindEventSinkRequest(sink_id=sink.sink_id, after_cursor=first_cursor))
    wait_for(lambda: len(receiver.received) >= 11, DELIVERY_TIMEOUT, "the 5 events after the first again")
    again = receiver.ids()[6:]
    assert sorted(again) == sorted(f"{t}:{v}" for t in task_ids for v in (1, 2, 3) if f"{t}:{v}" != receiver.ids()[0])


def test_a_refusing_target_makes_the_sink_failing_until_it_answers_again(
    sinks: Any, tasks: Any, created_sinks: list[str], receiver: WebhookReceiver
) -> None:
    label = unique_id("l")
    receiver.answer_status = 503
    sink = webhook_sink(sinks, created_sinks, receiver, label)
    task_ids = run_tasks(tasks, label, 1)
    failing = wait_for(
        lambda: (s := sinks.GetEventSink(sink_pb2.GetEventSinkRequest(sink_id=sink.sink_id)).sink).state
        == sink_pb2.EVENT_SINK_STATE_FAILING and s, DELIVERY_TIMEOUT, "FAILING")
    assert failing.last_error.code == grpc.StatusCode.UNAVAILABLE.value[0]
    assert "HTTP 503" in failing.last_error.message
    assert failing.pending_events == 3
    receiver.answer_status = 200
    wait_for(lambda: len(receiver.received) >= 3, DELIVERY_TIMEOUT, "delivery after recovery")
    recovered = wait_for(
        lambda: (s := sinks.GetEventSink(sink_pb2.GetEventSinkRequest(sink_id=sink.sink_id)).sink).state
        == sink_pb2.EVENT_SINK_STATE_ACTIVE and s, DELIVERY_TIMEOUT, "ACTIVE again")
    assert not recovered.HasField("last_error")
    assert versions_by_task(receiver.events()) == {task_ids[0]: [1, 2, 3]}


def test_the_metrics_count_a_sinks_deliveries_and_failures(
    sinks: Any, tasks: Any, created_sinks: list[str], receiver: WebhookReceiver, sink_server: Any
) -> None:
    import urllib.request

    label = unique_id("l")
    receiver.answer_status = 500
    sink = webhook_sink(sinks, created_sinks, receiver, label)
    run_tasks(tasks, label, 1)

    def metric(name: str) -> float | None:
        text = urllib.request.urlopen(sink_server.metrics_url, timeout=10).read().decode()
        found = re.search(rf'^{name}{{sink="{sink.sink_id}"}} (\S+)$', text, re.MULTILINE)
        return float(found.group(1)) if found else None

    wait_for(lambda: (metric("tasklife_sink_failed_total") or 0) >= 1, DELIVERY_TIMEOUT, "a failure counted")
    receiver.answer_status = 204
    wait_for(lambda: metric("tasklife_sink_delivered_total") == 3, DELIVERY_TIMEOUT, "3 deliveries counted")
    wait_for(lambda: metric("tasklife_sink_lag_seconds") == 0.0, DELIVERY_TIMEOUT, "no lag once caught up")

"""The CloudEvents form of a TaskEvent (sinks/cloudevents.py): no I/O."""

from __future__ import annotations

import json
import unittest.mock
from datetime import datetime, timezone

from google.protobuf import descriptor, json_format, message
from tasklife.v1 import task_pb2

from tasklife_server.domain.model import Event
from tasklife_server.domain.states import Action, State
from tasklife_server.service.convert import event_to_pb
from tasklife_server.sinks import cloudevents
from tasklife_server.sinks.hosts import HostPolicy
from tasklife_server.sinks.runner import BACKOFF_MAX_SECONDS, backoff_seconds

EVENT = Event(
    event_id=42, xid=777, task_id="etl-2026-12-04", version=4, action=Action.FAIL, from_state=State.RUNNING,
    to_state=State.FAILED, operator="worker-7", reason="exit 3", request_id="r-1", expected_version=3,
    created_at=datetime(2026, 12, 4, 15, 0, 1, 250000, tzinfo=timezone.utc), namespace="data", worker="w-7",
    attempt=2, exit_code=3,
)


def test_the_data_is_the_task_event_exactly_as_protobuf_json_format_writes_it() -> None:
    rendered = event_to_pb(EVENT)
    body = json.loads(cloudevents.structured(EVENT, rendered))
    assert body["data"] == json.loads(json_format.MessageToJson(rendered))
    assert json.loads(cloudevents.kafka_value(rendered)) == json.loads(json_format.MessageToJson(rendered))


def _every_field_set(target: message.Message) -> message.Message:
    """`target` with every field set to a value no default equals, found by walking its
    descriptor: a field added to the message later is set too."""
    for field in target.DESCRIPTOR.fields:
        if field.type == descriptor.FieldDescriptor.TYPE_MESSAGE:
            if field.message_type.full_name == "google.protobuf.Timestamp":
                getattr(target, field.name).FromJsonString("2026-12-04T15:00:01.250300Z")
            else:
                _every_field_set(getattr(target, field.name))
        elif field.type == descriptor.FieldDescriptor.TYPE_ENUM:
            setattr(target, field.name, field.enum_type.values[-1].number)
        elif field.type == descriptor.FieldDescriptor.TYPE_BOOL:
            setattr(target, field.name, True)
        elif field.type == descriptor.FieldDescriptor.TYPE_BYTES:
            setattr(target, field.name, b"\x00\xffbytes")
        elif field.type == descriptor.FieldDescriptor.TYPE_STRING:
            setattr(target, field.name, f"{field.name} \u00e9\"\\\n\u2028")
        elif field.cpp_type in (descriptor.FieldDescriptor.CPPTYPE_INT64, descriptor.FieldDescriptor.CPPTYPE_UINT64):
            setattr(target, field.name, 2**53 + field.number)
        elif field.cpp_type in (descriptor.FieldDescriptor.CPPTYPE_FLOAT, descriptor.FieldDescriptor.CPPTYPE_DOUBLE):
            setattr(target, field.name, 0.5 + field.number)
        else:
            setattr(target, field.name, -field.number)
    return target


def test_the_fast_data_writer_knows_every_task_event_field_and_writes_what_json_format_writes() -> None:
    rendered = _every_field_set(task_pb2.TaskEvent())
    written = cloudevents.known_fields_data(rendered)
    assert written is not None, "a TaskEvent field the fast writer does not know: add it to _FIELD_WRITERS"
    expected = json_format.MessageToDict(rendered)
    assert written == expected
    assert list(written) == list(expected)
    assert cloudevents.kafka_value(rendered) == json.dumps(expected, separators=(",", ":")).encode()


def test_an_exit_code_of_zero_is_written_as_json_format_writes_it() -> None:
    rendered = event_to_pb(EVENT)
    rendered.exit_code = 0
    assert cloudevents.known_fields_data(rendered) == json_format.MessageToDict(rendered)
    assert cloudevents.known_fields_data(rendered)["exitCode"] == 0


def test_a_field_the_fast_writer_does_not_know_is_written_by_json_format() -> None:
    """As a field added to TaskEvent later, before the writer learns it: `reason` left out of it."""
    rendered = event_to_pb(EVENT)
    without_reason = {name: writer for name, writer in cloudevents._FIELD_WRITERS.items() if name != "reason"}
    with unittest.mock.patch.dict(cloudevents._FIELD_WRITERS, without_reason, clear=True):
        assert cloudevents.known_fields_data(rendered) is None
        assert cloudevents.data(rendered) == json_format.MessageToDict(rendered)
        assert cloudevents.data(rendered)["reason"] == "exit 3"


def test_the_attributes_follow_the_mapping() -> None:
    rendered = event_to_pb(EVENT)
    body = json.loads(cloudevents.structured(EVENT, rendered))
    del body["data"]
    assert body == {
        "specversion": "1.0", "id": "etl-2026-12-04:4", "source": "/tasklife/namespaces/data",
        "type": "dev.tasklife.task.v1.fail", "subject": "etl-2026-12-04", "time": "2026-12-04T15:00:01.250Z",
        "datacontenttype": "application/json", "tasklifecursor": rendered.cursor,
    }


def test_kafka_headers_are_the_attributes_prefixed_ce_and_the_content_type() -> None:
    rendered = event_to_pb(EVENT)
    headers = dict(cloudevents.kafka_headers(EVENT, rendered))
    assert headers["content-type"] == b"application/json"
    assert headers["ce_id"] == b"etl-2026-12-04:4"
    assert headers["ce_type"] == b"dev.tasklife.task.v1.fail"
    assert "ce_datacontenttype" not in headers


def test_the_default_host_policy_refuses_every_address_that_is_not_global() -> None:
    policy = HostPolicy.parse([])
    import ipaddress

    for address in ("127.0.0.1", "10.1.2.3", "192.168.0.1", "169.254.169.254", "::1", "fd00::1", "0.0.0.0",
                    "::ffff:127.0.0.1", "224.0.0.1"):
        assert not policy.allows_address(ipaddress.ip_address(address)), address
    assert policy.allows_address(ipaddress.ip_address("8.8.8.8"))


def test_allowed_hosts_add_names_addresses_and_networks() -> None:
    import ipaddress

    policy = HostPolicy.parse(["127.0.0.1", "10.0.0.0/8", "kafka.internal"])
    assert policy.allows_address(ipaddress.ip_address("127.0.0.1"))
    assert policy.allows_address(ipaddress.ip_address("10.9.9.9"))
    assert not policy.allows_address(ipaddress.ip_address("192.168.1.1"))
    assert policy.allows_name("Kafka.Internal.")


def test_backoff_grows_exponentially_up_to_its_cap_with_jitter() -> None:
    for failures in range(1, 30):
        ceiling = min(BACKOFF_MAX_SECONDS, 0.1 * 2 ** (failures - 1))
        assert ceiling / 2 <= backoff_seconds(failures) <= ceiling

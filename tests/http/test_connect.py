"""TaskService over the Connect protocol: JSON and binary unary calls, errors with their
details, and the server-streaming watch, against the session's live server."""

from __future__ import annotations

import json
import urllib.request

from google.rpc import error_details_pb2
from tasklife.v1 import task_pb2, task_service_pb2

from tests.conftest import ServerProcess
from tests.http.http_client import (
    OpenStream,
    connect_json,
    connect_stream_json,
    connection,
    frame,
    post,
    unpadded_b64decode,
)
from tests.support import create, unique_id, without_wait_reason


def test_a_json_call_answers_the_message_in_protobuf_json(server: ServerProcess) -> None:
    task_id = unique_id("http")
    reply = connect_json(server.http_url, "CreateTask", {"taskId": task_id, "labels": {"team": "data"}})
    assert reply.status == 200
    assert reply.headers["content-type"] == "application/json"
    task = reply.json()["task"]
    assert (task["taskId"], task["state"], task["version"], task["labels"]) == (task_id, "TASK_STATE_CREATED", "1", {"team": "data"})


def test_a_json_request_may_use_the_proto_field_names(server: ServerProcess, stub) -> None:
    task = create(stub)
    reply = connect_json(server.http_url, "GetTask", {"task_id": task.task_id})
    assert reply.status == 200
    assert reply.json()["task"]["taskId"] == task.task_id


def test_an_illegal_move_answers_connects_error_body_with_the_error_info(server: ServerProcess, stub) -> None:
    task = create(stub)
    reply = connect_json(server.http_url, "ResumeTask", {"taskId": task.task_id})
    assert reply.status == 400
    body = reply.json()
    assert body["code"] == "failed_precondition"
    assert body["message"] == f"task '{task.task_id}' is created: ResumeTask is not allowed (allowed: EnqueueTask)"
    info = body["details"][0]
    assert info["type"] == "google.rpc.ErrorInfo"
    decoded = error_details_pb2.ErrorInfo.FromString(unpadded_b64decode(info["value"]))
    assert decoded.reason == "INVALID_TRANSITION"
    assert dict(decoded.metadata) == {
        "task_id": task.task_id,
        "current_state": "TASK_STATE_CREATED",
        "requested_action": "ResumeTask",
        "allowed_actions": "EnqueueTask",
    }
    assert info["debug"] == {"reason": "INVALID_TRANSITION", "domain": "tasklife.dev", "metadata": dict(decoded.metadata)}
    assert [d["type"] for d in body["details"]] == ["google.rpc.ErrorInfo", "google.rpc.PreconditionFailure"]


def test_a_stale_expected_version_is_aborted_with_the_current_version(server: ServerProcess, stub) -> None:
    task = create(stub)
    stub.EnqueueTask(task_service_pb2.EnqueueTaskRequest(task_id=task.task_id))
    reply = connect_json(server.http_url, "PauseTask", {"taskId": task.task_id, "expectedVersion": "1"})
    assert reply.status == 409
    body = reply.json()
    assert body["code"] == "aborted"
    assert body["details"][0]["debug"]["reason"] == "VERSION_MISMATCH"
    assert body["details"][0]["debug"]["metadata"]["current_version"] == "2"


def test_an_unknown_task_is_not_found(server: ServerProcess) -> None:
    reply = connect_json(server.http_url, "GetTask", {"taskId": unique_id("missing")})
    assert reply.status == 404
    assert reply.json()["code"] == "not_found"


def test_malformed_json_is_an_invalid_argument(server: ServerProcess) -> None:
    reply = post(server.http_url, "GetTask", b"{not json", "application/json")
    assert reply.status == 400
    body = reply.json()
    assert body["code"] == "invalid_argument"
    assert body["message"].startswith("the request body is not a valid encoding of tasklife.v1.GetTaskRequest: not valid JSON")
    assert body["details"][0]["debug"] == {"reason": "MALFORMED_REQUEST", "domain": "tasklife.dev",
                                           "metadata": {"message_type": "tasklife.v1.GetTaskRequest"}}


def _violations(reply) -> list[tuple[str, str]]:
    (bad_request,) = [d["debug"] for d in reply.json()["details"] if d["type"] == "google.rpc.BadRequest"]
    return [(v["field"], v["description"]) for v in bad_request["fieldViolations"]]


def test_an_enum_name_in_the_wrong_case_is_refused_not_dropped(server: ServerProcess) -> None:
    reply = connect_json(server.http_url, "ListTasks", {"states": ["TASK_STATE_FAILED", "failed"]})
    assert (reply.status, reply.json()["code"]) == (400, "invalid_argument")
    ((field, description),) = _violations(reply)
    assert field == "states[1]"
    assert description.startswith("'failed' is not a value of tasklife.v1.TaskState (its values: TASK_STATE_UNSPECIFIED, ")
    assert reply.json()["details"][0]["debug"]["reason"] == "INVALID_REQUEST"


def test_an_unknown_enum_value_name_is_refused(server: ServerProcess) -> None:
    reply = connect_json(server.http_url, "ListTasks", {"states": ["TASK_STATE_BOGUS"]})
    assert reply.status == 400
    assert [field for field, _ in _violations(reply)] == ["states[0]"]
    assert "'TASK_STATE_BOGUS' is not a value of tasklife.v1.TaskState" in reply.json()["message"]


def test_every_unknown_field_is_refused_with_its_path(server: ServerProcess) -> None:
    reply = connect_json(server.http_url, "CreateTask",
                         {"taskId": unique_id("strict"), "lables": {"a": "b"}, "retryPolicy": {"maxAttempt": 3}})
    assert reply.status == 400
    violations = _violations(reply)
    assert [field for field, _ in violations] == ["lables", "retryPolicy.maxAttempt"]
    assert violations[0][1].startswith("is not a field of tasklife.v1.CreateTaskRequest (its fields: taskId, labels,")
    assert violations[1][1].startswith("is not a field of tasklife.v1.RetryPolicy (its fields: maxAttempts,")


def test_a_refused_json_create_writes_nothing(server: ServerProcess, stub) -> None:
    task_id = unique_id("strict")
    connect_json(server.http_url, "CreateTask", {"taskId": task_id, "autoEnqueu": True})
    reply = connect_json(server.http_url, "GetTask", {"taskId": task_id})
    assert reply.status == 404


def test_enum_values_by_number_and_proto_names_are_still_accepted(server: ServerProcess, stub) -> None:
    label = unique_id("l")
    task = create(stub, labels={"strict": label})
    reply = connect_json(server.http_url, "ListTasks", {"states": [1], "labels": {"strict": label}, "page_size": 5})
    assert reply.status == 200
    assert [t["taskId"] for t in reply.json()["tasks"]] == [task.task_id]


def test_a_watch_with_an_unknown_state_name_ends_with_the_error_and_streams_nothing(server: ServerProcess) -> None:
    with connect_stream_json(server.http_url, "WatchTaskEvents", {"fromBeginning": True, "states": ["TASK_STATE_BOGUS"]}) as stream:
        flags, payload = stream.next_frame()
    assert flags == 0x02
    error = json.loads(payload)["error"]
    assert error["code"] == "invalid_argument"
    assert "'TASK_STATE_BOGUS' is not a value of tasklife.v1.TaskState" in error["message"]


def test_a_binary_call_answers_the_protobuf_message(server: ServerProcess, stub) -> None:
    task = create(stub)
    request = task_service_pb2.GetTaskRequest(task_id=task.task_id).SerializeToString()
    reply = post(server.http_url, "GetTask", request, "application/proto")
    assert reply.status == 200
    assert reply.headers["content-type"] == "application/proto"
    assert without_wait_reason(task_service_pb2.GetTaskResponse.FromString(reply.body).task) == task


def test_a_binary_error_still_answers_the_json_error_body(server: ServerProcess) -> None:
    request = task_service_pb2.GetTaskRequest(task_id=unique_id("missing")).SerializeToString()
    reply = post(server.http_url, "GetTask", request, "application/proto")
    assert (reply.status, reply.headers["content-type"], reply.json()["code"]) == (404, "application/json", "not_found")


def test_a_move_over_http_is_the_same_move_as_over_grpc(server: ServerProcess, stub) -> None:
    task = create(stub)
    reply = connect_json(server.http_url, "EnqueueTask", {"taskId": task.task_id, "reason": "over http"},
                         tasklife_operator="alice", x_request_id="http-req-1")
    assert reply.status == 200
    assert reply.headers["trailer-x-request-id"] == "http-req-1"
    history = stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(task_id=task.task_id)).events
    assert [(e.action, e.operator, e.reason) for e in history] == [
        (task_pb2.TASK_ACTION_CREATE, "anonymous", ""),
        (task_pb2.TASK_ACTION_ENQUEUE, "alice", "over http"),
    ]


def test_a_watch_streams_the_cursor_then_the_events_then_resumes_after_a_cursor(server: ServerProcess, stub) -> None:
    task = create(stub)
    stub.EnqueueTask(task_service_pb2.EnqueueTaskRequest(task_id=task.task_id))
    request = {"fromBeginning": True, "taskIds": [task.task_id]}
    with connect_stream_json(server.http_url, "WatchTaskEvents", request) as stream:
        assert stream.response.status == 200
        assert stream.response.getheader("content-type") == "application/connect+json"
        first = json.loads(stream.next_frame()[1])
        assert set(first) == {"cursor"}
        flags, payload = stream.next_frame()
        batch = json.loads(payload)
    assert flags == 0
    assert [e["version"] for e in batch["events"]] == ["1", "2"]
    stub.StartTask(task_service_pb2.StartTaskRequest(task_id=task.task_id))
    resumed = {"afterCursor": batch["events"][0]["cursor"], "taskIds": [task.task_id]}
    with connect_stream_json(server.http_url, "WatchTaskEvents", resumed) as stream:
        stream.next_frame()  # the starting cursor
        events = json.loads(stream.next_frame()[1])["events"]
    assert [(e["version"], e["toState"]) for e in events] == [("2", "TASK_STATE_READY"), ("3", "TASK_STATE_RUNNING")]


def test_a_failing_watch_ends_with_the_error_in_the_end_of_stream_message(server: ServerProcess) -> None:
    with connect_stream_json(server.http_url, "WatchTaskEvents", {"afterCursor": "not-a-cursor"}) as stream:
        flags, payload = stream.next_frame()
    assert stream.response.status == 200
    assert flags == 0x02
    error = json.loads(payload)["error"]
    assert error["code"] == "invalid_argument"
    assert error["details"][0]["debug"]["reason"] == "INVALID_REQUEST"


def test_a_binary_watch_streams_protobuf_envelopes(server: ServerProcess, stub) -> None:
    task = create(stub)
    request = task_service_pb2.WatchTaskEventsRequest(from_beginning=True, task_ids=[task.task_id])
    with OpenStream(server.http_url, "WatchTaskEvents", frame(request.SerializeToString()), "application/connect+proto") as stream:
        stream.next_frame()
        batch = task_service_pb2.WatchTaskEventsResponse.FromString(stream.next_frame()[1])
    assert [e.task_id for e in batch.events] == [task.task_id]


def test_a_unary_method_refuses_a_streaming_content_type(server: ServerProcess) -> None:
    reply = post(server.http_url, "GetTask", frame(b"{}"), "application/connect+json")
    assert reply.status == 415


def test_an_rpc_path_refuses_get(server: ServerProcess) -> None:
    conn = connection(server.http_url)
    conn.request("GET", "/tasklife.v1.TaskService/GetTask")
    assert conn.getresponse().status == 405
    conn.close()


def test_a_request_above_the_size_limit_is_resource_exhausted(server: ServerProcess) -> None:
    reply = post(server.http_url, "CreateTask", b" " * (4 * 1024 * 1024 + 6), "application/json")
    assert reply.status == 429
    assert reply.json()["code"] == "resource_exhausted"


def test_calls_over_http_are_counted_in_the_rpc_metrics(server: ServerProcess) -> None:
    connect_json(server.http_url, "GetStateMachine", {})
    assert server.metrics_url is not None
    metrics = urllib.request.urlopen(server.metrics_url, timeout=10).read().decode()
    assert 'tasklife_rpc_duration_seconds_count{code="OK",method="GetStateMachine"}' in metrics


def test_the_batch_and_claim_methods_answer_over_connect_json(server: ServerProcess, stub) -> None:
    queue = unique_id("http-queue")
    created = connect_json(server.http_url, "BatchCreateTasks", {"requests": [{"labels": {"queue": queue}}, {"labels": {"-bad": "x"}}]})
    assert created.status == 200
    ok, refused = created.json()["results"]
    assert refused["error"]["code"] == 3 and "task" not in refused
    task_id = ok["task"]["taskId"]
    enqueued = connect_json(server.http_url, "BatchTransitionTasks", {"items": [{"enqueue": {"taskId": task_id}}]})
    assert enqueued.status == 200
    assert enqueued.json()["results"][0]["task"]["state"] == "TASK_STATE_READY"
    claimed = connect_json(server.http_url, "ClaimTasks", {"worker": "w1", "maxTasks": 5, "labels": {"queue": queue}})
    assert claimed.status == 200
    assert [c["task"]["taskId"] for c in claimed.json()["claims"]] == [task_id]


def test_count_tasks_answers_over_connect_json(server: ServerProcess, stub) -> None:
    labels = {"suite": unique_id("s")}
    create(stub, labels=labels)
    create(stub, labels=labels)

    reply = connect_json(server.http_url, "CountTasks", {"groupBy": ["state"], "labels": labels})

    assert reply.status == 200
    assert reply.json()["counts"] == [{"values": ["TASK_STATE_CREATED"], "count": "2"}]


def test_an_unknown_order_by_over_connect_json_is_invalid_argument(server: ServerProcess) -> None:
    reply = connect_json(server.http_url, "ListTasks", {"orderBy": "newest"})

    assert reply.status == 400
    assert reply.json()["code"] == "invalid_argument"
    assert [field for field, _ in _violations(reply)] == ["order_by"]

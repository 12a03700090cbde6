"""TaskService over gRPC-Web (binary): a data frame per message, then the trailer frame."""

from __future__ import annotations

from google.rpc import error_details_pb2, status_pb2
from tasklife.v1 import task_service_pb2

from tests.conftest import ServerProcess
from tests.http.http_client import OpenStream, frame, frames, grpc_web, grpc_web_trailers, unpadded_b64decode
from tests.support import create, without_wait_reason


def test_a_unary_call_answers_a_message_frame_then_status_ok(server: ServerProcess, stub) -> None:
    task = create(stub)
    reply = grpc_web(server.http_url, "GetTask", task_service_pb2.GetTaskRequest(task_id=task.task_id))
    assert reply.status == 200
    assert reply.headers["content-type"] == "application/grpc-web+proto"
    (data_flags, data), (trailer_flags, trailer) = frames(reply.body)
    assert (data_flags, trailer_flags) == (0x00, 0x80)
    assert without_wait_reason(task_service_pb2.GetTaskResponse.FromString(data).task) == task
    assert grpc_web_trailers(trailer)["grpc-status"] == "0"


def test_an_illegal_move_answers_the_status_with_its_details(server: ServerProcess, stub) -> None:
    task = create(stub)
    reply = grpc_web(server.http_url, "KillTask", task_service_pb2.KillTaskRequest(task_id=task.task_id))
    [(flags, trailer)] = frames(reply.body)
    trailers = grpc_web_trailers(trailer)
    assert (flags, trailers["grpc-status"]) == (0x80, "9")
    assert trailers["grpc-message"] == f"task '{task.task_id}' is created: KillTask is not allowed (allowed: EnqueueTask)"
    status = status_pb2.Status.FromString(unpadded_b64decode(trailers["grpc-status-details-bin"]))
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    assert (info.reason, info.metadata["current_state"]) == ("INVALID_TRANSITION", "TASK_STATE_CREATED")


def test_a_watch_streams_message_frames(server: ServerProcess, stub) -> None:
    task = create(stub)
    request = task_service_pb2.WatchTaskEventsRequest(from_beginning=True, task_ids=[task.task_id])
    with OpenStream(server.http_url, "WatchTaskEvents", frame(request.SerializeToString()), "application/grpc-web+proto") as stream:
        assert stream.next_frame()[0] == 0x00  # the starting cursor
        flags, payload = stream.next_frame()
    batch = task_service_pb2.WatchTaskEventsResponse.FromString(payload)
    assert (flags, [(e.task_id, e.version) for e in batch.events]) == (0x00, [(task.task_id, 1)])

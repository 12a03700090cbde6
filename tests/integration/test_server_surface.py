"""What the server offers besides TaskService: gRPC server reflection and health checking."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from tasklife.v1 import task_service_pb2

TASK_SERVICE = "tasklife.v1.TaskService"
HEALTH_SERVICE = "grpc.health.v1.Health"
REFLECTION_SERVICE = "grpc.reflection.v1alpha.ServerReflection"
LOCAL_SERVICE = task_service_pb2.DESCRIPTOR.services_by_name["TaskService"]


def reflect(channel, **request_fields) -> reflection_pb2.ServerReflectionResponse:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    responses = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(**request_fields)]))
    [response] = list(responses)
    return response


def test_reflection_lists_the_task_health_and_reflection_services(channel) -> None:
    response = reflect(channel, list_services="")

    names = {service.name for service in response.list_services_response.service}
    assert {TASK_SERVICE, HEALTH_SERVICE, REFLECTION_SERVICE} <= names


def test_reflection_describes_every_task_service_method(channel) -> None:
    response = reflect(channel, file_containing_symbol=TASK_SERVICE)

    files = [
        descriptor_pb2.FileDescriptorProto.FromString(raw)
        for raw in response.file_descriptor_response.file_descriptor_proto
    ]
    [service] = [s for f in files if f.package == "tasklife.v1" for s in f.service if s.name == "TaskService"]
    assert [m.name for m in service.method] == [m.name for m in LOCAL_SERVICE.methods]
    assert {"CreateTask", "GetTask", "ListTasks", "GetStateMachine", "EnqueueTask"} <= {m.name for m in service.method}


@pytest.mark.parametrize("service", ["", TASK_SERVICE])
def test_health_check_reports_serving(channel, service) -> None:
    response = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=service))

    assert response.status == health_pb2.HealthCheckResponse.SERVING


def test_health_check_of_an_unknown_service_is_not_found(channel) -> None:
    with pytest.raises(grpc.RpcError) as raised:
        health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service="no.such.Service"))

    assert raised.value.code() == grpc.StatusCode.NOT_FOUND

"""Refusals to gRPC statuses with google.rpc details (AIP-193), applied by one interceptor.

Handlers raise domain errors; `ErrorTranslationInterceptor` turns them into the documented
status. Anything unexpected becomes INTERNAL (or UNAVAILABLE when the database is
unreachable), logged here, never UNKNOWN and never a traceback sent to the caller.
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from typing import Any, AsyncIterator, Awaitable, Callable

import grpc
from google.protobuf import any_pb2, message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from tasklife_server.domain.errors import (
    BatchTooLarge,
    BulkOperationNotFound,
    SinkAlreadyExists,
    SinkHostNotAllowed,
    SinkNotFound,
    BulkTooLarge,
    CursorFromLostHistory,
    CursorNotRetained,
    HistoryNotRetained,
    DependenciesNotMet,
    NotBefore,
    ConcurrencyLimitReached,
    UnmetUpstream,
    InvalidRequest,
    InvalidTransition,
    LeaseLost,
    MalformedRequest,
    ReferencedTaskNotFound,
    RequestIdReused,
    StreamClosed,
    TaskAlreadyExists,
    TaskNotFound,
    TaskNotYetCreated,
    TasklifeError,
    VersionMismatch,
    Unauthenticated,
    RoleNotGranted,
    NamespaceNotGranted,
    OperatorMismatch,
    TooManyStreams,
)
from tasklife_server.observability import request_ids
from tasklife_server.observability.outage import DATABASE_OUTAGE, is_database_unavailable
from tasklife_server.service.convert import state_name
from tasklife_server.service.handlers import WrappedHandlers, rewrapped

DOMAIN = "tasklife.dev"
log = logging.getLogger(__name__)


def _packed(*details: Any) -> list[any_pb2.Any]:
    packed = []
    for detail in details:
        item = any_pb2.Any()
        item.Pack(detail)
        packed.append(item)
    return packed


def _info(reason: str, **metadata: str) -> error_details_pb2.ErrorInfo:
    return error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata)


def _rfc3339(instant: datetime) -> str:
    return instant.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def _unmet_description(upstream: UnmetUpstream) -> str:
    told = f"is {state_name(upstream.state)}, not succeeded"
    return told if upstream.can_succeed else f"{told}, and cannot succeed: a rerun of it that succeeds unblocks this task"


def _task_resource(task_id: str, description: str) -> error_details_pb2.ResourceInfo:
    return error_details_pb2.ResourceInfo(
        resource_type="tasklife.v1.Task", resource_name=task_id, description=description
    )


def status_of(error: TasklifeError) -> status_pb2.Status:
    """The google.rpc.Status a caller receives for a refusal."""
    message = str(error)
    if isinstance(error, InvalidRequest):
        code = code_pb2.INVALID_ARGUMENT
        details = _packed(
            _info(
                "INVALID_REQUEST",
                fields=",".join(v.field for v in error.violations),
                omitted_violations=str(error.omitted),
            ),
            error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(field=v.field, description=v.description)
                    for v in error.violations
                ]
            ),
        )
    elif isinstance(error, BatchTooLarge):
        code = code_pb2.INVALID_ARGUMENT
        details = _packed(
            _info("BATCH_TOO_LARGE", limit=str(error.limit), requested=str(error.requested)),
            error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(field=error.field, description=f"at most {error.limit}")
                ]
            ),
        )
    elif isinstance(error, MalformedRequest):
        code = code_pb2.INVALID_ARGUMENT
        details = _packed(_info("MALFORMED_REQUEST", message_type=error.message_type))
    elif isinstance(error, TaskNotYetCreated):
        code = code_pb2.NOT_FOUND
        details = _packed(
            _info("TASK_NOT_FOUND", task_id=error.task_id, as_of=_rfc3339(error.as_of),
                  create_time=_rfc3339(error.created_at)),
            _task_resource(error.task_id, message),
        )
    elif isinstance(error, BulkOperationNotFound):
        code = code_pb2.NOT_FOUND
        details = _packed(
            _info("BULK_OPERATION_NOT_FOUND", operation_id=error.operation_id),
            error_details_pb2.ResourceInfo(
                resource_type="tasklife.v1.BulkOperation", resource_name=error.operation_id, description=message
            ),
        )
    elif isinstance(error, SinkNotFound):
        code = code_pb2.NOT_FOUND
        details = _packed(
            _info("SINK_NOT_FOUND", sink_id=error.sink_id),
            error_details_pb2.ResourceInfo(
                resource_type="tasklife.v1.EventSink", resource_name=error.sink_id, description=message
            ),
        )
    elif isinstance(error, SinkAlreadyExists):
        code = code_pb2.ALREADY_EXISTS
        details = _packed(_info("SINK_ALREADY_EXISTS", sink_id=error.sink_id))
    elif isinstance(error, SinkHostNotAllowed):
        code = code_pb2.INVALID_ARGUMENT
        details = _packed(
            _info("SINK_HOST_NOT_ALLOWED", host=error.host[:253]),
            error_details_pb2.BadRequest(
                field_violations=[error_details_pb2.BadRequest.FieldViolation(field=error.field, description=message)]
            ),
        )
    elif isinstance(error, BulkTooLarge):
        code = code_pb2.FAILED_PRECONDITION
        details = _packed(
            _info("BULK_TOO_LARGE", matched=str(error.matched), max_tasks=str(error.max_tasks)),
            error_details_pb2.PreconditionFailure(
                violations=[error_details_pb2.PreconditionFailure.Violation(
                    type="BULK_SIZE", subject="max_tasks", description=message)]
            ),
        )
    elif isinstance(error, TaskNotFound):
        code = code_pb2.NOT_FOUND
        details = _packed(_info("TASK_NOT_FOUND", task_id=error.task_id), _task_resource(error.task_id, message))
    elif isinstance(error, InvalidTransition):
        code = code_pb2.FAILED_PRECONDITION
        allowed = ",".join(a.rpc_name for a in error.allowed)
        details = _packed(
            _info(
                "INVALID_TRANSITION",
                task_id=error.task_id,
                current_state=state_name(error.current),
                requested_action=error.action.rpc_name,
                allowed_actions=allowed,
            ),
            error_details_pb2.PreconditionFailure(
                violations=[
                    error_details_pb2.PreconditionFailure.Violation(
                        type="STATE", subject=f"tasks/{error.task_id}", description=message
                    )
                ]
            ),
        )
    elif isinstance(error, VersionMismatch):
        code = code_pb2.ABORTED
        details = _packed(
            _info(
                "VERSION_MISMATCH",
                task_id=error.task_id,
                expected_version=str(error.expected),
                current_version=str(error.current),
                current_state=state_name(error.state),
            )
        )
    elif isinstance(error, RequestIdReused):
        code = code_pb2.ALREADY_EXISTS
        details = _packed(
            _info(
                "REQUEST_ID_REUSED",
                task_id=error.task_id,
                request_id=error.request_id,
                first_action=error.first_action.rpc_name,
            )
        )
    elif isinstance(error, TaskAlreadyExists):
        code = code_pb2.ALREADY_EXISTS
        details = _packed(
            _info("TASK_ALREADY_EXISTS", task_id=error.task_id, differing_fields=",".join(error.differing_fields)),
            _task_resource(error.task_id, message),
        )
    elif isinstance(error, ReferencedTaskNotFound):
        code = code_pb2.FAILED_PRECONDITION
        details = _packed(
            _info(
                "REFERENCED_TASK_NOT_FOUND",
                missing_task_ids=",".join(error.missing),
                missing_count=str(error.missing_count),
            ),
            error_details_pb2.PreconditionFailure(
                violations=[
                    error_details_pb2.PreconditionFailure.Violation(
                        type="REFERENCE", subject=f"tasks/{task_id}", description="does not exist"
                    )
                    for task_id in error.missing
                ]
            ),
        )
    elif isinstance(error, DependenciesNotMet):
        code = code_pb2.FAILED_PRECONDITION
        details = _packed(
            _info(
                "DEPENDENCIES_NOT_MET",
                task_id=error.task_id,
                unmet_dependencies=",".join(f"{u.task_id}={state_name(u.state)}" for u in error.unmet),
                unmet_can_succeed=",".join(f"{u.task_id}={str(u.can_succeed).lower()}" for u in error.unmet),
                unmet_count=str(error.unmet_count),
            ),
            error_details_pb2.PreconditionFailure(
                violations=[
                    error_details_pb2.PreconditionFailure.Violation(
                        type="DEPENDENCY", subject=f"tasks/{upstream.task_id}", description=_unmet_description(upstream)
                    )
                    for upstream in error.unmet
                ]
            ),
        )
    elif isinstance(error, NotBefore):
        code = code_pb2.FAILED_PRECONDITION
        details = _packed(_info("NOT_BEFORE", task_id=error.task_id, not_before=_rfc3339(error.not_before)))
    elif isinstance(error, ConcurrencyLimitReached):
        code = code_pb2.FAILED_PRECONDITION
        details = _packed(_info(
            "CONCURRENCY_LIMIT_REACHED", task_id=error.task_id, namespace=error.namespace,
            concurrency_key=error.concurrency_key, max_running=str(error.max_running),
        ))
    elif isinstance(error, LeaseLost):
        code = code_pb2.FAILED_PRECONDITION
        details = _packed(
            _info(
                "LEASE_LOST",
                task_id=error.task_id,
                worker=error.worker,
                lease_holder=error.holder or "",
                current_state=state_name(error.state),
            )
        )
    elif isinstance(error, CursorFromLostHistory):
        code = code_pb2.OUT_OF_RANGE
        details = _packed(
            _info(
                "CURSOR_FROM_LOST_HISTORY",
                last_valid_cursor=error.last_valid_cursor,
                lost_from_cursor=error.lost_from_cursor,
            )
        )
    elif isinstance(error, CursorNotRetained):
        code = code_pb2.OUT_OF_RANGE
        details = _packed(_info("CURSOR_NOT_RETAINED", cursor=error.cursor[:64]))
    elif isinstance(error, HistoryNotRetained):
        code = code_pb2.OUT_OF_RANGE
        details = _packed(_info("HISTORY_NOT_RETAINED", retained_since=_rfc3339(error.retained_since)))
    elif isinstance(error, StreamClosed):
        code = code_pb2.UNAVAILABLE
        details = _packed(_info("SERVER_SHUTTING_DOWN"))
    elif isinstance(error, Unauthenticated):
        code = code_pb2.UNAUTHENTICATED
        details = _packed(_info(error.reason))
    elif isinstance(error, RoleNotGranted):
        code = code_pb2.PERMISSION_DENIED
        details = _packed(
            _info(
                "ROLE_NOT_GRANTED",
                principal=error.principal,
                method=error.method,
                granting_roles=",".join(error.granting_roles),
            )
        )
    elif isinstance(error, NamespaceNotGranted):
        code = code_pb2.PERMISSION_DENIED
        details = _packed(_info("NAMESPACE_NOT_GRANTED", principal=error.principal, namespace=error.namespace))
    elif isinstance(error, OperatorMismatch):
        code = code_pb2.PERMISSION_DENIED
        details = _packed(_info("OPERATOR_MISMATCH", principal=error.principal, operator=error.operator[:128]))
    elif isinstance(error, TooManyStreams):
        code = code_pb2.RESOURCE_EXHAUSTED
        details = _packed(
            _info("TOO_MANY_STREAMS", principal=error.principal, limit=str(error.limit)),
            error_details_pb2.QuotaFailure(
                violations=[
                    error_details_pb2.QuotaFailure.Violation(
                        subject=f"principals/{error.principal}",
                        description=f"at most {error.limit} open WatchTaskEvents streams per server",
                    )
                ]
            ),
        )
    else:  # a TasklifeError without a mapping is a bug in this module
        code = code_pb2.INTERNAL
        details = _packed(_info("INTERNAL"))
    return status_pb2.Status(code=code, message=message, details=details)


def _unexpected_status(exc: BaseException) -> status_pb2.Status:
    if is_database_unavailable(exc):
        return status_pb2.Status(
            code=code_pb2.UNAVAILABLE,
            message="the database is unavailable; retry with backoff",
            details=_packed(_info("DATABASE_UNAVAILABLE")),
        )
    return status_pb2.Status(
        code=code_pb2.INTERNAL,
        message="internal error; the server log has the details",
        details=_packed(_info("INTERNAL")),
    )


async def _abort(context: grpc.aio.ServicerContext, status: status_pb2.Status) -> None:
    rich = rpc_status.to_status(status)
    # abort() replaces the trailers set so far: keep the request id a unary call sends there.
    request_id = request_ids.current.get()
    extra = ((request_ids.METADATA_KEY, request_id),) if request_id else ()
    await context.abort(rich.code, rich.details, tuple(rich.trailing_metadata) + extra)


async def _refuse(exc: Exception, context: grpc.aio.ServicerContext, method: str) -> None:
    if isinstance(exc, TasklifeError):
        await _abort(context, status_of(exc))
    if is_database_unavailable(exc):
        DATABASE_OUTAGE.failed(method, exc)  # one line per outage, not a traceback per call
    else:
        log.exception("unexpected error in %s", method)
    await _abort(context, _unexpected_status(exc))


class ErrorTranslationInterceptor(grpc.aio.ServerInterceptor):
    """Turns whatever a handler raises into a documented status with details.

    It also decodes each single request itself: gRPC Python answers a body that is not
    valid protobuf with UNKNOWN ("Unexpected DecodeError"), and bad input must be
    INVALID_ARGUMENT / MALFORMED_REQUEST like any other.
    """

    def __init__(self) -> None:
        self._handlers = WrappedHandlers(_guarded)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        if handler is None:
            return handler
        return self._handlers.of(handler_call_details.method, handler)


def _guarded(method: str, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
    if handler.request_streaming:  # reflection's stream of requests: gRPC decodes those
        return rewrapped(
            handler,
            unary=lambda behavior: _guard_unary(behavior, method, None),
            stream=lambda behavior: _guard_stream(behavior, method, None),
        )
    decode = _decoder(handler.request_deserializer)
    return rewrapped(
        handler,
        unary=lambda behavior: _guard_unary(behavior, method, decode),
        stream=lambda behavior: _guard_stream(behavior, method, decode),
        request_deserializer=None,
    )


Decode = Callable[[Any], Any] | None


def _decoder(deserializer: Callable[[bytes], Any] | None) -> Decode:
    """The handler's own deserializer, raising MalformedRequest instead of DecodeError."""
    if deserializer is None:
        return None
    message_class = getattr(deserializer, "__self__", None)  # a generated message's FromString
    message_type = message_class.DESCRIPTOR.full_name if message_class is not None else "request message"

    def decode(body: bytes) -> Any:
        try:
            return deserializer(body)
        except message.DecodeError as exc:
            # upb says "Error parsing message with type 'X': Wire format was corrupt".
            detail = str(exc).rsplit(": ", 1)[-1] or "wire format was corrupt"
            raise MalformedRequest(message_type, detail.lower()) from None

    return decode


def _guard_unary(behavior: Callable[..., Awaitable[Any]], method: str, decode: Decode) -> Callable[..., Awaitable[Any]]:
    async def guarded(request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            if decode is not None:
                request = decode(request)
            return await behavior(request, context)
        except grpc.aio.AbortError:
            raise
        except Exception as exc:  # noqa: BLE001 - every failure must leave as a clear status
            await _refuse(exc, context, method)

    return guarded


def _guard_stream(
    behavior: Callable[..., AsyncIterator[Any]], method: str, decode: Decode
) -> Callable[..., AsyncIterator[Any]]:
    async def guarded(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        try:
            if decode is not None:
                request = decode(request)
            async for response in behavior(request, context):
                yield response
        except grpc.aio.AbortError:
            raise
        except Exception as exc:  # noqa: BLE001
            await _refuse(exc, context, method)

    return guarded

import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.rpc import status_pb2 as _status_pb2
from tasklife.v1 import task_pb2 as _task_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BulkOperationState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BULK_OPERATION_STATE_UNSPECIFIED: _ClassVar[BulkOperationState]
    BULK_OPERATION_STATE_RUNNING: _ClassVar[BulkOperationState]
    BULK_OPERATION_STATE_SUCCEEDED: _ClassVar[BulkOperationState]
    BULK_OPERATION_STATE_CANCELLED: _ClassVar[BulkOperationState]
    BULK_OPERATION_STATE_FAILED: _ClassVar[BulkOperationState]
BULK_OPERATION_STATE_UNSPECIFIED: BulkOperationState
BULK_OPERATION_STATE_RUNNING: BulkOperationState
BULK_OPERATION_STATE_SUCCEEDED: BulkOperationState
BULK_OPERATION_STATE_CANCELLED: BulkOperationState
BULK_OPERATION_STATE_FAILED: BulkOperationState

class CreateTaskRequest(_message.Message):
    __slots__ = ("task_id", "labels", "depends_on", "rerun_of", "retry_policy", "reason", "operator", "auto_enqueue", "namespace", "on_behalf_of", "input", "priority", "not_before", "timeouts", "concurrency_key")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    DEPENDS_ON_FIELD_NUMBER: _ClassVar[int]
    RERUN_OF_FIELD_NUMBER: _ClassVar[int]
    RETRY_POLICY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    AUTO_ENQUEUE_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    ON_BEHALF_OF_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    NOT_BEFORE_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    labels: _containers.ScalarMap[str, str]
    depends_on: _containers.RepeatedScalarFieldContainer[str]
    rerun_of: str
    retry_policy: _task_pb2.RetryPolicy
    reason: str
    operator: str
    auto_enqueue: bool
    namespace: str
    on_behalf_of: str
    input: _task_pb2.TaskPayload
    priority: int
    not_before: _timestamp_pb2.Timestamp
    timeouts: _task_pb2.TaskTimeouts
    concurrency_key: str
    def __init__(self, task_id: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., depends_on: _Optional[_Iterable[str]] = ..., rerun_of: _Optional[str] = ..., retry_policy: _Optional[_Union[_task_pb2.RetryPolicy, _Mapping]] = ..., reason: _Optional[str] = ..., operator: _Optional[str] = ..., auto_enqueue: _Optional[bool] = ..., namespace: _Optional[str] = ..., on_behalf_of: _Optional[str] = ..., input: _Optional[_Union[_task_pb2.TaskPayload, _Mapping]] = ..., priority: _Optional[int] = ..., not_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., timeouts: _Optional[_Union[_task_pb2.TaskTimeouts, _Mapping]] = ..., concurrency_key: _Optional[str] = ...) -> None: ...

class CreateTaskResponse(_message.Message):
    __slots__ = ("task", "event")
    TASK_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    task: _task_pb2.Task
    event: _task_pb2.TaskEvent
    def __init__(self, task: _Optional[_Union[_task_pb2.Task, _Mapping]] = ..., event: _Optional[_Union[_task_pb2.TaskEvent, _Mapping]] = ...) -> None: ...

class GetTaskRequest(_message.Message):
    __slots__ = ("task_id", "as_of", "view")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    as_of: _timestamp_pb2.Timestamp
    view: _task_pb2.TaskView
    def __init__(self, task_id: _Optional[str] = ..., as_of: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., view: _Optional[_Union[_task_pb2.TaskView, str]] = ...) -> None: ...

class GetTaskResponse(_message.Message):
    __slots__ = ("task",)
    TASK_FIELD_NUMBER: _ClassVar[int]
    task: _task_pb2.Task
    def __init__(self, task: _Optional[_Union[_task_pb2.Task, _Mapping]] = ...) -> None: ...

class ListTasksRequest(_message.Message):
    __slots__ = ("page_size", "page_token", "states", "labels", "namespaces", "as_of", "view", "created_after", "created_before", "updated_after", "updated_before", "task_id_prefix", "order_by")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    NAMESPACES_FIELD_NUMBER: _ClassVar[int]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    CREATED_AFTER_FIELD_NUMBER: _ClassVar[int]
    CREATED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AFTER_FIELD_NUMBER: _ClassVar[int]
    UPDATED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_PREFIX_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    states: _containers.RepeatedScalarFieldContainer[_task_pb2.TaskState]
    labels: _containers.ScalarMap[str, str]
    namespaces: _containers.RepeatedScalarFieldContainer[str]
    as_of: _timestamp_pb2.Timestamp
    view: _task_pb2.TaskView
    created_after: _timestamp_pb2.Timestamp
    created_before: _timestamp_pb2.Timestamp
    updated_after: _timestamp_pb2.Timestamp
    updated_before: _timestamp_pb2.Timestamp
    task_id_prefix: str
    order_by: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., states: _Optional[_Iterable[_Union[_task_pb2.TaskState, str]]] = ..., labels: _Optional[_Mapping[str, str]] = ..., namespaces: _Optional[_Iterable[str]] = ..., as_of: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., view: _Optional[_Union[_task_pb2.TaskView, str]] = ..., created_after: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., created_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_after: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., task_id_prefix: _Optional[str] = ..., order_by: _Optional[str] = ...) -> None: ...

class ListTasksResponse(_message.Message):
    __slots__ = ("tasks", "next_page_token")
    TASKS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tasks: _containers.RepeatedCompositeFieldContainer[_task_pb2.Task]
    next_page_token: str
    def __init__(self, tasks: _Optional[_Iterable[_Union[_task_pb2.Task, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class CountTasksRequest(_message.Message):
    __slots__ = ("states", "labels", "namespaces", "created_after", "created_before", "updated_after", "updated_before", "task_id_prefix", "group_by")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    STATES_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    NAMESPACES_FIELD_NUMBER: _ClassVar[int]
    CREATED_AFTER_FIELD_NUMBER: _ClassVar[int]
    CREATED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AFTER_FIELD_NUMBER: _ClassVar[int]
    UPDATED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_PREFIX_FIELD_NUMBER: _ClassVar[int]
    GROUP_BY_FIELD_NUMBER: _ClassVar[int]
    states: _containers.RepeatedScalarFieldContainer[_task_pb2.TaskState]
    labels: _containers.ScalarMap[str, str]
    namespaces: _containers.RepeatedScalarFieldContainer[str]
    created_after: _timestamp_pb2.Timestamp
    created_before: _timestamp_pb2.Timestamp
    updated_after: _timestamp_pb2.Timestamp
    updated_before: _timestamp_pb2.Timestamp
    task_id_prefix: str
    group_by: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, states: _Optional[_Iterable[_Union[_task_pb2.TaskState, str]]] = ..., labels: _Optional[_Mapping[str, str]] = ..., namespaces: _Optional[_Iterable[str]] = ..., created_after: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., created_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_after: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., task_id_prefix: _Optional[str] = ..., group_by: _Optional[_Iterable[str]] = ...) -> None: ...

class CountTasksResponse(_message.Message):
    __slots__ = ("counts", "read_time")
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    READ_TIME_FIELD_NUMBER: _ClassVar[int]
    counts: _containers.RepeatedCompositeFieldContainer[TaskCount]
    read_time: _timestamp_pb2.Timestamp
    def __init__(self, counts: _Optional[_Iterable[_Union[TaskCount, _Mapping]]] = ..., read_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TaskCount(_message.Message):
    __slots__ = ("values", "count")
    VALUES_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[str]
    count: int
    def __init__(self, values: _Optional[_Iterable[str]] = ..., count: _Optional[int] = ...) -> None: ...

class ListTaskEventsRequest(_message.Message):
    __slots__ = ("task_id", "page_size", "page_token", "start_time", "end_time")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    page_size: int
    page_token: str
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    def __init__(self, task_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListTaskAttemptsRequest(_message.Message):
    __slots__ = ("task_id", "page_size", "page_token", "as_of")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    AS_OF_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    page_size: int
    page_token: str
    as_of: _timestamp_pb2.Timestamp
    def __init__(self, task_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., as_of: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListTaskAttemptsResponse(_message.Message):
    __slots__ = ("attempts", "next_page_token")
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    attempts: _containers.RepeatedCompositeFieldContainer[_task_pb2.TaskAttempt]
    next_page_token: str
    def __init__(self, attempts: _Optional[_Iterable[_Union[_task_pb2.TaskAttempt, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListTaskFailuresRequest(_message.Message):
    __slots__ = ("page_size", "page_token", "namespaces", "error_types", "start_time", "end_time")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    NAMESPACES_FIELD_NUMBER: _ClassVar[int]
    ERROR_TYPES_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    namespaces: _containers.RepeatedScalarFieldContainer[str]
    error_types: _containers.RepeatedScalarFieldContainer[str]
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., namespaces: _Optional[_Iterable[str]] = ..., error_types: _Optional[_Iterable[str]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListTaskFailuresResponse(_message.Message):
    __slots__ = ("failures", "next_page_token", "counts")
    FAILURES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    failures: _containers.RepeatedCompositeFieldContainer[_task_pb2.TaskEvent]
    next_page_token: str
    counts: _containers.RepeatedCompositeFieldContainer[FailureCount]
    def __init__(self, failures: _Optional[_Iterable[_Union[_task_pb2.TaskEvent, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., counts: _Optional[_Iterable[_Union[FailureCount, _Mapping]]] = ...) -> None: ...

class FailureCount(_message.Message):
    __slots__ = ("error_type", "count")
    ERROR_TYPE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    error_type: str
    count: int
    def __init__(self, error_type: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class ListTaskEventsResponse(_message.Message):
    __slots__ = ("events", "next_page_token")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_task_pb2.TaskEvent]
    next_page_token: str
    def __init__(self, events: _Optional[_Iterable[_Union[_task_pb2.TaskEvent, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class WatchTaskEventsRequest(_message.Message):
    __slots__ = ("after_cursor", "from_beginning", "task_ids", "states", "labels", "progress_interval", "namespaces", "actions")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    AFTER_CURSOR_FIELD_NUMBER: _ClassVar[int]
    FROM_BEGINNING_FIELD_NUMBER: _ClassVar[int]
    TASK_IDS_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_INTERVAL_FIELD_NUMBER: _ClassVar[int]
    NAMESPACES_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    after_cursor: str
    from_beginning: bool
    task_ids: _containers.RepeatedScalarFieldContainer[str]
    states: _containers.RepeatedScalarFieldContainer[_task_pb2.TaskState]
    labels: _containers.ScalarMap[str, str]
    progress_interval: _duration_pb2.Duration
    namespaces: _containers.RepeatedScalarFieldContainer[str]
    actions: _containers.RepeatedScalarFieldContainer[_task_pb2.TaskAction]
    def __init__(self, after_cursor: _Optional[str] = ..., from_beginning: _Optional[bool] = ..., task_ids: _Optional[_Iterable[str]] = ..., states: _Optional[_Iterable[_Union[_task_pb2.TaskState, str]]] = ..., labels: _Optional[_Mapping[str, str]] = ..., progress_interval: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., namespaces: _Optional[_Iterable[str]] = ..., actions: _Optional[_Iterable[_Union[_task_pb2.TaskAction, str]]] = ...) -> None: ...

class WatchTaskEventsResponse(_message.Message):
    __slots__ = ("events", "cursor")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_task_pb2.TaskEvent]
    cursor: str
    def __init__(self, events: _Optional[_Iterable[_Union[_task_pb2.TaskEvent, _Mapping]]] = ..., cursor: _Optional[str] = ...) -> None: ...

class HeartbeatRequest(_message.Message):
    __slots__ = ("task_id", "worker", "lease_duration")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    LEASE_DURATION_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    worker: str
    lease_duration: _duration_pb2.Duration
    def __init__(self, task_id: _Optional[str] = ..., worker: _Optional[str] = ..., lease_duration: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class HeartbeatResponse(_message.Message):
    __slots__ = ("task", "kill_requested")
    TASK_FIELD_NUMBER: _ClassVar[int]
    KILL_REQUESTED_FIELD_NUMBER: _ClassVar[int]
    task: _task_pb2.Task
    kill_requested: bool
    def __init__(self, task: _Optional[_Union[_task_pb2.Task, _Mapping]] = ..., kill_requested: _Optional[bool] = ...) -> None: ...

class GetStateMachineRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetStateMachineResponse(_message.Message):
    __slots__ = ("states", "actions", "transitions")
    STATES_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    TRANSITIONS_FIELD_NUMBER: _ClassVar[int]
    states: _containers.RepeatedCompositeFieldContainer[StateDescription]
    actions: _containers.RepeatedCompositeFieldContainer[ActionDescription]
    transitions: _containers.RepeatedCompositeFieldContainer[Transition]
    def __init__(self, states: _Optional[_Iterable[_Union[StateDescription, _Mapping]]] = ..., actions: _Optional[_Iterable[_Union[ActionDescription, _Mapping]]] = ..., transitions: _Optional[_Iterable[_Union[Transition, _Mapping]]] = ...) -> None: ...

class StateDescription(_message.Message):
    __slots__ = ("state", "kind", "description", "entered_by", "allowed_actions")
    STATE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ENTERED_BY_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    state: _task_pb2.TaskState
    kind: _task_pb2.StateKind
    description: str
    entered_by: str
    allowed_actions: _containers.RepeatedScalarFieldContainer[_task_pb2.TaskAction]
    def __init__(self, state: _Optional[_Union[_task_pb2.TaskState, str]] = ..., kind: _Optional[_Union[_task_pb2.StateKind, str]] = ..., description: _Optional[str] = ..., entered_by: _Optional[str] = ..., allowed_actions: _Optional[_Iterable[_Union[_task_pb2.TaskAction, str]]] = ...) -> None: ...

class ActionDescription(_message.Message):
    __slots__ = ("action", "method", "from_states", "to_state")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    FROM_STATES_FIELD_NUMBER: _ClassVar[int]
    TO_STATE_FIELD_NUMBER: _ClassVar[int]
    action: _task_pb2.TaskAction
    method: str
    from_states: _containers.RepeatedScalarFieldContainer[_task_pb2.TaskState]
    to_state: _task_pb2.TaskState
    def __init__(self, action: _Optional[_Union[_task_pb2.TaskAction, str]] = ..., method: _Optional[str] = ..., from_states: _Optional[_Iterable[_Union[_task_pb2.TaskState, str]]] = ..., to_state: _Optional[_Union[_task_pb2.TaskState, str]] = ...) -> None: ...

class Transition(_message.Message):
    __slots__ = ("from_state", "action", "to_state")
    FROM_STATE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    TO_STATE_FIELD_NUMBER: _ClassVar[int]
    from_state: _task_pb2.TaskState
    action: _task_pb2.TaskAction
    to_state: _task_pb2.TaskState
    def __init__(self, from_state: _Optional[_Union[_task_pb2.TaskState, str]] = ..., action: _Optional[_Union[_task_pb2.TaskAction, str]] = ..., to_state: _Optional[_Union[_task_pb2.TaskState, str]] = ...) -> None: ...

class EnqueueTaskRequest(_message.Message):
    __slots__ = ("task_id", "expected_version", "request_id", "reason", "operator", "on_behalf_of")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    ON_BEHALF_OF_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    expected_version: int
    request_id: str
    reason: str
    operator: str
    on_behalf_of: str
    def __init__(self, task_id: _Optional[str] = ..., expected_version: _Optional[int] = ..., request_id: _Optional[str] = ..., reason: _Optional[str] = ..., operator: _Optional[str] = ..., on_behalf_of: _Optional[str] = ...) -> None: ...

class EnqueueTaskResponse(_message.Message):
    __slots__ = ("task", "event")
    TASK_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    task: _task_pb2.Task
    event: _task_pb2.TaskEvent
    def __init__(self, task: _Optional[_Union[_task_pb2.Task, _Mapping]] = ..., event: _Optional[_Union[_task_pb2.TaskEvent, _Mapping]] = ...) -> None: ...

class StartTaskRequest(_message.Message):
    __slots__ = ("task_id", "expected_version", "request_id", "reason", "operator", "worker", "lease_duration", "on_behalf_of")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    LEASE_DURATION_FIELD_NUMBER: _ClassVar[int]
    ON_BEHALF_OF_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    expected_version: int
    request_id: str
    reason: str
    operator: str
    worker: str
    lease_duration: _duration_pb2.Duration
    on_behalf_of: str
    def __init__(self, task_id: _Optional[str] = ..., expected_version: _Optional[int] = ..., request_id: _Optional[str] = ..., reason: _Optional[str] = ..., operator: _Optional[str] = ..., worker: _Optional[str] = ..., lease_duration: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., on_behalf_of: _Optional[str] = ...) -> None: ...

class StartTaskResponse(_message.Message):
    __slots__ = ("task", "event")
    TASK_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    task: _task_pb2.Task
    event: _task_pb2.TaskEvent
    def __init__(self, task: _Optional[_Union[_task_pb2.Task, _Mapping]] = ..., event: _Optional[_Union[_task_pb2.TaskEvent, _Mapping]] = ...) -> None: ...

class CompleteTaskRequest(_message.Message):
    __slots__ = ("task_id", "expected_version", "request_id", "reason", "operator", "worker", "on_behalf_of", "result", "exit_code")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    ON_BEHALF_OF_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    expected_version: int
    request_id: str
    reason: str
    operator: str
    worker: str
    on_behalf_of: str
    result: _task_pb2.TaskPayload
    exit_code: int
    def __init__(self, task_id: _Optional[str] = ..., expected_version: _Optional[int] = ..., request_id: _Optional[str] = ..., reason: _Optional[str] = ..., operator: _Optional[str] = ..., worker: _Optional[str] = ..., on_behalf_of: _Optional[str] = ..., result: _Optional[_Union[_task_pb2.TaskPayload, _Mapping]] = ..., exit_code: _Optional[int] = ...) -> None: ...

class CompleteTaskResponse(_message.Message):
    __slots__ = ("task", "event")
    TASK_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    task: _task_pb2.Task
    event: _task_pb2.TaskEvent
    def __init__(self, task: _Optional[_Union[_task_pb2.Task, _Mapping]] = ..., event: _Optional[_Union[_task_pb2.TaskEvent, _Mapping]] = ...) -> None: ...

class FailTaskRequest(_message.Message):
    __slots__ = ("task_id", "expected_version", "request_id", "reason", "operator", "worker", "on_behalf_of", "failure")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    ON_BEHALF_OF_FIELD_NUMBER: _ClassVar[int]
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    expected_version: int
    request_id: str
    reason: str
    operator: str
    worker: str
    on_behalf_of: str
    failure: _task_pb2.TaskFailure
    def __init__(self, task_id: _Optional[str] = ..., expected_version: _Optional[int] = ..., request_id: _Optional[str] = ..., reason: _Optional[str] = ..., operator: _Optional[str] = ..., worker: _Optional[str] = ..., on_behalf_of: _Optional[str] = ..., failure: _Optional[_Union[_task_pb2.TaskFailure, _Mapping]] = ...) -> None: ...

class FailTaskResponse(_message.Message):
    __slots__ = ("task", "event")
    TASK_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    task: _task_pb2.Task
    event: _task_pb2.TaskEvent
    def __init__(self, task: _Optional[_Union[_task_pb2.Task, _Mapping]] = ..., event: _Optional[_Union[_task_pb2.TaskEvent, _Mapping]] = ...) -> None: ...

class RetryTaskRequest(_message.Message):
    __slots__ = ("task_id", "expected_version", "request_id", "reason", "operator", "on_behalf_of")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    ON_BEHALF_OF_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    expected_version: int
    request_id: str
    reason: str
    operator: str
    on_behalf_of: str
    def __init__(self, task_id: _Optional[str] = ..., expected_version: _Optional[int] = ..., request_id: _Optional[str] = ..., reason: _Optional[str] = ..., operator: _Optional[str] = ..., on_behalf_of: _Optional[str] = ...) -> None: ...

class RetryTaskResponse(_message.Message):
    __slots__ = ("task", "event")
    TASK_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    task: _task_pb2.Task
    event: _task_pb2.TaskEvent
    def __init__(self, task: _Optional[_Union[_task_pb2.Task, _Mapping]] = ..., event: _Optional[_Union[_task_pb2.TaskEvent, _Mapping]] = ...) -> None: ...

class PauseTaskRequest(_message.Message):
    __slots__ = ("task_id", "expected_version", "request_id", "reason", "operator", "on_behalf_of")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    ON_BEHALF_OF_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    expected_version: int
    request_id: str
    reason: str
    operator: str
    on_behalf_of: str
    def __init__(self, task_id: _Optional[str] = ..., expected_version: _Optional[int] = ..., request_id: _Optional[str] = ..., reason: _Optional[str] = ..., operator: _Optional[str] = ..., on_behalf_of: _Optional[str] = ...) -> None: ...

class PauseTaskResponse(_message.Message):
    __slots__ = ("task", "event")
    TASK_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    task: _task_pb2.Task
    event: _task_pb2.TaskEvent
    def __init__(self, task: _Optional[_Union[_task_pb2.Task, _Mapping]] = ..., event: _Optional[_Union[_task_pb2.TaskEvent, _Mapping]] = ...) -> None: ...

class ResumeTaskRequest(_message.Message):
    __slots__ = ("task_id", "expected_version", "request_id", "reason", "operator", "on_behalf_of")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    ON_BEHALF_OF_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    expected_version: int
    request_id: str
    reason: str
    operator: str
    on_behalf_of: str
    def __init__(self, task_id: _Optional[str] = ..., expected_version: _Optional[int] = ..., request_id: _Optional[str] = ..., reason: _Optional[str] = ..., operator: _Optional[str] = ..., on_behalf_of: _Optional[str] = ...) -> None: ...

class ResumeTaskResponse(_message.Message):
    __slots__ = ("task", "event")
    TASK_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    task: _task_pb2.Task
    event: _task_pb2.TaskEvent
    def __init__(self, task: _Optional[_Union[_task_pb2.Task, _Mapping]] = ..., event: _Optional[_Union[_task_pb2.TaskEvent, _Mapping]] = ...) -> None: ...

class KillTaskRequest(_message.Message):
    __slots__ = ("task_id", "expected_version", "request_id", "reason", "operator", "on_behalf_of", "grace_period")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    ON_BEHALF_OF_FIELD_NUMBER: _ClassVar[int]
    GRACE_PERIOD_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    expected_version: int
    request_id: str
    reason: str
    operator: str
    on_behalf_of: str
    grace_period: _duration_pb2.Duration
    def __init__(self, task_id: _Optional[str] = ..., expected_version: _Optional[int] = ..., request_id: _Optional[str] = ..., reason: _Optional[str] = ..., operator: _Optional[str] = ..., on_behalf_of: _Optional[str] = ..., grace_period: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class KillTaskResponse(_message.Message):
    __slots__ = ("task", "event")
    TASK_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    task: _task_pb2.Task
    event: _task_pb2.TaskEvent
    def __init__(self, task: _Optional[_Union[_task_pb2.Task, _Mapping]] = ..., event: _Optional[_Union[_task_pb2.TaskEvent, _Mapping]] = ...) -> None: ...

class AbandonTaskRequest(_message.Message):
    __slots__ = ("task_id", "expected_version", "request_id", "reason", "operator", "on_behalf_of")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    ON_BEHALF_OF_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    expected_version: int
    request_id: str
    reason: str
    operator: str
    on_behalf_of: str
    def __init__(self, task_id: _Optional[str] = ..., expected_version: _Optional[int] = ..., request_id: _Optional[str] = ..., reason: _Optional[str] = ..., operator: _Optional[str] = ..., on_behalf_of: _Optional[str] = ...) -> None: ...

class AbandonTaskResponse(_message.Message):
    __slots__ = ("task", "event")
    TASK_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    task: _task_pb2.Task
    event: _task_pb2.TaskEvent
    def __init__(self, task: _Optional[_Union[_task_pb2.Task, _Mapping]] = ..., event: _Optional[_Union[_task_pb2.TaskEvent, _Mapping]] = ...) -> None: ...

class BatchCreateTasksRequest(_message.Message):
    __slots__ = ("requests",)
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    requests: _containers.RepeatedCompositeFieldContainer[CreateTaskRequest]
    def __init__(self, requests: _Optional[_Iterable[_Union[CreateTaskRequest, _Mapping]]] = ...) -> None: ...

class BatchCreateTasksResponse(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[BatchCreateTasksResult]
    def __init__(self, results: _Optional[_Iterable[_Union[BatchCreateTasksResult, _Mapping]]] = ...) -> None: ...

class BatchCreateTasksResult(_message.Message):
    __slots__ = ("task", "event", "error")
    TASK_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    task: _task_pb2.Task
    event: _task_pb2.TaskEvent
    error: _status_pb2.Status
    def __init__(self, task: _Optional[_Union[_task_pb2.Task, _Mapping]] = ..., event: _Optional[_Union[_task_pb2.TaskEvent, _Mapping]] = ..., error: _Optional[_Union[_status_pb2.Status, _Mapping]] = ...) -> None: ...

class BatchTransitionTasksRequest(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[BatchTransitionTasksItem]
    def __init__(self, items: _Optional[_Iterable[_Union[BatchTransitionTasksItem, _Mapping]]] = ...) -> None: ...

class BatchTransitionTasksItem(_message.Message):
    __slots__ = ("enqueue", "start", "complete", "fail", "retry", "pause", "resume", "kill", "abandon")
    ENQUEUE_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    FAIL_FIELD_NUMBER: _ClassVar[int]
    RETRY_FIELD_NUMBER: _ClassVar[int]
    PAUSE_FIELD_NUMBER: _ClassVar[int]
    RESUME_FIELD_NUMBER: _ClassVar[int]
    KILL_FIELD_NUMBER: _ClassVar[int]
    ABANDON_FIELD_NUMBER: _ClassVar[int]
    enqueue: EnqueueTaskRequest
    start: StartTaskRequest
    complete: CompleteTaskRequest
    fail: FailTaskRequest
    retry: RetryTaskRequest
    pause: PauseTaskRequest
    resume: ResumeTaskRequest
    kill: KillTaskRequest
    abandon: AbandonTaskRequest
    def __init__(self, enqueue: _Optional[_Union[EnqueueTaskRequest, _Mapping]] = ..., start: _Optional[_Union[StartTaskRequest, _Mapping]] = ..., complete: _Optional[_Union[CompleteTaskRequest, _Mapping]] = ..., fail: _Optional[_Union[FailTaskRequest, _Mapping]] = ..., retry: _Optional[_Union[RetryTaskRequest, _Mapping]] = ..., pause: _Optional[_Union[PauseTaskRequest, _Mapping]] = ..., resume: _Optional[_Union[ResumeTaskRequest, _Mapping]] = ..., kill: _Optional[_Union[KillTaskRequest, _Mapping]] = ..., abandon: _Optional[_Union[AbandonTaskRequest, _Mapping]] = ...) -> None: ...

class BatchTransitionTasksResponse(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[BatchTransitionTasksResult]
    def __init__(self, results: _Optional[_Iterable[_Union[BatchTransitionTasksResult, _Mapping]]] = ...) -> None: ...

class BatchTransitionTasksResult(_message.Message):
    __slots__ = ("task", "event", "error")
    TASK_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    task: _task_pb2.Task
    event: _task_pb2.TaskEvent
    error: _status_pb2.Status
    def __init__(self, task: _Optional[_Union[_task_pb2.Task, _Mapping]] = ..., event: _Optional[_Union[_task_pb2.TaskEvent, _Mapping]] = ..., error: _Optional[_Union[_status_pb2.Status, _Mapping]] = ...) -> None: ...

class ClaimTasksRequest(_message.Message):
    __slots__ = ("worker", "lease_duration", "max_tasks", "namespace", "labels", "wait", "request_id", "reason", "operator", "on_behalf_of")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    WORKER_FIELD_NUMBER: _ClassVar[int]
    LEASE_DURATION_FIELD_NUMBER: _ClassVar[int]
    MAX_TASKS_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    WAIT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    ON_BEHALF_OF_FIELD_NUMBER: _ClassVar[int]
    worker: str
    lease_duration: _duration_pb2.Duration
    max_tasks: int
    namespace: str
    labels: _containers.ScalarMap[str, str]
    wait: _duration_pb2.Duration
    request_id: str
    reason: str
    operator: str
    on_behalf_of: str
    def __init__(self, worker: _Optional[str] = ..., lease_duration: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., max_tasks: _Optional[int] = ..., namespace: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., wait: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., request_id: _Optional[str] = ..., reason: _Optional[str] = ..., operator: _Optional[str] = ..., on_behalf_of: _Optional[str] = ...) -> None: ...

class ClaimTasksResponse(_message.Message):
    __slots__ = ("claims",)
    CLAIMS_FIELD_NUMBER: _ClassVar[int]
    claims: _containers.RepeatedCompositeFieldContainer[StartTaskResponse]
    def __init__(self, claims: _Optional[_Iterable[_Union[StartTaskResponse, _Mapping]]] = ...) -> None: ...

class StartBulkOperationRequest(_message.Message):
    __slots__ = ("states", "labels", "namespaces", "created_after", "created_before", "updated_after", "updated_before", "task_id_prefix", "action", "reason", "dry_run", "max_tasks", "request_id", "operator")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    STATES_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    NAMESPACES_FIELD_NUMBER: _ClassVar[int]
    CREATED_AFTER_FIELD_NUMBER: _ClassVar[int]
    CREATED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AFTER_FIELD_NUMBER: _ClassVar[int]
    UPDATED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_PREFIX_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    MAX_TASKS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    states: _containers.RepeatedScalarFieldContainer[_task_pb2.TaskState]
    labels: _containers.ScalarMap[str, str]
    namespaces: _containers.RepeatedScalarFieldContainer[str]
    created_after: _timestamp_pb2.Timestamp
    created_before: _timestamp_pb2.Timestamp
    updated_after: _timestamp_pb2.Timestamp
    updated_before: _timestamp_pb2.Timestamp
    task_id_prefix: str
    action: _task_pb2.TaskAction
    reason: str
    dry_run: bool
    max_tasks: int
    request_id: str
    operator: str
    def __init__(self, states: _Optional[_Iterable[_Union[_task_pb2.TaskState, str]]] = ..., labels: _Optional[_Mapping[str, str]] = ..., namespaces: _Optional[_Iterable[str]] = ..., created_after: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., created_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_after: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., task_id_prefix: _Optional[str] = ..., action: _Optional[_Union[_task_pb2.TaskAction, str]] = ..., reason: _Optional[str] = ..., dry_run: _Optional[bool] = ..., max_tasks: _Optional[int] = ..., request_id: _Optional[str] = ..., operator: _Optional[str] = ...) -> None: ...

class BulkOperation(_message.Message):
    __slots__ = ("operation_id", "state", "matched", "applied", "refused", "create_time", "end_time", "action", "reason", "operator", "dry_run", "request")
    class RefusedEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    MATCHED_FIELD_NUMBER: _ClassVar[int]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    REFUSED_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    operation_id: str
    state: BulkOperationState
    matched: int
    applied: int
    refused: _containers.ScalarMap[str, int]
    create_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    action: _task_pb2.TaskAction
    reason: str
    operator: str
    dry_run: bool
    request: StartBulkOperationRequest
    def __init__(self, operation_id: _Optional[str] = ..., state: _Optional[_Union[BulkOperationState, str]] = ..., matched: _Optional[int] = ..., applied: _Optional[int] = ..., refused: _Optional[_Mapping[str, int]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., action: _Optional[_Union[_task_pb2.TaskAction, str]] = ..., reason: _Optional[str] = ..., operator: _Optional[str] = ..., dry_run: _Optional[bool] = ..., request: _Optional[_Union[StartBulkOperationRequest, _Mapping]] = ...) -> None: ...

class GetBulkOperationRequest(_message.Message):
    __slots__ = ("operation_id",)
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    operation_id: str
    def __init__(self, operation_id: _Optional[str] = ...) -> None: ...

class ListBulkOperationsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListBulkOperationsResponse(_message.Message):
    __slots__ = ("operations", "next_page_token")
    OPERATIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    operations: _containers.RepeatedCompositeFieldContainer[BulkOperation]
    next_page_token: str
    def __init__(self, operations: _Optional[_Iterable[_Union[BulkOperation, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class CancelBulkOperationRequest(_message.Message):
    __slots__ = ("operation_id",)
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    operation_id: str
    def __init__(self, operation_id: _Optional[str] = ...) -> None: ...

class CountTaskEventsRequest(_message.Message):
    __slots__ = ("namespaces", "actions", "start_time", "end_time", "bucket_width")
    NAMESPACES_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    BUCKET_WIDTH_FIELD_NUMBER: _ClassVar[int]
    namespaces: _containers.RepeatedScalarFieldContainer[str]
    actions: _containers.RepeatedScalarFieldContainer[_task_pb2.TaskAction]
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    bucket_width: _duration_pb2.Duration
    def __init__(self, namespaces: _Optional[_Iterable[str]] = ..., actions: _Optional[_Iterable[_Union[_task_pb2.TaskAction, str]]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., bucket_width: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class CountTaskEventsResponse(_message.Message):
    __slots__ = ("buckets", "start_time", "end_time", "read_time")
    BUCKETS_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    READ_TIME_FIELD_NUMBER: _ClassVar[int]
    buckets: _containers.RepeatedCompositeFieldContainer[TaskEventBucket]
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    read_time: _timestamp_pb2.Timestamp
    def __init__(self, buckets: _Optional[_Iterable[_Union[TaskEventBucket, _Mapping]]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., read_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TaskEventBucket(_message.Message):
    __slots__ = ("start_time", "count", "actions")
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    start_time: _timestamp_pb2.Timestamp
    count: int
    actions: _containers.RepeatedCompositeFieldContainer[TaskActionCount]
    def __init__(self, start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., count: _Optional[int] = ..., actions: _Optional[_Iterable[_Union[TaskActionCount, _Mapping]]] = ...) -> None: ...

class TaskActionCount(_message.Message):
    __slots__ = ("action", "count")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    action: _task_pb2.TaskAction
    count: int
    def __init__(self, action: _Optional[_Union[_task_pb2.TaskAction, str]] = ..., count: _Optional[int] = ...) -> None: ...

class ConcurrencyLimit(_message.Message):
    __slots__ = ("namespace", "concurrency_key", "max_running", "running", "update_time")
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    MAX_RUNNING_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    namespace: str
    concurrency_key: str
    max_running: int
    running: int
    update_time: _timestamp_pb2.Timestamp
    def __init__(self, namespace: _Optional[str] = ..., concurrency_key: _Optional[str] = ..., max_running: _Optional[int] = ..., running: _Optional[int] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SetConcurrencyLimitRequest(_message.Message):
    __slots__ = ("namespace", "concurrency_key", "max_running", "clear")
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    MAX_RUNNING_FIELD_NUMBER: _ClassVar[int]
    CLEAR_FIELD_NUMBER: _ClassVar[int]
    namespace: str
    concurrency_key: str
    max_running: int
    clear: bool
    def __init__(self, namespace: _Optional[str] = ..., concurrency_key: _Optional[str] = ..., max_running: _Optional[int] = ..., clear: _Optional[bool] = ...) -> None: ...

class SetConcurrencyLimitResponse(_message.Message):
    __slots__ = ("limit",)
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    limit: ConcurrencyLimit
    def __init__(self, limit: _Optional[_Union[ConcurrencyLimit, _Mapping]] = ...) -> None: ...

class ListConcurrencyLimitsRequest(_message.Message):
    __slots__ = ("namespace",)
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    namespace: str
    def __init__(self, namespace: _Optional[str] = ...) -> None: ...

class ListConcurrencyLimitsResponse(_message.Message):
    __slots__ = ("limits",)
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    limits: _containers.RepeatedCompositeFieldContainer[ConcurrencyLimit]
    def __init__(self, limits: _Optional[_Iterable[_Union[ConcurrencyLimit, _Mapping]]] = ...) -> None: ...

import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TaskState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TASK_STATE_UNSPECIFIED: _ClassVar[TaskState]
    TASK_STATE_CREATED: _ClassVar[TaskState]
    TASK_STATE_READY: _ClassVar[TaskState]
    TASK_STATE_RUNNING: _ClassVar[TaskState]
    TASK_STATE_SUCCEEDED: _ClassVar[TaskState]
    TASK_STATE_FAILED: _ClassVar[TaskState]
    TASK_STATE_RETRYING: _ClassVar[TaskState]
    TASK_STATE_PAUSED: _ClassVar[TaskState]
    TASK_STATE_KILLED: _ClassVar[TaskState]
    TASK_STATE_ABANDONED: _ClassVar[TaskState]

class StateKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STATE_KIND_UNSPECIFIED: _ClassVar[StateKind]
    STATE_KIND_INITIAL: _ClassVar[StateKind]
    STATE_KIND_STABLE: _ClassVar[StateKind]
    STATE_KIND_TRANSITIONAL: _ClassVar[StateKind]
    STATE_KIND_TERMINAL: _ClassVar[StateKind]

class TaskAction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TASK_ACTION_UNSPECIFIED: _ClassVar[TaskAction]
    TASK_ACTION_CREATE: _ClassVar[TaskAction]
    TASK_ACTION_ENQUEUE: _ClassVar[TaskAction]
    TASK_ACTION_START: _ClassVar[TaskAction]
    TASK_ACTION_COMPLETE: _ClassVar[TaskAction]
    TASK_ACTION_FAIL: _ClassVar[TaskAction]
    TASK_ACTION_RETRY: _ClassVar[TaskAction]
    TASK_ACTION_PAUSE: _ClassVar[TaskAction]
    TASK_ACTION_RESUME: _ClassVar[TaskAction]
    TASK_ACTION_KILL: _ClassVar[TaskAction]
    TASK_ACTION_ABANDON: _ClassVar[TaskAction]

class TaskView(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TASK_VIEW_UNSPECIFIED: _ClassVar[TaskView]
    TASK_VIEW_BASIC: _ClassVar[TaskView]
    TASK_VIEW_FULL: _ClassVar[TaskView]

class KillOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    KILL_OUTCOME_UNSPECIFIED: _ClassVar[KillOutcome]
    KILL_OUTCOME_CONFIRMED: _ClassVar[KillOutcome]
    KILL_OUTCOME_GRACE_EXPIRED: _ClassVar[KillOutcome]
TASK_STATE_UNSPECIFIED: TaskState
TASK_STATE_CREATED: TaskState
TASK_STATE_READY: TaskState
TASK_STATE_RUNNING: TaskState
TASK_STATE_SUCCEEDED: TaskState
TASK_STATE_FAILED: TaskState
TASK_STATE_RETRYING: TaskState
TASK_STATE_PAUSED: TaskState
TASK_STATE_KILLED: TaskState
TASK_STATE_ABANDONED: TaskState
STATE_KIND_UNSPECIFIED: StateKind
STATE_KIND_INITIAL: StateKind
STATE_KIND_STABLE: StateKind
STATE_KIND_TRANSITIONAL: StateKind
STATE_KIND_TERMINAL: StateKind
TASK_ACTION_UNSPECIFIED: TaskAction
TASK_ACTION_CREATE: TaskAction
TASK_ACTION_ENQUEUE: TaskAction
TASK_ACTION_START: TaskAction
TASK_ACTION_COMPLETE: TaskAction
TASK_ACTION_FAIL: TaskAction
TASK_ACTION_RETRY: TaskAction
TASK_ACTION_PAUSE: TaskAction
TASK_ACTION_RESUME: TaskAction
TASK_ACTION_KILL: TaskAction
TASK_ACTION_ABANDON: TaskAction
TASK_VIEW_UNSPECIFIED: TaskView
TASK_VIEW_BASIC: TaskView
TASK_VIEW_FULL: TaskView
KILL_OUTCOME_UNSPECIFIED: KillOutcome
KILL_OUTCOME_CONFIRMED: KillOutcome
KILL_OUTCOME_GRACE_EXPIRED: KillOutcome

class RetryPolicy(_message.Message):
    __slots__ = ("max_attempts", "initial_backoff", "backoff_multiplier", "max_backoff", "jitter", "non_retryable_error_types")
    MAX_ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    INITIAL_BACKOFF_FIELD_NUMBER: _ClassVar[int]
    BACKOFF_MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    MAX_BACKOFF_FIELD_NUMBER: _ClassVar[int]
    JITTER_FIELD_NUMBER: _ClassVar[int]
    NON_RETRYABLE_ERROR_TYPES_FIELD_NUMBER: _ClassVar[int]
    max_attempts: int
    initial_backoff: _duration_pb2.Duration
    backoff_multiplier: float
    max_backoff: _duration_pb2.Duration
    jitter: float
    non_retryable_error_types: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, max_attempts: _Optional[int] = ..., initial_backoff: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., backoff_multiplier: _Optional[float] = ..., max_backoff: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., jitter: _Optional[float] = ..., non_retryable_error_types: _Optional[_Iterable[str]] = ...) -> None: ...

class TaskPayload(_message.Message):
    __slots__ = ("data", "content_type")
    DATA_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    content_type: str
    def __init__(self, data: _Optional[bytes] = ..., content_type: _Optional[str] = ...) -> None: ...

class TaskFailure(_message.Message):
    __slots__ = ("error_type", "message", "stack_trace", "exit_code", "non_retryable", "details")
    ERROR_TYPE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    STACK_TRACE_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    NON_RETRYABLE_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    error_type: str
    message: str
    stack_trace: str
    exit_code: int
    non_retryable: bool
    details: TaskPayload
    def __init__(self, error_type: _Optional[str] = ..., message: _Optional[str] = ..., stack_trace: _Optional[str] = ..., exit_code: _Optional[int] = ..., non_retryable: _Optional[bool] = ..., details: _Optional[_Union[TaskPayload, _Mapping]] = ...) -> None: ...

class TaskWaitReason(_message.Message):
    __slots__ = ("upstreams", "not_before", "auto_enqueue")
    UPSTREAMS_FIELD_NUMBER: _ClassVar[int]
    NOT_BEFORE_FIELD_NUMBER: _ClassVar[int]
    AUTO_ENQUEUE_FIELD_NUMBER: _ClassVar[int]
    upstreams: _containers.RepeatedCompositeFieldContainer[BlockingUpstream]
    not_before: _timestamp_pb2.Timestamp
    auto_enqueue: bool
    def __init__(self, upstreams: _Optional[_Iterable[_Union[BlockingUpstream, _Mapping]]] = ..., not_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., auto_enqueue: _Optional[bool] = ...) -> None: ...

class BlockingUpstream(_message.Message):
    __slots__ = ("task_id", "state", "can_succeed")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    CAN_SUCCEED_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    state: TaskState
    can_succeed: bool
    def __init__(self, task_id: _Optional[str] = ..., state: _Optional[_Union[TaskState, str]] = ..., can_succeed: _Optional[bool] = ...) -> None: ...

class Task(_message.Message):
    __slots__ = ("task_id", "state", "version", "labels", "depends_on", "rerun_of", "retry_policy", "create_time", "update_time", "attempt", "worker", "lease_expire_time", "last_heartbeat_time", "next_attempt_time", "auto_enqueue", "namespace", "input", "result", "last_failure", "effective_retry_policy", "priority", "not_before", "timeouts", "kill_requested_time", "kill_deadline", "concurrency_key", "wait_reason")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    DEPENDS_ON_FIELD_NUMBER: _ClassVar[int]
    RERUN_OF_FIELD_NUMBER: _ClassVar[int]
    RETRY_POLICY_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    LEASE_EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_HEARTBEAT_TIME_FIELD_NUMBER: _ClassVar[int]
    NEXT_ATTEMPT_TIME_FIELD_NUMBER: _ClassVar[int]
    AUTO_ENQUEUE_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    LAST_FAILURE_FIELD_NUMBER: _ClassVar[int]
    EFFECTIVE_RETRY_POLICY_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    NOT_BEFORE_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    KILL_REQUESTED_TIME_FIELD_NUMBER: _ClassVar[int]
    KILL_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_KEY_FIELD_NUMBER: _ClassVar[int]
    WAIT_REASON_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    state: TaskState
    version: int
    labels: _containers.ScalarMap[str, str]
    depends_on: _containers.RepeatedScalarFieldContainer[str]
    rerun_of: str
    retry_policy: RetryPolicy
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    attempt: int
    worker: str
    lease_expire_time: _timestamp_pb2.Timestamp
    last_heartbeat_time: _timestamp_pb2.Timestamp
    next_attempt_time: _timestamp_pb2.Timestamp
    auto_enqueue: bool
    namespace: str
    input: TaskPayload
    result: TaskPayload
    last_failure: TaskFailure
    effective_retry_policy: RetryPolicy
    priority: int
    not_before: _timestamp_pb2.Timestamp
    timeouts: TaskTimeouts
    kill_requested_time: _timestamp_pb2.Timestamp
    kill_deadline: _timestamp_pb2.Timestamp
    concurrency_key: str
    wait_reason: TaskWaitReason
    def __init__(self, task_id: _Optional[str] = ..., state: _Optional[_Union[TaskState, str]] = ..., version: _Optional[int] = ..., labels: _Optional[_Mapping[str, str]] = ..., depends_on: _Optional[_Iterable[str]] = ..., rerun_of: _Optional[str] = ..., retry_policy: _Optional[_Union[RetryPolicy, _Mapping]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., attempt: _Optional[int] = ..., worker: _Optional[str] = ..., lease_expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_heartbeat_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., next_attempt_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., auto_enqueue: _Optional[bool] = ..., namespace: _Optional[str] = ..., input: _Optional[_Union[TaskPayload, _Mapping]] = ..., result: _Optional[_Union[TaskPayload, _Mapping]] = ..., last_failure: _Optional[_Union[TaskFailure, _Mapping]] = ..., effective_retry_policy: _Optional[_Union[RetryPolicy, _Mapping]] = ..., priority: _Optional[int] = ..., not_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., timeouts: _Optional[_Union[TaskTimeouts, _Mapping]] = ..., kill_requested_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., kill_deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., concurrency_key: _Optional[str] = ..., wait_reason: _Optional[_Union[TaskWaitReason, _Mapping]] = ...) -> None: ...

class TaskTimeouts(_message.Message):
    __slots__ = ("ready_timeout", "run_timeout", "deadline")
    READY_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    RUN_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    ready_timeout: _duration_pb2.Duration
    run_timeout: _duration_pb2.Duration
    deadline: _timestamp_pb2.Timestamp
    def __init__(self, ready_timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., run_timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TaskEvent(_message.Message):
    __slots__ = ("task_id", "version", "cursor", "from_state", "to_state", "action", "operator", "reason", "request_id", "create_time", "namespace", "on_behalf_of", "worker", "attempt", "failure", "exit_code", "graceful_kill")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CURSOR_FIELD_NUMBER: _ClassVar[int]
    FROM_STATE_FIELD_NUMBER: _ClassVar[int]
    TO_STATE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    ON_BEHALF_OF_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    GRACEFUL_KILL_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    version: int
    cursor: str
    from_state: TaskState
    to_state: TaskState
    action: TaskAction
    operator: str
    reason: str
    request_id: str
    create_time: _timestamp_pb2.Timestamp
    namespace: str
    on_behalf_of: str
    worker: str
    attempt: int
    failure: TaskFailure
    exit_code: int
    graceful_kill: GracefulKill
    def __init__(self, task_id: _Optional[str] = ..., version: _Optional[int] = ..., cursor: _Optional[str] = ..., from_state: _Optional[_Union[TaskState, str]] = ..., to_state: _Optional[_Union[TaskState, str]] = ..., action: _Optional[_Union[TaskAction, str]] = ..., operator: _Optional[str] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., namespace: _Optional[str] = ..., on_behalf_of: _Optional[str] = ..., worker: _Optional[str] = ..., attempt: _Optional[int] = ..., failure: _Optional[_Union[TaskFailure, _Mapping]] = ..., exit_code: _Optional[int] = ..., graceful_kill: _Optional[_Union[GracefulKill, _Mapping]] = ...) -> None: ...

class GracefulKill(_message.Message):
    __slots__ = ("requested_by", "reason", "on_behalf_of", "request_time", "deadline", "outcome")
    REQUESTED_BY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ON_BEHALF_OF_FIELD_NUMBER: _ClassVar[int]
    REQUEST_TIME_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    requested_by: str
    reason: str
    on_behalf_of: str
    request_time: _timestamp_pb2.Timestamp
    deadline: _timestamp_pb2.Timestamp
    outcome: KillOutcome
    def __init__(self, requested_by: _Optional[str] = ..., reason: _Optional[str] = ..., on_behalf_of: _Optional[str] = ..., request_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., deadline: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., outcome: _Optional[_Union[KillOutcome, str]] = ...) -> None: ...

class TaskAttempt(_message.Message):
    __slots__ = ("attempt", "worker", "start_time", "end_time", "end_action", "end_state", "end_operator", "failure", "exit_code", "has_result")
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    END_ACTION_FIELD_NUMBER: _ClassVar[int]
    END_STATE_FIELD_NUMBER: _ClassVar[int]
    END_OPERATOR_FIELD_NUMBER: _ClassVar[int]
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    HAS_RESULT_FIELD_NUMBER: _ClassVar[int]
    attempt: int
    worker: str
    start_time: _timestamp_pb2.Timestamp
    end_time: _timestamp_pb2.Timestamp
    end_action: TaskAction
    end_state: TaskState
    end_operator: str
    failure: TaskFailure
    exit_code: int
    has_result: bool
    def __init__(self, attempt: _Optional[int] = ..., worker: _Optional[str] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end_action: _Optional[_Union[TaskAction, str]] = ..., end_state: _Optional[_Union[TaskState, str]] = ..., end_operator: _Optional[str] = ..., failure: _Optional[_Union[TaskFailure, _Mapping]] = ..., exit_code: _Optional[int] = ..., has_result: _Optional[bool] = ...) -> None: ...

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

class EventSinkState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_SINK_STATE_UNSPECIFIED: _ClassVar[EventSinkState]
    EVENT_SINK_STATE_ACTIVE: _ClassVar[EventSinkState]
    EVENT_SINK_STATE_PAUSED: _ClassVar[EventSinkState]
    EVENT_SINK_STATE_FAILING: _ClassVar[EventSinkState]

class KafkaSaslMechanism(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    KAFKA_SASL_MECHANISM_UNSPECIFIED: _ClassVar[KafkaSaslMechanism]
    KAFKA_SASL_MECHANISM_PLAIN: _ClassVar[KafkaSaslMechanism]
    KAFKA_SASL_MECHANISM_SCRAM_SHA_256: _ClassVar[KafkaSaslMechanism]
    KAFKA_SASL_MECHANISM_SCRAM_SHA_512: _ClassVar[KafkaSaslMechanism]
EVENT_SINK_STATE_UNSPECIFIED: EventSinkState
EVENT_SINK_STATE_ACTIVE: EventSinkState
EVENT_SINK_STATE_PAUSED: EventSinkState
EVENT_SINK_STATE_FAILING: EventSinkState
KAFKA_SASL_MECHANISM_UNSPECIFIED: KafkaSaslMechanism
KAFKA_SASL_MECHANISM_PLAIN: KafkaSaslMechanism
KAFKA_SASL_MECHANISM_SCRAM_SHA_256: KafkaSaslMechanism
KAFKA_SASL_MECHANISM_SCRAM_SHA_512: KafkaSaslMechanism

class EventSinkFilter(_message.Message):
    __slots__ = ("task_ids", "states", "labels", "namespaces", "actions")
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TASK_IDS_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    NAMESPACES_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    task_ids: _containers.RepeatedScalarFieldContainer[str]
    states: _containers.RepeatedScalarFieldContainer[_task_pb2.TaskState]
    labels: _containers.ScalarMap[str, str]
    namespaces: _containers.RepeatedScalarFieldContainer[str]
    actions: _containers.RepeatedScalarFieldContainer[_task_pb2.TaskAction]
    def __init__(self, task_ids: _Optional[_Iterable[str]] = ..., states: _Optional[_Iterable[_Union[_task_pb2.TaskState, str]]] = ..., labels: _Optional[_Mapping[str, str]] = ..., namespaces: _Optional[_Iterable[str]] = ..., actions: _Optional[_Iterable[_Union[_task_pb2.TaskAction, str]]] = ...) -> None: ...

class WebhookTarget(_message.Message):
    __slots__ = ("url", "secret", "headers", "timeout")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    URL_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    url: str
    secret: str
    headers: _containers.ScalarMap[str, str]
    timeout: _duration_pb2.Duration
    def __init__(self, url: _Optional[str] = ..., secret: _Optional[str] = ..., headers: _Optional[_Mapping[str, str]] = ..., timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class KafkaTls(_message.Message):
    __slots__ = ("enabled", "ca_pem", "client_cert_pem", "client_key_pem")
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    CA_PEM_FIELD_NUMBER: _ClassVar[int]
    CLIENT_CERT_PEM_FIELD_NUMBER: _ClassVar[int]
    CLIENT_KEY_PEM_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    ca_pem: str
    client_cert_pem: str
    client_key_pem: str
    def __init__(self, enabled: _Optional[bool] = ..., ca_pem: _Optional[str] = ..., client_cert_pem: _Optional[str] = ..., client_key_pem: _Optional[str] = ...) -> None: ...

class KafkaSasl(_message.Message):
    __slots__ = ("mechanism", "username", "password")
    MECHANISM_FIELD_NUMBER: _ClassVar[int]
    USERNAME_FIELD_NUMBER: _ClassVar[int]
    PASSWORD_FIELD_NUMBER: _ClassVar[int]
    mechanism: KafkaSaslMechanism
    username: str
    password: str
    def __init__(self, mechanism: _Optional[_Union[KafkaSaslMechanism, str]] = ..., username: _Optional[str] = ..., password: _Optional[str] = ...) -> None: ...

class KafkaTarget(_message.Message):
    __slots__ = ("bootstrap_servers", "topic", "tls", "sasl")
    BOOTSTRAP_SERVERS_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    TLS_FIELD_NUMBER: _ClassVar[int]
    SASL_FIELD_NUMBER: _ClassVar[int]
    bootstrap_servers: _containers.RepeatedScalarFieldContainer[str]
    topic: str
    tls: KafkaTls
    sasl: KafkaSasl
    def __init__(self, bootstrap_servers: _Optional[_Iterable[str]] = ..., topic: _Optional[str] = ..., tls: _Optional[_Union[KafkaTls, _Mapping]] = ..., sasl: _Optional[_Union[KafkaSasl, _Mapping]] = ...) -> None: ...

class EventSink(_message.Message):
    __slots__ = ("sink_id", "filter", "webhook", "kafka", "state", "delivered_cursor", "pending_events", "lag", "last_error", "last_delivery_time", "create_time", "delivered_events")
    SINK_ID_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    KAFKA_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    DELIVERED_CURSOR_FIELD_NUMBER: _ClassVar[int]
    PENDING_EVENTS_FIELD_NUMBER: _ClassVar[int]
    LAG_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    LAST_DELIVERY_TIME_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    DELIVERED_EVENTS_FIELD_NUMBER: _ClassVar[int]
    sink_id: str
    filter: EventSinkFilter
    webhook: WebhookTarget
    kafka: KafkaTarget
    state: EventSinkState
    delivered_cursor: str
    pending_events: int
    lag: _duration_pb2.Duration
    last_error: _status_pb2.Status
    last_delivery_time: _timestamp_pb2.Timestamp
    create_time: _timestamp_pb2.Timestamp
    delivered_events: int
    def __init__(self, sink_id: _Optional[str] = ..., filter: _Optional[_Union[EventSinkFilter, _Mapping]] = ..., webhook: _Optional[_Union[WebhookTarget, _Mapping]] = ..., kafka: _Optional[_Union[KafkaTarget, _Mapping]] = ..., state: _Optional[_Union[EventSinkState, str]] = ..., delivered_cursor: _Optional[str] = ..., pending_events: _Optional[int] = ..., lag: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., last_error: _Optional[_Union[_status_pb2.Status, _Mapping]] = ..., last_delivery_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., delivered_events: _Optional[int] = ...) -> None: ...

class CreateEventSinkRequest(_message.Message):
    __slots__ = ("sink_id", "filter", "webhook", "kafka", "after_cursor", "from_beginning", "paused")
    SINK_ID_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    KAFKA_FIELD_NUMBER: _ClassVar[int]
    AFTER_CURSOR_FIELD_NUMBER: _ClassVar[int]
    FROM_BEGINNING_FIELD_NUMBER: _ClassVar[int]
    PAUSED_FIELD_NUMBER: _ClassVar[int]
    sink_id: str
    filter: EventSinkFilter
    webhook: WebhookTarget
    kafka: KafkaTarget
    after_cursor: str
    from_beginning: bool
    paused: bool
    def __init__(self, sink_id: _Optional[str] = ..., filter: _Optional[_Union[EventSinkFilter, _Mapping]] = ..., webhook: _Optional[_Union[WebhookTarget, _Mapping]] = ..., kafka: _Optional[_Union[KafkaTarget, _Mapping]] = ..., after_cursor: _Optional[str] = ..., from_beginning: _Optional[bool] = ..., paused: _Optional[bool] = ...) -> None: ...

class CreateEventSinkResponse(_message.Message):
    __slots__ = ("sink",)
    SINK_FIELD_NUMBER: _ClassVar[int]
    sink: EventSink
    def __init__(self, sink: _Optional[_Union[EventSink, _Mapping]] = ...) -> None: ...

class GetEventSinkRequest(_message.Message):
    __slots__ = ("sink_id",)
    SINK_ID_FIELD_NUMBER: _ClassVar[int]
    sink_id: str
    def __init__(self, sink_id: _Optional[str] = ...) -> None: ...

class GetEventSinkResponse(_message.Message):
    __slots__ = ("sink",)
    SINK_FIELD_NUMBER: _ClassVar[int]
    sink: EventSink
    def __init__(self, sink: _Optional[_Union[EventSink, _Mapping]] = ...) -> None: ...

class ListEventSinksRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListEventSinksResponse(_message.Message):
    __slots__ = ("sinks", "next_page_token")
    SINKS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    sinks: _containers.RepeatedCompositeFieldContainer[EventSink]
    next_page_token: str
    def __init__(self, sinks: _Optional[_Iterable[_Union[EventSink, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class UpdateEventSinkRequest(_message.Message):
    __slots__ = ("sink_id", "filter", "webhook", "kafka", "paused")
    SINK_ID_FIELD_NUMBER: _ClassVar[int]
    FILTER_FIELD_NUMBER: _ClassVar[int]
    WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    KAFKA_FIELD_NUMBER: _ClassVar[int]
    PAUSED_FIELD_NUMBER: _ClassVar[int]
    sink_id: str
    filter: EventSinkFilter
    webhook: WebhookTarget
    kafka: KafkaTarget
    paused: bool
    def __init__(self, sink_id: _Optional[str] = ..., filter: _Optional[_Union[EventSinkFilter, _Mapping]] = ..., webhook: _Optional[_Union[WebhookTarget, _Mapping]] = ..., kafka: _Optional[_Union[KafkaTarget, _Mapping]] = ..., paused: _Optional[bool] = ...) -> None: ...

class UpdateEventSinkResponse(_message.Message):
    __slots__ = ("sink",)
    SINK_FIELD_NUMBER: _ClassVar[int]
    sink: EventSink
    def __init__(self, sink: _Optional[_Union[EventSink, _Mapping]] = ...) -> None: ...

class DeleteEventSinkRequest(_message.Message):
    __slots__ = ("sink_id",)
    SINK_ID_FIELD_NUMBER: _ClassVar[int]
    sink_id: str
    def __init__(self, sink_id: _Optional[str] = ...) -> None: ...

class DeleteEventSinkResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RewindEventSinkRequest(_message.Message):
    __slots__ = ("sink_id", "after_cursor", "from_beginning")
    SINK_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_CURSOR_FIELD_NUMBER: _ClassVar[int]
    FROM_BEGINNING_FIELD_NUMBER: _ClassVar[int]
    sink_id: str
    after_cursor: str
    from_beginning: bool
    def __init__(self, sink_id: _Optional[str] = ..., after_cursor: _Optional[str] = ..., from_beginning: _Optional[bool] = ...) -> None: ...

class RewindEventSinkResponse(_message.Message):
    __slots__ = ("sink",)
    SINK_FIELD_NUMBER: _ClassVar[int]
    sink: EventSink
    def __init__(self, sink: _Optional[_Union[EventSink, _Mapping]] = ...) -> None: ...

"""TaskService handlers: validate, call the store, convert. No rules and no SQL live here."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, AsyncIterator, Callable, Coroutine

import grpc
from tasklife.v1 import task_pb2, task_service_pb2, task_service_pb2_grpc

from tasklife_server.domain import cursor
from tasklife_server.domain.access import BATCH_TRANSITION_METHOD, Principal
from tasklife_server.domain.errors import FieldViolation, InvalidRequest, TasklifeError
from tasklife_server.domain.model import Change, NewTask, TransitionCommand
from tasklife_server.domain.ids import is_valid_task_id, new_task_id
from tasklife_server.domain.states import TRANSITION_ACTIONS, Action, State
from tasklife_server.service import pagination, validation
from tasklife_server.security.authenticator import Gate, require_role
from tasklife_server.service.convert import (
    ACTION_TO_PB, attempt_to_pb, bulk_operation_to_pb, concurrency_limit_to_pb, event_to_pb,
    state_machine_pb, state_name, task_to_pb, wait_reason_to_pb,
)
from tasklife_server.service.errors import status_of
from tasklife_server.storage.bulk import BulkStore, NewBulkOperation
from tasklife_server.storage.store import TaskStore
from tasklife_server.stream.hub import EventHub

OPERATOR_METADATA_KEY = "tasklife-operator"
DEFAULT_TASKS_PAGE = 50
DEFAULT_EVENTS_PAGE = 100
DEFAULT_ATTEMPTS_PAGE = 100
DEFAULT_FAILURES_WINDOW = timedelta(hours=24)
# A long-polling claim answers this long before the caller's own deadline would end it.
CLAIM_ANSWER_MARGIN_SECONDS = 0.5


def metadata_operator(context: grpc.aio.ServicerContext) -> str | None:
    for key, value in context.invocation_metadata() or ():
        if key == OPERATOR_METADATA_KEY:
            return value
    return None


class TaskServicer(task_service_pb2_grpc.TaskServiceServicer):
    """Every handler first passes the gate (who calls, and may they call this method), then
    reaches only the caller's namespaces."""

    def __init__(self, store: TaskStore, hub: EventHub, gate: Gate, max_payload_bytes: int,
                 bulk: BulkStore | None = None):
        self._store = store
        self._bulk = bulk if bulk is not None else BulkStore(store)
        self._hub = hub
        self._gate = gate
        self._max_payload = max_payload_bytes
        self._state_machine = state_machine_pb()

    def _task_pb(self, task: Any) -> task_pb2.Task:
        return task_to_pb(task, self._store.policies)

    async def CreateTask(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "CreateTask")
        task_id, spec, operator, reason, behalf, task_input = validation.create_task(
            request, metadata_operator(context), caller, self._max_payload
        )
        change, _created = await self._store.create_task(
            task_id or new_task_id(), spec, operator, reason, behalf, caller.reach, task_input
        )
        return task_service_pb2.CreateTaskResponse(task=self._task_pb(change.task), event=event_to_pb(change.event))

    async def GetTask(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "GetTask")
        problems = validation.Violations()
        validation.check_task_id(request.task_id, "task_id", problems)
        as_of = validation.instant(request, "as_of", problems)
        full = validation.view(request.view, "view", task_pb2.TASK_VIEW_FULL, problems)
        problems.raise_if_any()
        task = await self._store.get_task(request.task_id, caller.reach, as_of, full=full)
        rendered = self._task_pb(task)
        if task.state is State.CREATED and as_of is None:
            # A second read, right after the task's: it says what holds the task as of then.
            rendered.wait_reason.CopyFrom(wait_reason_to_pb(await self._store.wait_reason(task)))
        return task_service_pb2.GetTaskResponse(task=rendered)

    async def ListTasks(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "ListTasks")
        problems = validation.Violations()
        limit = validation.page_size(request.page_size, DEFAULT_TASKS_PAGE, problems)
        as_of = validation.instant(request, "as_of", problems)
        full = validation.view(request.view, "view", task_pb2.TASK_VIEW_BASIC, problems)
        order = validation.order_by(request.order_by, problems)
        if as_of is not None:
            validation.refuse_with_as_of(request, order, problems)
        task_filter = validation.task_filter(request, caller, problems)
        # A token is bound to its instant and order too (each left out at its default: older
        # tokens stay valid).
        instant = [as_of.isoformat()] if as_of else []
        ordered = [order] if order != validation.ORDER_BY_VALUES[0] else []
        filters = pagination.fingerprint(*task_filter.fingerprint_parts(), *instant, *ordered)
        after = token_position(request.page_token, filters, _task_position)
        tasks = await self._store.list_tasks(
            task_filter, after=after, limit=limit + 1, order_by=order, as_of=as_of, full=full
        )
        rendered = [self._task_pb(t) for t in tasks[:limit]]
        count = pagination.fitting(t.ByteSize() for t in rendered)
        next_token = ""
        if count < len(tasks):
            last = tasks[count - 1]
            keyset_time = last.updated_at if order.startswith("update_time") else last.created_at
            next_token = pagination.encode(filters, [keyset_time.isoformat(), last.task_id])
        return task_service_pb2.ListTasksResponse(tasks=rendered[:count], next_page_token=next_token)

    async def CountTasks(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "CountTasks")
        problems = validation.Violations()
        by_state, by_namespace, label_keys = validation.group_by(request.group_by, problems)
        task_filter = validation.task_filter(request, caller, problems)
        read_time, groups = await self._store.count_tasks(
            task_filter, by_state=by_state, by_namespace=by_namespace, label_keys=label_keys
        )
        if not request.group_by and not groups:
            groups = [(None, None, [], 0)]
        # Ordered by the values in group_by order (the statement orders by its own columns).
        counted = sorted((_group_values(request.group_by, g), g[3]) for g in groups)
        response = task_service_pb2.CountTasksResponse(
            counts=[task_service_pb2.TaskCount(values=values, count=n) for values, n in counted]
        )
        response.read_time.FromDatetime(read_time)
        return response

    async def ListTaskEvents(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "ListTaskEvents")
        problems = validation.Violations()
        validation.check_task_id(request.task_id, "task_id", problems)
        limit = validation.page_size(request.page_size, DEFAULT_EVENTS_PAGE, problems)
        start, end = validation.time_range(request, problems)
        problems.raise_if_any()
        bounds = [t.isoformat() if t else None for t in (start, end)] if start or end else []
        filters = pagination.fingerprint(request.task_id, *bounds)
        after = token_position(request.page_token, filters, _version_position) or 0
        events = await self._store.list_task_events(
            request.task_id, after_version=after, limit=limit + 1, reach=caller.reach, start_time=start, end_time=end
        )
        rendered = [event_to_pb(e) for e in events[:limit]]
        count = pagination.fitting(e.ByteSize() for e in rendered)
        next_token = pagination.encode(filters, [events[count - 1].version]) if count < len(events) else ""
        return task_service_pb2.ListTaskEventsResponse(events=rendered[:count], next_page_token=next_token)

    async def ListTaskAttempts(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "ListTaskAttempts")
        problems = validation.Violations()
        validation.check_task_id(request.task_id, "task_id", problems)
        limit = validation.page_size(request.page_size, DEFAULT_ATTEMPTS_PAGE, problems)
        as_of = validation.instant(request, "as_of", problems)
        problems.raise_if_any()
        filters = pagination.fingerprint(request.task_id, *([as_of.isoformat()] if as_of else []))
        after = token_position(request.page_token, filters, _version_position) or 0
        attempts = await self._store.list_task_attempts(
            request.task_id, after_attempt=after, limit=limit + 1, reach=caller.reach, as_of=as_of
        )
        rendered = [attempt_to_pb(a) for a in attempts[:limit]]
        count = pagination.fitting(a.ByteSize() for a in rendered)
        next_token = pagination.encode(filters, [attempts[count - 1].attempt]) if count < len(attempts) else ""
        return task_service_pb2.ListTaskAttemptsResponse(attempts=rendered[:count], next_page_token=next_token)

    async def ListTaskFailures(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "ListTaskFailures")
        problems = validation.Violations()
        limit = validation.page_size(request.page_size, DEFAULT_EVENTS_PAGE, problems)
        error_types = validation.error_type_filter(request.error_types, problems)
        start, end = validation.time_range(request, problems)
        problems.raise_if_any()
        namespaces = validation.namespace_filter(request.namespaces, caller, problems)
        given = [t.isoformat() if t else None for t in (start, end)]
        filters = pagination.fingerprint(namespaces, error_types, *given)
        position = token_position(request.page_token, filters, _failure_position)
        if position is not None:  # the range the first page resolved, so that "now" stays put
            before, (since, until) = position
        else:
            until = end or datetime.now(timezone.utc)
            since, before = start or until - DEFAULT_FAILURES_WINDOW, None
        events, counts = await self._store.list_task_failures(
            since=since, until=until, before=before, limit=limit + 1, reach=namespaces, error_types=error_types
        )
        rendered = [event_to_pb(e) for e in events[:limit]]
        count = pagination.fitting(e.ByteSize() for e in rendered)
        next_token = ""
        if count < len(events):
            last = events[count - 1]
            next_token = pagination.encode(filters, [last.created_at.isoformat(), last.event_id, since.isoformat(),
                                                     until.isoformat()])
        return task_service_pb2.ListTaskFailuresResponse(
            failures=rendered[:count], next_page_token=next_token,
            counts=[task_service_pb2.FailureCount(error_type=t, count=n) for t, n in counts],
        )

    async def CountTaskEvents(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "CountTaskEvents")
        problems = validation.Violations()
        actions = validation.action_filter(request.actions, problems)
        since, until, width_s = validation.event_count_window(request, datetime.now(timezone.utc), problems)
        problems.raise_if_any()
        namespaces = validation.namespace_filter(request.namespaces, caller, problems)
        read_time, counts = await self._store.count_task_events(
            since=since, until=until, width_s=width_s, reach=namespaces, actions=actions or None
        )
        response = task_service_pb2.CountTaskEventsResponse(buckets=_event_buckets(since, until, width_s, counts))
        response.start_time.FromDatetime(since)
        response.end_time.FromDatetime(until)
        response.read_time.FromDatetime(read_time)
        return response

    async def GetStateMachine(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        self._gate.admit(context, "GetStateMachine")
        return self._state_machine

    async def WatchTaskEvents(self, request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        caller = self._gate.admit(context, "WatchTaskEvents")
        watch_filter, start, progress_interval = validation.watch(request, caller)
        with self._gate.stream_slot(caller):
            subscription = await self._hub.subscribe(watch_filter, start, request.after_cursor)
            async for items, position in subscription.batches(progress_interval):
                yield task_service_pb2.WatchTaskEventsResponse(
                    events=[item.rendered for item in items], cursor=cursor.encode(*position, self._hub.timeline)
                )

    async def Heartbeat(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "Heartbeat")
        task_id, worker, lease_ms = validation.heartbeat(request)
        task = await self._store.heartbeat(task_id, worker, lease_ms, caller.reach)
        return task_service_pb2.HeartbeatResponse(task=self._task_pb(task), kill_requested=task.pending_kill is not None)

    async def BatchCreateTasks(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "BatchCreateTasks")
        validation.batch_size(len(request.requests), "requests")
        operator = metadata_operator(context)
        prepared = [_new_task(item, operator, caller, self._max_payload) for item in request.requests]
        results = await _batch_results(
            prepared, NewTask, self._store.create_tasks, task_service_pb2.BatchCreateTasksResult, lambda o: o[0],
            self._task_pb,
        )
        return task_service_pb2.BatchCreateTasksResponse(results=results)

    async def BatchTransitionTasks(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, BATCH_TRANSITION_METHOD)
        validation.batch_size(len(request.items), "items")
        operator = metadata_operator(context)
        prepared = [_batch_command(item, operator, caller, self._max_payload) for item in request.items]
        results = await _batch_results(
            prepared, TransitionCommand, self._store.transition_batch,
            task_service_pb2.BatchTransitionTasksResult, lambda o: o, self._task_pb,
        )
        return task_service_pb2.BatchTransitionTasksResponse(results=results)

    async def ClaimTasks(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "ClaimTasks")
        claim, wait = validation.claim(request, metadata_operator(context), caller)
        remaining = context.time_remaining()
        if remaining is not None:  # answer (empty) before the caller's deadline, not after it
            wait = max(min(wait, remaining - CLAIM_ANSWER_MARGIN_SECONDS), 0.0)
        changes = await self._store.claim_tasks(claim, wait)
        return task_service_pb2.ClaimTasksResponse(
            claims=[
                task_service_pb2.StartTaskResponse(task=self._task_pb(c.task), event=event_to_pb(c.event))
                for c in changes
            ]
        )

    async def StartBulkOperation(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "StartBulkOperation")
        problems = validation.Violations()
        action = validation.bulk_action(request.action, problems)
        max_tasks = validation.bulk_max_tasks(request.max_tasks, problems)
        validation.check_request_id(request.request_id, problems)
        validation.check_reason(request.reason, problems)
        operator = validation.resolve_operator(request.operator, metadata_operator(context), caller, problems)
        task_filter = validation.task_filter(request, caller, problems)  # raises every problem so far
        assert action is not None
        require_role(caller, action.rpc_name)
        operation = await self._bulk.start(NewBulkOperation(
            new_task_id(), action, request.reason, operator, request.request_id or None, request.dry_run,
            max_tasks, request.SerializeToString(deterministic=True), task_filter,
        ))
        return bulk_operation_to_pb(operation)

    async def GetBulkOperation(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "GetBulkOperation")
        problems = validation.Violations()
        validation.check_operation_id(request.operation_id, problems)
        problems.raise_if_any()
        return bulk_operation_to_pb(await self._bulk.get(request.operation_id, caller.reach))

    async def ListBulkOperations(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "ListBulkOperations")
        problems = validation.Violations()
        limit = validation.page_size(request.page_size, DEFAULT_TASKS_PAGE, problems)
        problems.raise_if_any()
        filters = pagination.fingerprint("bulk_operations", caller.reach)
        after = token_position(request.page_token, filters, _task_position)
        rows = await self._bulk.list(after, limit + 1, caller.reach)
        next_token = ""
        if len(rows) > limit:
            last = rows[limit - 1]
            next_token = pagination.encode(filters, [last.created_at.isoformat(), last.operation_id])
        return task_service_pb2.ListBulkOperationsResponse(
            operations=[bulk_operation_to_pb(r) for r in rows[:limit]], next_page_token=next_token
        )

    async def CancelBulkOperation(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "CancelBulkOperation")
        problems = validation.Violations()
        validation.check_operation_id(request.operation_id, problems)
        problems.raise_if_any()
        # Only a caller who may take the operation's action may stop it.
        require_role(caller, (await self._bulk.get(request.operation_id, caller.reach)).action.rpc_name)
        return bulk_operation_to_pb(await self._bulk.cancel(request.operation_id, caller.reach))

    async def SetConcurrencyLimit(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "SetConcurrencyLimit")
        namespace, key, max_running = validation.concurrency_limit(request, caller)
        limit = await self._store.set_concurrency_limit(namespace, key, max_running)
        if limit.max_running is None:
            return task_service_pb2.SetConcurrencyLimitResponse()
        return task_service_pb2.SetConcurrencyLimitResponse(limit=concurrency_limit_to_pb(limit))

    async def ListConcurrencyLimits(self, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, "ListConcurrencyLimits")
        limits = await self._store.list_concurrency_limits(validation.limits_reach(request.namespace, caller))
        return task_service_pb2.ListConcurrencyLimitsResponse(limits=[concurrency_limit_to_pb(x) for x in limits])

    async def _transition(self, action: Action, request: Any, context: grpc.aio.ServicerContext) -> Any:
        caller = self._gate.admit(context, action.rpc_name)
        command = validation.transition_command(action, request, metadata_operator(context), caller, self._max_payload)
        if command.grace_ms is not None:
            asked = await self._store.request_kill(command)
            if asked is not None:  # RUNNING: the kill is asked, not made (see KillTaskRequest.grace_period)
                task, event = asked
                return task_service_pb2.KillTaskResponse(
                    task=self._task_pb(task), event=event_to_pb(event) if event is not None else None
                )
        change = await self._store.transition(command)
        response_type = getattr(task_service_pb2, f"{action.rpc_name}Response")
        return response_type(task=self._task_pb(change.task), event=event_to_pb(change.event))


def _transition_handler(action: Action) -> Callable[..., Coroutine[Any, Any, Any]]:
    async def handler(self: TaskServicer, request: Any, context: grpc.aio.ServicerContext) -> Any:
        return await self._transition(action, request, context)

    handler.__name__ = handler.__qualname__ = action.rpc_name
    handler.__doc__ = f"The {action.rpc_name} transition RPC."
    return handler


# One handler per transition RPC, generated from the domain's actions so that the list of
# RPCs and the transition table cannot disagree.
for _action in TRANSITION_ACTIONS:
    setattr(TaskServicer, _action.rpc_name, _transition_handler(_action))


async def _batch_results(
    prepared: list[Any],
    ready_type: type,
    apply: Callable[[list[Any]], Coroutine[Any, Any, list[Any]]],
    result_type: Any,
    change_of: Callable[[Any], Change],
    task_pb: Callable[[Any], task_pb2.Task],
) -> list[Any]:
    """One result per item, in order: a refusal found while preparing the items, or what
    `apply` made of the items that were ready (each a change, or its refusal)."""
    applied = iter(await apply([p for p in prepared if isinstance(p, ready_type)]))
    results = []
    for item in prepared:
        outcome = next(applied) if isinstance(item, ready_type) else item
        if isinstance(outcome, TasklifeError):
            results.append(result_type(error=status_of(outcome)))
        else:
            change = change_of(outcome)
            results.append(result_type(task=task_pb(change.task), event=event_to_pb(change.event)))
    return results


def _new_task(item: Any, operator: str | None, caller: Principal, max_payload: int) -> NewTask | TasklifeError:
    """An item's task to create, or its refusal, as CreateTask checks it."""
    try:
        task_id, spec, item_operator, reason, behalf, task_input = validation.create_task(
            item, operator, caller, max_payload
        )
    except TasklifeError as refusal:
        return refusal
    return NewTask(task_id or new_task_id(), spec, item_operator, reason, behalf, caller.reach, task_input)


def _batch_command(item: Any, operator: str | None, caller: Principal, max_payload: int) -> TransitionCommand | TasklifeError:
    """An item's command, or its refusal: the role, then the request, as its single RPC checks."""
    try:
        action = validation.batch_action(item)
        require_role(caller, action.rpc_name)
        request = getattr(item, item.WhichOneof("request"))
        command = validation.transition_command(action, request, operator, caller, max_payload)
    except TasklifeError as refusal:
        return refusal
    if command.grace_ms is not None:
        # A batch item is one move; asking for a kill moves nothing (KillTaskRequest.grace_period).
        return InvalidRequest([FieldViolation("grace_period", "is not accepted in BatchTransitionTasks: "
                                                              "send a KillTask with a grace period on its own")])
    return command


def token_position(token: str, filters: str, parse: Callable[[list[Any]], Any]) -> Any:
    """The page token's position made by `parse`, or None for no token; INVALID_ARGUMENT else
    (EventSinkService's listing reads its tokens with it too)."""
    if not token:
        return None
    try:
        return parse(pagination.decode(token, filters))
    except (pagination.BadPageToken, ValueError, TypeError) as exc:
        raise InvalidRequest([FieldViolation("page_token", str(exc) or "is malformed")]) from exc


def _task_position(position: list[Any]) -> tuple[datetime, str]:
    created_at, task_id = position
    if not isinstance(created_at, str) or not isinstance(task_id, str) or not is_valid_task_id(task_id):
        raise ValueError("is malformed")
    return datetime.fromisoformat(created_at), task_id


def _failure_position(position: list[Any]) -> tuple[tuple[datetime, int], tuple[datetime, datetime]]:
    created_at, event_id, since, until = position
    if type(event_id) is not int or not all(isinstance(v, str) for v in (created_at, since, until)):
        raise ValueError("is malformed")
    return (datetime.fromisoformat(created_at), event_id), (datetime.fromisoformat(since), datetime.fromisoformat(until))


def _version_position(position: list[Any]) -> int:
    (version,) = position
    # bool is an int in Python; a version is a PostgreSQL bigint.
    if type(version) is not int or not 0 <= version < 2**63:
        raise ValueError("is malformed")
    return version


def _group_values(group_by: Any, group: tuple[State | None, str | None, list[str], int]) -> list[str]:
    """A group's values in group_by order: a state by its TaskState name."""
    state, namespace, label_values, _count = group
    labels = iter(label_values)
    values = []
    for name in group_by:
        if name == "state":
            values.append(state_name(state))
        elif name == "namespace":
            values.append(namespace or "")
        else:
            values.append(next(labels))
    return values


def _event_buckets(
    since: datetime, until: datetime, width_s: int, counts: list[tuple[int, Action, int]]
) -> list[Any]:
    """Every bucket of the window, oldest first, each with its total and its counts by
    action in TaskAction number order (empty buckets included, with 0)."""
    width = timedelta(seconds=width_s)
    by_bucket: dict[int, list[tuple[int, int]]] = {}
    for index, action, n in counts:
        by_bucket.setdefault(index, []).append((ACTION_TO_PB[action], n))
    buckets = []
    start, index = since, 0
    while start < until:
        actions = sorted(by_bucket.get(index, []))
        bucket = task_service_pb2.TaskEventBucket(
            count=sum(n for _, n in actions),
            actions=[task_service_pb2.TaskActionCount(action=a, count=n) for a, n in actions],
        )
        bucket.start_time.FromDatetime(start)
        buckets.append(bucket)
        start, index = start + width, index + 1
    return buckets

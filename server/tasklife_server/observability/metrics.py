"""The Prometheus metrics of one server process, in a registry of their own.

The hot paths (a transition, an RPC, a delivered stream message) each cost one dictionary
look-up and one increment or observation: the labelled children are resolved once and kept.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import grpc
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, PlatformCollector, ProcessCollector
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from tasklife_server.domain.policies import TimerAction
from tasklife_server.domain.states import Action, State

log = logging.getLogger("tasklife.metrics")

# From a fast GetTask to a WatchTaskEvents stream held open for an hour.
RPC_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60, 300, 3600)
GROUP_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
# From a task started the moment it became ready to one that waited a week.
TIME_IN_STATE_BUCKETS = (0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 86400, 7 * 86400)
LAG_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        self._transitions = Counter(
            "tasklife_transitions_total",
            "Transition attempts, by action and outcome (applied, replayed, or the refusal).",
            ["action", "outcome"],
            registry=self.registry,
        )
        self._rpc_duration = Histogram(
            "tasklife_rpc_duration_seconds",
            "Time from receiving an RPC to its status; for a stream, the whole stream.",
            ["method", "code"],
            buckets=RPC_BUCKETS,
            registry=self.registry,
        )
        self.watch_streams_open = Gauge(
            "tasklife_watch_streams_open", "WatchTaskEvents streams open now.", registry=self.registry
        )
        self._stream_lag = Histogram(
            "tasklife_stream_lag_seconds",
            "Per live stream message with events: time from the commit of its oldest event to sending it.",
            buckets=LAG_BUCKETS,
            registry=self.registry,
        )
        self._policy_actions = Counter(
            "tasklife_policy_actions_total",
            "Timers fired by the lifecycle policies, by timer action.",
            ["action"],
            registry=self.registry,
        )
        self._timer_failures = Counter(
            "tasklife_policy_timer_failures_total",
            "Timers that failed for a reason other than the database being unavailable, by timer action "
            "and resolution: gave_up (the task was moved instead, with an event saying why) or dropped.",
            ["action", "resolution"],
            registry=self.registry,
        )
        self._sink_delivered = Counter(
            "tasklife_sink_delivered_total",
            "Events an event sink's target acknowledged, by sink (this replica's deliveries).",
            ["sink"],
            registry=self.registry,
        )
        self._sink_failed = Counter(
            "tasklife_sink_failed_total",
            "Failed delivery attempts of an event sink (each retried with backoff), by sink.",
            ["sink"],
            registry=self.registry,
        )
        self._sink_lag = Gauge(
            "tasklife_sink_lag_seconds",
            "Per event sink this replica delivers: age of the oldest event it has read but its target "
            "has not yet acknowledged (0 when caught up).",
            ["sink"],
            registry=self.registry,
        )
        self._group_sizes = Histogram(
            "tasklife_commit_group_size",
            "Single CreateTask and transition calls written together in one commit (group commit), by kind.",
            ["kind"],
            buckets=GROUP_BUCKETS,
            registry=self.registry,
        )
        self._group_children = {kind: self._group_sizes.labels(kind) for kind in ("create", "transition")}
        self._transition_children: dict[tuple[Action, str], Any] = {}
        self._time_in_state = Histogram(
            "tasklife_time_in_state_seconds",
            "Per applied move: how long the task had been in the state it left (the move's time minus "
            "the task's previous update time), by namespace, that state, and the move's action.",
            ["namespace", "state", "action"],
            buckets=TIME_IN_STATE_BUCKETS,
            registry=self.registry,
        )
        self._time_in_state_children: dict[tuple[str, State, Action], Any] = {}
        self._policy_children = {a: self._policy_actions.labels(a.value) for a in TimerAction}
        self._rpc_children: dict[tuple[str, grpc.StatusCode], Any] = {}

    def transition(self, action: Action, outcome: str) -> None:
        """`store.on_transition` callback."""
        key = (action, outcome)
        child = self._transition_children.get(key)
        if child is None:
            child = self._transition_children[key] = self._transitions.labels(action.value, outcome)
        child.inc()

    def state_left(self, namespace: str, state: State, action: Action, seconds: float) -> None:
        """`store.on_state_left` callback."""
        key = (namespace, state, action)
        child = self._time_in_state_children.get(key)
        if child is None:
            child = self._time_in_state_children[key] = self._time_in_state.labels(namespace, state.value, action.value)
        child.observe(max(seconds, 0.0))

    def sink_delivered(self, sink_id: str, count: int) -> None:
        self._sink_delivered.labels(sink_id).inc(count)

    def sink_failed(self, sink_id: str) -> None:
        self._sink_failed.labels(sink_id).inc()

    def sink_lag(self, sink_id: str, seconds: float | None) -> None:
        """None: this replica no longer delivers the sink (its series goes)."""
        if seconds is None:
            try:
                self._sink_lag.remove(sink_id)
            except KeyError:
                pass
            return
        self._sink_lag.labels(sink_id).set(seconds)

    def commit_group(self, kind: str, size: int) -> None:
        """`store.on_group` callback."""
        self._group_children[kind].observe(size)

    def policy_action(self, action: TimerAction) -> None:
        """`TimerRunner(on_action=...)` callback."""
        self._policy_children[action].inc()

    def timer_failure(self, action: TimerAction, resolution: str) -> None:
        """`TimerRunner(on_failure=...)` callback."""
        self._timer_failures.labels(action.value, resolution).inc()

    def rpc_finished(self, method: str, code: grpc.StatusCode, seconds: float) -> None:
        key = (method, code)
        child = self._rpc_children.get(key)
        if child is None:
            child = self._rpc_children[key] = self._rpc_duration.labels(method, code.name)
        child.observe(seconds)

    def stream_delivered(self, items: Iterable[Any]) -> None:
        """`EventHub(on_delivery=...)` callback: one observation per message, for its oldest event."""
        oldest = min(item.event.created_at for item in items)
        self._stream_lag.observe(max(time.time() - oldest.timestamp(), 0.0))

    def watch_pool(self, stats: Callable[[], Mapping[str, int]]) -> None:
        """Exposes the database pool's counters, read at each scrape."""
        self.registry.register(PoolCollector(stats))

    def watch_tasks(self, read: Callable[[], list[tuple[str, State, int, float | None]]]) -> None:
        """Exposes tasklife_tasks and tasklife_ready_oldest_age_seconds from `read` (the
        store's lifecycle_gauges), called at most once per TASK_GAUGES_MAX_AGE_SECONDS."""
        self.registry.register(TaskGaugesCollector(read))


# Scrapes closer together than this (several Prometheus servers, a person with curl) share
# one read of the task gauges (the folded counts, and a probe per namespace with ready tasks).
TASK_GAUGES_MAX_AGE_SECONDS = 5.0


class TaskGaugesCollector(Collector):
    """tasklife_tasks{namespace,state} and tasklife_ready_oldest_age_seconds{namespace}, from
    one query at scrape time (reused by scrapes within TASK_GAUGES_MAX_AGE_SECONDS). Every
    state of a namespace that has tasks is shown, 0 when empty, so that a query such as
    tasklife_tasks{state="ready"} gives 0 rather than nothing once the queue drains."""

    def __init__(self, read: Callable[[], list[tuple[str, State, int, float | None]]]):
        self._read = read
        self._last: list[tuple[str, State, int, float | None]] = []
        self._read_at = float("-inf")
        # Two scrapes at once (the endpoint serves each on a thread) share one read.
        self._lock = threading.Lock()

    def describe(self) -> list[GaugeMetricFamily]:
        return list(self._families([]))

    def collect(self) -> Iterable[GaugeMetricFamily]:
        with self._lock:
            if time.monotonic() - self._read_at >= TASK_GAUGES_MAX_AGE_SECONDS:
                try:
                    self._last = self._read()
                except Exception as failure:  # noqa: BLE001 - any failure of the read, the database's included
                    # Without the database the other metrics (the pool's, the RPCs') matter
                    # most: this scrape shows the task gauges empty rather than failing whole.
                    log.warning("the task gauges could not be read: %s", failure or type(failure).__name__)
                    self._last = []
                self._read_at = time.monotonic()
            rows = self._last
        return self._families(rows)

    @staticmethod
    def _families(rows: list[tuple[str, State, int, float | None]]) -> Iterable[GaugeMetricFamily]:
        tasks = GaugeMetricFamily("tasklife_tasks", "Tasks by namespace and state now.", labels=["namespace", "state"])
        oldest = GaugeMetricFamily(
            "tasklife_ready_oldest_age_seconds",
            "Per namespace, how long the task waiting longest in READY has been ready (0: none).",
            labels=["namespace"],
        )
        counts = {(namespace, state): count for namespace, state, count, _age in rows}
        ages = {namespace: age for namespace, state, _count, age in rows if state is State.READY}
        for namespace in sorted({namespace for namespace, _state in counts}):
            for state in State:
                tasks.add_metric([namespace, state.value], counts.get((namespace, state), 0))
            oldest.add_metric([namespace], max(ages.get(namespace) or 0.0, 0.0))
        yield tasks
        yield oldest


class PoolCollector(Collector):
    """tasklife_db_pool_connections{state} from psycopg_pool's get_stats(), read at scrape time."""

    def __init__(self, stats: Callable[[], Mapping[str, int]]):
        self._stats = stats

    def describe(self) -> list[GaugeMetricFamily]:
        return list(self._families({}))

    def collect(self) -> Iterable[GaugeMetricFamily]:
        return self._families(self._stats())

    @staticmethod
    def _families(stats: Mapping[str, int]) -> Iterable[GaugeMetricFamily]:
        size = stats.get("pool_size", 0)
        available = stats.get("pool_available", 0)
        connections = GaugeMetricFamily(
            "tasklife_db_pool_connections",
            "Database pool: open connections (size), idle (available), lent out (in_use), "
            "and requests waiting for one (waiting).",
            labels=["state"],
        )
        for state, value in (
            ("size", size),
            ("available", available),
            ("in_use", size - available),
            ("waiting", stats.get("requests_waiting", 0)),
        ):
            connections.add_metric([state], value)
        yield connections
        yield GaugeMetricFamily(
            "tasklife_db_pool_max_connections", "The most connections the pool may open.", value=stats.get("pool_max", 0)
        )

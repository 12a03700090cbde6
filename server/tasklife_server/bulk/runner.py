"""BulkRunner: moves the tasks of running bulk operations, in any number of server processes.

Each round claims a batch of pending items (storage/bulk.py: FOR UPDATE SKIP LOCKED, so
runners never take the same items) and moves them in the same transaction, in one
statement (TaskStore.transition_bulk_batch: the ordinary compare-and-swap of
transition_group), each at the version the operation's snapshot recorded and with
request_id `bulk:<operation>:<task>`; that statement records the moves' outcomes and
count, and the same transaction the other outcomes (refusals, replays) and counts: the
moves and their bookkeeping commit together, or neither does. An item the stream-order
guard refused stays pending, for the next round's new transaction. A move that finds its request_id
already used by the same request (a batch moved by a release that committed the moves
apart from their bookkeeping) replays instead of applying twice, and counts as applied.
"""

from __future__ import annotations

import asyncio
import logging
import time

from google.rpc import error_details_pb2

from tasklife_server.cancellation import cancel_and_wait
from tasklife_server.domain.errors import TasklifeError
from tasklife_server.domain.model import TransitionCommand
from tasklife_server.observability.outage import DATABASE_OUTAGE, is_database_unavailable
from tasklife_server.service.errors import status_of
from tasklife_server.storage.bulk import BulkItem, BulkStore

log = logging.getLogger(__name__)

BATCH_SIZE = 500
# After each batch a runner rests for this share of the time the batch took, as autovacuum's
# cost delay does, for the single calls beside it: a batch writes about 2.7 KB of WAL a task,
# and every call that commits meanwhile waits for it to be flushed first (the WAL is one
# queue; a fresh segment is zero-filled under its write lock). Beside 8 busy callers (bench
# section 9, P15) a runner without a rest moved 7,400-8,200 tasks/s with their p99 at
# 3.6-4.1x; resting 0.4 of each batch, 5,350-6,200 tasks/s at 1.6-2.2x. Smaller batches do not
# spread the WAL to the callers' gain: each batch's fixed cost (its transaction, the claim)
# weighs more, 100-250 a batch resting 0.2-0.3 moved 3,800-4,500 tasks/s and 250 resting 0.15
# left the p99 at 2.0-3.8x.
REST = 0.4
APPLIED = "applied"


def request_id_of(operation_id: str, task_id: str) -> str:
    """The request_id of an operation's move of one task: a re-run replays, the history names it."""
    return f"bulk:{operation_id}:{task_id}"


class BulkRunner:
    def __init__(self, bulk: BulkStore, *, max_idle: float = 1.0, batch_size: int = BATCH_SIZE, rest: float = REST):
        self._bulk = bulk
        self._max_idle = max_idle
        self._batch_size = batch_size
        self._rest = rest
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="tasklife-bulk-runner")

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)

    def wake(self) -> None:
        """An operation was started here: start on it now rather than at the next look."""
        self._wake.set()

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                while True:
                    began = time.monotonic()
                    if not await self.run_batch():
                        break
                    await asyncio.sleep((time.monotonic() - began) * self._rest)
            except Exception as exc:  # noqa: BLE001 - the runner must survive a database outage
                if is_database_unavailable(exc):
                    DATABASE_OUTAGE.failed("bulk runner", exc)
                else:
                    log.exception("bulk runner failed; retrying")
            # Other processes' operations are found by looking again at least every max_idle.
            try:
                async with asyncio.timeout(self._max_idle):
                    await self._wake.wait()
            except TimeoutError:
                pass

    async def run_batch(self) -> bool:
        """Moves one batch of pending items and records it; False if nothing was pending."""
        store = self._bulk.store
        async with store.transaction() as conn:
            items = await self._bulk.claim(conn, self._batch_size)
            if not items:
                return False
            operation_id = items[0].operation_id
            batch = await store.transition_bulk_batch(conn, operation_id, _command(items[0]),
                                                      [(item.task_id, item.version) for item in items],
                                                      request_id_prefix=request_id_of(operation_id, ""))
            # The moves' outcomes and count are recorded by the statement that made them.
            await self._bulk.record(conn, operation_id, [
                (task_id, _outcome_name(outcome)) for task_id, outcome in batch.unmoved])
        store.bulk_batch_committed(batch)
        return True


def _command(item: BulkItem) -> TransitionCommand:
    """The operation's move of any task: bulk_batch names each item's task, version and
    request_id."""
    return TransitionCommand(task_id="", action=item.action, operator=item.operator, reason=item.reason)


def _outcome_name(outcome: object) -> str:
    """"applied" (a replay too), or the refusal's ErrorInfo reason (what a caller of the
    single RPC would see)."""
    if not isinstance(outcome, TasklifeError):
        return APPLIED
    for detail in status_of(outcome).details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.reason
    return type(outcome).__name__

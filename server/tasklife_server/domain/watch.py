"""What a watcher asked for: where its stream starts and which events it wants. No I/O."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Mapping

from tasklife_server.domain.model import Event
from tasklife_server.domain.states import Action, State

# A stream position: (writing transaction id, event id). Events are delivered in this order.
Position = tuple[int, int]
ORIGIN: Position = (0, 0)


def position_of(event: Event) -> Position:
    return (event.xid, event.event_id)


class StartKind(enum.Enum):
    NOW = "now"
    BEGINNING = "beginning"
    AFTER = "after"


@dataclass(frozen=True, slots=True)
class Start:
    kind: StartKind
    after: Position = ORIGIN
    # The timeline the cursor of an AFTER start carries (domain/cursor.py; 0: unknown).
    timeline: int = 0


@dataclass(frozen=True, slots=True)
class WatchFilter:
    """Empty parts match everything; non-empty parts must all match."""

    task_ids: frozenset[str] = frozenset()
    states: frozenset[State] = frozenset()
    labels: Mapping[str, str] = field(default_factory=dict)
    # The namespaces the watcher may see (and asked for); None means every namespace.
    namespaces: frozenset[str] | None = None
    actions: frozenset[Action] = frozenset()

    def matches(self, event: Event, labels: Mapping[str, str]) -> bool:
        if self.namespaces is not None and event.namespace not in self.namespaces:
            return False
        if self.task_ids and event.task_id not in self.task_ids:
            return False
        if self.states and event.to_state not in self.states:
            return False
        if self.actions and event.action not in self.actions:
            return False
        return all(labels.get(key) == value for key, value in self.labels.items())

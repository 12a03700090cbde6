"""SubscriptionIndex: which live subscriptions might want an event, without asking them all.

Each subscription is filed under its most selective filter part (task ids, else one label
pair, else its namespaces, else its states, else its actions, else "everything"), so handing a batch to a thousand watchers that
each follow their own tasks costs a few dictionary look-ups per event, not a thousand
filter checks. Candidates still check their whole filter.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Hashable, Iterable, Iterator

if TYPE_CHECKING:
    from tasklife_server.stream.hub import StreamItem, Subscription


class SubscriptionIndex:
    def __init__(self) -> None:
        self._everything: set[Subscription] = set()
        self._by_key: defaultdict[Hashable, set[Subscription]] = defaultdict(set)

    @staticmethod
    def _keys(subscription: Subscription) -> Iterable[Hashable] | None:
        watch = subscription.filter
        if watch.task_ids:
            return [("task", task_id) for task_id in watch.task_ids]
        if watch.labels:
            return [("label", min(watch.labels.items()))]
        if watch.namespaces is not None:
            return [("namespace", namespace) for namespace in watch.namespaces]
        if watch.states:
            return [("state", state) for state in watch.states]
        if watch.actions:
            return [("action", action) for action in watch.actions]
        return None

    def add(self, subscription: Subscription) -> None:
        keys = self._keys(subscription)
        if keys is None:
            self._everything.add(subscription)
        for key in keys or ():
            self._by_key[key].add(subscription)

    def remove(self, subscription: Subscription) -> None:
        keys = self._keys(subscription)
        if keys is None:
            self._everything.discard(subscription)
        for key in keys or ():
            bucket = self._by_key.get(key)
            if bucket is not None:
                bucket.discard(subscription)
                if not bucket:
                    del self._by_key[key]

    def __bool__(self) -> bool:
        return bool(self._everything or self._by_key)

    def candidates(self, item: StreamItem) -> Iterator[Subscription]:
        """Every subscription that might match `item`, each once."""
        yield from self._everything
        seen: set[Subscription] = set()
        event = item.event
        keys = [("task", event.task_id), ("namespace", event.namespace), ("state", event.to_state), ("action", event.action)]
        keys += [("label", pair) for pair in item.labels.items()]
        for key in keys:
            for subscription in self._by_key.get(key, ()):
                if subscription not in seen:
                    seen.add(subscription)
                    yield subscription

"""Who may call what, and which tasks they reach: roles, principals and namespaces. No I/O.

The role table is the one place that says which TaskService and EventSinkService method
each role may call;
docs/concepts/security.md describes it and a test checks the two agree.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Iterable, Mapping

from tasklife_server.domain.model import DEFAULT_NAMESPACE
from tasklife_server.domain.states import Action

EVERY_NAMESPACE = "*"
NAMESPACE_RULE = (
    "must be 1 to 63 characters of lowercase letters, digits and '-', starting and ending "
    "with a letter or digit"
)
_NAMESPACE = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")


def is_valid_namespace(name: str) -> bool:
    return _NAMESPACE.fullmatch(name) is not None


class Role(enum.Enum):
    VIEWER = "viewer"
    SCHEDULER = "scheduler"
    OPERATOR = "operator"
    ADMIN = "admin"


READ_METHODS = (
    "GetTask", "ListTasks", "CountTasks", "ListTaskEvents", "ListTaskAttempts", "ListTaskFailures", "WatchTaskEvents",
    "GetBulkOperation", "ListBulkOperations", "CountTaskEvents",
    "ListConcurrencyLimits", "GetEventSink", "ListEventSinks",
)
# Methods only an admin may call: a limit changes how the service runs every task of its key,
# and an event sink sends the stream outside the service.
ADMIN_METHODS = ("SetConcurrencyLimit", "CreateEventSink", "UpdateEventSink", "DeleteEventSink", "RewindEventSink")
# Who takes each action: the scheduler drives a task's normal life, the operator acts by
# hand (the seed's "ops manual actions").
ACTION_ROLES: Mapping[Action, Role] = MappingProxyType(
    {
        Action.CREATE: Role.SCHEDULER,
        Action.ENQUEUE: Role.SCHEDULER,
        Action.START: Role.SCHEDULER,
        Action.COMPLETE: Role.SCHEDULER,
        Action.FAIL: Role.SCHEDULER,
        Action.PAUSE: Role.OPERATOR,
        Action.RESUME: Role.OPERATOR,
        Action.KILL: Role.OPERATOR,
        Action.RETRY: Role.OPERATOR,
        Action.ABANDON: Role.OPERATOR,
    }
)
# The public contract: any authenticated caller may read it.
OPEN_METHODS = frozenset({"GetStateMachine"})
# Methods that do, many times over, what one action does: granted with that action.
BULK_METHODS: Mapping[str, Action] = MappingProxyType({"BatchCreateTasks": Action.CREATE, "ClaimTasks": Action.START})
# Admits a caller holding any role that grants a transition; each item's own action is
# then checked against the caller's roles (`may_take`).
BATCH_TRANSITION_METHOD = "BatchTransitionTasks"
# Admitted as BatchTransitionTasks is; the operation's own action is then checked
# against the caller's roles (a bulk KILL needs the role that grants KillTask).
BULK_OPERATION_METHODS = ("StartBulkOperation", "CancelBulkOperation")


def _role_methods() -> Mapping[Role, frozenset[str]]:
    methods: dict[Role, set[str]] = {role: set() for role in Role}
    methods[Role.VIEWER].update(READ_METHODS)
    methods[Role.SCHEDULER].add("Heartbeat")
    for action, role in ACTION_ROLES.items():
        methods[role].add(action.rpc_name)
        if action is not Action.CREATE:
            methods[role].add(BATCH_TRANSITION_METHOD)
            methods[role].update(BULK_OPERATION_METHODS)
    for method, action in BULK_METHODS.items():
        methods[ACTION_ROLES[action]].add(method)
    methods[Role.ADMIN] = set().union(*methods.values(), ADMIN_METHODS)
    return MappingProxyType({role: frozenset(names) for role, names in methods.items()})


ROLE_METHODS: Mapping[Role, frozenset[str]] = _role_methods()


def roles_granting(method: str) -> tuple[Role, ...]:
    return tuple(role for role in Role if method in ROLE_METHODS[role])


@dataclass(frozen=True, slots=True)
class Principal:
    """An authenticated caller, or the local caller of a server in open mode."""

    name: str
    roles: frozenset[Role]
    namespaces: frozenset[str]
    # False in open mode: nobody proved who they are, so the request names the operator.
    authenticated: bool = True

    def may_call(self, method: str) -> bool:
        return method in OPEN_METHODS or any(method in ROLE_METHODS[role] for role in self.roles)

    @property
    def reaches_every_namespace(self) -> bool:
        return EVERY_NAMESPACE in self.namespaces

    def reaches(self, namespace: str) -> bool:
        return self.reaches_every_namespace or namespace in self.namespaces

    @property
    def reach(self) -> list[str] | None:
        """The namespaces as a query parameter: None means every namespace."""
        return None if self.reaches_every_namespace else sorted(self.namespaces)

    def default_namespace(self) -> str:
        """Where CreateTask puts a task that names no namespace."""
        if len(self.namespaces) == 1 and not self.reaches_every_namespace:
            return next(iter(self.namespaces))
        return DEFAULT_NAMESPACE

    def narrowed(self, wanted: Iterable[str]) -> list[str] | None:
        """The reach within a request's namespaces filter (empty filter: the whole reach)."""
        wanted = sorted(set(wanted))
        return wanted if wanted else self.reach


# Open mode: no credentials are checked, so the caller is the local admin of everything.
LOCAL_ADMIN = Principal("anonymous", frozenset({Role.ADMIN}), frozenset({EVERY_NAMESPACE}), authenticated=False)

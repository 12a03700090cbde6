"""Exit codes of the `tasklife` CLI, and the one-line message for each way a command can fail."""

from __future__ import annotations

from typing import Mapping

import grpc

from tasklife.cli import render
from tasklife.errors import InvalidTransition, TasklifeError, VersionMismatch

OK = 0
REFUSED = 1
"""The server refused the request for a domain reason (INVALID_TRANSITION, VERSION_MISMATCH...)."""
USAGE = 2
"""The command line is wrong (argparse's own code), or names a file that cannot be read."""
NOT_FOUND = 3
"""No task has the given id."""
UNAVAILABLE = 4
"""The server (or its database) cannot be reached, or did not answer in time."""
OTHER = 5
"""Anything else: an internal server error, a missing server package, a failed migration or export..."""
UNAUTHENTICATED = 6
"""The server needs credentials and got none, or a token or certificate it does not accept."""
PERMISSION_DENIED = 7
"""Authenticated, but the principal lacks the role or namespace, or named another operator."""
INTERRUPTED = 130
"""Stopped by Ctrl-C (SIGINT) before it finished; `watch` exits 0 instead, as that is how it ends."""

EXIT_CODES_HELP = f"""\
exit codes:
  {OK}    success
  {REFUSED}    refused by the server: an illegal move (INVALID_TRANSITION), a stale
       --expected-version (VERSION_MISMATCH), unmet upstreams (DEPENDENCIES_NOT_MET),
       an invalid request, an --as-of older than the retained history (HISTORY_NOT_RETAINED)...
       (status INVALID_ARGUMENT, FAILED_PRECONDITION, ABORTED, ALREADY_EXISTS or OUT_OF_RANGE);
       the message names the reason
  {USAGE}    usage error: bad arguments or options, an unreadable --ca-file, --cert-file or
       --key-file, no database URL
  {NOT_FOUND}    not found: no task has the given id (NOT_FOUND)
  {UNAVAILABLE}    unavailable: the server or its database cannot be reached, or did not answer
       within --timeout (UNAVAILABLE, DEADLINE_EXCEEDED)
  {OTHER}    any other error (internal server error, server package not installed, a failed
       migration or export...)
  {UNAUTHENTICATED}    not authenticated: no credentials, or a token or client certificate the server
       does not accept (UNAUTHENTICATED); see --token, --cert-file
  {PERMISSION_DENIED}    permission denied: your principal lacks the role (ROLE_NOT_GRANTED) or the
       namespace (NAMESPACE_NOT_GRANTED), or --operator is not you (OPERATOR_MISMATCH)
  {INTERRUPTED}  interrupted by Ctrl-C (except `watch`, which then exits 0)"""

_REFUSALS = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.OUT_OF_RANGE,
    }
)
_UNREACHABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})


class CliError(Exception):
    """A failure the CLI reports as one line on stderr, exiting with `exit_code`."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


def exit_code(error: TasklifeError) -> int:
    if error.code == grpc.StatusCode.NOT_FOUND:
        return NOT_FOUND
    if error.code == grpc.StatusCode.UNAUTHENTICATED:
        return UNAUTHENTICATED
    if error.code == grpc.StatusCode.PERMISSION_DENIED:
        return PERMISSION_DENIED
    if error.code in _UNREACHABLE:
        return UNAVAILABLE
    if error.code in _REFUSALS:
        return REFUSED
    return OTHER


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _commands(rpcs: tuple[str, ...] | list[str]) -> str:
    return ", ".join(render.command_of_rpc(rpc) for rpc in rpcs)


def message(error: TasklifeError, *, address: str, timeout: float | None) -> str:
    """What went wrong, on one line, with the facts needed to act on it."""
    meta = error.metadata
    reason = error.reason
    task = meta.get("task_id", "")
    tag = f" [{reason}]" if reason else f" [{error.code.name}]"
    if isinstance(error, InvalidTransition):
        state = meta.get("current_state", "").removeprefix("TASK_STATE_").lower() or "in an unknown state"
        allowed = _commands(error.allowed_actions) if error.allowed_actions else f"none ({state} is final)"
        requested = render.command_of_rpc(error.requested_action) or "this move"
        return f"cannot {requested} task '{task}': it is {state}; allowed now: {allowed}{tag}"
    if isinstance(error, VersionMismatch):
        state = meta.get("current_state", "").removeprefix("TASK_STATE_").lower()
        return (
            f"task '{task}' is at version {error.current_version} ({state}), not the expected "
            f"{error.expected_version}; re-read it and decide again{tag}"
        )
    if reason == "DEPENDENCIES_NOT_MET":
        return _unmet_upstreams(task, meta) + tag
    if reason == "NOT_BEFORE":
        return f"cannot enqueue task '{task}' before its not_before, {meta.get('not_before', '')}{tag}"
    if reason == "REFERENCED_TASK_NOT_FOUND":
        missing = meta.get("missing_task_ids", "").replace(",", ", ")
        more = int(meta.get("missing_count", "0") or 0) - len(meta.get("missing_task_ids", "").split(","))
        if more > 0:
            missing += f" and {more} more"
        return f"referenced tasks do not exist: {missing}{tag}"
    if reason == "HISTORY_NOT_RETAINED":
        since = meta.get("retained_since", "") or "a later instant"
        return (
            f"history before {since} is no longer retained by the server (its history retention dropped it); "
            f"give a later --as-of{tag}"
        )
    if error.code == grpc.StatusCode.NOT_FOUND and meta.get("create_time"):
        return (f"task '{task}' did not exist yet at {meta.get('as_of')}: it was created at {meta['create_time']}; "
                f"give a later --as-of{tag}")
    if error.code == grpc.StatusCode.NOT_FOUND and task:
        return f"no task has id '{task}'{tag}"
    if reason == "DATABASE_UNAVAILABLE":
        return f"the server at {address} cannot reach its database; retry later{tag}"
    if error.code == grpc.StatusCode.DEADLINE_EXCEEDED:
        limit = f"within {timeout:g}s" if timeout else "in time"
        return f"no answer from the server at {address} {limit}; try a larger --timeout{tag}"
    if error.code == grpc.StatusCode.UNAVAILABLE and not reason:
        return f"cannot reach the server at {address}: {_one_line(error.message)}{tag}"
    if error.code == grpc.StatusCode.UNAUTHENTICATED:
        return (
            f"not authenticated by the server at {address}: {_one_line(error.message)}; give a valid "
            f"--token (or TASKLIFE_TOKEN), or a client certificate with --cert-file and --key-file{tag}"
        )
    if error.code == grpc.StatusCode.PERMISSION_DENIED:
        return f"permission denied: {_one_line(error.message)}{tag}"
    if reason == "INVALID_REQUEST":
        return f"invalid request: {_one_line(error.message)}{tag}"
    return f"{_one_line(error.message) or error.code.name}{tag}"


def _unmet_upstreams(task: str, meta: Mapping[str, str]) -> str:
    """Which upstreams block the task; "yet" only when every one of them can still succeed,
    and for one that cannot, that a rerun of it unblocks the task."""
    pairs = [p.partition("=") for p in meta.get("unmet_dependencies", "").split(",") if p]
    dead = {u for u, _, can in (p.partition("=") for p in meta.get("unmet_can_succeed", "").split(",") if p)
            if can == "false"}
    described = [
        f"{upstream} ({name.removeprefix('TASK_STATE_').lower()}"
        + (", cannot succeed: a rerun of it that succeeds unblocks this task)" if upstream in dead else ")")
        for upstream, _, name in pairs
    ]
    unmet = ", ".join(described)
    more = int(meta.get("unmet_count", len(pairs)) or 0) - len(pairs)
    if more > 0:
        unmet += f" and {more} more"
    return f"cannot enqueue task '{task}': upstreams not succeeded{'' if dead else ' yet'}: {unmet}"

"""The console in headless chromium against a live server: what an operator sees and does.

Each test opens the console, acts as a person would (clicks, a reason typed into the dialog)
and checks the outcome in the page and, over gRPC, in the server itself.
"""

from __future__ import annotations

import json
import re
import socket
import time

from tasklife.v1 import task_pb2, task_service_pb2

from pytest import approx

from tests.conftest import ServerProcess
from tests.http.http_client import connect_json
from tests.security.access_support import NAMESPACE_A, PRINCIPALS
from tests.support import PB_STATE, create, task_in, unique_id
from tasklife_server.domain.states import State

try:
    from playwright.sync_api import Page, expect
except ImportError:  # the `browser` fixture then skips loudly, or fails under CI=true
    Page, expect = object, None  # type: ignore[assignment, misc]


def open_console(page: Page, server: ServerProcess, path: str) -> None:
    page.goto(f"{server.http_url}#/{path}")
    expect(page.locator("#live-status")).to_have_text("live")


def act_with_reason(page: Page, rpc: str, reason: str) -> None:
    page.locator(f"button[data-rpc={rpc}]").click()
    page.locator("dialog #reason").fill(reason)
    page.locator("dialog #confirm").click()


def state_of(stub, task_id: str) -> int:
    return stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task_id)).task.state


def test_a_task_created_over_grpc_appears_on_the_open_tasks_page(page: Page, server: ServerProcess, stub) -> None:
    run = unique_id("run")
    open_console(page, server, f"tasks?labels=run={run}")
    expect(page.locator("#tasks td.empty")).to_have_text("No task matches.")
    task = create(stub, labels={"run": run})
    row = page.locator(f'#tasks tr[data-task-id="{task.task_id}"]')
    expect(row.locator("[data-state]")).to_have_text("created")


def test_a_pause_from_the_task_page_shows_in_the_history_and_in_get_task(page: Page, server: ServerProcess, stub) -> None:
    task = task_in(stub, State.READY)
    open_console(page, server, f"tasks/{task.task_id}")
    act_with_reason(page, "PauseTask", "hold for the maintenance window")
    expect(page.locator('#history tr[data-version="3"] td.reason')).to_have_text("hold for the maintenance window")
    assert state_of(stub, task.task_id) == task_pb2.TASK_STATE_PAUSED
    event = stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(task_id=task.task_id)).events[-1]
    assert (event.action, event.version, event.reason) == (task_pb2.TASK_ACTION_PAUSE, 3, "hold for the maintenance window")


def test_an_event_committed_by_another_client_arrives_on_an_open_page(page: Page, server: ServerProcess, stub) -> None:
    task = create(stub)
    open_console(page, server, f"tasks/{task.task_id}")
    expect(page.locator('#fields dd[data-field="state"]')).to_have_text("created")
    stub.EnqueueTask(task_service_pb2.EnqueueTaskRequest(task_id=task.task_id, reason="from another client"))
    expect(page.locator('#fields dd[data-field="state"]')).to_have_text("ready")
    expect(page.locator('#history tr[data-version="2"] td.reason')).to_have_text("from another client")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_watch_resumes_after_a_dropped_connection_without_losing_an_event(
    page: Page, database_url: str, stub
) -> None:
    """The page's server restarts; meanwhile another server commits a move. On the new server,
    the page's watch resumes from its last cursor and gets exactly that move."""
    task = create(stub)
    http_listen = f"127.0.0.1:{free_port()}"
    first = ServerProcess(database_url, "--http-listen", http_listen)
    try:
        open_console(page, first, f"tasks/{task.task_id}")
    finally:
        assert first.stop() == 0
    expect(page.locator("#live-status")).to_have_text("reconnecting")
    stub.EnqueueTask(task_service_pb2.EnqueueTaskRequest(task_id=task.task_id, reason="while the page was cut off"))
    second = ServerProcess(database_url, "--http-listen", http_listen)
    try:
        expect(page.locator("#live-status")).to_have_text("live", timeout=20_000)
        expect(page.locator('#history tr[data-version="2"] td.reason')).to_have_text("while the page was cut off")
        expect(page.locator("#history tbody tr")).to_have_count(2)
    finally:
        assert second.stop() == 0


def test_a_bulk_pause_over_a_filter_moves_exactly_the_selected_tasks(page: Page, server: ServerProcess, stub) -> None:
    batch = unique_id("batch")
    tasks = [task_in(stub, State.READY, labels={"batch": batch}) for _ in range(4)]
    outsider = task_in(stub, State.READY, labels={"batch": unique_id("other")})
    open_console(page, server, f"tasks?labels=batch={batch}")
    expect(page.locator("#tasks tbody tr")).to_have_count(4)
    chosen = tasks[:3]
    for task in chosen:
        page.locator(f'#tasks tr[data-task-id="{task.task_id}"] input.select').check()
    expect(page.locator("#selected-count")).to_have_text("3 selected")
    act_with_reason(page, "PauseTask", "bulk hold")
    expect(page.locator("#bulk-results li.ok")).to_have_count(3)
    paused = [t.task_id for t in [*tasks, outsider] if state_of(stub, t.task_id) == task_pb2.TASK_STATE_PAUSED]
    assert paused == [t.task_id for t in chosen]


def test_a_bulk_action_reports_why_a_task_was_refused(page: Page, server: ServerProcess, stub) -> None:
    batch = unique_id("batch")
    running = task_in(stub, State.RUNNING, labels={"batch": batch})
    created = create(stub, labels={"batch": batch})
    open_console(page, server, f"tasks?labels=batch={batch}")
    page.locator("#select-all").check()
    act_with_reason(page, "KillTask", "runaway")
    expect(page.locator(f'#bulk-results li.ok[data-task-id="{running.task_id}"]')).to_contain_text("→ killed")
    refused = page.locator(f'#bulk-results li.refused[data-task-id="{created.task_id}"] .why')
    expect(refused).to_have_text(f"FAILED_PRECONDITION INVALID_TRANSITION: task '{created.task_id}' is created: "
                                 "KillTask is not allowed (allowed: EnqueueTask)")


def test_only_the_actions_the_state_machine_allows_are_offered(page: Page, server: ServerProcess, stub) -> None:
    task = task_in(stub, State.FAILED)
    machine = stub.GetStateMachine(task_service_pb2.GetStateMachineRequest())
    allowed = next(s.allowed_actions for s in machine.states if s.state == PB_STATE[State.FAILED])
    expected = [a.method.rsplit("/", 1)[1] for a in machine.actions if a.action in allowed]
    open_console(page, server, f"tasks/{task.task_id}")
    buttons = page.locator("#actions button[data-rpc]")
    expect(buttons).to_have_count(len(expected))
    assert [b.get_attribute("data-rpc") for b in buttons.all()] == expected == ["RetryTask", "KillTask", "AbandonTask"]


def test_a_stale_page_is_told_the_task_changed_meanwhile(page: Page, server: ServerProcess, stub) -> None:
    task = task_in(stub, State.READY)
    page.route(re.compile(r".*/WatchTaskEvents$"), lambda route: route.abort())  # this page hears nothing
    page.goto(f"{server.http_url}#/tasks/{task.task_id}")
    expect(page.locator('#fields dd[data-field="version"]')).to_have_text("2")
    stub.StartTask(task_service_pb2.StartTaskRequest(task_id=task.task_id))
    act_with_reason(page, "PauseTask", "hold")
    expect(page.locator("#changed-meanwhile")).to_contain_text(
        "Changed meanwhile: the task is now running at version 3, not version 2 as shown.")
    assert state_of(stub, task.task_id) == task_pb2.TASK_STATE_RUNNING
    expect(page.locator('#fields dd[data-field="version"]')).to_have_text("3")


def test_a_viewer_token_sees_every_action_disabled(page: Page, secured_http_server: ServerProcess) -> None:
    admin = f"Bearer {PRINCIPALS['admin-a'].token}"
    created = connect_json(secured_http_server.http_url, "CreateTask", {"taskId": unique_id("viewer")}, authorization=admin).json()
    task_id = created["task"]["taskId"]
    assert connect_json(secured_http_server.http_url, "EnqueueTask", {"taskId": task_id}, authorization=admin).status == 200
    page.goto(f"{secured_http_server.http_url}#/tasks/{task_id}")
    expect(page.locator("#access-problem")).to_contain_text("UNAUTHENTICATED CREDENTIALS_MISSING")
    page.locator("#token").fill(PRINCIPALS["viewer-a"].token)
    page.locator("header form.token button").click()
    expect(page.locator("#access")).to_have_text("read-only")
    buttons = page.locator("#actions button[data-rpc]")
    expect(buttons).to_have_count(3)  # ready: Start, Pause, Abandon - shown, but not to be pressed
    for button in buttons.all():
        expect(button).to_be_disabled()
        expect(button).to_have_attribute("title", re.compile(r"^Your role may not call \w+Task$"))
    assert page.locator('#fields dd[data-field="namespace"]').inner_text() == NAMESPACE_A


def test_the_state_machine_page_draws_every_state_and_transition(page: Page, server: ServerProcess, stub) -> None:
    machine = stub.GetStateMachine(task_service_pb2.GetStateMachineRequest())
    open_console(page, server, "machine")
    expect(page.locator("svg.machine g.node")).to_have_count(len(machine.states))
    expect(page.locator("svg.machine path.edge")).to_have_count(len(machine.transitions))
    expect(page.locator('svg.machine g.node.kind-terminal')).to_have_count(4)


def test_the_overview_counts_a_new_task_without_reload(page: Page, server: ServerProcess, stub) -> None:
    namespace = unique_id("ns").lower()[:30]
    open_console(page, server, "")
    expect(page.locator('#counts[data-loaded="true"]')).to_have_count(1)
    create(stub, namespace=namespace)
    expect(page.locator(f'#counts tr[data-namespace="{namespace}"] td[data-state="created"]')).to_have_text("1")


def test_the_overview_takes_its_counts_from_count_tasks_without_listing_a_task(
    page: Page, server: ServerProcess, stub
) -> None:
    namespace = unique_id("ns").lower()[:30]
    for state in (State.CREATED, State.READY, State.READY, State.RUNNING):
        task_in(stub, state, namespace=namespace)
    calls: list[tuple[str, str | None]] = []
    page.on("request", lambda request: calls.append((request.url.rsplit("/", 1)[-1], request.post_data)))
    open_console(page, server, "")
    row = page.locator(f'#counts tr[data-namespace="{namespace}"]')
    for state, count in (("created", "1"), ("ready", "2"), ("running", "1"), ("succeeded", "0")):
        expect(row.locator(f'td[data-state="{state}"]')).to_have_text(count)
    expect(row.locator("td.total")).to_have_text("4")
    assert ("CountTasks", '{"groupBy":["namespace","state"]}') in calls
    # The one ListTasks is the start's probe of what the caller may read: a page of one task.
    assert [body for name, body in calls if name == "ListTasks"] == ['{"pageSize":1}']


def chart_minutes(page: Page) -> dict[int, int]:
    """The overview chart's bars: the minute each starts at (ms since the epoch) -> its count."""
    bars = page.locator("#per-minute .minute").evaluate_all(
        "bars => bars.map(b => [Number(b.dataset.minute), Number(b.dataset.count)])")
    return {minute: count for minute, count in bars}


def test_the_overview_fills_transitions_per_minute_from_count_task_events_when_it_opens(
    page: Page, server: ServerProcess, stub
) -> None:
    for _ in range(3):
        task_in(stub, State.RUNNING)  # 9 events before the page opens
    calls: list[str] = []
    page.on("request", lambda request: calls.append(request.url.rsplit("/", 1)[-1]))
    open_console(page, server, "")
    expect(page.locator('#per-minute[data-loaded="true"]')).to_have_count(1)

    counted = stub.CountTaskEvents(task_service_pb2.CountTaskEventsRequest()).buckets
    by_minute = {b.start_time.ToMilliseconds(): b.count for b in counted}
    shown = chart_minutes(page)
    assert "CountTaskEvents" in calls
    assert sum(shown.values()) >= 9
    # No other writer runs meanwhile: each minute shows what the server counted in it.
    assert {m: n for m, n in shown.items() if m in by_minute} == {m: by_minute[m] for m in shown if m in by_minute}


def test_the_overview_adds_a_live_move_to_the_per_minute_counts(page: Page, server: ServerProcess, stub) -> None:
    task = create(stub)
    open_console(page, server, "")
    expect(page.locator('#per-minute[data-loaded="true"]')).to_have_count(1)
    before = sum(chart_minutes(page).values())

    stub.EnqueueTask(task_service_pb2.EnqueueTaskRequest(task_id=task.task_id))

    deadline = time.monotonic() + 10
    while sum(chart_minutes(page).values()) < before + 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sum(chart_minutes(page).values()) == before + 1


def test_the_event_feed_shows_only_the_events_of_its_filter(page: Page, server: ServerProcess, stub) -> None:
    task, other = create(stub), create(stub)
    open_console(page, server, f"events?task={task.task_id}")
    expect(page.locator("#feed-status")).to_have_text("live")
    stub.EnqueueTask(task_service_pb2.EnqueueTaskRequest(task_id=other.task_id))
    stub.EnqueueTask(task_service_pb2.EnqueueTaskRequest(task_id=task.task_id, reason="watched"))
    expect(page.locator(f'#events tr[data-task-id="{task.task_id}"] td.reason')).to_have_text("watched")
    expect(page.locator("#events tbody tr")).to_have_count(1)


# --- Attempts, payloads and failures ---------------------------------------------------------


def run_attempt(stub, task_id: str, worker: str, seconds: float = 0.0, **end: object) -> None:
    """One attempt of a READY task: started for `worker` and, `seconds` later, failed when `end`
    has a failure, completed (with `end`'s result, if any) otherwise; the worker ends it."""
    stub.StartTask(task_service_pb2.StartTaskRequest(task_id=task_id, worker=worker))
    time.sleep(seconds)
    if "failure" in end:
        stub.FailTask(task_service_pb2.FailTaskRequest(task_id=task_id, worker=worker, operator=worker, **end))
    else:
        stub.CompleteTask(task_service_pb2.CompleteTaskRequest(task_id=task_id, worker=worker, operator=worker, **end))


def retry(stub, task_id: str) -> None:
    """FAILED -> RETRYING -> READY, by hand: the test server's tasks are never retried on their own."""
    stub.RetryTask(task_service_pb2.RetryTaskRequest(task_id=task_id, reason="try again"))
    stub.EnqueueTask(task_service_pb2.EnqueueTaskRequest(task_id=task_id))


def failure(error_type: str, message: str = "it broke", **fields: object) -> task_pb2.TaskFailure:
    return task_pb2.TaskFailure(error_type=error_type, message=message, **fields)


TRACE = 'Traceback (most recent call last):\n  File "fetch.py", line 12, in fetch\nTimeoutError: upstream did not answer'


def failed_then_succeeded(stub) -> task_pb2.Task:
    """A task whose attempt 1 failed on worker-a (exit code 3) and attempt 2 succeeded on worker-b."""
    task = task_in(stub, State.READY)
    run_attempt(stub, task.task_id, "worker-a",
                failure=failure("io.timeout", "upstream did not answer", stack_trace=TRACE, exit_code=3))
    retry(stub, task.task_id)
    run_attempt(stub, task.task_id, "worker-b")
    return task


def test_the_task_page_lists_every_attempt_with_its_worker_and_how_it_ended(page: Page, server: ServerProcess, stub) -> None:
    task = failed_then_succeeded(stub)
    open_console(page, server, f"tasks/{task.task_id}")
    expect(page.locator("#attempts .attempt")).to_have_count(2)
    first, second = page.locator('#attempts .attempt[data-attempt="1"]'), page.locator('#attempts .attempt[data-attempt="2"]')
    expect(first.locator(".worker")).to_have_text("worker-a")
    expect(first.locator(".ended .move")).to_have_text("fail → failed")
    expect(first.locator(".ended .operator")).to_have_text("by worker-a")
    expect(first.locator(".exit")).to_have_text("3")
    expect(first.locator(".failure .error-type")).to_have_text("io.timeout")
    expect(first.locator(".failure .message")).to_have_text("upstream did not answer")
    expect(second.locator(".worker")).to_have_text("worker-b")
    expect(second.locator(".ended .move")).to_have_text("complete → succeeded")
    expect(second.locator(".ended .operator")).to_have_text("by worker-b")
    expect(second.locator(".exit")).to_have_text("—")
    expect(second.locator(".failure")).to_have_count(0)


def test_a_failed_attempts_stack_trace_appears_only_after_the_click(page: Page, server: ServerProcess, stub) -> None:
    task = failed_then_succeeded(stub)
    open_console(page, server, f"tasks/{task.task_id}")
    trace = page.locator('#attempts .attempt[data-attempt="1"] pre.trace')
    expect(trace).to_be_hidden()
    page.locator('#attempts .attempt[data-attempt="1"] .stack-trace summary').click()
    expect(trace).to_be_visible()
    assert trace.text_content() == TRACE


def test_the_attempts_follow_the_tasks_events_on_an_open_page(page: Page, server: ServerProcess, stub) -> None:
    task = task_in(stub, State.READY)
    open_console(page, server, f"tasks/{task.task_id}")
    expect(page.locator("#no-attempts")).to_have_text("No attempt yet: the task was never started.")
    stub.StartTask(task_service_pb2.StartTaskRequest(task_id=task.task_id, worker="worker-live"))
    attempt = page.locator('#attempts .attempt[data-attempt="1"]')
    expect(attempt).to_have_attribute("data-end-action", "running")
    stub.FailTask(task_service_pb2.FailTaskRequest(task_id=task.task_id, worker="worker-live", failure=failure("Late")))
    expect(attempt.locator(".ended .move")).to_have_text("fail → failed")
    expect(attempt.locator(".failure .error-type")).to_have_text("Late")


def test_attempt_bars_are_drawn_to_scale_on_one_time_axis(page: Page, server: ServerProcess, stub) -> None:
    task = task_in(stub, State.READY)
    run_attempt(stub, task.task_id, "worker-a", seconds=0.3, failure=failure("Flaky"))
    retry(stub, task.task_id)
    run_attempt(stub, task.task_id, "worker-a", seconds=1.5)
    first, second = stub.ListTaskAttempts(task_service_pb2.ListTaskAttemptsRequest(task_id=task.task_id)).attempts
    start1, end1 = first.start_time.ToMilliseconds(), first.end_time.ToMilliseconds()
    start2, end2 = second.start_time.ToMilliseconds(), second.end_time.ToMilliseconds()
    open_console(page, server, f"tasks/{task.task_id}")
    expect(page.locator("#attempts .bar")).to_have_count(2)
    track = page.locator('#attempts .attempt[data-attempt="1"] .track').bounding_box()
    bar1 = page.locator('#attempts .attempt[data-attempt="1"] .bar').bounding_box()
    bar2 = page.locator('#attempts .attempt[data-attempt="2"] .bar').bounding_box()
    assert bar2["width"] / bar1["width"] == approx((end2 - start2) / (end1 - start1), rel=0.05)
    # One axis from the first start to the last end: the second bar starts where its start falls.
    assert (bar2["x"] - track["x"]) / track["width"] == approx((start2 - start1) / (end2 - start1), abs=0.01)


def test_the_overview_groups_failures_by_error_type_with_the_counts_of_list_task_failures(
    page: Page, server: ServerProcess, stub
) -> None:
    often, once = unique_id("Often"), unique_id("Once")
    for error_type in (often, often, once):
        run_attempt(stub, task_in(stub, State.READY).task_id, "worker-a", failure=failure(error_type))
    counts = stub.ListTaskFailures(task_service_pb2.ListTaskFailuresRequest(error_types=[often, once])).counts
    assert {c.error_type: c.count for c in counts} == {often: 2, once: 1}
    open_console(page, server, "")
    expect(page.locator(f'#failure-groups details[data-error-type="{often}"] .count')).to_have_text("2")
    expect(page.locator(f'#failure-groups details[data-error-type="{once}"] .count')).to_have_text("1")


def test_the_overview_still_lists_a_failure_that_was_retried(page: Page, server: ServerProcess, stub) -> None:
    error_type = unique_id("Retried")
    task = task_in(stub, State.READY)
    run_attempt(stub, task.task_id, "worker-r", failure=failure(error_type, "first try failed"))
    retry(stub, task.task_id)
    assert state_of(stub, task.task_id) == task_pb2.TASK_STATE_READY
    open_console(page, server, "")
    group = page.locator(f'#failure-groups details[data-error-type="{error_type}"]')
    group.locator("summary").click()
    item = group.locator(f'li[data-task-id="{task.task_id}"]')
    expect(item.locator(".attempt-number")).to_have_text("attempt 1")
    expect(item.locator(".worker")).to_have_text("worker-r")
    expect(item.locator(".message")).to_have_text("first try failed")


def test_a_failure_committed_while_the_overview_is_open_appears_without_a_reload(
    page: Page, server: ServerProcess, stub
) -> None:
    error_type = unique_id("Live")
    task = task_in(stub, State.RUNNING)
    open_console(page, server, "")
    expect(page.locator('#failure-groups[data-loaded="true"]')).to_have_count(1)
    expect(page.locator(f'#failure-groups details[data-error-type="{error_type}"]')).to_have_count(0)
    stub.FailTask(task_service_pb2.FailTaskRequest(task_id=task.task_id, failure=failure(error_type)))
    expect(page.locator(f'#failure-groups details[data-error-type="{error_type}"] .count')).to_have_text("1")


def with_payloads(stub, **payloads: task_pb2.TaskPayload) -> task_pb2.Task:
    """A task created with `payloads["input"]` that succeeded with `payloads["result"]`."""
    task = task_in(stub, State.READY, **({"input": payloads["input"]} if "input" in payloads else {}))
    run_attempt(stub, task.task_id, "worker-p", **({"result": payloads["result"]} if "result" in payloads else {}))
    return task


def test_the_task_page_shows_a_json_input_pretty_printed(page: Page, server: ServerProcess, stub) -> None:
    # 2**64 + 1 would lose its last digits through JSON.parse: the page must show it as sent.
    document = {"order": {"id": 2**64 + 1, "lines": [{"sku": "A-1", "qty": 2}], "notes": []}, "dry_run": False}
    sent = json.dumps(document, separators=(",", ":")).encode()
    task = with_payloads(stub, input=task_pb2.TaskPayload(data=sent, content_type="application/json"))
    open_console(page, server, f"tasks/{task.task_id}")
    expect(page.locator("#input .size")).to_have_text(f"{len(sent)} B")
    page.locator("#input summary").click()
    assert page.locator("#input pre").text_content() == json.dumps(document, indent=2)


def test_the_task_page_cuts_a_long_text_input_with_a_note(page: Page, server: ServerProcess, stub) -> None:
    text = "".join(f"line {n:05d}\n" for n in range(1000))  # 11,000 characters
    task = with_payloads(stub, input=task_pb2.TaskPayload(data=text.encode(), content_type="text/plain; charset=utf-8"))
    open_console(page, server, f"tasks/{task.task_id}")
    page.locator("#input summary").click()
    expect(page.locator("#input .cut-note")).to_have_text("Cut: the first 4,096 of 11,000 characters are shown.")
    assert page.locator("#input pre").text_content() == text[:4096]


def test_the_task_page_shows_a_binary_result_as_its_size_only(page: Page, server: ServerProcess, stub) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
    task = with_payloads(stub, result=task_pb2.TaskPayload(data=png, content_type="image/png"))
    open_console(page, server, f"tasks/{task.task_id}")
    expect(page.locator("#result .size")).to_have_text("1.0 KiB")
    expect(page.locator("#result .content-type")).to_have_text("image/png")
    expect(page.locator("#result .binary")).to_have_text("binary, not shown")
    expect(page.locator("#result details, #result pre")).to_have_count(0)


def test_long_values_end_in_an_ellipsis_with_the_full_text_on_hover_and_never_widen_a_phone_page(
    page: Page, server: ServerProcess, stub
) -> None:
    error_type, worker, message = "E" + "x" * 127, "w" * 128, "why " * 1000
    task = task_in(stub, State.READY)
    run_attempt(stub, task.task_id, worker, failure=failure(error_type, message.strip()))
    page.set_viewport_size({"width": 390, "height": 844})
    open_console(page, server, f"tasks/{task.task_id}")
    attempt = page.locator('#attempts .attempt[data-attempt="1"]')
    for locator, text in ((attempt.locator(".worker"), worker), (attempt.locator(".error-type"), error_type),
                          (attempt.locator(".message"), message.strip())):
        expect(locator).to_have_attribute("title", text)
        assert locator.evaluate("e => e.scrollWidth > e.clientWidth"), "the value is cut, not wrapped"
    assert page.evaluate("document.documentElement.scrollWidth") == 390


def test_a_label_filter_that_is_not_key_value_is_refused_in_the_page_and_widens_nothing(
    page: Page, server: ServerProcess, stub
) -> None:
    run = unique_id("run")
    create(stub, labels={"run": run})
    open_console(page, server, f"tasks?labels=run={run}")
    expect(page.locator("#tasks tbody tr")).to_have_count(1)
    page.locator("#filter-labels").fill(f"run={run}, team")
    page.locator("#apply-filter").click()
    expect(page.locator("#filter-error")).to_have_text('Labels are KEY=VALUE pairs separated by commas: "team" is not one.')
    expect(page.locator("#filter-labels")).to_have_attribute("aria-invalid", "true")
    assert page.url.endswith(f"#/tasks?labels=run={run}")  # the page kept its filter
    open_console(page, server, "tasks?labels=team")  # an address with a bad filter lists nothing
    expect(page.locator("#filter-error")).to_have_text('Labels are KEY=VALUE pairs separated by commas: "team" is not one.')
    expect(page.locator("#tasks td.empty")).to_have_text("Nothing is listed until the label filter is fixed.")
    expect(page.locator("#tasks tr[data-task-id]")).to_have_count(0)


def test_a_long_label_value_and_namespace_never_widen_the_task_table(page: Page, server: ServerProcess, stub) -> None:
    run, value, namespace = unique_id("run"), "v" * 255, "n" * 63
    task = create(stub, labels={"run": run, "note": value}, namespace=namespace)
    page.set_viewport_size({"width": 1280, "height": 800})
    open_console(page, server, f"tasks?labels=run={run}")
    row = page.locator(f'#tasks tr[data-task-id="{task.task_id}"]')
    expect(row.locator("td.labels .clip")).to_have_attribute("title", f"note={value}, run={run}")
    expect(row.locator("td.namespace .clip")).to_have_attribute("title", namespace)
    assert row.locator("td.labels .clip").evaluate("e => e.scrollWidth > e.clientWidth"), "the labels are cut"
    assert page.locator("#tasks").evaluate("e => e.scrollWidth <= e.parentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") == 1280


def test_the_task_list_with_its_filters_fits_a_phone(page: Page, server: ServerProcess, stub) -> None:
    run = unique_id("run")
    create(stub, labels={"run": run, "note": "v" * 255}, namespace="n" * 63)
    page.set_viewport_size({"width": 390, "height": 844})
    open_console(page, server, f"tasks?labels=run={run}")
    expect(page.locator("#tasks tr[data-task-id]")).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth") == 390
    for control in ("#filter-labels", "#apply-filter", 'button[data-rpc="AbandonTask"]'):
        box = page.locator(control).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, control


def test_the_task_list_finds_tasks_by_id_prefix_newest_first_with_a_total(page: Page, server: ServerProcess, stub) -> None:
    prefix = unique_id("find")
    made = [create(stub, task_id=f"{prefix}-{n}").task_id for n in range(3)]
    create(stub, task_id=unique_id("other"))
    open_console(page, server, "tasks")
    page.locator("#filter-prefix").fill(prefix)
    page.locator("#filter-newest").check()
    page.locator("#apply-filter").click()
    expect(page.locator("#total")).to_have_text("3 tasks match")
    expect(page.locator("#tasks tr[data-task-id]")).to_have_count(3)
    shown = page.locator("#tasks tr[data-task-id]").evaluate_all("rows => rows.map(r => r.dataset.taskId)")
    assert shown == made[::-1]
    newest = create(stub, task_id=f"{prefix}-3").task_id  # arrives live, on top
    expect(page.locator("#tasks tr[data-task-id]").first).to_have_attribute("data-task-id", newest)


def test_the_task_list_keeps_the_tasks_created_in_a_time_range(page: Page, server: ServerProcess, stub) -> None:
    prefix = unique_id("range")
    early = create(stub, task_id=f"{prefix}-early")
    time.sleep(1.2)
    late = create(stub, task_id=f"{prefix}-late")
    # datetime-local is the browser's local time: the page runs in UTC here.
    boundary = late.create_time.ToDatetime().strftime("%Y-%m-%dT%H:%M:%S")
    open_console(page, server, f"tasks?prefix={prefix}&after={boundary}")
    expect(page.locator("#total")).to_have_text("1 task match")
    expect(page.locator("#tasks tr[data-task-id]")).to_have_count(1)
    expect(page.locator(f'#tasks tr[data-task-id="{late.task_id}"]')).to_have_count(1)
    open_console(page, server, f"tasks?prefix={prefix}&before={boundary}")
    expect(page.locator(f'#tasks tr[data-task-id="{early.task_id}"]')).to_have_count(1)
    expect(page.locator("#total")).to_have_text("1 task match")


def test_bulk_by_filter_pauses_every_matching_task_beyond_the_page_after_a_count_and_a_reason(
    page: Page, server: ServerProcess, stub
) -> None:
    run = unique_id("run")
    tasks = [task_in(stub, State.READY, labels={"run": run}) for _ in range(30)]  # more than a page
    other = task_in(stub, State.READY, labels={"run": unique_id("other")})
    open_console(page, server, f"tasks?labels=run={run}&state=ready")
    expect(page.locator("#total")).to_have_text("30 tasks match")
    page.locator('button[data-filter-rpc="PauseTask"]').click()
    expect(page.locator("dialog h3")).to_have_text("Pause 30 tasks")
    page.locator("dialog #reason").fill("maintenance window")
    page.locator("dialog #confirm").click()
    expect(page.locator('#bulk-operation[data-state="succeeded"]')).to_have_count(1, timeout=20_000)
    expect(page.locator("#bulk-progress")).to_have_text("Done: 30 of 30 tried, 30 moved, 0 left alone.")
    assert all(state_of(stub, t.task_id) == task_pb2.TASK_STATE_PAUSED for t in tasks)
    assert state_of(stub, other.task_id) == task_pb2.TASK_STATE_READY
    event = stub.ListTaskEvents(task_service_pb2.ListTaskEventsRequest(task_id=tasks[0].task_id)).events[-1]
    assert (event.reason, event.request_id.startswith("bulk:")) == ("maintenance window", True)


def test_bulk_by_filter_says_in_plain_words_why_tasks_were_left_alone(page: Page, server: ServerProcess, stub) -> None:
    run = unique_id("run")
    for state in (State.READY, State.READY, State.CREATED):
        task_in(stub, state, labels={"run": run})
    open_console(page, server, f"tasks?labels=run={run}")
    act_with_reason_on = page.locator('button[data-filter-rpc="PauseTask"]')
    act_with_reason_on.click()
    page.locator("dialog #reason").fill("hold")
    page.locator("dialog #confirm").click()
    expect(page.locator("#bulk-progress")).to_have_text("Done: 3 of 3 tried, 2 moved, 1 left alone.", timeout=20_000)
    expect(page.locator('#bulk-refused li[data-reason="INVALID_TRANSITION"]')).to_have_text(
        "1 were in a state this action cannot move (INVALID_TRANSITION)")


def test_bulk_by_filter_offers_only_the_actions_the_filtered_states_allow(page: Page, server: ServerProcess, stub) -> None:
    offered = 'button[data-filter-rpc]'
    open_console(page, server, "tasks?state=created")
    expect(page.locator(offered)).to_have_count(1)
    expect(page.locator(offered)).to_have_attribute("data-filter-rpc", "EnqueueTask")
    open_console(page, server, "tasks?state=running")
    rpcs = page.locator(offered).evaluate_all("buttons => buttons.map(b => b.dataset.filterRpc)")
    assert rpcs == ["PauseTask", "KillTask"]


def test_bulk_by_filter_with_nothing_matching_moves_nothing_and_says_so(page: Page, server: ServerProcess, stub) -> None:
    open_console(page, server, f"tasks?labels=run={unique_id('none')}")
    page.locator('button[data-filter-rpc="PauseTask"]').click()
    expect(page.locator("#bulk-none")).to_have_text("No task matches the filter: nothing to do.")
    expect(page.locator("dialog")).to_have_count(0)


def test_the_task_page_shows_priority_start_time_time_limits_and_the_retry_policy_in_force(
    page: Page, server: ServerProcess, stub
) -> None:
    request = task_service_pb2.CreateTaskRequest(task_id=unique_id("limits"), priority=700,
                                                 retry_policy=task_pb2.RetryPolicy(max_attempts=4))
    request.not_before.FromJsonString("2030-01-02T03:04:05Z")
    request.timeouts.run_timeout.FromSeconds(90)
    task = stub.CreateTask(request).task
    open_console(page, server, f"tasks/{task.task_id}")
    expect(page.locator('dd[data-field="priority"]')).to_have_text("700")
    expect(page.locator('dd[data-field="not before"]')).to_contain_text("2030-01-02")
    expect(page.locator('dd[data-field="time limits"]')).to_have_text("each attempt at most 1 min 30 s")
    expect(page.locator('dd[data-field="retry policy"]')).to_have_text(
        "4 attempts, backoff 1.0 s (default) ×2 (default) up to 5 min 0 s (default)")


def test_the_task_page_says_which_upstreams_hold_a_created_task_and_links_them(
    page: Page, server: ServerProcess, stub
) -> None:
    abandoned = task_in(stub, State.ABANDONED).task_id
    running = task_in(stub, State.RUNNING).task_id
    task = create(stub, depends_on=[abandoned, running], auto_enqueue=True, concurrency_key="warehouse")
    open_console(page, server, f"tasks/{task.task_id}")
    waits = page.locator('dd[data-field="waits for"]')
    expect(waits).to_contain_text("(abandoned, cannot succeed: a rerun of it that succeeds unblocks this task)")
    expect(waits).to_contain_text("(running)")
    expect(waits).to_contain_text("; then the service enqueues it (auto enqueue)")
    expect(waits.locator(f'[data-cannot-succeed="{abandoned}"]')).to_have_count(1)
    expect(waits.locator(f'[data-cannot-succeed="{running}"]')).to_have_count(0)
    expect(waits.locator("a")).to_have_count(2)
    expect(page.locator('dd[data-field="concurrency key"]')).to_have_text("warehouse")


def test_the_task_page_of_a_ready_task_has_no_waits_for(page: Page, server: ServerProcess, stub) -> None:
    task = task_in(stub, State.READY)
    open_console(page, server, f"tasks/{task.task_id}")
    expect(page.locator('dd[data-field="state"]')).to_contain_text("ready")
    expect(page.locator('dd[data-field="waits for"]')).to_have_count(0)


def test_the_task_page_shows_a_pending_kill_and_its_deadline(page: Page, server: ServerProcess, stub) -> None:
    task = task_in(stub, State.READY)
    stub.StartTask(task_service_pb2.StartTaskRequest(task_id=task.task_id, worker="w1"))
    grace = task_service_pb2.KillTaskRequest(task_id=task.task_id, reason="drain")
    grace.grace_period.FromSeconds(600)
    stub.KillTask(grace)
    open_console(page, server, f"tasks/{task.task_id}")
    pending = page.locator('dd[data-field="kill requested"]')
    expect(pending).to_contain_text("unless its worker confirms first")
    expect(pending).to_contain_text("; killed at ")
    assert state_of(stub, task.task_id) == task_pb2.TASK_STATE_RUNNING

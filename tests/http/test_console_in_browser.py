"""The console in headless chromium against a live server: what an operator sees and does.

Each test opens the console, acts as a person would (clicks, a reason typed into the dialog)
and checks the outcome in the page and, over gRPC, in the server itself.
"""

from __future__ import annotations

import re
import socket

from tasklife.v1 import task_pb2, task_service_pb2

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


def test_the_event_feed_shows_only_the_events_of_its_filter(page: Page, server: ServerProcess, stub) -> None:
    task, other = create(stub), create(stub)
    open_console(page, server, f"events?task={task.task_id}")
    expect(page.locator("#feed-status")).to_have_text("live")
    stub.EnqueueTask(task_service_pb2.EnqueueTaskRequest(task_id=other.task_id))
    stub.EnqueueTask(task_service_pb2.EnqueueTaskRequest(task_id=task.task_id, reason="watched"))
    expect(page.locator(f'#events tr[data-task-id="{task.task_id}"] td.reason')).to_have_text("watched")
    expect(page.locator("#events tbody tr")).to_have_count(1)

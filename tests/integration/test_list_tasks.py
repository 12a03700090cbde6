"""ListTasks through the real server: state and label filters, creation order, AIP-158 paging.

The session shares one database, so every test tags its tasks with a label value of its
own and filters on it.
"""

from __future__ import annotations

import base64
import json

import grpc
import pytest
from tasklife.v1 import task_pb2, task_service_pb2

from tasklife_server.domain.states import State
from tests.support import PB_STATE, create, failure_of, task_in, unique_id, without_wait_reason

DOMAIN = "tasklife.dev"


def list_tasks(stub, **fields) -> task_service_pb2.ListTasksResponse:
    return stub.ListTasks(task_service_pb2.ListTasksRequest(**fields))


def ids(response) -> list[str]:
    return [t.task_id for t in response.tasks]


def all_pages(stub, page_size: int, **filters) -> list[list[str]]:
    pages, token = [], ""
    while True:
        response = list_tasks(stub, page_size=page_size, page_token=token, **filters)
        pages.append(ids(response))
        token = response.next_page_token
        if not token:
            return pages


def suite() -> dict[str, str]:
    return {"suite": unique_id("s")}


def assert_invalid_page_token(failure) -> None:
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT, failure.message
    assert failure.error_info.reason == "INVALID_REQUEST"
    assert failure.error_info.domain == DOMAIN
    assert failure.violated_fields == ["page_token"]


# --- filters --------------------------------------------------------------------------------


def test_the_state_filter_returns_only_tasks_in_that_state(stub) -> None:
    labels = suite()
    created = create(stub, labels=labels)
    ready = task_in(stub, State.READY, labels=labels)
    task_in(stub, State.RUNNING, labels=labels)

    assert ids(list_tasks(stub, labels=labels, states=[PB_STATE[State.READY]])) == [ready.task_id]
    assert ids(list_tasks(stub, labels=labels, states=[PB_STATE[State.CREATED]])) == [created.task_id]


def test_several_states_match_a_task_in_any_of_them(stub) -> None:
    labels = suite()
    created = create(stub, labels=labels)
    task_in(stub, State.READY, labels=labels)
    failed = task_in(stub, State.FAILED, labels=labels)

    response = list_tasks(stub, labels=labels, states=[PB_STATE[State.FAILED], PB_STATE[State.CREATED]])

    assert ids(response) == [created.task_id, failed.task_id]


def test_the_state_filter_sees_the_current_state_not_the_created_one(stub) -> None:
    labels = suite()
    task = task_in(stub, State.SUCCEEDED, labels=labels)

    assert ids(list_tasks(stub, labels=labels, states=[PB_STATE[State.CREATED]])) == []
    [listed] = list_tasks(stub, labels=labels, states=[PB_STATE[State.SUCCEEDED]]).tasks
    assert listed == task


def test_no_state_filter_means_every_state(stub) -> None:
    labels = suite()
    tasks = [task_in(stub, state, labels=labels) for state in State]

    assert ids(list_tasks(stub, labels=labels)) == [t.task_id for t in tasks]


def test_the_label_filter_needs_every_given_pair_with_exactly_that_value(stub) -> None:
    labels = suite()
    red_big = create(stub, labels={**labels, "color": "red", "size": "big"})
    red = create(stub, labels={**labels, "color": "red"})
    create(stub, labels={**labels, "color": "blue"})
    create(stub, labels={**labels, "color": "Red"})
    create(stub, labels=labels)

    assert ids(list_tasks(stub, labels={**labels, "color": "red"})) == [red_big.task_id, red.task_id]
    assert ids(list_tasks(stub, labels={**labels, "color": "red", "size": "big"})) == [red_big.task_id]
    assert ids(list_tasks(stub, labels={**labels, "color": "green"})) == []
    assert len(list_tasks(stub, labels=labels).tasks) == 5


def test_a_label_filter_with_an_empty_value_matches_only_that_empty_value(stub) -> None:
    labels = suite()
    empty = create(stub, labels={**labels, "note": ""})
    create(stub, labels={**labels, "note": "x"})
    create(stub, labels=labels)

    assert ids(list_tasks(stub, labels={**labels, "note": ""})) == [empty.task_id]


def test_state_and_label_filters_combine_with_and(stub) -> None:
    labels = suite()
    task_in(stub, State.READY, labels={**labels, "color": "blue"})
    red_ready = task_in(stub, State.READY, labels={**labels, "color": "red"})
    task_in(stub, State.RUNNING, labels={**labels, "color": "red"})
    create(stub, labels={**labels, "color": "red"})

    response = list_tasks(stub, labels={**labels, "color": "red"}, states=[PB_STATE[State.READY]])

    assert ids(response) == [red_ready.task_id]


def test_listed_tasks_carry_their_full_current_representation(stub) -> None:
    labels = suite()
    upstream = create(stub)
    task = create(
        stub,
        labels=labels,
        depends_on=[upstream.task_id],
        rerun_of=upstream.task_id,
        retry_policy=task_pb2.RetryPolicy(max_attempts=4, jitter=0.5),
    )

    [listed] = list_tasks(stub, labels=labels).tasks

    assert listed == task
    assert listed == without_wait_reason(stub.GetTask(task_service_pb2.GetTaskRequest(task_id=task.task_id)).task)


# --- order ------------------------------------------------------------------------------------


def test_tasks_are_listed_in_creation_order_not_id_order(stub) -> None:
    labels = suite()
    base = unique_id()
    created = [create(stub, task_id=f"{base}-{letter}", labels=labels) for letter in "zyxwa"]

    response = list_tasks(stub, labels=labels)

    assert ids(response) == [t.task_id for t in created]
    times = [t.create_time.ToDatetime() for t in response.tasks]
    assert times == sorted(times)


def test_transitions_do_not_change_the_listing_order(stub) -> None:
    labels = suite()
    first, second, third = (create(stub, labels=labels) for _ in range(3))
    stub.EnqueueTask(task_service_pb2.EnqueueTaskRequest(task_id=first.task_id))

    assert ids(list_tasks(stub, labels=labels)) == [first.task_id, second.task_id, third.task_id]


# --- paging -----------------------------------------------------------------------------------


def test_paging_seven_tasks_three_at_a_time_yields_each_exactly_once_in_order(stub) -> None:
    labels = suite()
    created = [create(stub, labels=labels).task_id for _ in range(7)]

    pages = all_pages(stub, 3, labels=labels)

    assert [len(page) for page in pages] == [3, 3, 1]
    assert [task_id for page in pages for task_id in page] == created


def test_a_page_that_ends_on_the_last_task_has_no_next_token(stub) -> None:
    labels = suite()
    created = [create(stub, labels=labels).task_id for _ in range(6)]

    pages = all_pages(stub, 3, labels=labels)

    assert pages == [created[:3], created[3:]]


def test_paging_with_a_state_filter_skips_other_states(stub) -> None:
    labels = suite()
    wanted = []
    for _ in range(5):
        wanted.append(task_in(stub, State.READY, labels=labels).task_id)
        create(stub, labels=labels)

    pages = all_pages(stub, 2, labels=labels, states=[PB_STATE[State.READY]])

    assert pages == [wanted[0:2], wanted[2:4], wanted[4:]]


def test_an_empty_result_has_no_tasks_and_no_token(stub) -> None:
    response = list_tasks(stub, labels=suite())

    assert list(response.tasks) == []
    assert response.next_page_token == ""


def test_a_task_created_while_paging_appears_on_a_later_page_without_repeats(stub) -> None:
    labels = suite()
    before = [create(stub, labels=labels).task_id for _ in range(4)]
    first = list_tasks(stub, labels=labels, page_size=2)

    late = create(stub, labels=labels).task_id
    rest = all_pages(stub, 2, labels=labels)  # fresh listing, for comparison
    second = list_tasks(stub, labels=labels, page_size=2, page_token=first.next_page_token)
    third = list_tasks(stub, labels=labels, page_size=2, page_token=second.next_page_token)

    assert ids(first) == before[:2]
    assert ids(second) == before[2:]
    assert ids(third) == [late]
    assert third.next_page_token == ""
    assert [t for page in rest for t in page] == before + [late]


def test_a_page_token_can_be_used_again_with_the_same_result(stub) -> None:
    labels = suite()
    for _ in range(3):
        create(stub, labels=labels)
    token = list_tasks(stub, labels=labels, page_size=1).next_page_token

    assert list_tasks(stub, labels=labels, page_size=1, page_token=token) == list_tasks(
        stub, labels=labels, page_size=1, page_token=token
    )


def test_the_page_size_may_change_between_pages(stub) -> None:
    labels = suite()
    created = [create(stub, labels=labels).task_id for _ in range(5)]
    first = list_tasks(stub, labels=labels, page_size=1)

    second = list_tasks(stub, labels=labels, page_size=10, page_token=first.next_page_token)

    assert ids(first) == created[:1]
    assert ids(second) == created[1:]
    assert second.next_page_token == ""


def test_page_size_zero_means_fifty(stub) -> None:
    labels = suite()
    created = [create(stub, labels=labels).task_id for _ in range(51)]

    first = list_tasks(stub, labels=labels, page_size=0)
    second = list_tasks(stub, labels=labels, page_token=first.next_page_token)

    assert ids(first) == created[:50]
    assert first.next_page_token != ""
    assert ids(second) == created[50:]
    assert second.next_page_token == ""


def test_a_page_size_above_the_maximum_is_accepted(stub) -> None:
    labels = suite()
    created = [create(stub, labels=labels).task_id for _ in range(3)]

    response = list_tasks(stub, labels=labels, page_size=5000)

    assert ids(response) == created
    assert response.next_page_token == ""


def test_the_largest_int32_page_size_is_accepted(stub) -> None:
    labels = suite()
    task = create(stub, labels=labels)

    assert ids(list_tasks(stub, labels=labels, page_size=2**31 - 1)) == [task.task_id]


def test_a_negative_page_size_is_refused(stub) -> None:
    failure = failure_of(lambda: list_tasks(stub, page_size=-1))

    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.error_info.reason == "INVALID_REQUEST"
    assert failure.violated_fields == ["page_size"]


# --- page tokens are bound to their filters ----------------------------------------------------


@pytest.mark.parametrize(
    "other_filters",
    [
        lambda labels: {"labels": {"suite": unique_id("s")}},
        lambda labels: {"labels": {**labels, "color": "red"}},
        lambda labels: {"labels": labels, "states": [task_pb2.TASK_STATE_CREATED]},
        lambda labels: {},
    ],
    ids=["other-label-value", "extra-label", "added-state-filter", "no-filter"],
)
def test_a_page_token_is_refused_under_different_filters(stub, other_filters) -> None:
    labels = suite()
    for _ in range(3):
        create(stub, labels=labels)
    token = list_tasks(stub, labels=labels, page_size=1).next_page_token
    assert token

    failure = failure_of(lambda: list_tasks(stub, page_size=1, page_token=token, **other_filters(labels)))

    assert_invalid_page_token(failure)


def test_a_page_token_from_a_state_filter_is_refused_for_other_states(stub) -> None:
    labels = suite()
    for _ in range(3):
        create(stub, labels=labels)
    filters = {"labels": labels, "states": [task_pb2.TASK_STATE_CREATED]}
    token = list_tasks(stub, page_size=1, **filters).next_page_token
    assert token

    failure = failure_of(
        lambda: list_tasks(
            stub, labels=labels, page_size=1, page_token=token,
            states=[task_pb2.TASK_STATE_CREATED, task_pb2.TASK_STATE_READY],
        )
    )

    assert_invalid_page_token(failure)


def test_the_order_of_the_state_filter_does_not_change_its_tokens(stub) -> None:
    labels = suite()
    created = [create(stub, labels=labels).task_id for _ in range(3)]
    token = list_tasks(
        stub, labels=labels, page_size=1, states=[task_pb2.TASK_STATE_CREATED, task_pb2.TASK_STATE_READY]
    ).next_page_token

    response = list_tasks(
        stub, labels=labels, page_size=5, page_token=token,
        states=[task_pb2.TASK_STATE_READY, task_pb2.TASK_STATE_CREATED],
    )

    assert ids(response) == created[1:]


def test_a_page_token_of_list_task_events_is_refused_by_list_tasks(stub) -> None:
    task = task_in(stub, State.RUNNING)
    token = stub.ListTaskEvents(
        task_service_pb2.ListTaskEventsRequest(task_id=task.task_id, page_size=1)
    ).next_page_token
    assert token

    assert_invalid_page_token(failure_of(lambda: list_tasks(stub, page_token=token)))


@pytest.mark.parametrize(
    "token",
    ["garbage", "!!!", "é", "e30", base64.urlsafe_b64encode(b"[1,2]").decode(), "a" * 1000],
    ids=["word", "not-base64", "non-ascii", "empty-json-object", "json-list", "long"],
)
def test_a_garbage_page_token_is_refused(stub, token) -> None:
    assert_invalid_page_token(failure_of(lambda: list_tasks(stub, page_token=token)))


def tampered(token: str, change) -> str:
    """`token` with its decoded body changed by `change`; a client must not, but may, do this."""
    body = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    change(body)
    return base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "change",
    [
        lambda body: body["p"].__setitem__(1, "a\x00b"),
        lambda body: body["p"].__setitem__(0, "not a time"),
        lambda body: body.__setitem__("p", []),
        lambda body: body.__setitem__("p", None),
    ],
    ids=["nul-in-id", "bad-time", "empty-position", "null-position"],
)
def test_a_tampered_page_token_is_refused_as_invalid_page_token(stub, change) -> None:
    labels = suite()
    for _ in range(2):
        create(stub, labels=labels)
    token = list_tasks(stub, labels=labels, page_size=1).next_page_token

    failure = failure_of(lambda: list_tasks(stub, labels=labels, page_size=1, page_token=tampered(token, change)))

    assert_invalid_page_token(failure)

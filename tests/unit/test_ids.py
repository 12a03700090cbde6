from __future__ import annotations

import uuid

import pytest

from tasklife_server.domain.ids import is_valid_task_id, new_task_id


def test_a_generated_id_is_a_version_7_uuid() -> None:
    value = uuid.UUID(new_task_id())
    assert value.version == 7
    assert value.variant == uuid.RFC_4122


def test_generated_ids_are_valid_task_ids() -> None:
    assert is_valid_task_id(new_task_id())


@pytest.mark.parametrize("value", ["a", "nightly-etl:2026-12-01", "A.b_c", "9" * 128])
def test_accepted_task_ids(value: str) -> None:
    assert is_valid_task_id(value)


@pytest.mark.parametrize("value", ["", "-a", ".a", "a b", "a/b", "é", "9" * 129, "a\x00"])
def test_refused_task_ids(value: str) -> None:
    assert not is_valid_task_id(value)


def test_ids_made_in_one_process_strictly_increase_even_within_a_millisecond() -> None:
    ids = [new_task_id() for _ in range(10_000)]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    assert all(uuid.UUID(i).version == 7 for i in ids)

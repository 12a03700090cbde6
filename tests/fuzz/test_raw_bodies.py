"""Raw request bodies on every method of tasklife.v1.TaskService (the watch stream included)
and of tasklife.v1.EventSinkService: random bytes, protobuf-shaped noise, truncated encodings
of valid requests and known bad bodies. A body that is not valid protobuf is INVALID_ARGUMENT /
MALFORMED_REQUEST; any other body gets a success or a clear, detailed refusal; a refusal writes
nothing; and the server keeps serving.

The oracle of "valid protobuf" is the protobuf runtime itself (the one the server decodes
with): `FromString` accepts the body or raises DecodeError.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from hypothesis import given, note
from hypothesis.control import currently_in_test_context
from hypothesis import strategies as st

from tests.fuzz.harness import (
    EVERY_METHOD,
    assert_clear,
    assert_malformed,
    assert_serving_and_whole,
    caller_writes,
    fuzz_settings,
    method_named,
    parses,
    send,
)
from tests.fuzz.wire import END_GROUP, START_GROUP, messages, tag, varint

# Hypothesis warns when it renders the repr of a large strategy, and the message strategy of
# a batch request (nine nested request types) is one; the repr is only used for reporting.
pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

GROUP = "raw-bodies"
KNOWN_BAD = {
    "0a": bytes.fromhex("0a"),  # field 1, length-delimited, and then nothing: no length
    "0c": bytes.fromhex("0c"),  # field 1, end-group, with no group open
    "0a026f6b80": bytes.fromhex("0a026f6b80"),  # field 1 = "ok", then a varint cut short
}
WITH_FIELDS = [m for m in EVERY_METHOD if m.input_type.fields]


def by_name(method: Any) -> str:
    return method.name


def exchange(channel: grpc.Channel, db: Any, method: Any, body: bytes) -> None:
    """Sends `body`; checks the answer against the protobuf oracle, and that a refusal wrote
    nothing."""
    valid = parses(method, body)
    shown = body.hex() if len(body) <= 512 else body[:512].hex() + "..."
    context = f"{method.name} body={shown} ({len(body)} bytes, valid protobuf: {valid})"
    if currently_in_test_context():
        note(context)
    before = caller_writes(db)
    outcome = send(channel, method, body, group=GROUP)
    if valid:
        assert_clear(outcome, context)
    else:
        assert_malformed(outcome, method, context)
    if outcome.code != grpc.StatusCode.OK:
        assert caller_writes(db) == before, f"{context}\na refused call wrote: {outcome.describe()}"


@pytest.mark.parametrize("name", KNOWN_BAD)
@pytest.mark.parametrize("method", EVERY_METHOD, ids=by_name)
def test_a_known_malformed_body_is_invalid_argument_malformed_request_on_every_method(
    channel: grpc.Channel, db: Any, method: Any, name: str
) -> None:
    body = KNOWN_BAD[name]
    assert not parses(method, body), "the protobuf runtime accepts this body: the case means nothing"
    before = caller_writes(db)

    outcome = send(channel, method, body, group=GROUP)

    assert_malformed(outcome, method, f"{method.name} body={name}")
    assert caller_writes(db) == before


@pytest.mark.parametrize("method", EVERY_METHOD, ids=by_name)
@fuzz_settings(40)
@given(body=st.binary(max_size=96))
def test_random_bytes_get_malformed_request_or_a_clear_answer_on_every_method(
    channel: grpc.Channel, db: Any, method: Any, body: bytes
) -> None:
    exchange(channel, db, method, body)


def _chunk() -> st.SearchStrategy[bytes]:
    """One wire-format item with any field number and wire type, well-formed or not."""
    number = st.one_of(st.integers(1, 12), st.sampled_from([0, 15, 16, 2047, 2**29 - 1, 2**29, 2**32]))
    wire_type = st.integers(0, 7)
    payload = st.one_of(
        st.integers(-(2**63), 2**64 - 1).map(varint),
        st.binary(min_size=0, max_size=12).map(lambda b: varint(len(b)) + b),
        st.binary(min_size=0, max_size=12).map(lambda b: varint(len(b) + 5) + b),  # length overruns
        st.binary(max_size=8),
        st.just(b""),
    )
    return st.builds(lambda n, w, p: varint(n << 3 | w) + p, number, wire_type, payload)


@pytest.mark.parametrize("method", EVERY_METHOD, ids=by_name)
@fuzz_settings(40)
@given(chunks=st.lists(_chunk(), min_size=1, max_size=6))
def test_protobuf_shaped_noise_gets_malformed_request_or_a_clear_answer_on_every_method(
    channel: grpc.Channel, db: Any, method: Any, chunks: list[bytes]
) -> None:
    """Tags with wrong wire types, unknown and out-of-range field numbers, lengths running
    past the end, stray end-groups: parsed as unknown fields or refused, never a crash."""
    exchange(channel, db, method, b"".join(chunks))


@pytest.mark.parametrize("method", WITH_FIELDS, ids=by_name)
@fuzz_settings(30)
@given(data=st.data())
def test_a_truncated_encoding_of_a_valid_request_gets_malformed_request_or_a_clear_answer(
    channel: grpc.Channel, db: Any, method: Any, data: st.DataObject
) -> None:
    request = data.draw(messages(method.input_type).filter(lambda m: m.ByteSize() >= 2), label="request")
    full = request.SerializeToString()
    cut = data.draw(st.integers(1, len(full) - 1), label="cut")
    exchange(channel, db, method, full[:cut])


@pytest.mark.parametrize("depth", [50, 99, 100, 101, 5000])
@pytest.mark.parametrize("method", ["CreateTask", "WatchTaskEvents", "GetStateMachine"])
def test_deeply_nested_unknown_groups_get_malformed_request_or_a_clear_answer(
    channel: grpc.Channel, db: Any, method: str, depth: int
) -> None:
    """Unknown field 99 as a group nested `depth` deep: the decoder's recursion limit, not the
    server, decides; either way the answer is clear."""
    body = tag(99, START_GROUP) * depth + tag(99, END_GROUP) * depth
    exchange(channel, db, method_named(method), body)


def test_a_request_over_the_4_mib_limit_is_resource_exhausted_and_writes_nothing(
    channel: grpc.Channel, db: Any
) -> None:
    """gRPC itself refuses it, without details (docs/reference/limits.md)."""
    body = b"\x32" + varint(4 * 1024 * 1024 + 1) + b"x" * (4 * 1024 * 1024 + 1)  # CreateTask reason
    before = caller_writes(db)

    outcome = send(channel, method_named("CreateTask"), body, group=GROUP)

    assert outcome.code == grpc.StatusCode.RESOURCE_EXHAUSTED, outcome.describe()
    assert caller_writes(db) == before


def test_after_raw_bodies_the_server_is_serving_and_every_history_is_whole(
    server: Any, channel: grpc.Channel, db: Any
) -> None:
    assert_serving_and_whole(server, channel, db, GROUP)

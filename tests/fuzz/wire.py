"""Protobuf wire encoding by hand, for bodies the protobuf runtime refuses to produce (invalid
UTF-8 in a string field, wrong wire types, unterminated groups), and Hypothesis strategies
that build requests of any TaskService method from its descriptor with hostile values.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.duration_pb2 import Duration
from google.protobuf.message import Message
from hypothesis import strategies as st

VARINT, FIXED64, LENGTH_DELIMITED, START_GROUP, END_GROUP, FIXED32 = 0, 1, 2, 3, 4, 5

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)
MIB = 1 << 20


def varint(value: int) -> bytes:
    """Base-128 varint; negative numbers as their 64-bit two's complement (10 bytes)."""
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def length_delimited(number: int, payload: bytes) -> bytes:
    return tag(number, LENGTH_DELIMITED) + varint(len(payload)) + payload


def map_entry(number: int, key: bytes, value: bytes) -> bytes:
    """One entry of a map<string, string> field, key and value given as raw bytes."""
    return length_delimited(number, length_delimited(1, key) + length_delimited(2, value))


# Byte strings that are not UTF-8: a lone continuation byte, a cut two-byte sequence, an
# encoded surrogate, a code point above U+10FFFF, an overlong '/', and a bad tail.
INVALID_UTF8 = [b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf", b"ok\x80"]


def string_fields(descriptor: Descriptor) -> list[tuple[str, FieldDescriptor, str]]:
    """(path, field, kind) of every string a request carries: kind is "scalar", "repeated",
    "map-key" or "map-value". Strings of nested messages are listed too (none today)."""
    found = []
    for f in descriptor.fields:
        if f.type == FieldDescriptor.TYPE_STRING:
            found.append((f.name, f, "repeated" if f.is_repeated else "scalar"))
        elif f.type == FieldDescriptor.TYPE_MESSAGE and f.message_type.GetOptions().map_entry:
            key, value = f.message_type.fields_by_name["key"], f.message_type.fields_by_name["value"]
            if key.type == FieldDescriptor.TYPE_STRING:
                found.append((f"{f.name}.key", f, "map-key"))
            if value.type == FieldDescriptor.TYPE_STRING:
                found.append((f"{f.name}.value", f, "map-value"))
        elif f.type == FieldDescriptor.TYPE_MESSAGE:
            found.extend((f"{f.name}.{path}", inner, kind) for path, inner, kind in string_fields(f.message_type))
    return found


def with_string(field: FieldDescriptor, kind: str, raw: bytes) -> bytes:
    """The encoding of `field` holding the raw bytes `raw` (top-level fields only)."""
    if kind == "map-key":
        return map_entry(field.number, raw, b"v")
    if kind == "map-value":
        return map_entry(field.number, b"k", raw)
    return length_delimited(field.number, raw)


# --- hostile values by type ---------------------------------------------------------------

# (text, times): a string of the text repeated, kept as a pair so that Hypothesis never has
# to print a megabyte while describing its strategies.
HOSTILE_STRINGS = [
    ("", 1),
    ("\x00", 1),
    ("a\x00b", 1),
    ("ok", 1),
    (" lead", 1),
    ("trail ", 1),
    ("tab\there", 1),
    ("line\nbreak", 1),
    ("system:retention", 1),
    ("x", 63),
    ("x", 64),
    ("x", 128),
    ("x", 129),
    ("x", 255),
    ("x", 256),
    ("x", 4096),
    ("x", 4097),
    ("\u00e9", 2048),
    ("\u00e9", 2049),
    ("\U0001f600", 1025),
    ("\u202eevil", 1),
    ("\ufeffbom", 1),
    ("\uffff", 1),
    ("\u0085", 1),
    ("\u00a0", 1),
    ("-lead", 1),
    ("a/b", 1),
    ("a:b", 1),
    ("..", 1),
    ("'; DROP TABLE tasks; --", 1),
    ("%s%n%x", 1),
    ("${jndi:x}", 1),
    ("\\", 1),
    ('{"p":[]}', 1),
    ("c1_", 1),
    ("c1_AAAAAAAAAAAAAAAAAAAAAA", 1),
    ("c2_", 1),
    ("c2_AAAAAAAAAAAAAAAAAAAAAAAAAAA", 1),
    ("application/json", 1),
    ("text/plain; charset=utf-8", 1),
    ("text/plain; charset=\"utf-8\"", 1),
    ("a/" + "b" * 253, 1),
    ("LEASE_EXPIRED", 1),
    ("E" * 128, 1),
    ("y", MIB),
]


def repeated(pairs: list[tuple[str, int]]) -> st.SearchStrategy[str]:
    return st.sampled_from(pairs).map(lambda pair: pair[0] * pair[1])

INT_EDGES = [0, 1, -1, 2, 100, 999, 1000, 1001, 2**31 - 1, -(2**31), 2**31, 2**32, 2**53 + 1, 2**63 - 1, -(2**63)]
FLOAT_EDGES = [
    0.0, -0.0, 0.5, 0.999999, 1.0, 1.0000001, 2.0, 99.9999, 100.0, 100.0000001, 1000.0,
    1e308, -1e308, 5e-324, -1.0, float("nan"), float("inf"), float("-inf"),
]
ENUM_EDGES = [-(2**31), -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 42, 2**31 - 1]


def ints(bits: int) -> st.SearchStrategy[int]:
    low, high = INT32 if bits == 32 else INT64
    return st.one_of(st.sampled_from([v for v in INT_EDGES if low <= v <= high]), st.integers(low, high))


def floats() -> st.SearchStrategy[float]:
    return st.one_of(st.sampled_from(FLOAT_EDGES), st.floats(allow_nan=True, allow_infinity=True))


def durations() -> st.SearchStrategy[Duration]:
    """Any Duration the wire can carry, well-formed or not (nanos out of range, mixed signs)."""
    seconds = st.one_of(
        st.sampled_from([0, 1, -1, 86_400, 86_401, 3_600, 315_576_000_000, 315_576_000_001, *INT64]),
        st.integers(*INT64),
    )
    nanos = st.one_of(
        st.sampled_from([0, 1, -1, 50_000_000, 100_000_000, 999_999_999, 1_000_000_000, *INT32]),
        st.integers(*INT32),
    )
    return st.builds(Duration, seconds=seconds, nanos=nanos)


# Sizes around the payload limits (docs/reference/limits.md): failure details 64 KiB, input
# and result 256 KiB.
BYTES_SIZES = [0, 1, 64 * 1024, 64 * 1024 + 1, 256 * 1024, 256 * 1024 + 1]


def hostile_bytes() -> st.SearchStrategy[bytes]:
    return st.one_of(st.sampled_from(BYTES_SIZES).map(lambda n: b"\x00\xff" * (n // 2) + b"\x80" * (n % 2)),
                     st.binary(max_size=40))


def hostile_strings(known: list[str] | None = None) -> st.SearchStrategy[str]:
    options = [repeated(HOSTILE_STRINGS), st.text(max_size=40)]
    if known:
        options.append(st.sampled_from(known))
    return st.one_of(*options)


def _value(f: FieldDescriptor, strings: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    t = f.type
    if t == FieldDescriptor.TYPE_STRING:
        return strings
    if t == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if t in (FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SFIXED32):
        return ints(32)
    if t in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_SFIXED64):
        return ints(64)
    if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return floats()
    if t == FieldDescriptor.TYPE_ENUM:
        return st.sampled_from(ENUM_EDGES)
    if t == FieldDescriptor.TYPE_BYTES:
        return hostile_bytes()
    if t == FieldDescriptor.TYPE_MESSAGE:
        return messages(f.message_type, strings)
    raise AssertionError(f"no strategy for field {f.full_name} of type {t}")


def _field(f: FieldDescriptor, strings: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    if f.type == FieldDescriptor.TYPE_MESSAGE and f.message_type.GetOptions().map_entry:
        key, value = f.message_type.fields_by_name["key"], f.message_type.fields_by_name["value"]
        return st.dictionaries(_value(key, strings), _value(value, strings), max_size=6)
    if f.is_repeated:
        return st.lists(_value(f, strings), max_size=6)
    return _value(f, strings)


def messages(descriptor: Descriptor, strings: st.SearchStrategy[str] | None = None) -> st.SearchStrategy[Message]:
    """Messages of `descriptor` with any subset of fields set to hostile values of their type."""
    if descriptor.full_name == "google.protobuf.Duration":
        return durations()
    strings = strings if strings is not None else hostile_strings()
    cls = message_factory.GetMessageClass(descriptor)
    # A oneof's members are exclusive (a batch item is one transition): at most one is drawn.
    exclusive = [o for o in descriptor.oneofs if not _synthetic(o)]
    members = {f.name for o in exclusive for f in o.fields}
    optional = {f.name: _field(f, strings) for f in descriptor.fields if f.name not in members}
    choices = [
        st.one_of(st.just({}), *(_field(f, strings).map(lambda value, name=f.name: {name: value}) for f in o.fields))
        for o in exclusive
    ]
    return st.tuples(st.fixed_dictionaries({}, optional=optional), *choices).map(
        lambda parts: cls(**{k: v for part in parts for k, v in part.items()})
    )


def _synthetic(oneof: Any) -> bool:
    """The oneof protoc makes for a proto3 `optional` field: not a real choice."""
    return len(oneof.fields) == 1 and oneof.name == f"_{oneof.fields[0].name}"


def requests(method: MethodDescriptor, known_ids: list[str] | None = None) -> st.SearchStrategy[Message]:
    """Requests of `method` with hostile values, strings sometimes naming real tasks."""
    return messages(method.input_type, hostile_strings(known_ids))

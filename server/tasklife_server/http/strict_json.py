"""Strict protobuf JSON: a request that names a field or an enum value the message does not
have is refused, naming it, instead of being read without it.

Dropping what it does not know (as protobuf's `ignore_unknown_fields` and connect-go do) turns
a typo in a filter into no filter: `{"states": ["failed"]}` (the enum value is
`TASK_STATE_FAILED`) would list, and a script would then act on, every task. grpcurl refuses
such input; so does this listener. The walk below finds every such problem with its path
(`states[0]`, `retryPolicy.jitterr`), so that one answer lists them all.
"""

from __future__ import annotations

from typing import Any, Iterator

from google.protobuf.descriptor import Descriptor, FieldDescriptor

# Well-known types have JSON forms of their own (a Timestamp is a string, a Struct any
# object): protobuf's parser checks those itself.
_OPAQUE_PREFIX = "google.protobuf."


def unknown_names(value: Any, descriptor: Descriptor, path: str = "") -> Iterator[tuple[str, str]]:
    """(field path, what is wrong) for every unknown field name and unknown enum value name in
    `value`, the JSON object of a message of `descriptor`. Values of the wrong JSON type are
    left to protobuf's parser, which refuses them."""
    if not isinstance(value, dict) or descriptor.full_name.startswith(_OPAQUE_PREFIX):
        return
    fields = {f.json_name: f for f in descriptor.fields}
    fields.update({f.name: f for f in descriptor.fields})
    for key, item in value.items():
        where = _joined(path, key)
        field = fields.get(key)
        if field is None:
            known = ", ".join(f.json_name for f in descriptor.fields)
            yield where, f"is not a field of {descriptor.full_name} (its fields: {known})"
        elif item is not None:
            yield from _field_value(item, field, where)


def _field_value(value: Any, field: FieldDescriptor, path: str) -> Iterator[tuple[str, str]]:
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        value_field = field.message_type.fields_by_name["value"]
        if isinstance(value, dict):
            for key, item in value.items():
                if item is not None:
                    yield from _single(item, value_field, f"{path}[{key!r}]")
        return
    if field.is_repeated:
        if isinstance(value, list):
            for index, item in enumerate(value):
                yield from _single(item, field, f"{path}[{index}]")
        return
    yield from _single(value, field, path)


def _single(value: Any, field: FieldDescriptor, path: str) -> Iterator[tuple[str, str]]:
    if field.enum_type is not None and isinstance(value, str) and value not in field.enum_type.values_by_name:
        names = ", ".join(v.name for v in field.enum_type.values)
        yield path, f"{value[:64]!r} is not a value of {field.enum_type.full_name} (its values: {names})"
    elif field.message_type is not None:
        yield from unknown_names(value, field.message_type, path)


def _joined(path: str, key: str) -> str:
    shown = key if len(key) <= 64 else key[:64] + "..."
    return f"{path}.{shown}" if path else shown

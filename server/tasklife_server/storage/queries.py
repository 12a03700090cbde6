"""Loads queries.sql once into named statements."""

from __future__ import annotations

import re
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

_HEADER = re.compile(r"^-- name: (\w+)\s*$", re.MULTILINE)


def load(path: Path = Path(__file__).with_name("queries.sql")) -> Mapping[str, str]:
    parts = _HEADER.split(path.read_text())
    # parts = [preamble, name1, body1, name2, body2, ...]
    named = {name: body.strip().rstrip(";") for name, body in zip(parts[1::2], parts[2::2])}
    return MappingProxyType(named)


QUERIES = load()

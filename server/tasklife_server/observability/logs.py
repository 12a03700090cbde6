"""Root logging: JSON lines or text on stderr, every line of an RPC carrying its request id."""

from __future__ import annotations

import logging
import sys
from datetime import datetime, timezone
from typing import Any, TextIO

from pythonjsonlogger.json import JsonFormatter

from tasklife_server.observability import request_ids

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class RequestIdFilter(logging.Filter):
    """Adds `request_id` to records written while an RPC is handled (unless already given)."""

    def filter(self, record: logging.LogRecord) -> bool:
        request_id = request_ids.current.get()
        if request_id is not None and not hasattr(record, "request_id"):
            record.request_id = request_id
        return True


class JsonLineFormatter(JsonFormatter):
    """One JSON object per line: time, level, logger, message, then any extra fields."""

    def __init__(self) -> None:
        super().__init__("{levelname}{name}{message}", style="{", rename_fields={"levelname": "level", "name": "logger"})

    def add_fields(self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]) -> None:
        moment = datetime.fromtimestamp(record.created, timezone.utc)
        log_data["time"] = moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        super().add_fields(log_data, record, message_dict)


class TextFormatter(logging.Formatter):
    """The classic one-line format, with ` request_id=...` at the end of an RPC's lines."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        line = super().formatMessage(record)
        request_id = getattr(record, "request_id", None)
        return f"{line} request_id={request_id}" if request_id else line


def uses_json(log_format: str, stream: TextIO) -> bool:
    """"auto" means text on a terminal and JSON lines otherwise (a file, a pipe, a collector)."""
    if log_format == "auto":
        return not stream.isatty()
    return log_format == "json"


def configure(log_format: str, level: str, stream: TextIO | None = None) -> None:
    """Replaces the root logger's handlers with one writing `log_format` ("auto", "json", "text")."""
    stream = stream or sys.stderr
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonLineFormatter() if uses_json(log_format, stream) else TextFormatter())
    handler.addFilter(RequestIdFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # Alembic announces each of its plugins and each migration step at INFO: migrate.py says
    # in one line what was applied instead.
    logging.getLogger("alembic").setLevel(max(logging.WARNING, root.level))

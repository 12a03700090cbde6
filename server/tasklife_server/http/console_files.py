"""The console's files (built from console/ by `make console`, committed in http/console/)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

CONSOLE_DIR = Path(__file__).resolve().parent / "console"
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
# The console talks only to this origin and runs only its own script.
_SECURITY_HEADERS = [
    (b"content-security-policy",
     b"default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
     b"frame-ancestors 'none'; base-uri 'none'; form-action 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-cache"),
]


class ConsoleFiles:
    """Read once at start-up: the console is a handful of small files."""

    def __init__(self, directory: Path = CONSOLE_DIR):
        self._files: dict[str, tuple[bytes, str]] = {}
        for path in sorted(directory.iterdir()) if directory.is_dir() else ():
            if path.suffix in _TYPES:
                self._files[f"/{path.name}"] = (path.read_bytes(), _TYPES[path.suffix])
        if "/index.html" in self._files:
            self._files["/"] = self._files["/index.html"]

    async def serve(self, path: str, head_only: bool, send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        found = self._files.get(path)
        if found is None:
            body, content_type, status = b"not found\n", "text/plain; charset=utf-8", 404
        else:
            (body, content_type), status = found, 200
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode()), *_SECURITY_HEADERS]})
        await send({"type": "http.response.body", "body": b"" if head_only else body})

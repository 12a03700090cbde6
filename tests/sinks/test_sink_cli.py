"""`tasklife sinks ...` against a real server and a real webhook receiver."""

from __future__ import annotations

import json
from typing import Any

from tests.cli.test_cli import tasklife
from tests.conftest import ServerProcess
from tests.sinks.receiver import SECRET, WebhookReceiver
from tests.sinks.test_webhook_sinks import run_tasks
from tests.support import unique_id, wait_for


def test_the_sinks_commands_create_show_pause_resume_rewind_and_delete_a_webhook_sink(
    sink_server: ServerProcess, tasks: Any, receiver: WebhookReceiver
) -> None:
    def cli(*args: str) -> Any:
        return tasklife("--address", sink_server.address, *args)

    label, sink_id = unique_id("l"), unique_id("cli")
    created = cli("sinks", "create", "--id", sink_id, "--webhook-url", receiver.url, "--webhook-secret", SECRET,
                  "--label", f"sinktest={label}", "--json")
    assert created.code == 0, created.err
    assert json.loads(created.out)["sink_id"] == sink_id
    assert SECRET not in created.out
    try:
        run_tasks(tasks, label, 1)
        wait_for(lambda: len(receiver.received) == 3, 20, "3 deliveries")
        paused = cli("sinks", "pause", sink_id)
        assert paused.code == 0 and "paused" in paused.out
        listed = cli("sinks")
        assert listed.code == 0
        row = next(line for line in listed.out.splitlines() if line.startswith(sink_id))
        assert "paused" in row and receiver.url in row
        assert cli("sinks", "resume", sink_id).code == 0
        rewound = cli("sinks", "rewind", sink_id, "--from-beginning")
        assert rewound.code == 0, rewound.err
        wait_for(lambda: len(receiver.received) >= 6, 30, "the 3 events again")
        assert sorted(receiver.ids()[3:6]) == sorted(receiver.ids()[:3])
        got = cli("sinks", "get", sink_id)
        assert got.code == 0 and "active" in got.out
    finally:
        deleted = cli("sinks", "delete", sink_id)
    assert deleted.code == 0
    missing = cli("sinks", "get", sink_id)
    assert missing.code != 0 and "SINK_NOT_FOUND" in missing.err

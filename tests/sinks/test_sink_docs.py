"""The signature checks that docs/how-to/sinks.md shows, in Python and in Go, accept a request
the server signed and refuse one whose body was changed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.sinks.receiver import SECRET, WebhookReceiver
from tests.sinks.test_webhook_sinks import webhook_sink
from tests.support import create, unique_id, wait_for

HOW_TO = ROOT / "docs" / "how-to" / "sinks.md"


def snippet(language: str) -> str:
    match = re.search(rf"<!-- sink-signature: {language} -->\n```{language}\n(.*?)```", HOW_TO.read_text(), re.DOTALL)
    assert match, f"docs/how-to/sinks.md has no {language} signature check"
    return match.group(1)


@pytest.fixture
def signed_request(sinks: Any, tasks: Any, created_sinks: list[str], receiver: WebhookReceiver) -> Any:
    label = unique_id("l")
    webhook_sink(sinks, created_sinks, receiver, label)
    create(tasks, labels={"sinktest": label})
    wait_for(lambda: receiver.received, 20, "a delivery")
    return receiver.received[0]


def test_the_python_check_accepts_the_servers_signature_and_refuses_a_changed_body(signed_request: Any) -> None:
    from standardwebhooks.webhooks import WebhookVerificationError

    scope: dict[str, Any] = {}
    exec(compile(snippet("python"), str(HOW_TO), "exec"), scope)  # noqa: S102 - the documented code itself
    verified = scope["verified_event"](SECRET, signed_request.body, signed_request.headers)
    assert verified == signed_request.cloudevent
    with pytest.raises(WebhookVerificationError):
        scope["verified_event"](SECRET, signed_request.body + b" ", signed_request.headers)


GO_TEST = '''package webhooks

import (
	"net/http"
	"os"
	"testing"
)

func TestTheServersSignature(t *testing.T) {
	body, _ := os.ReadFile("body")
	header := http.Header{}
	for _, name := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
		value, _ := os.ReadFile(name)
		header.Set(name, string(value))
	}
	if err := Verify(os.Getenv("SECRET"), header, body); err != nil {
		t.Fatalf("the server's signature was refused: %v", err)
	}
	if err := Verify(os.Getenv("SECRET"), header, append(body, ' ')); err == nil {
		t.Fatal("a changed body was accepted")
	}
}
'''


def test_the_go_check_accepts_the_servers_signature_and_refuses_a_changed_body(
    signed_request: Any, tmp_path: Path
) -> None:
    go = shutil.which("go")
    if go is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Go is required under CI=true")
        pytest.skip("SKIPPED LOUDLY: no go on PATH")
    (tmp_path / "go.mod").write_text("module webhooks\n\ngo 1.21\n")
    (tmp_path / "webhooks.go").write_text(snippet("go"))
    (tmp_path / "webhooks_test.go").write_text(GO_TEST)
    (tmp_path / "body").write_bytes(signed_request.body)
    for name in ("webhook-id", "webhook-timestamp", "webhook-signature"):
        (tmp_path / name).write_text(signed_request.headers[name])
    done = subprocess.run([go, "test", "./..."], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "SECRET": SECRET, "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(signed_request.body)["id"] == signed_request.headers["webhook-id"]

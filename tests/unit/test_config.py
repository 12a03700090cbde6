"""Server settings: flags win over environment variables, and bad values are usage errors."""

from __future__ import annotations

import pytest

from tasklife_server import config
from tasklife_server.domain.states import State


def test_defaults_need_no_configuration() -> None:
    settings = config.parse([], {})
    assert settings.listen == "127.0.0.1:50051"
    assert settings.database_url is None
    assert settings.pool_size == 8
    assert settings.migrate is True
    assert settings.policies.default_retry.max_attempts == 1
    assert settings.policies.retention_ms == {}
    assert settings.http.listen == "127.0.0.1:8080"
    assert settings.http.cors_origins == ()


def test_the_http_listener_is_configured_by_flag_or_environment() -> None:
    settings = config.parse([], {"TASKLIFE_HTTP_LISTEN": "", "TASKLIFE_HTTP_CORS_ORIGINS": "https://a.test, https://b.test/"})
    assert settings.http.listen == ""
    assert settings.http.cors_origins == ("https://a.test", "https://b.test")
    assert config.parse(["--http-listen", "127.0.0.1:0"], {}).http.listen == "127.0.0.1:0"


def test_environment_variables_configure_the_server() -> None:
    settings = config.parse(
        [],
        {
            "TASKLIFE_LISTEN": "0.0.0.0:7000",
            "DATABASE_URL": "postgresql://db/tasklife",
            "TASKLIFE_POOL_SIZE": "3",
            "TASKLIFE_MIGRATE": "false",
            "TASKLIFE_RETRY_MAX_ATTEMPTS": "5",
            "TASKLIFE_RETRY_INITIAL_BACKOFF": "250ms",
            "TASKLIFE_RETENTION": "succeeded=7d, failed=12h",
        },
    )
    assert (settings.listen, settings.database_url, settings.pool_size) == ("0.0.0.0:7000", "postgresql://db/tasklife", 3)
    assert settings.migrate is False
    assert settings.policies.default_retry.max_attempts == 5
    assert settings.policies.default_retry.initial_backoff_ms == 250
    assert settings.policies.retention_ms == {State.SUCCEEDED: 7 * 86_400_000, State.FAILED: 12 * 3_600_000}


def test_a_flag_wins_over_a_bad_environment_variable() -> None:
    assert config.parse(["--pool-size", "4"], {"TASKLIFE_POOL_SIZE": "0"}).pool_size == 4


@pytest.mark.parametrize(
    ("argv", "environ", "message"),
    [
        ([], {"TASKLIFE_STREAM_BUFFER": "0"}, "--stream-buffer"),
        (["--retry-jitter", "5"], {}, "between 0 and 1"),
        (["--retry-multiplier", "0.5"], {}, "between 1 and 100"),
        (["--retry-initial-backoff", "soon"], {}, "not a duration"),
        (["--retention", "running=1d"], {}, "is not one of succeeded, failed, killed"),
        (["--retry-initial-backoff", "10m", "--retry-max-backoff", "1m"], {}, "must not be below"),
        (["--http-cors-origins", "console.example.test"], {}, "is not an origin like https://console.example.com"),
    ],
)
def test_a_bad_value_is_a_usage_error_naming_the_option(
    argv: list[str], environ: dict[str, str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        config.parse(argv, environ)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("text", "millis"), [("250ms", 250), ("30s", 30_000), ("1.5s", 1500), ("5m", 300_000), ("7d", 604_800_000)])
def test_durations(text: str, millis: int) -> None:
    assert config.duration_ms(text) == millis
